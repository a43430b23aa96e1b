/**
 * A summary-like test strategy: once a history has more than `maxMessages` messages, everything but
 * the leading system messages and the newest `keepRecent` is replaced by one user message carrying
 * the summary marker. Its content lists the ids it summarised, so a test can see whether an earlier
 * summary was folded in (incremental) or the whole history was summarised again.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, type CompactionContext, type CompactionResult } from "../../src/index.js";
import { COMPACTION_METADATA_KEY, CompactionStrategy } from "../../src/extend/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";

const counter = createTokenCounter({ mode: "approximate" });

export class PrefixSummary extends CompactionStrategy {
  readonly strategyName = "prefixSummary";
  /** Every history `compact` was given, in order (copies of the arrays). */
  readonly inputs: BaseMessage[][] = [];
  /** Every context `compact` was given. */
  readonly contexts: CompactionContext[] = [];
  #summaries = 0;

  constructor(
    readonly maxMessages: number,
    readonly keepRecent: number,
  ) {
    super({ tokenCounter: counter });
  }

  override async compact(messages: readonly BaseMessage[], context?: CompactionContext): Promise<CompactionResult> {
    this.inputs.push([...messages]);
    this.contexts.push(context ?? {});
    return super.compact(messages, context);
  }

  protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
    if (messages.length <= this.maxMessages) return { status: "noop", reason: "short enough" };
    let head = 0;
    while (head < messages.length && messages[head]!.type === "system") head++;
    const cut = messages.length - this.keepRecent;
    const summarised = messages.slice(head, cut);
    const summary = new HumanMessage({
      id: `summary-${++this.#summaries}`,
      content: `summary of ${summarised.map((message) => message.id).join(",")}`,
      response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: this.strategyName, summary: true } },
    });
    return {
      status: "compacted",
      messages: [...messages.slice(0, head), summary, ...messages.slice(cut)],
      removed: summarised.map((message, offset) => ({ index: head + offset, message })),
    };
  }
}

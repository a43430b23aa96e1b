import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { safeCutPoints, type RemovedMessage } from "../../../src/index.js";
import { COMPACTION_METADATA_KEY, CompactionStrategy } from "../../../src/extend/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../../src/strategies/compaction-strategy.js";

/**
 * A summary-like test strategy (no model): when the history has more than `maxMessages` messages,
 * everything after the leading system messages up to a safe cut `keepRecent` messages from the end
 * is replaced by one HumanMessage carrying the summary marker. It gives the summary no id, as a
 * summarizer may, so the adapters must give it the id of the first message it replaces.
 */
export class SummarizePrefix extends CompactionStrategy {
  readonly strategyName = "summarizePrefix";

  constructor(
    readonly maxMessages: number,
    readonly keepRecent: number,
  ) {
    super({});
  }

  protected async run({ messages, index }: PreparedHistory): Promise<StrategyOutcome> {
    if (messages.length <= this.maxMessages) return { status: "noop", reason: "short enough" };
    let lead = 0;
    while (lead < messages.length && messages[lead]!.type === "system") lead++;
    const safe = safeCutPoints(messages, index);
    let cut = messages.length - this.keepRecent;
    while (cut > lead && safe[cut] !== 1) cut--;
    if (cut - lead < 2) return { status: "noop", reason: "nothing to summarize" };
    const summarized = messages.slice(lead, cut);
    const summary = new HumanMessage({
      content: `Summary of ${summarized.map((message) => message.id).join(", ")}`,
      response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: this.strategyName, summary: true } },
    });
    const removed: RemovedMessage[] = summarized.map((message, offset) => ({ index: lead + offset, message }));
    const output: BaseMessage[] = [...messages.slice(0, lead), summary, ...messages.slice(cut)];
    return { status: "compacted", messages: output, removed };
  }
}

import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { safeCutPoints, userTurnStarts } from "../messages/tool-call-groups.js";
import { parseOptions } from "../options.js";
import type { PreparedHistory, StrategyOutcome } from "../strategies/compaction-strategy.js";
import { evaluateTrigger, triggerSchema, underTriggerReason, windowForSizes, type ContextSize, type TriggerSize, messageCountOf } from "../strategies/context-size.js";
import type { CompactionContext } from "../types.js";
import { fenceData, fenceTags, fillPrompt } from "./data-fence.js";
import { fillTemplate, formatHistory } from "./format-history.js";
import { historyValues, summaryPromptSchema } from "./prompt-placeholders.js";
import { NO_PREVIOUS_SNAPSHOT, PREVIOUS_SNAPSHOT_TEMPLATE, SHARED_PREFIX_SNAPSHOT_INSTRUCTION, STATE_SNAPSHOT_PROMPT, VERIFY_SNAPSHOT_PROMPT } from "./prompts.js";
import { SummaryCallError, type SummaryChatModel } from "./summary-model.js";
import { extractBlock } from "./summary-text.js";
import { SummaryStrategy, summaryOptionsShape, type SummaryInput, type SummaryStrategyOptions } from "./summary-strategy.js";

export interface StateSnapshotSummaryOptions extends SummaryStrategyOptions {
  /** Share of the conversation (by tokens, system messages aside) kept as it is: the newest part. @default 0.3 */
  preserveFraction?: number;
  /** When to compact, unless run with `force`. @default { fraction: 0.5 } */
  trigger?: TriggerSize | TriggerSize[];
  /**
   * The model's context window in tokens, for fraction triggers, and the size a shared-prefix summary
   * request (see `summaryRequest`) must fit. @default the model's profile, else LangChain's table for its name
   */
  contextWindow?: number;
  /** A second model pass that checks the snapshot against the history and corrects omissions; always a standalone request. @default false */
  verify?: boolean;
  /**
   * The prompt of the standalone request (see `summaryRequest`), with `{history}` (or `{messages}`,
   * LangChain's name for it) and `{previous_snapshot}` placeholders; a prompt with neither
   * `{history}` nor `{messages}` is rejected (`InvalidOptionError`). The history and the earlier snapshot are fenced (see `fillPrompt`): no text in them can close a tag put directly around a
   * placeholder, nor the package's own data tags. @default STATE_SNAPSHOT_PROMPT
   */
  prompt?: string;
}

const optionsSchema = z
  .object({
    ...summaryOptionsShape,
    preserveFraction: z.number().gt(0).lt(1).optional(),
    trigger: triggerSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    verify: z.boolean().optional(),
    prompt: summaryPromptSchema.optional(),
  })
  .strict();

/**
 * Summary compression (as in Gemini CLI's chat compression): when the history reaches the
 * trigger, the oldest ~70% of the conversation (by tokens) is replaced by a `<state_snapshot>` and the
 * newest ~30% is kept. The cut moves to the nearest user-turn start; when no user turn is near (a long
 * tool loop after one request), to the nearest boundary between tool-call groups. An earlier snapshot
 * is integrated (anchored iterative summarisation). Without a model, the deterministic
 * no-model summarizer writes the snapshot.
 *
 * A result that is not smaller than the input, an empty summary, an error or a timeout is `failed`
 * and changes nothing.
 * @see stateSnapshotSummary
 */
export class StateSnapshotSummary extends SummaryStrategy {
  readonly strategyName = "stateSnapshotSummary";
  readonly preserveFraction: number;
  readonly trigger: TriggerSize | TriggerSize[];
  readonly contextWindow: number | undefined;
  readonly verify: boolean;
  readonly prompt: string;
  protected readonly sharedPrefixInstruction = SHARED_PREFIX_SNAPSHOT_INSTRUCTION;

  constructor(options: StateSnapshotSummaryOptions = {}) {
    const parsed = parseOptions("stateSnapshotSummary", optionsSchema, options) as StateSnapshotSummaryOptions;
    super(parsed);
    this.preserveFraction = parsed.preserveFraction ?? 0.3;
    this.trigger = parsed.trigger ?? { fraction: 0.5 };
    this.contextWindow = windowForSizes("stateSnapshotSummary", [this.trigger], parsed.contextWindow, parsed.model, "the trigger is a fraction of the context window");
    this.verify = parsed.verify ?? false;
    this.prompt = parsed.prompt ?? STATE_SNAPSHOT_PROMPT;
  }

  protected async run(history: PreparedHistory): Promise<StrategyOutcome> {
    const { messages, tokens, context } = history;
    const size = { tokens: tokens.total, messages: messageCountOf(messages) };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const cut = this.#splitPoint(history);
    if (cut === undefined) return { status: "noop", trigger, reason: "no boundary leaves both an older part to summarize and a newer part to keep" };
    return this.summarizeBefore(history, cut, trigger);
  }

  /** Where the preserved tail starts; `undefined` when nothing can be summarized. */
  #splitPoint({ messages, index, tokens }: PreparedHistory): number | undefined {
    const count = messages.length;
    // suffix[p]: conversation tokens of messages p..end.
    const suffix = new Float64Array(count + 1);
    let firstConversation = -1;
    for (let position = count - 1; position >= 0; position--) {
      const isSystem = messages[position]!.type === "system";
      suffix[position] = suffix[position + 1]! + (isSystem ? 0 : tokens.perMessage[position]!);
      if (!isSystem) firstConversation = position;
    }
    if (firstConversation < 0) return undefined;
    const target = this.preserveFraction * suffix[0]!;
    // A cut must leave at least one conversation message before it and one after it.
    const usable = (position: number) => position > firstConversation && position < count;
    const nearest = (candidates: Iterable<number>) => {
      let best: number | undefined;
      for (const position of candidates) {
        if (!usable(position)) continue;
        const distance = Math.abs(suffix[position]! - target);
        // On a tie, keep more.
        if (best === undefined || distance < Math.abs(suffix[best]! - target) || (distance === Math.abs(suffix[best]! - target) && position < best)) best = position;
      }
      return best;
    };
    const safe = safeCutPoints(messages, index);
    const turn = nearest(userTurnStarts(messages, safe));
    if (turn !== undefined && Math.abs(suffix[turn]! - target) <= target / 2) return turn;
    const boundaries: number[] = [];
    for (let position = 0; position <= count; position++) if (safe[position] === 1) boundaries.push(position);
    return nearest(boundaries) ?? turn;
  }

  protected async writeWithModel(model: SummaryChatModel, input: SummaryInput, context: CompactionContext): Promise<string> {
    // The earlier snapshot goes in first, on its own; the history is what came after it.
    // Every data value is fenced against the blocks of both templates it ends up in; the filled
    // previous-snapshot template is the prompt's own text and goes in as it is.
    const tags = fenceTags(this.prompt, PREVIOUS_SNAPSHOT_TEMPLATE);
    let history: string | undefined;
    const formatted = () =>
      (history ??= fenceData(formatHistory(input.messages, { textOverrides: input.textOverrides, leftOut: input.leftOut, omitSummaries: true }), tags));
    let request: string | readonly BaseMessage[];
    if (input.sharedPrefixRequest) request = input.sharedPrefixRequest;
    else {
      const previous = input.previousSummary ? fillTemplate(PREVIOUS_SNAPSHOT_TEMPLATE, { snapshot: fenceData(input.previousSummary, tags) }) : NO_PREVIOUS_SNAPSHOT;
      request = fillTemplate(this.prompt, { ...historyValues(formatted()), previous_snapshot: previous });
    }
    const first = extractBlock(await this.ask(model, request, context), "state_snapshot");
    if (first === "") throw new SummaryCallError("empty", "the summary model returned an empty state snapshot");
    if (!this.verify) return first;
    const corrected = extractBlock(await this.ask(model, fillPrompt(VERIFY_SNAPSHOT_PROMPT, { snapshot: first, history: formatted() }), context), "state_snapshot");
    // An empty correction is no correction: the first snapshot stands.
    return corrected === "" ? first : corrected;
  }
}

/**
 * Summarize the oldest ~70% of the conversation into a `<state_snapshot>`.
 *
 * @example
 * const snapshot = stateSnapshotSummary({ model: "gpt-4o-mini", contextWindow: 128_000 });
 * const { messages, status } = await snapshot.compact(history);
 * // offline: stateSnapshotSummary({ contextWindow: 32_000 }) uses the no-model summarizer
 * @throws {InvalidOptionError} for an invalid option, or a fraction trigger with an unknown context window.
 */
export function stateSnapshotSummary(options: StateSnapshotSummaryOptions = {}): StateSnapshotSummary {
  return new StateSnapshotSummary(options);
}

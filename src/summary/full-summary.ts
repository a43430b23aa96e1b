import { z } from "zod/v4";
import { safeCutPoints } from "../messages/tool-call-groups.js";
import { parseOptions } from "../options.js";
import type { PreparedHistory, StrategyOutcome } from "../strategies/compaction-strategy.js";
import { evaluateTrigger, keepSizeSchema, triggerSchema, underTriggerReason, windowForSizes, type KeepSize, type TriggerSize, messageCountOf } from "../strategies/context-size.js";
import type { CompactionContext } from "../types.js";
import { fillPrompt } from "./data-fence.js";
import { historyValues, summaryPromptSchema } from "./prompt-placeholders.js";
import { formatHistory } from "./format-history.js";
import { DEFAULT_SUMMARY_PROMPT, SHARED_PREFIX_SUMMARY_INSTRUCTION } from "./prompts.js";
import { SummaryCallError, type SummaryChatModel } from "./summary-model.js";
import { extractBlock } from "./summary-text.js";
import { SummaryStrategy, summaryOptionsShape, type SummaryInput, type SummaryStrategyOptions } from "./summary-strategy.js";

export interface FullSummaryOptions extends SummaryStrategyOptions {
  /**
   * Keep this many of the newest messages, from the nearest cut at or before them that separates no
   * tool call from its results (so sometimes a few more). @default 2
   */
  keepRecent?: number;
  /**
   * What to keep, in LangChain's `keep` shape (give it or `keepRecent`, not both): `{ messages: n }`
   * is `keepRecent: n`; `{ tokens: n }` keeps the newest conversation messages whose tokens add up to
   * at most `n` (at least the newest message), `{ fraction: f }` the same within `f` of the context
   * window; the cut then moves back to the nearest point that separates no tool call from its results
   * (so sometimes a little more is kept). A conversation already within the tokens to keep is not
   * summarized. @default { messages: 2 }
   * @example
   * fullSummary({ model, trigger: { tokens: 8000 }, keep: { tokens: 2000 } });
   */
  keep?: KeepSize;
  /**
   * The prompt of the standalone request (see `summaryRequest`), with a `{history}` placeholder (or
   * `{messages}`, LangChain's name for it; both are filled with the conversation), best placed inside
   * a tag pair
   * (`<transcript>\n{history}\n</transcript>`): the history is fenced (see `fillPrompt`), so no text
   * in it can close that tag or the package's own data tags. A prompt with neither placeholder is
   * rejected (`InvalidOptionError`): the model would never see the conversation.
   * @default DEFAULT_SUMMARY_PROMPT
   */
  prompt?: string;
  /** Compact only when this fires, unless run with `force`. @default none: every run summarizes */
  trigger?: TriggerSize | TriggerSize[];
  /**
   * The model's context window in tokens, for a fraction trigger, and the size a shared-prefix
   * summary request (see `summaryRequest`) must fit. @default the model's profile, else LangChain's table for its name
   */
  contextWindow?: number;
  /**
   * Compact down to this many tokens: when the newest `keepRecent` messages are too large for the
   * result (system messages + a summary of `summaryMaxTokens` + the kept messages) to fit, keep fewer
   * (the newest message or tool-call group always stays). @default none: always `keepRecent`
   */
  targetTokens?: number;
}

const optionsSchema = z
  .object({
    ...summaryOptionsShape,
    keepRecent: z.number().int().nonnegative().optional(),
    keep: keepSizeSchema.optional(),
    prompt: summaryPromptSchema.optional(),
    trigger: triggerSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    targetTokens: z.number().int().positive().optional(),
  })
  .strict()
  .refine((options) => options.keep === undefined || options.keepRecent === undefined, {
    message: "expected no keep when keepRecent is given",
    params: { reason: "give keep or keepRecent, not both" },
    path: ["keep"],
  });

/**
 * One LLM summary of everything: the whole conversation (system messages excluded)
 * but the newest `keepRecent` messages becomes one summary message, written with
 * `DEFAULT_SUMMARY_PROMPT` (five sections in `<summary>` tags). Tool calls without a result among the
 * summarized messages are left out of the prompt. Without a model, the no-model summarizer writes it.
 *
 * A result that is not smaller than the input, an empty summary, an error or a timeout is `failed`
 * and changes nothing.
 * @see fullSummary
 */
export class FullSummary extends SummaryStrategy {
  readonly strategyName = "fullSummary";
  readonly keepRecent: number;
  /** The tokens to keep (from `keep: { tokens }` or `keep: { fraction }`), when the cut is by tokens. */
  readonly keepTokens: number | undefined;
  readonly prompt: string;
  readonly trigger: TriggerSize | TriggerSize[] | undefined;
  readonly contextWindow: number | undefined;
  readonly targetTokens: number | undefined;
  protected readonly sharedPrefixInstruction = SHARED_PREFIX_SUMMARY_INSTRUCTION;

  constructor(options: FullSummaryOptions = {}) {
    const parsed = parseOptions("fullSummary", optionsSchema, options) as FullSummaryOptions;
    super(parsed);
    const keep = parsed.keep;
    this.keepRecent = keep !== undefined && "messages" in keep ? keep.messages : (parsed.keepRecent ?? 2);
    this.prompt = parsed.prompt ?? DEFAULT_SUMMARY_PROMPT;
    this.trigger = parsed.trigger;
    const keepFraction = keep !== undefined && "fraction" in keep ? { fraction: keep.fraction } : undefined;
    this.contextWindow = windowForSizes("fullSummary", [this.trigger, keepFraction], parsed.contextWindow, parsed.model, "the trigger or keep is a fraction of the context window");
    if (keep !== undefined && "tokens" in keep) this.keepTokens = Math.max(1, Math.floor(keep.tokens));
    else if (keepFraction) this.keepTokens = Math.max(1, Math.floor(this.contextWindow! * keepFraction.fraction));
    this.targetTokens = parsed.targetTokens;
  }

  protected async run(history: PreparedHistory): Promise<StrategyOutcome> {
    const { messages, tokens, context } = history;
    const size = { tokens: tokens.total, messages: messageCountOf(messages) };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const cut = this.cutFor(history, this.targetTokens);
    if (typeof cut === "string") return { status: "noop", trigger, reason: cut };
    return this.summarizeBefore(history, cut, trigger);
  }

  /**
   * Where a summary of `history` cuts: before the newest `keepRecent` messages (or `keep`), moved
   * back to a point that separates no tool call from its results, then forward while the kept part
   * does not fit `targetTokens`, never past pending calls. A string says why nothing would be
   * summarized. @internal
   */
  cutFor(history: PreparedHistory, targetTokens: number | undefined): number | string {
    const { messages, index } = history;
    const safe = safeCutPoints(messages, index);
    let cut = messages.length;
    if (this.keepTokens !== undefined) {
      const byTokens = this.#cutForKeepTokens(history, this.keepTokens);
      if (byTokens === undefined) return `the conversation is within the ${this.keepTokens} tokens to keep`;
      cut = byTokens;
    } else {
      // The newest keepRecent non-system messages stay.
      for (let kept = 0; cut > 0 && kept < this.keepRecent; ) {
        cut--;
        if (messages[cut]!.type !== "system") kept++;
      }
    }
    // The cut moves back to a safe point.
    while (cut > 0 && safe[cut] !== 1) cut--;
    if (targetTokens !== undefined) cut = this.#cutForTarget(history, safe, cut, targetTokens);
    // The pending calls' message is kept whatever keepRecent says: the tools are about to answer it.
    if (history.pending !== undefined) cut = Math.min(cut, history.pending);
    if (!messages.slice(0, cut).some((message) => message.type !== "system")) return `nothing older than the ${this.keepRecent} message(s) to keep`;
    return cut;
  }

  /**
   * The earliest cut whose kept conversation messages add up to at most `keepTokens` (the newest
   * message at least); `undefined` when the whole conversation is within it.
   */
  #cutForKeepTokens({ messages, tokens }: PreparedHistory, keepTokens: number): number | undefined {
    let kept = 0;
    let cut = messages.length;
    let lastConversation = -1;
    for (let position = messages.length - 1; position >= 0; position--) {
      if (messages[position]!.type === "system") continue;
      if (lastConversation < 0) lastConversation = position;
      if (kept + tokens.perMessage[position]! > keepTokens) {
        // Nothing fits: the newest message stays anyway.
        return cut === messages.length ? lastConversation : cut;
      }
      kept += tokens.perMessage[position]!;
      cut = position;
    }
    return undefined;
  }

  /** The cut moved forward (keeping fewer messages) until the kept part fits what the target leaves. */
  #cutForTarget({ messages, tokens }: PreparedHistory, safe: Uint8Array, cut: number, targetTokens: number): number {
    const count = messages.length;
    let systemTokens = 0;
    const suffix = new Float64Array(count + 1);
    for (let position = count - 1; position >= 0; position--) {
      const isSystem = messages[position]!.type === "system";
      suffix[position] = suffix[position + 1]! + (isSystem ? 0 : tokens.perMessage[position]!);
      if (isSystem) systemTokens += tokens.perMessage[position]!;
    }
    const budget = targetTokens - systemTokens - this.summaryMaxTokens;
    // The last safe cut that still keeps a non-system message: the newest group always stays.
    let lastUseful = cut;
    for (let position = cut; position < count; position++) if (safe[position] === 1 && suffix[position]! > 0) lastUseful = position;
    while (suffix[cut]! > budget && cut < lastUseful) {
      cut++;
      while (cut < lastUseful && safe[cut] !== 1) cut++;
    }
    return cut;
  }

  protected async writeWithModel(model: SummaryChatModel, input: SummaryInput, context: CompactionContext): Promise<string> {
    // Earlier summaries stay in the history text: the new summary replaces them and must carry them on.
    // Fenced: no text in the history can close the prompt's data block.
    const request =
      input.sharedPrefixRequest ??
      fillPrompt(this.prompt, historyValues(formatHistory(input.messages, { textOverrides: input.textOverrides, leftOut: input.leftOut, dropUnansweredCalls: true })));
    const summary = extractBlock(await this.ask(model, request, context), "summary");
    if (summary === "") throw new SummaryCallError("empty", "the summary model returned an empty summary");
    return summary;
  }
}

/**
 * Summarize the whole conversation but the newest messages .
 *
 * @example
 * const summary = fullSummary({ model: chatModel, keepRecent: 2 });
 * const { messages, status, reason } = await summary.compact(history);
 * @throws {InvalidOptionError} for an invalid option.
 */
export function fullSummary(options: FullSummaryOptions = {}): FullSummary {
  return new FullSummary(options);
}

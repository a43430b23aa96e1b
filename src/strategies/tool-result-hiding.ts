import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { InvalidOptionError } from "../errors.js";
import type { ReplacedMessage } from "../types.js";
import { parseOptions } from "../options.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type BoundedHistory,
  type BoundedNoop,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";
import { evaluateTrigger, triggerSchema, underTriggerReason, windowForSizes, type TriggerSize } from "./context-size.js";
import { HidingPass, type HiddenCopy, type ResultPositions } from "./hiding-pass.js";
import { receiptLimits, receiptsSchema, type HidingReceiptOptions, type ReceiptLimits } from "./hiding-receipts.js";

/** The default placeholder: short, stable, and plainly a notice rather than a tool's output. */
export const DEFAULT_HIDDEN_RESULT_PLACEHOLDER = "[tool result hidden to save context; call the tool again if you need it]";

/**
 * The default trigger of `toolResultHiding`, in tokens of the whole history: `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }`.
 * Chosen on recorded agent sessions (docs/evaluation.md): with `clearAtLeast` 2000 and 3 groups kept
 * it costs 0.86× no compaction at reference prices, where hiding at every run cost 1.07× (each new
 * group broke the cached prefix). Priced as Anthropic's automatic caching reads the cache (one
 * breakpoint at the end of each request), each firing rewrites the whole prompt and it costs 1.12×;
 * with `anthropicCacheAnchors` on each request, 0.89×.
 */
export const DEFAULT_HIDING_TRIGGER_TOKENS = 10_000;

/** The default `clearAtLeast` of `toolResultHiding`: a firing that frees fewer tokens leaves the cached prefix alone. */
export const DEFAULT_HIDING_CLEAR_AT_LEAST = 2000;

/**
 * How many of the newest tool results keep their content, counted in results (tool messages, and
 * human messages carrying `tool_result` blocks), excluded and already hidden ones included: a
 * number of results, or the newest results whose tokens add up to at most `tokens` (or `fraction`
 * of the context window), stopping at the first that does not fit.
 */
export type KeepRecentResults = number | { readonly tokens: number } | { readonly fraction: number };

/**
 * What a firing does when hiding every result older than the kept ones would free fewer than
 * `clearAtLeast` tokens: `"skip"` hides nothing (the history and its cached prefix stay as they
 * are); `"extend"` hides them anyway and then kept results too, newest first, until at least
 * `clearAtLeast` tokens are freed or none is left (LangChain.js's `ClearToolUsesEdit`).
 */
export type ClearAtLeastMode = "skip" | "extend";

export interface ToolResultHidingOptions extends BaseStrategyOptions {
  /** The newest N tool-call groups keep their results. Not with `keepRecentResults`. @default 3 */
  keepRecentGroups?: number;
  /**
   * Keep the newest results by result instead of by group (see {@link KeepRecentResults}): e.g. `3`
   * keeps the three newest results even when they answer one parallel call. Not with `keepRecentGroups`.
   */
  keepRecentResults?: KeepRecentResults;
  /** See {@link ClearAtLeastMode}. @default "skip" */
  clearAtLeastMode?: ClearAtLeastMode;
  /**
   * Hide only when this fires (any of the sizes reached, measured on the whole history), unless run
   * with `force`. Between firings the history is returned untouched, so a provider's cached prompt
   * prefix holds; a firing hides every result older than the kept groups at once.
   * @default { tokens: DEFAULT_HIDING_TRIGGER_TOKENS } (10 000)
   */
  trigger?: TriggerSize | TriggerSize[];
  /** The model's context window in tokens, for a `fraction` trigger. */
  contextWindow?: number;
  /**
   * A firing that would free fewer tokens than this does nothing (a no-op saying so), so a prompt
   * cache is only broken when it pays (like Anthropic's `clear_at_least`). `force` does not bypass it.
   * @default DEFAULT_HIDING_CLEAR_AT_LEAST (2000)
   */
  clearAtLeast?: number;
  /** @deprecated use `clearAtLeast` (the same option under its former name; giving both is an error). */
  minTokensSaved?: number;
  /**
   * After the placeholder, a short receipt of what the hidden result showed: the file paths its call
   * touched and the result's last error lines, e.g.
   * `[tool result hidden ...] (files: a.py, b/c.py; errors: ValueError: bad | TypeError: x)`. `true`: at most
   * `DEFAULT_RECEIPT_FILES` (8) paths and `DEFAULT_RECEIPT_ERRORS` (3) error lines, each cut to
   * `RECEIPT_LINE_MAX` (200) code units, quoted as they are; `false`: the placeholder alone. The same
   * result always gets the same receipt. With receipts, the hidden result's marker also keeps the
   * original's artifact index (`artifacts`), which a later summary merges into its own. @default true
   */
  receipts?: boolean | HidingReceiptOptions;
  /** Content that replaces a hidden result. Keep it stable: it is part of the cached prefix. @default DEFAULT_HIDDEN_RESULT_PLACEHOLDER */
  placeholder?: string;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Also empty the arguments of the calls whose results are hidden. @default false */
  hideToolInputs?: boolean;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    keepRecentGroups: z.number().int().nonnegative().optional(),
    keepRecentResults: z
      .union([
        z.number().int().nonnegative(),
        z.object({ tokens: z.number().nonnegative() }).strict(),
        z.object({ fraction: z.number().min(0).max(1) }).strict(),
      ])
      .optional(),
    clearAtLeastMode: z.enum(["skip", "extend"]).optional(),
    trigger: triggerSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    clearAtLeast: z.number().int().nonnegative().optional(),
    minTokensSaved: z.number().int().nonnegative().optional(),
    receipts: receiptsSchema.optional(),
    placeholder: z.string().min(1).optional(),
    excludeTools: z.array(z.string()).optional(),
    hideToolInputs: z.boolean().optional(),
  })
  .strict();

/**
 * Tool result hiding, in batches: while the history is under the `trigger` (default
 * `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }`), a run is a no-op and the history is returned
 * untouched, so a provider's cached prompt prefix holds. When the trigger fires (or the run is
 * forced), the newest `keepRecentGroups` tool-call groups keep their results and EVERY result of an
 * older group is replaced, at once, by a short stable placeholder followed by its receipt (see
 * `receipts`), unless that frees fewer than `clearAtLeast` tokens (see `clearAtLeastMode`). Hidden
 * results keep `tool_call_id`, `name`, `id` and every other field, and carry
 * `response_metadata.compaction.hidden` (with `originalTokens`, and `batch`: the id of the oldest
 * result the same run hid, which tells one run's results from another's for `cacheAnchorPositions`) and LangChain's marker
 * `response_metadata.context_editing` (`{ cleared: true, strategy: "clear_tool_uses" }`), so they are
 * never hidden twice; a result either marker flags is left as it is. With `hideToolInputs` the
 * assistant message lists the emptied calls in `compaction.hiddenToolInputs` and in LangChain's
 * `context_editing.cleared_tool_inputs`. A result whose hidden form is not smaller
 * is left as it is. Results sent as `tool_result` blocks in a human message (Anthropic's form) are
 * hidden in a copy of that message: each block keeps its `tool_use_id` (and `is_error`) with the
 * placeholder and its receipt as its content, the message's other content stays. Assistant and user
 * messages are untouched (unless `hideToolInputs`).
 *
 * `force` (set by policies such as `hidingThenSummary` on the strategies they run) bypasses the
 * trigger only: `clearAtLeast` still applies.
 * @see toolResultHiding
 */
export class ToolResultHiding extends CompactionStrategy {
  readonly strategyName = "toolResultHiding";
  /** The groups kept; `undefined` when `keepRecentResults` is given. */
  readonly keepRecentGroups: number | undefined;
  readonly keepRecentResults: KeepRecentResults | undefined;
  readonly clearAtLeastMode: ClearAtLeastMode;
  readonly trigger: TriggerSize | TriggerSize[];
  readonly contextWindow: number | undefined;
  readonly clearAtLeast: number;
  readonly placeholder: string;
  readonly excludeTools: ReadonlySet<string>;
  readonly hideToolInputs: boolean;
  /** The receipt limits; `undefined` when receipts are off. */
  readonly receipts: ReceiptLimits | undefined;
  /** Results judged not worth hiding; messages are immutable, so the verdict stands. */
  readonly #notWorthHiding = new WeakSet<BaseMessage>();
  /** Hidden copies made, by original result: a later run that hides the same result takes its copy. */
  readonly #hiddenCopies = new WeakMap<BaseMessage, HiddenCopy>();

  constructor(options: ToolResultHidingOptions = {}) {
    const parsed = parseOptions("toolResultHiding", optionsSchema, options) as ToolResultHidingOptions;
    if (parsed.clearAtLeast !== undefined && parsed.minTokensSaved !== undefined) {
      throw new InvalidOptionError("toolResultHiding", "minTokensSaved", "a deprecated name of clearAtLeast: give only clearAtLeast");
    }
    if (parsed.keepRecentGroups !== undefined && parsed.keepRecentResults !== undefined) {
      throw new InvalidOptionError("toolResultHiding", "keepRecentResults", "give keepRecentGroups or keepRecentResults, not both");
    }
    super(parsed);
    this.keepRecentResults = parsed.keepRecentResults;
    this.keepRecentGroups = this.keepRecentResults === undefined ? (parsed.keepRecentGroups ?? 3) : undefined;
    this.clearAtLeastMode = parsed.clearAtLeastMode ?? "skip";
    this.trigger = parsed.trigger ?? { tokens: DEFAULT_HIDING_TRIGGER_TOKENS };
    const keepFraction = typeof this.keepRecentResults === "object" && "fraction" in this.keepRecentResults ? { fraction: this.keepRecentResults.fraction } : undefined;
    this.contextWindow = windowForSizes("toolResultHiding", [this.trigger, keepFraction], parsed.contextWindow, undefined, "the trigger or keepRecentResults is a fraction of the context window");
    this.clearAtLeast = parsed.clearAtLeast ?? parsed.minTokensSaved ?? DEFAULT_HIDING_CLEAR_AT_LEAST;
    this.placeholder = parsed.placeholder ?? DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
    this.excludeTools = new Set(parsed.excludeTools ?? []);
    this.hideToolInputs = parsed.hideToolInputs ?? false;
    this.receipts = receiptLimits(parsed.receipts);
  }

  /** @deprecated use `clearAtLeast`. */
  get minTokensSaved(): number {
    return this.clearAtLeast;
  }

  /** Under the trigger even at the bound: the no-op `run` gives, without counting the new messages. */
  protected override noopUnderBound({ messages, upperTotal, context }: BoundedHistory): BoundedNoop | undefined {
    if (evaluateTrigger(this.trigger, { tokens: upperTotal, messages: messages.length }, this.contextWindow, context.force) !== undefined) return undefined;
    return { reason: (tokens) => underTriggerReason({ tokens: tokens.total, messages: messages.length }) };
  }

  protected async run({ messages, index, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    const size = { tokens: tokens.total, messages: messages.length };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const results = HidingPass.results(index);
    const kept = this.#keptResults(results, index, tokens.perMessage);
    const pass = new HidingPass(
      {
        strategyName: this.strategyName,
        placeholder: this.placeholder,
        excludeTools: this.excludeTools,
        hideToolInputs: this.hideToolInputs,
        receipts: this.receipts,
        tokenCounter: this.tokenCounter,
        notWorthHiding: this.#notWorthHiding,
        hiddenCopies: this.#hiddenCopies,
      },
      messages,
      tokens.perMessage,
    );
    let previousAssistant = -1;
    const { resultIndices, assistantIndices } = results;
    const older = resultIndices.length - kept;
    for (let position = 0; position < older; position++) {
      const resultIndex = resultIndices[position]!;
      const assistantIndex = assistantIndices[position]!;
      if (assistantIndex !== previousAssistant && previousAssistant >= 0 && pass.hasInputsToHide(previousAssistant)) await pass.hideInputs(previousAssistant);
      previousAssistant = assistantIndex;
      // Most older results were hidden at earlier steps: checked without a promise each.
      if (!pass.settled(resultIndex, assistantIndex)) await pass.hideResult(resultIndex, assistantIndex);
    }
    if (previousAssistant >= 0 && pass.hasInputsToHide(previousAssistant)) await pass.hideInputs(previousAssistant);
    if (this.clearAtLeastMode === "extend") {
      // LangChain's rule: short of clearAtLeast, the kept results go too, newest first.
      for (let position = resultIndices.length - 1; position >= resultIndices.length - kept && pass.saved < this.clearAtLeast; position--) {
        const resultIndex = resultIndices[position]!;
        const assistantIndex = assistantIndices[position]!;
        await pass.hideResult(resultIndex, assistantIndex);
        await pass.hideInputs(assistantIndex);
      }
    }
    const { replacements, saved } = pass;
    if (replacements.size === 0) return { status: "noop", trigger, reason: "no tool result older than the kept groups is left to hide" };
    if (this.clearAtLeastMode === "skip" && saved < this.clearAtLeast) {
      return { status: "noop", trigger, reason: `hiding would free ${saved} tokens, less than clearAtLeast (${this.clearAtLeast})` };
    }
    pass.stampBatch();
    const output = [...messages];
    const replaced: ReplacedMessage[] = [];
    for (const [position, after] of [...replacements].sort((a, b) => a[0] - b[0])) {
      output[position] = after;
      replaced.push({ index: position, before: messages[position]!, after });
    }
    return { status: "compacted", messages: output, replaced, preservesStructure: true, trigger };
  }

  /** How many of the newest results keep their content. */
  #keptResults({ resultIndices }: ResultPositions, index: PreparedHistory["index"], perMessage: readonly number[]): number {
    const keep = this.keepRecentResults;
    if (keep === undefined) {
      const olderGroups = Math.max(0, index.groups.length - this.keepRecentGroups!);
      let kept = 0;
      for (let groupNumber = olderGroups; groupNumber < index.groups.length; groupNumber++) kept += index.groups[groupNumber]!.resultIndices.length;
      return kept;
    }
    if (typeof keep === "number") return Math.min(keep, resultIndices.length);
    const budget = "tokens" in keep ? keep.tokens : Math.floor(keep.fraction * this.contextWindow!);
    let used = 0;
    let kept = 0;
    for (let position = resultIndices.length - 1; position >= 0; position--) {
      const cost = perMessage[resultIndices[position]!]!;
      if (used + cost > budget) break;
      used += cost;
      kept++;
    }
    return kept;
  }
}

/**
 * Hide older tool results in batches, keeping the newest groups' results whole: nothing changes
 * until the trigger fires, then every older result is hidden at once.
 *
 * @example
 * const hiding = toolResultHiding({ keepRecentGroups: 3, trigger: { tokens: 50_000 }, excludeTools: ["read_plan"] });
 * const { messages, status, replaced } = await hiding.compact(history);
 * // or in LCEL: hiding.pipe(model)
 * @throws {InvalidOptionError} for an invalid option.
 */
export function toolResultHiding(options: ToolResultHidingOptions = {}): ToolResultHiding {
  return new ToolResultHiding(options);
}

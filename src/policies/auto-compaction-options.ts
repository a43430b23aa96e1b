import { z } from "zod/v4";
import { costModelSchema, type CostModel } from "../cost/cost-model.js";
import type { CompactionEvent, CompactionLogger } from "../observability.js";
import { baseOptionsShape } from "../strategies/compaction-strategy.js";
import { requireContextWindow, tokenLimit, triggerSchema, type ContextSize } from "../strategies/context-size.js";
import { HardTruncate } from "../strategies/hard-truncate.js";
import { receiptsSchema, type HidingReceiptOptions } from "../strategies/hiding-receipts.js";
import { ToolResultHiding } from "../strategies/tool-result-hiding.js";
import { FullSummary } from "../summary/full-summary.js";
import { DEFAULT_SUMMARY_MAX_TOKENS, DEFAULT_SUMMARY_TIMEOUT_MS, type SummaryModel } from "../summary/summary-model.js";
import type { TokenCounter } from "../tokens/token-counter.js";

/** autoCompaction's default cap on a summary call's input (`summaryInputTokens`), in tokens. */
export const DEFAULT_AUTO_SUMMARY_INPUT_TOKENS = 8000;
/**
 * autoCompaction compacts when the history reaches this many tokens, or `threshold` of the window if
 * that comes first: a smaller history costs less at every later call, and beyond this size a
 * compaction repays its prompt-cache break within a few calls (see bench/EVAL.md).
 */
export const DEFAULT_AUTO_TRIGGER_TOKENS = 16_000;
/**
 * autoCompaction's summary compacts down to this share of the size that fired (unless `target` is
 * given): a small history after a summary makes every later call cheaper and the next compaction
 * (and cache break) come many calls later (see bench/EVAL.md).
 */
export const DEFAULT_AUTO_TARGET_SHARE = 0.25;
/**
 * autoCompaction's hiding stands on its own, without a summary, when it gets the history under this
 * share of the size that fired (unless `target` is given).
 */
export const DEFAULT_AUTO_HIDING_TARGET_SHARE = 0.6;
/** Tool-call groups whose results autoCompaction's hiding keeps. */
export const DEFAULT_AUTO_HIDING_KEEP_GROUPS = 3;
/** autoCompaction's hiding does nothing unless it frees this many tokens. */
export const DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST = 2000;

/** The batched tool-result hiding autoCompaction runs before it considers a summary. */
export interface AutoCompactionHidingOptions {
  /** The newest N tool-call groups keep their results. @default DEFAULT_AUTO_HIDING_KEEP_GROUPS */
  keepRecentGroups?: number;
  /** A hiding that frees fewer tokens does nothing (the cached prefix stays). @default DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST */
  clearAtLeast?: number;
  /** A short stable receipt (file paths, error lines) after each hidden result's placeholder. @default true */
  receipts?: boolean | HidingReceiptOptions;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Content that replaces a hidden result. */
  placeholder?: string;
}

/** The configuration of automatic compaction. */
export interface AutoCompactionOptions {
  /** @default true */
  enabled?: boolean;
  /** Compact when the history reaches this fraction of the context window (or `trigger` first). @default 0.8 */
  threshold?: number;
  /**
   * Compact when any of these sizes is reached, if before `threshold` (LangChain's `{ tokens }`,
   * `{ fraction }` or `{ messages }` shape). @default { tokens: DEFAULT_AUTO_TRIGGER_TOKENS } (16 000)
   */
  trigger?: ContextSize | ContextSize[];
  /**
   * Compact down to this fraction of the window (hysteresis): hiding that cannot get the history
   * under it is followed by a summary, and when the newest `keepRecent` messages are too large for
   * it, the summary keeps fewer, so the next compaction (and prompt-cache break) comes many calls
   * later rather than at the next one. @default hiding stands when it gets under 0.6
   * (`DEFAULT_AUTO_HIDING_TARGET_SHARE`) of the size that fired (the smaller of `threshold` of the
   * window and the `trigger`'s token sizes); a summary compacts down to 0.25
   * (`DEFAULT_AUTO_TARGET_SHARE`) of it
   */
  target?: number;
  /**
   * Batched tool-result hiding, the first and cheapest step: when its trigger fires, every tool
   * result older than the newest `keepRecentGroups` groups is replaced by a placeholder at once
   * (nothing changes between firings, so the provider's cached prompt prefix holds), unless that frees
   * fewer than `clearAtLeast` tokens. `false` turns it off (summary and hard limit only).
   */
  hiding?: false | AutoCompactionHidingOptions;
  /**
   * Weigh a hiding's saving against the prompt-cache break it causes (see `judgeCompactionCost`):
   * a hiding that does not repay itself before the next one would come is skipped. Summaries and
   * the hard limit are not skipped (they keep the history inside the window). @default none: every
   * hiding that frees `clearAtLeast` runs
   */
  costModel?: CostModel;
  /** Messages the summary keeps as they are (and the hard-limit truncation keeps). @default 10 */
  keepRecent?: number;
  /** Cap on the summary's length in tokens. @default 1000 */
  summaryMaxTokens?: number;
  /**
   * Tool outputs in the part being summarized are sent to the summary model whole up to this many
   * tokens (newest first); older ones are cut to their head and tail. The summary's artifact index is
   * built from the originals either way. @default 20000
   */
  toolOutputBudgetTokens?: number;
  /**
   * Cap on the part being summarized as sent to the summary model, in tokens: the newest messages are
   * sent whole while they fit (the newest always); the older ones stand as one line and their artifact
   * index; an earlier summary is always sent whole, outside the cap. The summary's artifact index still
   * covers every replaced message. `Infinity` sends the whole part. Not used by a `"shared-prefix"`
   * summary request, which sends the history as it is.
   * @default DEFAULT_AUTO_SUMMARY_INPUT_TOKENS (8000)
   * @example
   * autoCompaction({ contextWindow: 128_000, summaryModel: "gpt-4o-mini", summaryInputTokens: Infinity });
   */
  summaryInputTokens?: number;
  /**
   * How the summary call is sent. `"standalone"`: one prompt with the part to summarize as text (for a
   * separate, cheaper summary model). `"shared-prefix"`: the history's messages as they are, then one
   * instruction, so a provider's prompt cache serves everything the agent's model already read; use it
   * when the summary model is the agent's own model (with the same tools bound). @default "standalone"
   */
  summaryRequest?: "standalone" | "shared-prefix";
  /**
   * The summary model: a chat model or a name for `ChatOpenAI`. No built-in default: without one
   * here or in the run's `configurable.summaryModel`, the deterministic no-model summarizer is used.
   */
  summaryModel?: SummaryModel;
  /** Constructor fields for the `ChatOpenAI` made from a model name. */
  modelOptions?: Record<string, unknown>;
  /** Time the summary call may take. @default 30000 */
  timeoutMs?: number;
  /** The model's context window in tokens. @default the summary model's profile or known name */
  contextWindow?: number;
  /**
   * When hiding and the summary failed (or were not enough) and the history is over this many tokens,
   * truncate to fit it: system messages and the newest `keepRecent` messages. @default the context window
   */
  hardLimit?: number;
  tokenCounter?: TokenCounter;
  /** Receives one event per run. */
  onEvent?: (event: CompactionEvent) => void;
  logger?: CompactionLogger;
}

const hidingSchema = z
  .object({
    keepRecentGroups: z.number().int().nonnegative().optional(),
    clearAtLeast: z.number().int().nonnegative().optional(),
    receipts: receiptsSchema.optional(),
    excludeTools: z.array(z.string()).optional(),
    placeholder: z.string().min(1).optional(),
  })
  .strict();

/** @internal */
export const autoCompactionSchema = z
  .object({
    enabled: z.boolean().optional(),
    threshold: z.number().gt(0).max(1).optional(),
    trigger: triggerSchema.optional(),
    target: z.number().gt(0).max(1).optional(),
    hiding: z.union([z.literal(false), hidingSchema]).optional(),
    costModel: costModelSchema.optional(),
    keepRecent: z.number().int().positive().optional(),
    summaryMaxTokens: z.number().int().positive().optional(),
    toolOutputBudgetTokens: z.number().int().nonnegative().optional(),
    summaryInputTokens: z
      .union([z.number().int().positive(), z.custom<number>((value) => value === Number.POSITIVE_INFINITY, "expected Infinity")], {
        error: "expected a positive integer or Infinity",
      })
      .optional(),
    summaryRequest: z.enum(["standalone", "shared-prefix"]).optional(),
    summaryModel: z.union([z.string().min(1), z.custom<object>((value) => typeof value === "object" && value !== null)]).optional(),
    modelOptions: z.record(z.string(), z.unknown()).optional(),
    timeoutMs: z.number().int().positive().optional(),
    contextWindow: z.number().int().positive().optional(),
    hardLimit: z.number().int().positive().optional(),
    tokenCounter: baseOptionsShape.tokenCounter,
    onEvent: baseOptionsShape.onEvent,
    logger: baseOptionsShape.logger,
  })
  .strict();

/** The options resolved for one run, and the strategies built from them. @internal */
export interface AutoCompactionPlan {
  readonly key: readonly unknown[];
  readonly window: number;
  readonly hardLimit: number;
  /** Compact at this size (the smaller of `threshold` of the window and the trigger's token sizes). */
  readonly fireTokens: number;
  readonly trigger: ContextSize | ContextSize[];
  /** What the summary compacts down to. */
  readonly targetTokens: number;
  /** What hiding must get the history under to stand on its own (else a summary follows). */
  readonly hidingTargetTokens: number;
  readonly hiding: ToolResultHiding | undefined;
  readonly summary: FullSummary;
  readonly truncate: HardTruncate;
  readonly summaryModel: SummaryModel | undefined;
}

/** The key of what shapes the strategies: a plan is rebuilt only when it changes. */
function planKey(options: AutoCompactionOptions, summaryModel: SummaryModel | undefined): unknown[] {
  return [
    options.threshold,
    stableKey(options.trigger),
    options.target,
    stableKey(options.hiding),
    options.keepRecent,
    options.summaryMaxTokens,
    options.toolOutputBudgetTokens,
    options.summaryInputTokens,
    options.summaryRequest,
    summaryModel,
    stableKey(options.modelOptions),
    options.timeoutMs,
    options.contextWindow,
    options.hardLimit,
  ];
}

/**
 * The plan for `options`: `previous` when nothing that shapes the strategies changed (so they keep
 * what they remember of the last run), else new strategies sharing `tokenCounter`.
 * @throws {InvalidOptionError} for an unknown context window.
 * @internal
 */
export function planFor(options: AutoCompactionOptions, configModel: SummaryModel | undefined, tokenCounter: TokenCounter, previous: AutoCompactionPlan | undefined): AutoCompactionPlan {
  const summaryModel = options.summaryModel ?? configModel;
  const key = planKey(options, summaryModel);
  if (previous && previous.key.length === key.length && previous.key.every((value, position) => value === key[position])) return previous;
  const window = requireContextWindow("autoCompaction", options.contextWindow, summaryModel, "the threshold is a fraction of the context window");
  const threshold = options.threshold ?? 0.8;
  const trigger = options.trigger ?? { tokens: DEFAULT_AUTO_TRIGGER_TOKENS };
  const sizes = Array.isArray(trigger) ? trigger : [trigger as ContextSize];
  const fireTokens = Math.min(Math.floor(threshold * window), ...sizes.map((size) => tokenLimit(size, window)));
  const targetTokens = Math.max(1, options.target !== undefined ? Math.floor(options.target * window) : Math.floor(DEFAULT_AUTO_TARGET_SHARE * fireTokens));
  const hidingTargetTokens = Math.max(1, options.target !== undefined ? targetTokens : Math.floor(DEFAULT_AUTO_HIDING_TARGET_SHARE * fireTokens));
  const keepRecent = options.keepRecent ?? 10;
  const hardLimit = options.hardLimit ?? window;
  const hiding = options.hiding === false ? undefined : (options.hiding ?? {});
  return {
    key,
    window,
    hardLimit,
    fireTokens,
    trigger,
    targetTokens,
    hidingTargetTokens,
    summaryModel,
    hiding:
      hiding &&
      new ToolResultHiding({
        tokenCounter,
        contextWindow: window,
        keepRecentGroups: hiding.keepRecentGroups ?? DEFAULT_AUTO_HIDING_KEEP_GROUPS,
        clearAtLeast: hiding.clearAtLeast ?? DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST,
        receipts: hiding.receipts ?? true,
        ...(hiding.excludeTools ? { excludeTools: hiding.excludeTools } : {}),
        ...(hiding.placeholder ? { placeholder: hiding.placeholder } : {}),
      }),
    summary: new FullSummary({
      tokenCounter,
      keepRecent,
      summaryMaxTokens: options.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS,
      ...(options.toolOutputBudgetTokens !== undefined ? { toolOutputBudgetTokens: options.toolOutputBudgetTokens } : {}),
      ...summaryInputOption(options.summaryInputTokens ?? DEFAULT_AUTO_SUMMARY_INPUT_TOKENS),
      ...(options.summaryRequest ? { summaryRequest: options.summaryRequest } : {}),
      contextWindow: window,
      timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
      targetTokens,
      ...(summaryModel !== undefined ? { model: summaryModel } : {}),
      ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}),
    }),
    truncate: new HardTruncate({ tokenCounter, maxTokens: hardLimit, keepRecent }),
  };
}

/** The summary strategy's option for a cap: none for `Infinity` (the whole part is sent). */
function summaryInputOption(tokens: number): { summaryInputTokens?: number } {
  return tokens === Number.POSITIVE_INFINITY ? {} : { summaryInputTokens: tokens };
}

const functionIds = new WeakMap<object, number>();
let nextFunctionId = 1;
/** A key for options that may hold functions: JSON, with each function named by its identity. */
function stableKey(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item: unknown) => {
    if (typeof item !== "function") return item;
    let id = functionIds.get(item);
    if (id === undefined) functionIds.set(item, (id = nextFunctionId++));
    return `[function ${id}]`;
  });
}

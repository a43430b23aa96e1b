import { invalidOption } from "../option-errors.js";
import { hasTokenSize, requireContextWindow, tokenLimit, type TriggerSize } from "../strategies/context-size.js";
import { AssistantTextTrimming } from "../strategies/assistant-text-trimming.js";
import { HardTruncate } from "../strategies/hard-truncate.js";
import { ToolResultHiding } from "../strategies/tool-result-hiding.js";
import { FullSummary, type FullSummaryOptions } from "../summary/full-summary.js";
import { DEFAULT_SUMMARY_TIMEOUT_MS, modelNameOf, type SummaryModel } from "../summary/summary-model.js";
import { DEFAULT_PREPARE_AT, WARM_HIDING_AT } from "./prepared-namespace.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import {
  DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST,
  DEFAULT_AUTO_HIDING_KEEP_GROUPS,
  DEFAULT_AUTO_HIDING_TARGET_SHARE,
  DEFAULT_AUTO_RECALL_TARGET,
  DEFAULT_AUTO_SUMMARY_INPUT_TOKENS,
  DEFAULT_AUTO_TARGET_SHARE,
  DEFAULT_AUTO_SUMMARY_MAX_TOKENS,
  DEFAULT_AUTO_TRIGGER_TOKENS,
  type AutoCompactionOptions,
} from "./auto-compaction-options.js";

/** The options resolved for one run, and the strategies built from them. @internal */
export interface AutoCompactionPlan {
  readonly key: readonly unknown[];
  readonly window: number;
  readonly hardLimit: number;
  /** `threshold` of the window, in tokens of the whole history. */
  readonly thresholdTokens: number;
  /** The trigger, measured on the conversation (the history without its system messages). */
  readonly trigger: TriggerSize | TriggerSize[];
  /** The smallest token size of the trigger (`Infinity` for a messages trigger alone). */
  readonly triggerTokens: number;
  /** `target` of the window, in tokens, when given. */
  readonly explicitTarget: number | undefined;
  /** With `withRecall` and no `target`: the target of both steps when the threshold is the size that fires. */
  readonly recallTarget: number | undefined;
  readonly hiding: ToolResultHiding | undefined;
  /** Trims the older assistant texts in the hiding's batch, when asked. */
  readonly trimming: AssistantTextTrimming | undefined;
  /** The summary strategy compacting down to `targetTokens` (one per target, built on first use). */
  summaryFor(targetTokens: number): FullSummary;
  readonly truncate: HardTruncate;
  /** The hard-limit truncation to a lower limit (after a provider's overflow). */
  truncateTo(maxTokens: number): HardTruncate;
  readonly summaryModel: SummaryModel | undefined;
  /** Summaries are prepared ahead from this share of the way to the size that fires; `undefined`: off. */
  readonly prepareAt: number | undefined;
  /**
   * Steps past this share of the way make the firing's hiding after they return (see `warmHiding`):
   * `prepareAt` or `WARM_HIDING_AT`, whichever is lower; `undefined` when summaries are not prepared.
   */
  readonly warmAt: number | undefined;
  /** What a summary's text depends on besides the messages: a prepared one written otherwise is not used. */
  readonly summarySignature: string;
}

/** What one run compacts down to. @internal */
export interface AutoCompactionTargets {
  /** The size that fired: `threshold` of the window, or the system messages plus the trigger's tokens. */
  readonly fireTokens: number;
  /** Hiding stands on its own under this. */
  readonly hidingTargetTokens: number;
  /** The summary compacts down to this. */
  readonly summaryTargetTokens: number;
}

/**
 * The targets of a run: shares of what the size that fired holds above the system messages (which
 * are never compacted), so a large system prompt cannot make every call compact again. An explicit
 * `target` applies to both steps; when the trigger (not the threshold) fired, it is capped at the
 * hiding share, so the next compaction still comes calls later. @internal
 */
export function targetsFor(plan: AutoCompactionPlan, systemTokens: number, firedByThreshold: boolean): AutoCompactionTargets {
  const fireTokens = firedByThreshold ? plan.thresholdTokens : Math.min(plan.thresholdTokens, systemTokens + plan.triggerTokens);
  const conversation = Math.max(1, fireTokens - systemTokens);
  const hidingShare = systemTokens + Math.floor(DEFAULT_AUTO_HIDING_TARGET_SHARE * conversation);
  const summaryShare = systemTokens + Math.floor(DEFAULT_AUTO_TARGET_SHARE * conversation);
  // Fired by the trigger, far below the threshold, a target above the hiding share would leave no room to grow.
  const explicit = plan.explicitTarget === undefined ? undefined : Math.min(plan.explicitTarget, firedByThreshold ? Number.POSITIVE_INFINITY : hidingShare);
  // With recall, where the threshold is the size that fires, both steps cut to the recall target (capped at the hiding share).
  const target = explicit ?? (plan.recallTarget !== undefined && fireTokens === plan.thresholdTokens ? Math.min(plan.recallTarget, hidingShare) : undefined);
  return { fireTokens, hidingTargetTokens: Math.max(1, target ?? hidingShare), summaryTargetTokens: Math.max(1, target ?? summaryShare) };
}

/** The key of what shapes the strategies: a plan is rebuilt only when it changes. */
function planKey(options: AutoCompactionOptions, summaryModel: SummaryModel | undefined): unknown[] {
  return [
    options.threshold,
    stableKey(options.trigger),
    options.target,
    stableKey(options.hiding),
    options.withRecall,
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
    stableKey(options.prepare),
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
  const sizes = Array.isArray(trigger) ? trigger : [trigger as TriggerSize];
  const keepRecent = options.keepRecent ?? 10;
  for (const size of sizes) {
    // A summary leaves the system prompt, itself and keepRecent messages: a count at or under that fires again at once.
    if (size.messages !== undefined && !hasTokenSize(size) && size.messages <= keepRecent + 2) {
      throw invalidOption("autoCompaction", "trigger", size, `a messages trigger over keepRecent + 2 (${keepRecent + 2})`, `a summary leaves that many messages, so ${size.messages} would fire at every call`);
    }
  }
  const hardLimit = options.hardLimit ?? window;
  const hiding = options.hiding === false ? undefined : (options.hiding ?? {});
  const summaryOptions: FullSummaryOptions = {
    tokenCounter,
    keepRecent,
    summaryMaxTokens: options.summaryMaxTokens ?? DEFAULT_AUTO_SUMMARY_MAX_TOKENS,
    ...(options.toolOutputBudgetTokens !== undefined ? { toolOutputBudgetTokens: options.toolOutputBudgetTokens } : {}),
    ...summaryInputOption(options.summaryInputTokens ?? DEFAULT_AUTO_SUMMARY_INPUT_TOKENS),
    ...(options.summaryRequest ? { summaryRequest: options.summaryRequest } : {}),
    contextWindow: window,
    timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
    ...(summaryModel !== undefined ? { model: summaryModel } : {}),
    ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}),
  };
  // The system messages of a thread rarely change: one summary strategy per target, kept.
  const summaries = new Map<number, FullSummary>();
  const prepareAt = options.prepare === false || summaryModel === undefined ? undefined : ((typeof options.prepare === "object" ? options.prepare.at : undefined) ?? DEFAULT_PREPARE_AT);
  return {
    key,
    window,
    hardLimit,
    thresholdTokens: Math.floor(threshold * window),
    trigger,
    triggerTokens: Math.min(...sizes.map((size) => tokenLimit(size, window))),
    explicitTarget: options.target === undefined ? undefined : Math.floor(options.target * window),
    recallTarget: options.withRecall === true && options.target === undefined ? Math.floor(DEFAULT_AUTO_RECALL_TARGET * window) : undefined,
    summaryModel,
    prepareAt,
    warmAt: prepareAt === undefined ? undefined : Math.min(prepareAt, WARM_HIDING_AT),
    summarySignature: stableKey([
      summaryModel === undefined ? "none" : (modelNameOf(summaryModel) ?? "unknown"),
      summaryOptions.summaryMaxTokens,
      options.toolOutputBudgetTokens,
      options.summaryInputTokens ?? DEFAULT_AUTO_SUMMARY_INPUT_TOKENS,
      options.summaryRequest ?? "standalone",
      options.keepRecent ?? 10,
    ]),
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
        ...(hiding.supersession !== undefined ? { supersession: hiding.supersession } : {}),
      }),
    trimming:
      hiding && hiding.trimAssistantText !== false && (hiding.trimAssistantText !== undefined || options.withRecall !== true)
        ? new AssistantTextTrimming({
            tokenCounter,
            keepRecentGroups: hiding.keepRecentGroups ?? DEFAULT_AUTO_HIDING_KEEP_GROUPS,
            ...(typeof hiding.trimAssistantText === "object" && hiding.trimAssistantText.keepChars !== undefined ? { keepChars: hiding.trimAssistantText.keepChars } : {}),
          })
        : undefined,
    summaryFor(targetTokens) {
      let summary = summaries.get(targetTokens);
      if (!summary) summaries.set(targetTokens, (summary = new FullSummary({ ...summaryOptions, targetTokens })));
      return summary;
    },
    truncate: new HardTruncate({ tokenCounter, maxTokens: hardLimit, keepRecent }),
    truncateTo: (maxTokens) => new HardTruncate({ tokenCounter, maxTokens, keepRecent }),
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

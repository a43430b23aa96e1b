import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import type { CompactionLogger } from "../observability.js";
import { parseOptions } from "../options.js";
import { CompactionStrategy, baseOptionsShape, nestedContext, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import { requireContextWindow } from "../strategies/context-size.js";
import { HardTruncate } from "../strategies/hard-truncate.js";
import { FullSummary } from "../summary/full-summary.js";
import { DEFAULT_SUMMARY_MAX_TOKENS, DEFAULT_SUMMARY_TIMEOUT_MS, type SummaryModel } from "../summary/summary-model.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult } from "../types.js";

/** autoCompaction's default cap on a summary call's input (`summaryInputTokens`), in tokens. */
export const DEFAULT_AUTO_SUMMARY_INPUT_TOKENS = 8000;

/** The summary strategy's option for a cap: none for `Infinity` (the whole part is sent). */
function summaryInputOption(tokens: number): { summaryInputTokens?: number } {
  return tokens === Number.POSITIVE_INFINITY ? {} : { summaryInputTokens: tokens };
}

/** The configuration of automatic compaction. */
export interface AutoCompactionOptions {
  /** @default true */
  enabled?: boolean;
  /** Compact when the history reaches this fraction of the context window. @default 0.8 */
  threshold?: number;
  /**
   * Compact down to this fraction of the window (hysteresis): when the newest `keepRecent` messages
   * are too large for that, the summary keeps fewer, so the next compaction (and prompt-cache break)
   * comes later rather than at the next step. @default 0.6 × threshold
   */
  target?: number;
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
   * covers every replaced message. `Infinity` sends the whole part. The default keeps the summary
   * call's cost below LangChain's summarization middleware (which sends 4000 tokens) at 16k-64k
   * windows in `npm run eval` while the model still sees the newest part in full (bench/EVAL.md).
   * @default DEFAULT_AUTO_SUMMARY_INPUT_TOKENS (8000)
   * @example
   * autoCompaction({ contextWindow: 128_000, summaryModel: "gpt-4o-mini", summaryInputTokens: Infinity });
   */
  summaryInputTokens?: number;
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
   * When the summary failed (or was not enough) and the history is over this many tokens, truncate
   * to fit it: system messages and the newest `keepRecent` messages. @default the context window
   */
  hardLimit?: number;
  tokenCounter?: TokenCounter;
  /** Receives one event per run. */
  onEvent?: (event: import("../observability.js").CompactionEvent) => void;
  logger?: CompactionLogger;
}

const optionsSchema = z
  .object({
    enabled: z.boolean().optional(),
    threshold: z.number().gt(0).max(1).optional(),
    target: z.number().gt(0).max(1).optional(),
    keepRecent: z.number().int().positive().optional(),
    summaryMaxTokens: z.number().int().positive().optional(),
    toolOutputBudgetTokens: z.number().int().nonnegative().optional(),
    summaryInputTokens: z
      .union([z.number().int().positive(), z.custom<number>((value) => value === Number.POSITIVE_INFINITY, "expected Infinity")], {
        error: "expected a positive integer or Infinity",
      })
      .optional(),
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

/** The options resolved for one run, and the strategies built from them. */
interface Plan {
  readonly key: readonly unknown[];
  readonly window: number;
  readonly hardLimit: number;
  readonly summary: FullSummary;
  readonly truncate: HardTruncate;
  readonly summaryModel: SummaryModel | undefined;
}

/**
 * Automatic compaction, a policy that never throws into the agent loop. Before each model
 * call: when the history reaches `threshold` of the window, summarize all but the newest `keepRecent`
 * messages with a separate model call (or the no-model summarizer); if the summary fails or is not
 * enough and the history is over `hardLimit`, truncate to fit it. A failure changes nothing and is
 * reported in the result's `reason` and the event.
 *
 * Options may be a function, read at every run, so a configuration change applies at once; the strategies built from them are reused while they stay the same.
 * @see autoCompaction
 */
export class AutoCompaction extends CompactionStrategy {
  readonly strategyName = "autoCompaction";
  readonly #options: AutoCompactionOptions | (() => AutoCompactionOptions);
  #plan: Plan | undefined;

  constructor(options: AutoCompactionOptions | (() => AutoCompactionOptions) = {}) {
    // With a provider, its first answer fixes the token counter and the event sinks; a provider that
    // fails now fails the runs (with the reason), not the construction.
    let initial: z.output<typeof optionsSchema> = {};
    if (typeof options !== "function") initial = parseOptions("autoCompaction", optionsSchema, options);
    else {
      try {
        initial = parseOptions("autoCompaction", optionsSchema, options());
      } catch {
        initial = {};
      }
    }
    // A broken history is repaired (and the repair reported), never thrown at the agent.
    super({
      invalidHistory: "repair",
      ...(initial.tokenCounter ? { tokenCounter: initial.tokenCounter } : {}),
      ...(initial.onEvent ? { onEvent: initial.onEvent } : {}),
      ...(initial.logger ? { logger: initial.logger } : {}),
    });
    this.#options = options;
    // Static options are checked now, so a missing context window is an error at construction.
    if (typeof options !== "function") this.#plan = this.#planFor(initial as AutoCompactionOptions, undefined);
  }

  /** Never throws, except the caller's own abort. A failure is a `failed` result with the input unchanged. */
  override async compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
    try {
      return await super.compact(messages, context);
    } catch (error) {
      if (context.signal?.aborted) throw error;
      const input = Array.isArray(messages) ? [...messages] : [];
      return {
        messages: input,
        status: "failed",
        strategy: this.strategyName,
        tokensBefore: 0,
        tokensAfter: 0,
        messagesBefore: input.length,
        messagesAfter: input.length,
        removed: [],
        replaced: [],
        reason: error instanceof Error ? error.message : String(error),
      };
    }
  }

  #planFor(options: AutoCompactionOptions, configModel: SummaryModel | undefined): Plan {
    const summaryModel = options.summaryModel ?? configModel;
    const threshold = options.threshold ?? 0.8;
    const target = options.target ?? threshold * 0.6;
    const key = [
      target,
      options.keepRecent,
      options.summaryMaxTokens,
      options.toolOutputBudgetTokens,
      options.summaryInputTokens,
      summaryModel,
      stableKey(options.modelOptions),
      options.timeoutMs,
      options.contextWindow,
      options.hardLimit,
    ];
    if (this.#plan && this.#plan.key.length === key.length && this.#plan.key.every((value, position) => value === key[position])) return this.#plan;
    const window = requireContextWindow("autoCompaction", options.contextWindow, summaryModel, "the threshold is a fraction of the context window");
    // enabled and threshold are read at every run; only what shapes the strategies is in the key.
    const keepRecent = options.keepRecent ?? 10;
    const hardLimit = options.hardLimit ?? window;
    const tokenCounter = this.tokenCounter;
    return {
      key,
      window,
      hardLimit,
      summaryModel,
      summary: new FullSummary({
        tokenCounter,
        keepRecent,
        summaryMaxTokens: options.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS,
        ...(options.toolOutputBudgetTokens !== undefined ? { toolOutputBudgetTokens: options.toolOutputBudgetTokens } : {}),
        ...summaryInputOption(options.summaryInputTokens ?? DEFAULT_AUTO_SUMMARY_INPUT_TOKENS),
        timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
        targetTokens: Math.max(1, Math.floor(target * window)),
        ...(summaryModel !== undefined ? { model: summaryModel } : {}),
        ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}),
      }),
      truncate: new HardTruncate({ tokenCounter, maxTokens: hardLimit, keepRecent }),
    };
  }

  protected async run({ messages, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    let options: AutoCompactionOptions;
    if (typeof this.#options === "function") {
      try {
        options = parseOptions("autoCompaction", optionsSchema, this.#options()) as AutoCompactionOptions;
      } catch (error) {
        return { status: "failed", reason: `the configuration provider failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    } else {
      options = this.#options;
    }
    const configModel = context.config?.configurable?.["summaryModel"] as SummaryModel | undefined;
    let plan: Plan;
    try {
      plan = this.#plan = this.#planFor(options, configModel);
    } catch (error) {
      return { status: "failed", reason: error instanceof Error ? error.message : String(error) };
    }
    if (options.enabled === false) return { status: "noop", reason: "automatic compaction is disabled" };
    const fraction = options.threshold ?? 0.8;
    const threshold = Math.floor(fraction * plan.window);
    if (context.force !== true && tokens.total < threshold) {
      return { status: "noop", reason: `${tokens.total} tokens, under the threshold ${threshold} (${fraction} of ${plan.window})` };
    }
    const trigger = context.force ? "forced" : `${tokens.total} tokens >= ${threshold} tokens (${fraction} of a ${plan.window}-token window)`;
    const nested = nestedContext(context);
    const summarized = await plan.summary.compact(messages, nested);
    const summaryModel = summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {};
    const succeeded = summarized.status === "summarized";
    if (succeeded && summarized.tokensAfter <= plan.hardLimit) {
      return { status: "summarized", messages: summarized.messages, removed: summarized.removed, replaced: summarized.replaced, trigger, ...summaryModel };
    }
    const current = succeeded ? summarized : undefined;
    const currentTokens = current ? current.tokensAfter : tokens.total;
    const summaryNote = succeeded ? "the summary left the history over the hard limit" : `${summarized.status}: ${summarized.reason ?? "no reason given"}`;
    if (currentTokens <= plan.hardLimit) {
      // Under the hard limit: nothing forces a cut. The failure is reported; the history stands.
      return { status: summarized.status === "noop" ? "noop" : "failed", trigger, reason: `summary ${summaryNote}; under the hard limit ${plan.hardLimit}, nothing else done`, ...summaryModel };
    }
    const truncated = await plan.truncate.compact(current ? current.messages : messages, nested);
    if (truncated.status !== "truncated") {
      return { status: "failed", trigger, reason: `summary ${summaryNote}; hard-limit truncation ${truncated.status}: ${truncated.reason ?? ""}`, ...summaryModel };
    }
    if (!current) {
      return { status: "truncated", messages: truncated.messages, removed: truncated.removed, replaced: truncated.replaced, trigger, reason: `summary ${summaryNote}; truncated to the hard limit ${plan.hardLimit}`, ...summaryModel };
    }
    // Summary then truncation: the truncation ran on the summary's output, which inserted a message.
    const chained = chainSummaryThenTruncation(messages, current, truncated);
    return { status: "truncated", ...chained, trigger, reason: `summary ${summaryNote}; truncated to the hard limit ${plan.hardLimit}`, ...summaryModel };
  }
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

/**
 * A summary's result followed by a truncation of its output, reported against the original input.
 * The summary's output is `[system messages..., summary, ...input.slice(tailStart)]`; a tail message
 * the truncation drops is reported as removed (the summary's originals already are).
 */
function chainSummaryThenTruncation(input: readonly BaseMessage[], summary: CompactionResult, truncation: CompactionResult) {
  const inputMessages = new Set(input);
  const summaryPosition = summary.messages.findIndex((message) => !inputMessages.has(message));
  const tailStart = input.length - (summary.messages.length - summaryPosition - 1);
  const inputPositionOf = (index: number) => (index > summaryPosition ? tailStart + index - summaryPosition - 1 : undefined);
  const removed = [...summary.removed];
  const replaced = new Map(summary.replaced.map((entry) => [entry.index, entry]));
  for (const { index } of truncation.removed) {
    const position = inputPositionOf(index);
    if (position === undefined) continue;
    removed.push({ index: position, message: input[position]! });
    replaced.delete(position);
  }
  for (const { index, after } of truncation.replaced) {
    const position = inputPositionOf(index);
    if (position !== undefined) replaced.set(position, { index: position, before: input[position]!, after });
  }
  return { messages: truncation.messages, removed: removed.sort((a, b) => a.index - b.index), replaced: [...replaced.values()].sort((a, b) => a.index - b.index) };
}

/**
 * Automatic compaction with a hard-limit fallback.
 *
 * @example
 * const auto = autoCompaction({ contextWindow: 128_000, summaryModel: "gpt-4o-mini" });
 * // or read the configuration at every run:
 * const live = autoCompaction(() => ({ contextWindow: 128_000, threshold: settings.threshold }));
 * const { messages, status, reason } = await auto.compact(history);
 * @throws {InvalidOptionError} for invalid static options or an unknown context window (a function's options fail the run instead).
 */
export function autoCompaction(options: AutoCompactionOptions | (() => AutoCompactionOptions) = {}): AutoCompaction {
  return new AutoCompaction(options);
}


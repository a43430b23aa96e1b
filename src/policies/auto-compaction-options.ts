import { z } from "zod/v4";
import { costModelSchema, type CostModel } from "../cost/cost-model.js";
import type { CompactionEvent, CompactionLogger } from "../observability.js";
import { baseOptionsShape } from "../strategies/compaction-strategy.js";
import { triggerSchema, type ContextSize, type TriggerSize } from "../strategies/context-size.js";
import { receiptsSchema, type HidingReceiptOptions } from "../strategies/hiding-receipts.js";
import { supersessionSchema, type SupersessionOptions } from "../strategies/superseded-results.js";
import type { SummaryModel } from "../summary/summary-model.js";
import type { TokenCounter, TokenCounterFunction } from "../tokens/token-counter.js";

/** autoCompaction's default cap on a summary call's input (`summaryInputTokens`), in tokens. */
export const DEFAULT_AUTO_SUMMARY_INPUT_TOKENS = 4000;
/**
 * autoCompaction's default cap on a whole summary message, artifact index included
 * (`summaryMaxTokens`), in tokens: twice the other summaries', so that its index keeps the files,
 * commands and errors of a long session (docs/evaluation.md).
 */
export const DEFAULT_AUTO_SUMMARY_MAX_TOKENS = 2000;
/**
 * autoCompaction compacts when the conversation (the history without its system messages) reaches
 * this many tokens, or `threshold` (0.8) of the window if that comes first: with the defaults it
 * fires at 0.8 × the window or 60,000 tokens, whichever is less. `trigger: { tokens: 14_000 }` is
 * the frugal choice: cheaper, but the agent keeps less of what it read (docs/evaluation.md).
 */
export const DEFAULT_AUTO_TRIGGER_TOKENS = 60_000;
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
/**
 * With `withRecall`, when the threshold is the size that fires, hiding and the summary both compact
 * down to this share of the window (unless `target` is given): what they take out is recalled when
 * needed, so a deeper cut pays (docs/evaluation.md).
 */
export const DEFAULT_AUTO_RECALL_TARGET = 0.25;
/** Tool-call groups whose results (and assistant text) autoCompaction's hiding keeps. */
export const DEFAULT_AUTO_HIDING_KEEP_GROUPS = 3;
/** autoCompaction's hiding does nothing unless it frees this many tokens. */
export const DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST = 2000;

/** The batched tool-result hiding autoCompaction runs before it considers a summary. */
export interface AutoCompactionHidingOptions {
  /** The newest N tool-call groups keep their results. @default 3 */
  keepRecentGroups?: number;
  /** A hiding that frees fewer tokens does nothing (the cached prefix stays). @default 2000 */
  clearAtLeast?: number;
  /** A short stable receipt (file paths, error lines) after each hidden result's placeholder. @default true */
  receipts?: boolean | HidingReceiptOptions;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Content that replaces a hidden result. */
  placeholder?: string;
  /**
   * Also shorten the text of the same older groups' assistant messages (their reasoning before a
   * call; the calls stay), in the same batch: see `assistantTextTrimming`. `true`, or the code units
   * of each text to keep; `false` leaves assistant messages whole. @default true (80 code units kept)
   */
  trimAssistantText?: boolean | { keepChars?: number };
  /**
   * Hide superseded results first, in the same batch, kept groups included: see
   * `ToolResultHidingOptions.supersession`. `false`: only the kept groups decide. @default true
   */
  supersession?: boolean | SupersessionOptions;
}

/** The configuration of automatic compaction. */
export interface AutoCompactionOptions {
  /** @default true */
  enabled?: boolean;
  /** Compact when the history reaches this fraction of the context window (or `trigger` first). @default 0.8 */
  threshold?: number;
  /**
   * Compact when the conversation (the history without its system messages, which are never
   * compacted) reaches any of these sizes, if before `threshold` (LangChain's `{ tokens }`,
   * `{ fraction }` or `{ messages }` shape). A `messages` size alone must be over `keepRecent` + 2, what a
   * summary leaves. @default { tokens: DEFAULT_AUTO_TRIGGER_TOKENS } (60 000: with `threshold`,
   * 0.8 × the window or 60 000 tokens, whichever is less)
   */
  trigger?: TriggerSize | TriggerSize[];
  /**
   * Compact down to this fraction of the window (hysteresis): hiding that cannot get the history
   * under it is followed by a summary, and when the newest `keepRecent` messages are too large for
   * it, the summary keeps fewer, so the next compaction (and prompt-cache break) comes many calls
   * later rather than at the next one. When the `trigger` fired (not the threshold), it is capped at
   * the hiding share below. @default hiding stands when
   * it gets under the system messages plus 0.6 of what the size
   * that fired (`threshold` of the window, or the system messages plus the `trigger`'s tokens) holds
   * above them; a summary compacts down to the system messages plus 0.25
   * of it
   */
  target?: number;
  /**
   * Batched tool-result hiding, the first and cheapest step: when autoCompaction fires, every tool
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
  /**
   * The agent has the recall tool (`autoCompactionMiddleware`'s `recall` sets it): when the threshold
   * (not the `trigger`) is the size that fires, hiding and the summary compact down to 0.25 of the
   * window unless `target` is given, and the hiding leaves assistant text whole unless
   * `hiding.trimAssistantText` is given. @default false
   */
  withRecall?: boolean;
  /** Messages the summary keeps as they are (and the hard-limit truncation keeps). @default 10 */
  keepRecent?: number;
  /** Cap on the summary message in tokens, prefix and artifact index included (see `SummaryStrategyOptions.summaryMaxTokens`). @default 2000 */
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
   * @default 4000 (as LangChain's `trimTokensToSummarize`)
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
   * The summary model: a chat model or a model name (resolved as `SummaryModel` says: a
   * provider-prefixed name through `initChatModel`, a bare OpenAI name as `ChatOpenAI`). No built-in default: without one
   * here or in the run's `configurable.summaryModel`, the deterministic no-model summarizer is used.
   */
  summaryModel?: SummaryModel;
  /** Constructor fields for the model made from a model name (`ChatOpenAI`'s or `initChatModel`'s). */
  modelOptions?: Record<string, unknown>;
  /**
   * Write the summary off the agent's path. By default (`at: 1`) it starts at the firing: when the
   * firing's hiding is not enough, the summary of the part it would replace starts in the background
   * and, in a loop this policy has run before and while the history is under the stand limit (the
   * threshold plus half the way from it to `hardLimit`: 14 400 tokens of a 16 000-token window), the
   * step goes on without compacting (the no-op's reason says so; the cached prefix holds). The
   * summary is applied at the first step after it is ready, while the messages it covers are still
   * the history's first messages (same ids and content: the history only grew) and the result gets
   * under the size at which hiding stands; until then the history stands. Its cut leaves room for
   * about what the last step added, and it is not started when, at its longest, it could not get
   * under the size at which hiding stands a step later (a small window): the firing summarizes at
   * once. In a loop, each step from 0.9 of the way to the size that fires (`at` when lower) makes,
   * after it has returned, the hiding a firing would make, so that the firing finds its hidden
   * copies made.
   *
   * With `at` under 1 the summary starts earlier, so that it is ready at the firing: when the
   * conversation reaches `at` of what the size that fires holds above the system messages and a dry
   * run of the hiding foresees that hiding will not be enough at the firing (the share of the older
   * part it leaves now, applied to the conversation at the size that fires, plus the newest groups it
   * keeps, is over the size at which hiding stands). In a loop the policy has run before, the dry run
   * runs after the step, on a copy of its history, once while the history only grows. The cut is
   * the one a summary would make at the firing if the history grew by the room left. At the firing
   * it is applied even when hiding alone would have stood (it is paid for, and it buys more steps),
   * and what follows its cut is kept as the firing's hiding left it.
   *
   * On the recorded sessions of `npm run eval` the default costs 0.3-0.5% more than summarizing in the
   * step that fires (the step that fires is sent as it is, from the cache), with the same artifact
   * retention; `at: 0.9` costs 1.4-2% more (summaries prepared for firings that hiding handled or
   * that never came).
   *
   * Either way, over the stand limit a hiding that gets the history under it goes in at once (a
   * summary follows at a later firing); otherwise, and at the first call of a policy on a
   * conversation (a single `compact()` summarizes at once), one still being written in this process
   * is waited for. A preparation that failed or is not enough is dropped and the firing goes on as
   * without it. One attempt per prefix: a failed preparation is not retried until the history is
   * compacted. One preparation per thread (`threadId` of the run) or, without one, per conversation
   * (told apart by its first non-system message). In a graph (the compaction node or middleware,
   * with a store and a thread id) a prepared summary is also kept in the store under
   * `preparedSummariesNamespace(threadId)`, keyed by the id of the last message it covers, so
   * whichever worker runs the thread's next step applies it, once. On whenever a summary model is set
   * (here or in `configurable.summaryModel`); `false` turns it off.
   * @default true with a summary model, `at: 1`
   */
  prepare?: boolean | { at?: number };
  /** Time the summary call may take. @default 30000 */
  timeoutMs?: number;
  /** The model's context window in tokens. @default the summary model's profile or known name */
  contextWindow?: number;
  /**
   * When hiding and the summary failed (or were not enough) and the history is over this many tokens,
   * truncate to fit it: system messages and the newest `keepRecent` messages. @default the context window
   */
  hardLimit?: number;
  /** A `TokenCounter`, or a plain function `(messages) => number` (see `tokenCounterFromFunction`). @default the shared exact counter */
  tokenCounter?: TokenCounter | TokenCounterFunction;
  /** Receives one event per run. */
  onEvent?: (event: CompactionEvent) => void;
  logger?: CompactionLogger;
  /**
   * A summary that could not be written (its call failed or timed out, a model package is missing)
   * is printed with `console.warn`, once per cause; `false` keeps it silent (the event's and the
   * result's `summaryError` and the record's `reason` still say it). @default true
   */
  warnings?: boolean;
}

const hidingSchema = z
  .object({
    // Before a model call, 0 would hide the result the model has not read yet.
    keepRecentGroups: z.number().int().positive().optional(),
    clearAtLeast: z.number().int().nonnegative().optional(),
    receipts: receiptsSchema.optional(),
    excludeTools: z.array(z.string()).optional(),
    placeholder: z.string().min(1).optional(),
    trimAssistantText: z.union([z.boolean(), z.object({ keepChars: z.number().int().positive().optional() }).strict()]).optional(),
    supersession: supersessionSchema.optional(),
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
    withRecall: z.boolean().optional(),
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
    summaryModel: z
      .union([z.string().min(1), z.custom<object>((value) => typeof value === "object" && value !== null)], { error: "expected a chat model or a model name such as \"openai:gpt-4o-mini\"" })
      .optional(),
    modelOptions: z.record(z.string(), z.unknown()).optional(),
    prepare: z.union([z.boolean(), z.object({ at: z.number().gt(0).lte(1).optional() }).strict()]).optional(),
    timeoutMs: z.number().int().positive().optional(),
    contextWindow: z.number().int().positive().optional(),
    hardLimit: z.number().int().positive().optional(),
    tokenCounter: baseOptionsShape.tokenCounter,
    onEvent: baseOptionsShape.onEvent,
    logger: baseOptionsShape.logger,
    warnings: baseOptionsShape.warnings,
  })
  .strict();

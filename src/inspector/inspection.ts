import type { StoredMessage } from "@langchain/core/messages";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";

/**
 * One graph thread as the inspector reads it: the checkpointed state's `messages`, `compactionLog`
 * and `compactionArchive`, plus the store-archived entries of that thread. Also the format of a
 * thread's JSON export (`inspect --json <file>`): plain JSON, messages as
 * `mapChatMessagesToStoredMessages` writes them.
 *
 * @example
 * {
 *   "format": "langchain-compaction/thread@1",
 *   "threadId": "t1",
 *   "messages": [{ "type": "human", "data": { "content": "Fix the bug", "id": "h1", ... } }],
 *   "compactionLog": [],
 *   "archives": []
 * }
 */
export interface ThreadExport {
  readonly format: typeof THREAD_EXPORT_FORMAT;
  readonly threadId: string;
  /** The thread's current (compacted) messages, oldest first. */
  readonly messages: readonly StoredMessage[];
  /** The thread's `compactionLog`, oldest first (empty for a thread that was never compacted). */
  readonly compactionLog: readonly CompactionRecord[];
  /** Every archive entry of the thread, from the state channel and from the store alike. */
  readonly archives: readonly ArchivedCompaction[];
}

/** The `format` tag of a {@link ThreadExport}. */
export const THREAD_EXPORT_FORMAT = "langchain-compaction/thread@1" as const;

/** A message as the inspector shows it. */
export interface MessageView {
  /** The message id (`null` when it has none). */
  readonly id: string | null;
  /** `human`, `ai`, `tool`, `system` or another message type. */
  readonly type: string;
  /** Its text (text parts of a content array joined; other parts described in brackets). */
  readonly text: string;
  /** Tool calls of an AI message: name, id and arguments as JSON. */
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: string }[];
  /** The call a tool message answers. */
  readonly toolCallId: string | null;
  /** The tool's name, for a tool message. */
  readonly toolName: string | null;
  /** Its token count (the inspector's counter). */
  readonly tokens: number;
}

/**
 * One node of the timeline: the current context in order, with everything that left it shown in
 * place and collapsed. Nested: a summary's originals can hold an earlier summary with its own.
 */
export type TimelineNode =
  /** A message in the current context, never touched by a compaction. */
  | { readonly kind: "message"; readonly message: MessageView }
  /** A summary a compaction inserted, standing for `originals` (collapsed, expandable). */
  | { readonly kind: "summary"; readonly compactionId: string; readonly message: MessageView; readonly originals: readonly TimelineNode[] }
  /** A message rewritten in place (a hidden tool result): what the model sees, and the original. */
  | { readonly kind: "hidden"; readonly compactionId: string; readonly message: MessageView; readonly original: TimelineNode }
  /**
   * A message a compaction put in place of `originals` without summarizing them: a copy of a
   * reordered or rewritten history (a strategy that returned messages out of order). Its originals
   * are collapsed under it; the other copies the same compaction put in place have none (each
   * original is shown once, under the first).
   */
  | { readonly kind: "replacement"; readonly compactionId: string; readonly message: MessageView; readonly originals: readonly TimelineNode[] }
  /** Messages a compaction removed without a replacement (truncation, dropped kinds), collapsed. */
  | { readonly kind: "removed"; readonly compactionId: string; readonly originals: readonly TimelineNode[] };

/** One compaction point. */
export interface CompactionView {
  /** 1-based number in the log, as the page labels it (`#3`). */
  readonly number: number;
  readonly record: CompactionRecord;
  /** The summary text it inserted, if any. */
  readonly summary: string | null;
  /** How many originals it archived. */
  readonly archivedMessages: number;
  /**
   * The originals it archived, as it saw them (an earlier summary or hidden copy among them is shown
   * as such, not expanded again), in their order in the history; empty when its archive is missing.
   */
  readonly originals: readonly MessageView[];
  /** Index in {@link Inspection.chart} of the step at which it ran, or null when it cannot be placed. */
  readonly step: number | null;
}

/**
 * One call of the recall tool (`recallTool`, the middleware's `recall` option) in the thread's
 * history, with its result: which reference it asked for, what that reference stood for in the
 * archives of the compactions that ran before it, and what it returned.
 */
export interface RecallView {
  /** 1-based number, in the order of the calls, as the page labels it (`recall 2`). */
  readonly number: number;
  /** The reference the call asked for (its `ref` argument, as given). */
  readonly ref: string;
  /** The text it looked for in the originals (its `find` argument); null when it asked for them all. */
  readonly find: string | null;
  /** The part it asked for (its `part` argument; 1 when absent). */
  readonly part: number;
  /** How many parts its result says the recalled text has; null when it returned no text (nothing found, no result yet). */
  readonly parts: number | null;
  /** Tokens of its result (the inspector's counter); 0 without a result. */
  readonly tokens: number;
  /** The tool call's id, and the assistant message that made it. */
  readonly callId: string;
  readonly callMessageId: string | null;
  /** Index of the assistant message in the restored history (the chart's step). */
  readonly callStep: number;
  /** The result's message id and step; null when the call has no result in the thread. */
  readonly resultMessageId: string | null;
  readonly resultStep: number | null;
  /** The compactions whose archives hold the originals it resolved to, in log order (empty: the reference named nothing archived). */
  readonly compactionIds: readonly string[];
  /** The ids of the originals it resolved to, in history order. */
  readonly originalIds: readonly string[];
}

/**
 * One point of the context-size chart: after each original message entered the history.
 *
 * Tokens are sums of per-message counts (the inspector's counter), like the header's totals: where a
 * compaction ran, the context becomes its recorded `tokensAfter` less the reply priming its counter
 * added for the request (what the inspector's counter gives for no messages,
 * `REPLY_PRIMING_TOKENS` with the default counter). A calibration offset the compaction's counter
 * added is not known to the inspector and stays in.
 */
export interface ChartPoint {
  /** 0-based step: the index of the message in the thread's restored (original) history. */
  readonly step: number;
  /** Tokens in the context after that message entered (after any compaction that ran before it). */
  readonly tokens: number;
  /**
   * Tokens in the context after the compactions that ran at this step, when one of them changed it
   * (absent otherwise): the chart drops from `tokens` to `after` at this step.
   */
  readonly after?: number;
}

/** Totals for the page's header. */
export interface InspectionTotals {
  /** Messages stored: every message of the thread's original history (restored). */
  readonly originalMessages: number;
  readonly originalTokens: number;
  /** Model calls: the assistant messages of the original history, each the answer to one call. */
  readonly modelCalls: number;
  /**
   * Peak context: the most tokens sent in one model call (the context right before an assistant
   * message entered, after the compactions that ran there, plus the reply priming), as an agent's
   * token meter counts its requests. 0 for a thread without model calls. The page's chart marks the
   * same call with the same figure.
   */
  readonly peakContextTokens: number;
  /** The step (chart index) of the assistant message that answered that call; null without model calls. */
  readonly peakCallStep: number | null;
  /** Messages and tokens in the current context. */
  readonly contextMessages: number;
  readonly contextTokens: number;
  /** Compactions in the log, and how many failed. */
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly summaries: number;
  readonly hiddenResults: number;
  readonly archivedMessages: number;
  /** Sum over compactions of tokensBefore − tokensAfter. */
  readonly tokensSaved: number;
  /** Total time spent compacting, ms. */
  readonly compactionMs: number;
}

/**
 * The sizes the chart draws as lines, as {@link buildInspection} was told them (the compaction log
 * does not record them): each is null when not given.
 */
export interface InspectionLimits {
  /** The model's context window, in tokens. */
  readonly contextWindow: number | null;
  /** The size, in tokens, at which the thread's compaction starts (autoCompaction's: 0.8 of the window, at most 60,000 tokens of conversation). */
  readonly triggerTokens: number | null;
}

/** Everything the inspector page (and the text summary) shows about one thread. */
export interface Inspection {
  readonly threadId: string;
  /** ISO time the inspection was made. */
  readonly generatedAt: string;
  readonly totals: InspectionTotals;
  readonly timeline: readonly TimelineNode[];
  readonly compactions: readonly CompactionView[];
  /** The recall tool's calls, in order; empty (or absent, in an inspection made by hand) for a thread that never recalled. */
  readonly recalls?: readonly RecallView[];
  readonly chart: readonly ChartPoint[];
  /** The window and the trigger the chart draws; absent or null when unknown. */
  readonly limits?: InspectionLimits;
  /** Problems found reading the thread (e.g. an archive the log names is missing); the page lists them. */
  readonly warnings: readonly string[];
}

import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseStore } from "@langchain/langgraph";
import type { ArtifactIndex } from "./messages/artifact-index.js";
import type { HistoryRepair } from "./messages/history-repair.js";

/**
 * - `noop`: nothing to do; `messages` is the input array's content, unchanged.
 * - `compacted`: content was reduced by rule (results hidden, messages dropped by kind).
 * - `summarized`: the oldest part of the conversation was replaced by one summary message.
 * - `truncated`: the oldest part of the conversation was cut to meet a hard bound.
 * - `failed`: the strategy could not do its job; `messages` is the input unchanged and `reason`
 *   says why.
 * - `repaired`: with `invalidHistory: "repair"`, the input was broken (tool pairing, a lone
 *   surrogate, a message with nothing to send) and was repaired, and the strategy itself had
 *   nothing to do (or failed): `messages` is the repaired history and `repair` says what changed.
 */
export type CompactionStatus = (typeof COMPACTION_STATUSES)[number];

/** Every {@link CompactionStatus}, e.g. for validating stored records. */
export const COMPACTION_STATUSES = ["noop", "compacted", "summarized", "truncated", "failed", "repaired"] as const;

/** A message that left the history. `index` is its position in the input. */
export interface RemovedMessage {
  readonly index: number;
  readonly message: BaseMessage;
}

/** A message replaced by a smaller copy. `index` is its position in the input. */
export interface ReplacedMessage {
  readonly index: number;
  readonly before: BaseMessage;
  readonly after: BaseMessage;
}

/**
 * What one compaction did. `removed` and `replaced` hold the originals: archive them to keep the
 * full history.
 */
export interface CompactionResult {
  /** The new history (a new array; unchanged messages are the input objects). */
  readonly messages: BaseMessage[];
  readonly status: CompactionStatus;
  /** Name of the strategy that produced this result, e.g. `toolResultHiding`. */
  readonly strategy: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly removed: readonly RemovedMessage[];
  readonly replaced: readonly ReplacedMessage[];
  /** Why a run was a no-op or failed, or what it could not reach. */
  readonly reason?: string;
  /** What fired the compaction, for strategies and policies that trigger by themselves; `"forced"` when told to run. */
  readonly trigger?: string;
  /** Which model wrote the summary, `"none"` for the no-model summarizer; absent when no summary was written. */
  readonly summaryModel?: string;
  /**
   * Why the summary this run asked for was not written (the summary call failed, timed out, or
   * answered nothing; a missing model package), even when the run went on and hid or truncated;
   * absent otherwise.
   */
  readonly summaryError?: string;
  /**
   * With `invalidHistory: "repair"` and a broken input (tool pairing, lone surrogates, a message with nothing to send): what the
   * repair found and changed before the strategy ran. `removed` and `replaced` above then index into
   * the repaired history (`repair.messages`); `tokensBefore` and `messagesBefore` still describe the
   * input as given.
   */
  readonly repair?: HistoryRepair;
}

/** Per-run context for {@link CompactionStrategy.compact}. */
export interface CompactionContext {
  /** Aborts the run; an aborted run throws the signal's reason and changes nothing. */
  readonly signal?: AbortSignal;
  /**
   * The calling run's config (a LangGraph node's or a chain's). Summary calls run as its children,
   * so they show up in its traces, and events are dispatched to its callbacks.
   */
  readonly config?: RunnableConfig;
  /**
   * Skip the strategy's own trigger and compact now. Policies set it on the strategies they
   * compose (the trigger stays outside the strategy).
   */
  readonly force?: boolean;
  /**
   * The conversation's thread (LangGraph's `configurable.thread_id`), set by the compaction node and
   * middleware: what a policy remembers between runs (e.g. autoCompaction's summaries prepared
   * ahead) is kept per thread.
   */
  readonly threadId?: string;
  /**
   * The graph's store, set by the compaction node and middleware with `threadId`: autoCompaction
   * keeps its summaries prepared ahead there, so whichever worker runs the thread's next step can
   * apply them.
   */
  readonly store?: BaseStore;
  /**
   * The provider rejected the last request as too long (set with `force` by `compactionMiddleware`
   * before its one retry): compact hard. `autoCompaction` then skips the hiding-only step and goes to
   * its summary, then its hard limit.
   */
  readonly overflow?: boolean;
  /**
   * With `overflow`: the share of the history's current size the provider takes (its maximum over
   * the size it reported, less a margin), when its error gave both. `autoCompaction` lowers its hard
   * limit to that share of its count (half without it).
   */
  readonly overflowShrink?: number;
  /**
   * Set by `compactionMiddleware` for a compactor that is not a `CompactionStrategy`: a system
   * message holding what the model gets besides these messages (the request's system message and
   * the tools' schemas as JSON), to count toward the window. A strategy gets it as the history's
   * first message instead (and it is taken out of the result).
   */
  readonly requestOverhead?: BaseMessage;
}

/** Metadata key under `response_metadata` that marks what this package produced. */
export const COMPACTION_METADATA_KEY = "compaction";

/** The marker stored at `response_metadata.compaction` of a message this package rewrote. */
export interface CompactionMarker {
  /** Which strategy rewrote the message. */
  readonly strategy: string;
  /** The tool result's content was replaced by a placeholder. */
  readonly hidden?: boolean;
  /**
   * For a hidden result: the id (`tool_call_id`, or a block's `tool_use_id`) of the oldest result
   * hidden by the same run, which tells the results of one run from another's in the history alone
   * (`cacheAnchorPositions` anchors the request after a run where the requests before it anchored).
   */
  readonly batch?: string;
  /** For a result hidden because a later call superseded it: the id of that call (whose result the hiding kept). */
  readonly supersededBy?: string;
  /** The message's text was cut to fit a hard limit. */
  readonly truncated?: boolean;
  /** An assistant message's text was shortened (its tool calls kept). */
  readonly trimmedText?: boolean;
  /** Tool call ids whose arguments were emptied. */
  readonly hiddenToolInputs?: readonly string[];
  /** The message is a compaction summary (never dropped by selective rules). */
  readonly summary?: boolean;
  /** Tokens of the original message. */
  readonly originalTokens?: number;
  /**
   * For a summary: the artifact index of everything it replaced (see `extractArtifacts`). For a hidden
   * result (with receipts): its original's index, when that holds anything.
   */
  readonly artifacts?: ArtifactIndex;
  /** For a summary: how many messages it replaced, earlier summaries' counts included. */
  readonly summarizedMessages?: number;
  /** For a summary: the model that wrote it, `"none"` for the no-model summarizer. */
  readonly summaryModel?: string;
}

/**
 * The compaction marker of a message, if this package rewrote it.
 *
 * @example
 * if (compactionMarkerOf(message)?.hidden) console.log("a hidden tool result");
 */
export function compactionMarkerOf(message: BaseMessage): CompactionMarker | undefined {
  const marker = (message.response_metadata as Record<string, unknown> | undefined)?.[COMPACTION_METADATA_KEY];
  return typeof marker === "object" && marker !== null ? (marker as CompactionMarker) : undefined;
}

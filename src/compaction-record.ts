import type { BaseMessage, StoredMessage } from "@langchain/core/messages";
import type { MessageProblem } from "./errors.js";
import type { HistoryRepair } from "./messages/history-repair.js";
import type { CompactionStatus } from "./types.js";

/**
 * One entry of the compaction log: what one compaction of a graph's `messages`
 * did, kept in the `compactionLog` state channel. Plain JSON, so every checkpointer stores it.
 *
 * @example
 * {
 *   id: "5f0c…", at: "2025-01-01T12:00:00.000Z", strategy: "slidingWindow", status: "truncated",
 *   tokensBefore: 9120, tokensAfter: 2210, messagesBefore: 40, messagesAfter: 9,
 *   removedIds: ["h1", "a1", "t1"], replacedIds: [], insertedIds: [], summaryId: null,
 *   archive: "store", durationMs: 3.1, lastMessageId: "a20",
 * }
 */
export interface CompactionRecord {
  /** Unique id of this compaction; the key of its archive entry. */
  readonly id: string;
  /** When it ran (ISO 8601). */
  readonly at: string;
  /** The strategy (or policy) that ran, or `"unknown"` for a compactor without a name. */
  readonly strategy: string;
  /**
   * The compactor's status. `failed` also stands for a compactor that threw or an archive that could
   * not be written: the messages were then left unchanged and `reason` says why. `repaired`: only the
   * repair (tool pairing, lone surrogates) changed the messages (see `repair`): the compactor had nothing to do, failed
   * or threw (`reason` then says why).
   */
  readonly status: CompactionStatus;
  /** Token figures of the compactor's result; `null` when the compactor threw before reporting any. */
  readonly tokensBefore: number | null;
  readonly tokensAfter: number | null;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  /** Ids of the messages that left the history (their originals are archived). */
  readonly removedIds: readonly string[];
  /** Ids of the messages rewritten in place, e.g. hidden tool results (their originals are archived). */
  readonly replacedIds: readonly string[];
  /** Ids of messages the compaction added, e.g. a summary. */
  readonly insertedIds: readonly string[];
  /** Id of the summary message the compaction added, if any (it takes the id of the newest assistant message it replaces, else of the newest tool result, else of the first). */
  readonly summaryId: string | null;
  /** Where the originals went: the graph's store, the `compactionArchive` state channel, or nowhere (nothing left). */
  readonly archive: CompactionArchiveLocation;
  /** Why the compaction failed, was a no-op or what it could not reach. */
  readonly reason?: string;
  /**
   * Wall-clock duration of the compaction: the compactor's run (the archive write, made with the
   * record, is left out); a record of a failed write includes the write.
   */
  readonly durationMs?: number;
  /**
   * Id of the newest message of the history the compaction was given: where the compaction happened
   * in the thread's timeline (the inspector places its marker after it). `null` for an empty history;
   * absent in logs written before 0.1.0's inspector.
   */
  readonly lastMessageId?: string | null;
  /**
   * Set when the history's tool pairing was broken (or a text held a lone surrogate) and was repaired
   * before the compactor ran (by the
   * adapter's default `invalidHistory: "repair"`, or by a strategy's own `invalidHistory: "repair"`).
   * Its ids are also in `removedIds` / `replacedIds`; the token figures are the compactor's, which
   * saw the repaired history. Absent when nothing was repaired.
   */
  readonly repair?: CompactionRepairSummary;
  /** Its position in the thread's log (0 for the first record). Absent in logs written by 0.1.0. */
  readonly sequence?: number;
  /** Id of the record before it in the thread's log, `null` for the first. Absent in logs written by 0.1.0. */
  readonly previous?: string | null;
  /**
   * Where the thread's full log holds this record: `"store"` (the log namespace under the thread's
   * archive namespace) or `"state"` (its entry of the `compactionArchive` channel). Absent: only the
   * `compactionLog` channel holds it, which then keeps it (see `readCompactionLog`).
   */
  readonly logged?: "store" | "state";
}

/**
 * What the repair of a history changed (lone surrogates replaced, tool pairing repaired as
 * `repairToolPairing` does), by message id. Plain JSON, stored in the record.
 *
 * @example
 * {
 *   problems: [{ kind: "misplaced-result", index: 3, toolCallId: "c1", assistantIndex: 1, message: "..." }],
 *   removedIds: [], replacedIds: [], movedIds: ["t1"],
 * }
 */
export interface CompactionRepairSummary {
  /**
   * The problems found (tool pairing, lone surrogates), each with its index in the history the
   * compaction was given.
   */
  readonly problems: readonly MessageProblem[];
  /** Messages the repair dropped: orphan and duplicate tool results, assistant messages left empty. */
  readonly removedIds: readonly string[];
  /**
   * Messages the repair replaced by a corrected copy (calls without a result removed, repeated ids
   * renamed, lone surrogates replaced by U+FFFD...).
   */
  readonly replacedIds: readonly string[];
  /** Tool results moved to directly after their call's message. */
  readonly movedIds: readonly string[];
}

/** Where a compaction's originals are archived. */
export type CompactionArchiveLocation = "store" | "state" | "none";

/**
 * Where an archived original belongs in the history it left, relative to the messages that stayed:
 * - `replaced-by`: it was replaced by the message with this id (a rewritten copy, or a summary);
 * - `before`: it was removed, and the message with this id followed it;
 * - `after`: it was removed from the end of the history, and the message with this id preceded it;
 * - `start`: it was removed and nothing stayed.
 */
export type ArchiveAnchor =
  | { readonly kind: "replaced-by" | "before" | "after"; readonly id: string }
  | { readonly kind: "start" };

/** One original message that left the context in one compaction. */
export interface ArchivedMessage {
  /** Its position in the history the compaction was given. */
  readonly position: number;
  readonly anchor: ArchiveAnchor;
  /** The original, as `mapChatMessagesToStoredMessages` serializes it (ids, tool calls, metadata kept). */
  readonly message: StoredMessage;
}

/** Everything one compaction took out of the context: the value stored under its record's id. */
export interface ArchivedCompaction {
  /** The {@link CompactionRecord} id. */
  readonly compactionId: string;
  /** The originals, in their order in the history the compaction was given. */
  readonly messages: readonly ArchivedMessage[];
  /**
   * Ids of messages the compaction added that stand for no original (a second inserted message, or
   * every message but the first after a reordering compactor): restoring the history drops them.
   */
  readonly dropped: readonly string[];
  /**
   * Per id the compaction wrote (a rewritten copy, a summary), a fingerprint of what it wrote there:
   * a message under that id that no longer matches was written by the app since, and
   * `restoreHistory` gives the app's version. Absent in archives written before 0.2.0.
   */
  readonly written?: Readonly<Record<string, string>>;
  /**
   * Per id originals are anchored to, the ids of the messages before and after it in the history the
   * compaction made (null at either end): where those originals go when the app removes that message.
   * Absent in archives written before 0.2.0.
   */
  readonly neighbours?: Readonly<Record<string, readonly [string | null, string | null]>>;
  /**
   * The compaction's record, in an archive kept in the `compactionArchive` channel (the thread's full
   * log, when there is no store). A record that archived nothing has an entry with no `messages`.
   */
  readonly record?: CompactionRecord;
}

function idsOf(messages: readonly BaseMessage[]): string[] {
  return messages.map((message) => message.id).filter((id): id is string => typeof id === "string");
}

/** A repair, as a record keeps it (messages without an id are left out of the id lists). @internal */
export function repairSummaryOf(repair: HistoryRepair): CompactionRepairSummary {
  return {
    problems: repair.problems.map((problem) => ({ ...problem })),
    removedIds: idsOf(repair.removed.map(({ message }) => message)),
    replacedIds: idsOf(repair.replaced.map(({ before }) => before)),
    movedIds: idsOf(repair.moved.map(({ message }) => message)),
  };
}

/** Who and when: a record's id, start time and duration. @internal */
export interface RecordIdentity {
  readonly id: string;
  readonly at: Date;
  readonly durationMs: number;
}

/** The name a compactor reports (`strategyName`), or `"unknown"`. @internal */
export function strategyNameOf(compactor: object): string {
  const name = (compactor as { strategyName?: unknown }).strategyName;
  return typeof name === "string" && name !== "" ? name : "unknown";
}

/** An error as a record's reason: `Name: message`. @internal */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The record of a compaction whose compactor threw (or whose result could not be kept): nothing
 * changed, no figures were measured, and `reason` says why. Without the `archive` field, which only
 * the graph's log has. @internal
 */
export function failedCompactionRecord(strategy: string, messageCount: number, reason: string, identity: RecordIdentity): Omit<CompactionRecord, "archive"> {
  return {
    id: identity.id,
    at: identity.at.toISOString(),
    strategy,
    status: "failed",
    tokensBefore: null,
    tokensAfter: null,
    messagesBefore: messageCount,
    messagesAfter: messageCount,
    removedIds: [],
    replacedIds: [],
    insertedIds: [],
    summaryId: null,
    reason,
    durationMs: identity.durationMs,
  };
}

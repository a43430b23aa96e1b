/**
 * A failed compaction's record for the inspector tests' fixtures: nothing changed, so no token
 * figures, no ids, no archive, and as many messages after as before. Each test writes out the fields
 * it asserts on; the ones a failure fixes are written here once.
 */
import type { CompactionRecord } from "../../../src/compaction-record.js";

/** What a failed record's tests choose; the rest follows from the failure. */
export interface FailedRecordFields {
  readonly id: string;
  readonly at: string;
  readonly strategy: string;
  /** The history's length, unchanged by the failure. */
  readonly messages: number;
  readonly reason: string;
  readonly durationMs: number;
  readonly lastMessageId: string | null;
}

/** The record of a compaction that failed with `reason`. */
export function failedRecord({ id, at, strategy, messages, reason, durationMs, lastMessageId }: FailedRecordFields): CompactionRecord {
  return {
    id,
    at,
    strategy,
    status: "failed",
    tokensBefore: null,
    tokensAfter: null,
    messagesBefore: messages,
    messagesAfter: messages,
    removedIds: [],
    replacedIds: [],
    insertedIds: [],
    summaryId: null,
    archive: "none",
    reason,
    durationMs,
    lastMessageId,
  };
}

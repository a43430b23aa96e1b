import type { BaseMessage } from "@langchain/core/messages";
import { describeError, failedCompactionRecord, repairSummaryOf, strategyNameOf, type CompactionRecord, type RecordIdentity } from "../compaction-record.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { compactionMarkerOf, type CompactionResult } from "../types.js";

export type { RecordIdentity };

/**
 * One compaction of a {@link CompactingChatMessageHistory}'s view, as kept in its `compactions` list
 * (the persisted record keeps the full history plus a record of every compaction).
 *
 * The graph's {@link CompactionRecord} without `archive`: the originals never leave the wrapped
 * history, so there is no archive to point to. Message ids refer to the full history
 * (`getAllMessages()`); `insertedIds` and `summaryId` to the view. `tokensBefore` and `tokensAfter`
 * are `null` only for a compactor that threw.
 *
 * @example
 * {
 *   id: "5f0c…", at: "2025-01-01T12:00:00.000Z", strategy: "slidingWindow", status: "truncated",
 *   tokensBefore: 9120, tokensAfter: 2210, messagesBefore: 40, messagesAfter: 9,
 *   removedIds: ["h1", "a1"], replacedIds: [], insertedIds: [], summaryId: null, durationMs: 0.4,
 * }
 */
export type HistoryCompactionRecord = Omit<CompactionRecord, "archive">;

/**
 * The messages of `result.messages` that the compaction inserted: neither an input message nor the
 * smaller copy of one. One pass over each array.
 * @internal
 */
export function insertedMessages(input: readonly BaseMessage[], result: CompactionResult): BaseMessage[] {
  const known = new Set<BaseMessage>(input);
  for (const { after } of result.replaced) known.add(after);
  return result.messages.filter((message) => !known.has(message));
}

function idsOf(messages: readonly BaseMessage[]): string[] {
  return messages.map((message) => message.id).filter((id): id is string => typeof id === "string");
}

/**
 * The record of one compaction that returned a result. `inserted` are the messages it inserted (see
 * {@link insertedMessages}), already carrying their final ids. With a tool-pairing repair
 * (`result.repair`), what the repair removed or replaced is named too, before what the compactor
 * did, each id once; a message the repair rewrote and the compactor then removed counts as removed.
 * @internal
 */
export function historyCompactionRecord(
  result: CompactionResult,
  inserted: readonly BaseMessage[],
  identity: RecordIdentity,
): HistoryCompactionRecord {
  const summary = inserted.find((message) => compactionMarkerOf(message)?.summary === true);
  const repair = result.repair && result.repair.problems.length > 0 ? result.repair : undefined;
  const removedIds = [
    ...new Set([...idsOf(repair?.removed.map(({ message }) => message) ?? []), ...idsOf(result.removed.map(({ message }) => message))]),
  ];
  const removed = new Set(removedIds);
  const replacedIds = [
    ...new Set([...idsOf(repair?.replaced.map(({ before }) => before) ?? []), ...idsOf(result.replaced.map(({ before }) => before))]),
  ].filter((id) => !removed.has(id));
  return {
    id: identity.id,
    at: identity.at.toISOString(),
    strategy: result.strategy,
    status: result.status,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    messagesBefore: result.messagesBefore,
    messagesAfter: result.messagesAfter,
    removedIds,
    replacedIds,
    insertedIds: idsOf(inserted),
    summaryId: summary?.id ?? null,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    durationMs: identity.durationMs,
    ...(repair ? { repair: repairSummaryOf(repair) } : {}),
  };
}

/**
 * The record of a compactor that threw: nothing changed, and `reason` carries the error.
 * @internal
 */
export function thrownCompactionRecord(compactor: Compactor, messageCount: number, error: unknown, identity: RecordIdentity): HistoryCompactionRecord {
  return failedCompactionRecord(strategyNameOf(compactor), messageCount, describeError(error), identity);
}

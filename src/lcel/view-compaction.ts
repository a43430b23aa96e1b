import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describeError, strategyNameOf, type RecordIdentity } from "../compaction-record.js";
import { repairBeforeCompaction, repairOnlyResult, withRepair, type AdapterInvalidHistoryHandling } from "../langgraph/invalid-history.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { historyCompactionRecord, insertedMessages, thrownCompactionRecord, type HistoryCompactionRecord } from "./history-compaction-record.js";

/**
 * Where the open tool calls at the end of a history start: the last assistant message, if some of its
 * calls have no result after it yet (a tool-calling chain stores the call one turn and its results
 * the next). Held back from compaction and repair, and kept after the view. @internal
 */
export function openToolCallsStart(messages: readonly BaseMessage[]): number {
  const answered = new Set<string>();
  for (let position = messages.length - 1; position >= 0; position--) {
    const message = messages[position]!;
    if (ToolMessage.isInstance(message)) {
      answered.add(message.tool_call_id);
      continue;
    }
    const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) return messages.length;
    return calls.every((call) => call.id !== undefined && answered.has(call.id)) ? messages.length : position;
  }
  return messages.length;
}

/**
 * What one compaction of a view produced:
 * - `unchanged`: the view stays (a no-op, or a `failed` result, which has a record);
 * - `thrown`: the compactor threw and nothing was repaired (or `onError` is `"throw"`): the view stays;
 * - `changed`: `next` is the new view. `retry` is set when only the repair changed it because the
 *   compactor threw (the next read tries the compactor again).
 * @internal
 */
export type ViewCompaction =
  | { readonly kind: "unchanged"; readonly record: HistoryCompactionRecord | undefined }
  | { readonly kind: "thrown"; readonly record: HistoryCompactionRecord; readonly error: unknown }
  | { readonly kind: "changed"; readonly next: BaseMessage[]; readonly record: HistoryCompactionRecord; readonly retry: boolean };

/** What {@link compactView} needs from its chat history. @internal */
export interface ViewCompactionDeps {
  readonly compactor: Compactor;
  readonly invalidHistory: AdapterInvalidHistoryHandling;
  readonly onError: "continue" | "throw";
  readonly context: CompactionContext;
  /** The message itself when it has an id, else a copy with a new one. */
  readonly withId: (message: BaseMessage) => BaseMessage;
  /** The record's id, start and duration, read when the record is made. */
  readonly identity: () => RecordIdentity;
}

/**
 * Compact `view[0..open)` (repaired first, unless `invalidHistory` is `"leave"`), keeping
 * `view[open..]` (open tool calls) after it. Never mutates the view. @internal
 */
export async function compactView(view: readonly BaseMessage[], open: number, deps: ViewCompactionDeps): Promise<ViewCompaction> {
  const settled = view.slice(0, open);
  const repair = repairBeforeCompaction(settled, deps.invalidHistory);
  const input = repair?.messages ?? settled;
  let result: CompactionResult;
  let retry = false;
  try {
    result = await deps.compactor.compact(input, deps.context);
    if (repair) result = withRepair(result, repair, settled.length);
  } catch (error) {
    if (!repair || deps.onError === "throw") return { kind: "thrown", error, record: thrownCompactionRecord(deps.compactor, settled.length, error, deps.identity()) };
    // The compactor failed, but the view must not keep the broken pairing: the repair alone.
    result = repairOnlyResult(strategyNameOf(deps.compactor), repair, settled.length, describeError(error));
    retry = true;
  }
  if (result.status === "noop") return { kind: "unchanged", record: undefined };
  if (result.status === "failed") return { kind: "unchanged", record: historyCompactionRecord(result, [], deps.identity()) };
  // Inserted messages (summaries) get an id if they lack one, so the record can name them.
  const inserted = new Set(insertedMessages(input, result));
  const withIds = result.messages.map((message) => (inserted.has(message) ? deps.withId(message) : message));
  const insertedWithIds = withIds.filter((_, position) => inserted.has(result.messages[position]!));
  const record = historyCompactionRecord(result, insertedWithIds, deps.identity());
  return {
    kind: "changed",
    next: [...withIds, ...view.slice(open)],
    record: retry ? { ...record, tokensBefore: null, tokensAfter: null } : record,
    retry,
  };
}

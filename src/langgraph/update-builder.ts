import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { v4 as uuidv4 } from "@langchain/core/utils/uuid";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { cloneMessage } from "../messages/clone-message.js";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { removalOf } from "../messages/stored-messages.js";
import { compactionMarkerOf, type CompactionResult } from "../types.js";
import type { ArchiveAnchor } from "../compaction-record.js";

// How a compactor's output maps onto LangGraph's messages reducer: the gaps between kept messages
// (removals and insertions) and the replace-everything fallback. Used by `compactionUpdate`.

/** Mutable accumulators of one update computation. @internal */
export interface Builder {
  update: BaseMessage[];
  history: BaseMessage[];
  archived: { position: number; anchor: ArchiveAnchor; message: BaseMessage }[];
  dropped: string[];
  removedIds: string[];
  replacedIds: string[];
  insertedIds: string[];
  summaryId: string | null;
}

/** @internal */
export function newBuilder(): Builder {
  return { update: [], history: [], archived: [], dropped: [], removedIds: [], replacedIds: [], insertedIds: [], summaryId: null };
}

/** An id for an inserted message: its own when unused, else a new UUID. */
function insertedId(message: BaseMessage, used: Set<string>): string {
  const own = message.id;
  const id = typeof own === "string" && own !== "" && !used.has(own) ? own : uuidv4();
  used.add(id);
  return id;
}

/** The message under `id`: itself when it has it, else a copy. @internal */
export function withId(message: BaseMessage, id: string): BaseMessage {
  return message.id === id ? message : cloneMessage(message, { id });
}

/** Count `message` as inserted (and as the summary, the first time one is). @internal */
export function noteInserted(builder: Builder, message: BaseMessage): void {
  builder.insertedIds.push(message.id!);
  if (builder.summaryId === null && compactionMarkerOf(message)?.summary) builder.summaryId = message.id!;
}

/**
 * The gap between two kept messages: input positions `from..to-1` all left, and `inserted` took
 * their place. Returns false when the reducer cannot place the inserted messages there (more inserted
 * messages than removed ones, before the end of the history). @internal
 */
export function placeGap(
  builder: Builder,
  before: readonly BaseMessage[],
  inserted: readonly BaseMessage[],
  from: number,
  to: number,
  neighbours: { previousId: string | undefined; nextId: string | undefined },
  used: Set<string>,
): boolean {
  const removedCount = to - from;
  if (inserted.length === 0) {
    const { previousId, nextId } = neighbours;
    const anchor: ArchiveAnchor =
      nextId !== undefined ? { kind: "before", id: nextId } : previousId !== undefined ? { kind: "after", id: previousId } : { kind: "start" };
    for (let position = from; position < to; position++) {
      const original = before[position]!;
      builder.update.push(removalOf(original));
      builder.removedIds.push(original.id!);
      builder.archived.push({ position, anchor, message: original });
    }
    return true;
  }
  if (inserted.length > removedCount && neighbours.nextId !== undefined) return false;
  // Every message of the gap leaves, so the new ones may take any of their ids, in order. One
  // message (a summary) takes the newest assistant message's: an app that edits or resends the
  // user's message, or redacts a tool result, writes that id again, and would overwrite the summary.
  const taken = inserted.length === 1 && removedCount > 1 ? newestModelWritten(before, from, to) : from;
  let firstId: string | undefined;
  inserted.forEach((message, offset) => {
    // Taking a removed message's id puts the new message at that message's position.
    const id = offset < removedCount ? before[taken + offset]!.id! : insertedId(message, used);
    const final = withId(message, id);
    firstId ??= id;
    builder.update.push(final);
    builder.history.push(final);
    noteInserted(builder, final);
    if (offset > 0 || removedCount === 0) builder.dropped.push(id);
  });
  for (let position = from; position < to; position++) {
    const original = before[position]!;
    const offset = position - taken;
    if (offset < 0 || offset >= inserted.length) builder.update.push(removalOf(original));
    builder.removedIds.push(original.id!);
    builder.archived.push({ position, anchor: { kind: "replaced-by", id: firstId! }, message: original });
  }
  return true;
}

/**
 * Position of the newest assistant message in `from..to-1` (apps rarely rewrite those; a redaction
 * rewrites a tool result), else of the newest tool result, else `from`.
 */
function newestModelWritten(before: readonly BaseMessage[], from: number, to: number): number {
  let result = -1;
  for (let position = to - 1; position >= from; position--) {
    const message = before[position]!;
    if (isAssistantMessage(message)) return position;
    if (result < 0 && isToolResultMessage(message)) result = position;
  }
  return result >= 0 ? result : from;
}

/** The fallback: remove everything and write the new history whole, archiving the whole old one. @internal */
export function replaceAllUpdate(before: readonly BaseMessage[], result: CompactionResult): Builder {
  const builder = newBuilder();
  const used = new Set<string>();
  const beforeIds = new Map<string, BaseMessage>();
  for (const message of before) if (typeof message.id === "string") beforeIds.set(message.id, message);
  for (const message of result.messages) {
    const id = message.id;
    const final = typeof id === "string" && id !== "" && !used.has(id) ? message : cloneMessage(message, { id: uuidv4() });
    used.add(final.id!);
    builder.history.push(final);
    const original = beforeIds.get(final.id!);
    if (original === undefined) noteInserted(builder, final);
    else if (original !== final) builder.replacedIds.push(final.id!);
  }
  for (const id of beforeIds.keys()) if (!used.has(id)) builder.removedIds.push(id);
  const first = builder.history[0];
  const anchor: ArchiveAnchor = first ? { kind: "replaced-by", id: first.id! } : { kind: "start" };
  before.forEach((message, position) => builder.archived.push({ position, anchor, message }));
  // The first message stands for the whole old history; the others for nothing.
  builder.dropped.push(...builder.history.slice(1).map((message) => message.id!));
  builder.update.push(new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...builder.history);
  return builder;
}

import type { BaseMessage } from "@langchain/core/messages";
import { v4 as uuidv4 } from "@langchain/core/utils/uuid";
import { storedMessages } from "../messages/stored-messages.js";
import { compactionMarkerOf, type CompactionResult } from "../types.js";
import { repairSummaryOf, type ArchivedCompaction, type ArchivedMessage, type CompactionArchiveLocation, type CompactionRecord } from "../compaction-record.js";
import { appWriteFields } from "./app-writes.js";
import { hasUniqueIds, lastIdOf } from "./message-ids.js";
import { newBuilder, placeGap, replaceAllUpdate, withId, type Builder } from "./update-builder.js";

export { assignMessageIds, lastIdOf } from "./message-ids.js";

/** Options of {@link compactionUpdate}. */
export interface CompactionUpdateOptions {
  /** Id of the compaction (and of its log record). @default a new UUID */
  id?: string;
  /** When the compaction ran. @default now */
  at?: Date;
  /** Where the caller will keep the archive; recorded in the log. @default "state" */
  archive?: Exclude<CompactionArchiveLocation, "none">;
  /** How long the compaction took, for the log. */
  durationMs?: number;
  /**
   * Replace the whole history (`REMOVE_ALL_MESSAGES`) instead of addressing messages by id. For a
   * caller whose stored messages cannot be addressed, e.g. because {@link assignMessageIds} had to
   * give them ids. @default false
   */
  replaceAll?: boolean;
  /**
   * Write the update in place: rewrite and remove messages by id only, never append one or replace
   * the whole history, so it composes with the other writes of a step that also appends the
   * model's answer. Every message keeps its own id. A message the result moves (a repair that puts
   * a tool result after its call, a reordering compactor) stays where it is in the state, the rest is
   * written by id, and `history` has it moved, for the model. A result that needs a new id (an
   * insertion at the end) is not written (see `expressible`).
   * @default false
   */
  inPlace?: boolean;
}

/** What one compaction means for a LangGraph `messages` channel, its log and its archive. */
export interface CompactionUpdate {
  /** True when the history changed (the other fields are then worth writing). */
  readonly changed: boolean;
  /**
   * False only with `inPlace`, for a result that cannot be written in place (a new message the
   * reducer would append, messages without unique ids, or `replaceAll`, or nothing to write but a move): `messages` is then empty and `changed` false, and
   * `history` is the result (with ids) for the caller to use as a view.
   */
  readonly expressible: boolean;
  /**
   * The minimal update for a `messages` channel reduced by LangGraph's messages reducer: rewritten
   * messages under their own id (replaced in place), a summary under the id of the newest assistant
   * message it replaces, else tool result, else the first (so it keeps that position), `RemoveMessage(id)` for the rest; or, only when nothing else
   * can express the result (a reordering compactor, messages without unique ids), a
   * `RemoveMessage(REMOVE_ALL_MESSAGES)` followed by the whole new history. Empty when nothing changed.
   */
  readonly messages: BaseMessage[];
  /**
   * The compactor's output with the ids above: the history once the reducer has applied `messages`,
   * but, with `inPlace`, for a message the result moved, which the state keeps where it was.
   */
  readonly history: BaseMessage[];
  /** The log record of this compaction. */
  readonly record: CompactionRecord;
  /** The originals that left the context and where each belongs, for {@link restoreHistory}. */
  readonly archive: ArchivedCompaction;
}

/**
 * For each output message, the input position it stands for (the input object itself, a reported
 * replacement of it, possibly through a tool-pairing repair, or a message under its id), or -1 for a
 * new message. Returns undefined when the positions do not increase: the compactor reordered.
 */
function sourcePositions(before: readonly BaseMessage[], result: CompactionResult, ordered = true): Int32Array | undefined {
  const positionOf = new Map<BaseMessage, number>();
  const positionOfId = new Map<string, number>();
  before.forEach((message, position) => {
    positionOf.set(message, position);
    if (typeof message.id === "string") positionOfId.set(message.id, position);
  });
  const replacedBefore = new Map<BaseMessage, BaseMessage>();
  for (const entry of result.replaced) replacedBefore.set(entry.after, entry.before);
  for (const entry of result.repair?.replaced ?? []) replacedBefore.set(entry.after, entry.before);
  const claimed = new Uint8Array(before.length);
  const sources = new Int32Array(result.messages.length).fill(-1);
  let last = -1;
  for (let position = 0; position < result.messages.length; position++) {
    const message = result.messages[position]!;
    let source = positionOf.get(message);
    // A replacement of a replacement (a repaired message the strategy then rewrote): follow the chain.
    for (let previous = replacedBefore.get(message), hops = 0; source === undefined && previous !== undefined && hops < 8; hops++) {
      source = positionOf.get(previous);
      previous = replacedBefore.get(previous);
    }
    // A copy the compactor did not report keeps its original's id; the reducer would match it the same way.
    if (source === undefined && typeof message.id === "string") source = positionOfId.get(message.id);
    if (source === undefined || claimed[source] === 1) continue;
    if (ordered && source <= last) return undefined;
    claimed[source] = 1;
    sources[position] = source;
    last = source;
  }
  return sources;
}

/**
 * Turn a compactor's result into what a LangGraph graph (or any store of the history) needs: the
 * minimal `messages` update for LangGraph's messages reducer, the history it produces, the log record
 * and the archive of the originals that left the context. Shared by the graph node, the `createAgent`
 * middleware and the LCEL adapters.
 *
 * Which message replaced which is read from object identity (`result.messages` holds the input's
 * objects for what it kept), `result.replaced` (and `result.repair.replaced`), and ids: an output
 * message with an input message's id stands for it, as the reducer would take it. Everything else in
 * the output is inserted (a summary). Never mutates its arguments.
 *
 * @param before the history the compactor was given. Its messages should have unique ids
 *   ({@link assignMessageIds}); otherwise the update replaces the whole history.
 * @param result what the compactor returned for `before`.
 * @example
 * const result = await strategy.compact(state.messages, { config });
 * const { changed, messages, record, archive } = compactionUpdate(state.messages, result);
 * if (changed) return { messages, compactionLog: [record], compactionArchive: [archive] };
 */
export function compactionUpdate(before: readonly BaseMessage[], result: CompactionResult, options: CompactionUpdateOptions = {}): CompactionUpdate {
  // Ids the caller had to give (`replaceAll`) are not the stored messages': nothing addresses those.
  const addressable = !options.replaceAll && hasUniqueIds(before);
  const sources = addressable ? sourcePositions(before, result) : undefined;
  let builder = sources !== undefined ? idBuilder(before, result.messages, sources) : undefined;
  // What the model gets when it differs from the state's order (a message moved): by output message.
  let view: BaseMessage[] | undefined;
  if (options.inPlace) {
    if (builder !== undefined && !onlyKnownIds(before, builder)) builder = undefined;
    if (builder === undefined && sources === undefined && addressable) {
      // A move: written in the state's order, each message under its own id; moved only for the model.
      const inOrder = inStateOrder(before, result);
      builder = inOrder.builder;
      if (builder !== undefined && !onlyKnownIds(before, builder)) builder = undefined;
      if (builder !== undefined) {
        const finalOf = new Map(inOrder.messages.map((message, position) => [message, builder!.history[position]!] as const));
        view = result.messages.map((message) => finalOf.get(message)!);
        // Nothing to write but the move: the model alone gets it.
        if (builder.update.length === 0) return inexpressible(before, result, options, view);
      }
    }
    if (builder === undefined) return inexpressible(before, result, options);
  }
  builder ??= replaceAllUpdate(before, result);

  const changed = builder.update.length > 0;
  const id = options.id ?? uuidv4();
  const stored = storedMessages(builder.archived.map((entry) => entry.message));
  const archived: ArchivedMessage[] = builder.archived.map((entry, position) => ({ position: entry.position, anchor: entry.anchor, message: stored[position]! }));
  const location: CompactionArchiveLocation = archived.length > 0 || builder.dropped.length > 0 ? (options.archive ?? "state") : "none";
  const record = recordOf(before, result, options, id, {
    messagesAfter: changed ? builder.history.length : before.length,
    removedIds: builder.removedIds,
    replacedIds: builder.replacedIds,
    insertedIds: builder.insertedIds,
    summaryId: builder.summaryId,
    archive: location,
  });
  return {
    changed,
    expressible: true,
    messages: builder.update,
    history: changed ? (view ?? builder.history) : [...before],
    record,
    archive: { compactionId: id, messages: archived, dropped: builder.dropped, ...(changed ? appWriteFields(builder) : {}) },
  };
}

/** True when the update names only messages of `before`: the reducer appends any other, after the step's answer. */
function onlyKnownIds(before: readonly BaseMessage[], builder: Builder): boolean {
  const known = new Set(before.map((message) => message.id));
  return builder.update.every((message) => known.has(message.id));
}

/**
 * The id-by-id update of `messages` (the compactor's output), each of which stands for the input
 * position `sources` gives (increasing), or -1 for a new one; undefined when the reducer cannot place
 * the new messages. @internal
 */
function idBuilder(before: readonly BaseMessage[], messages: readonly BaseMessage[], sources: Int32Array): Builder | undefined {
  const builder = newBuilder();
  const used = new Set<string>(before.map((message) => message.id!));
  let previous = -1;
  let pending: BaseMessage[] = [];
  for (let position = 0; position <= messages.length; position++) {
    const source = position < messages.length ? sources[position]! : before.length;
    if (source < 0) {
      pending.push(messages[position]!);
      continue;
    }
    const next = source < before.length ? before[source] : undefined;
    const neighbours = { previousId: previous >= 0 ? before[previous]!.id! : undefined, nextId: next?.id };
    if (!placeGap(builder, before, pending, previous + 1, source, neighbours, used)) return undefined;
    pending = [];
    if (next === undefined) break;
    const message = messages[position]!;
    if (message === next) builder.history.push(message);
    else {
      const final = withId(message, next.id!);
      builder.update.push(final);
      builder.history.push(final);
      builder.replacedIds.push(next.id!);
      // A summary written under the id of the message it replaces (some summarizers do this themselves).
      if (builder.summaryId === null && compactionMarkerOf(final)?.summary) builder.summaryId = final.id!;
      builder.archived.push({ position: source, anchor: { kind: "replaced-by", id: next.id! }, message: next });
    }
    previous = source;
  }
  return builder;
}

/**
 * The output put back in the input's order (a moved message where it was, a new one before the
 * output message that followed it), and its id-by-id update. @internal
 */
function inStateOrder(before: readonly BaseMessage[], result: CompactionResult): { messages: BaseMessage[]; builder: Builder | undefined } {
  const sources = sourcePositions(before, result, false)!;
  const keys = new Float64Array(result.messages.length);
  let following = before.length;
  for (let position = result.messages.length - 1; position >= 0; position--) {
    const source = sources[position]!;
    if (source >= 0) following = source;
    keys[position] = source >= 0 ? source : following - 0.5;
  }
  const order = [...result.messages.keys()].sort((left, right) => keys[left]! - keys[right]! || left - right);
  const messages = order.map((position) => result.messages[position]!);
  const ordered = Int32Array.from(order, (position) => sources[position]!);
  return { messages, builder: idBuilder(before, messages, ordered) };
}

/** An `inPlace` result that cannot be written in place: no update, the result (or `view`) as a view. */
function inexpressible(before: readonly BaseMessage[], result: CompactionResult, options: CompactionUpdateOptions, view?: BaseMessage[]): CompactionUpdate {
  const history = view ?? replaceAllUpdate(before, result).history;
  const id = options.id ?? uuidv4();
  const record = recordOf(before, result, options, id, { messagesAfter: before.length, removedIds: [], replacedIds: [], insertedIds: [], summaryId: null, archive: "none" }, false);
  return { changed: false, expressible: false, messages: [], history, record, archive: { compactionId: id, messages: [], dropped: [] } };
}

/** What a record says of the written history: the rest of it comes from the input and the result. */
type RecordOutcome = Pick<CompactionRecord, "messagesAfter" | "removedIds" | "replacedIds" | "insertedIds" | "summaryId" | "archive">;

/** The log record of a compaction; `withNotes: false` leaves out the reason, duration and repair (a result written nowhere). */
function recordOf(before: readonly BaseMessage[], result: CompactionResult, options: CompactionUpdateOptions, id: string, outcome: RecordOutcome, withNotes = true): CompactionRecord {
  return {
    id,
    at: (options.at ?? new Date()).toISOString(),
    strategy: result.strategy,
    status: result.status,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    messagesBefore: before.length,
    ...outcome,
    ...(withNotes && result.reason !== undefined ? { reason: result.reason } : {}),
    ...(withNotes && options.durationMs !== undefined ? { durationMs: options.durationMs } : {}),
    lastMessageId: lastIdOf(before),
    ...(withNotes && result.repair && result.repair.problems.length > 0 ? { repair: repairSummaryOf(result.repair) } : {}),
  };
}

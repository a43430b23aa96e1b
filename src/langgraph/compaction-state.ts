import { Annotation, ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod/v4";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";
import type { StateArchivedCompaction } from "./packed-archive.js";
import { COMPACTION_STATUSES } from "../types.js";
import { boundedLog, inSequence } from "./compaction-log.js";
import type { LiveSummary } from "./live-summary.js";

/**
 * Merge by key: entries of `right` replace those of `left` with the same key, the others are
 * appended in order. Idempotent, so a hook that re-emits the whole channel (as `createAgent`
 * middleware nodes do) does not duplicate it.
 */
function mergeByKey<T>(key: (entry: T) => string, left: readonly T[] | undefined, right: T | readonly T[] | undefined): T[] {
  const merged = [...(left ?? [])];
  const additions = right === undefined ? [] : Array.isArray(right) ? (right as readonly T[]) : [right as T];
  if (additions.length === 0) return merged;
  const positionOf = new Map(merged.map((entry, position) => [key(entry), position] as const));
  for (const entry of additions) {
    const position = positionOf.get(key(entry));
    if (position === undefined) {
      positionOf.set(key(entry), merged.length);
      merged.push(entry);
    } else merged[position] = entry;
  }
  return merged;
}

/**
 * Reducer of the `compactionLog` channel: appends records, replacing one with the same id, and keeps
 * the newest few of those the thread's full log also holds (see `readCompactionLog`). A record older
 * than the ones kept (re-emitted after it left the channel) is not added again.
 *
 * @example
 * mergeCompactionLog([first], [second]); // [first, second]
 * mergeCompactionLog([first], [first]);  // [first]
 */
export function mergeCompactionLog(left: readonly CompactionRecord[] | undefined, right: CompactionRecord | readonly CompactionRecord[] | undefined): CompactionRecord[] {
  const additions = right === undefined ? [] : Array.isArray(right) ? (right as readonly CompactionRecord[]) : [right as CompactionRecord];
  const oldest = (left ?? []).find((record) => typeof record.sequence === "number")?.sequence;
  const present = oldest === undefined ? undefined : new Set((left ?? []).map((record) => record.id));
  const kept = present === undefined ? additions : additions.filter((record) => !(typeof record.sequence === "number" && record.sequence < oldest! && !present.has(record.id)));
  return boundedLog(inSequence(mergeByKey((record) => record.id, left, kept)));
}

/**
 * Reducer of the `compactionArchive` channel: appends archives, replacing one with the same compaction id.
 *
 * @example
 * mergeCompactionArchive([], [archive]); // [archive]
 */
export function mergeCompactionArchive<Entry extends StateArchivedCompaction>(
  left: readonly Entry[] | undefined,
  right: Entry | readonly Entry[] | undefined,
): Entry[] {
  return mergeByKey((archive) => archive.compactionId, left, right);
}

/** Reducer of the `compactionSummary` channel: the last write wins (the whole, bounded list). */
export function mergeLiveSummaries(left: readonly LiveSummary[] | undefined, right: readonly LiveSummary[] | undefined): LiveSummary[] {
  return [...(right ?? left ?? [])];
}

/**
 * The compaction channels for an `Annotation`-based graph: spread its `spec` beside
 * `MessagesAnnotation.spec`.
 * - `compactionLog`: the newest {@link CompactionRecord}s (one per compaction, and per failure), in
 *   order, within a fixed size; `readCompactionLog` reads the whole log.
 * - `compactionArchive`: the originals that left the context, and the full log's records, when the
 *   graph has no store or no thread id to archive them in (see `createCompactionNode`'s `archive` option).
 *   Each compaction's originals are packed in one string (see `unpackArchive`).
 * - `compactionSummary`: the newest summary (at most a few entries), so that one the app overwrites
 *   or removes by id is logged and written back (see `createCompactionNode`).
 *
 * A checkpointer that writes every channel's whole value into every checkpoint (`SqliteSaver`,
 * `MemorySaver`) writes these channels again at each step, so their cost grows with steps x size.
 * Compile the graph with a store (e.g. `SqliteStore` of `langchain-compaction/sqlite`), so the
 * originals are written once, under their compaction's id; and on SQLite use `SqliteBlobSaver`
 * (same subpath), which writes each channel value once and references it from later checkpoints.
 * `PostgresSaver` already stores a channel's value once per version.
 *
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
 * const graph = new StateGraph(State).addNode("compact", createCompactionNode(toolResultHiding()))…
 */
export const CompactionState = Annotation.Root({
  compactionLog: Annotation<CompactionRecord[], CompactionRecord | CompactionRecord[]>({
    reducer: mergeCompactionLog,
    default: () => [],
  }),
  compactionArchive: Annotation<StateArchivedCompaction[], StateArchivedCompaction | StateArchivedCompaction[]>({
    reducer: mergeCompactionArchive,
    default: () => [],
  }),
  compactionSummary: Annotation<LiveSummary[], LiveSummary[]>({
    reducer: mergeLiveSummaries,
    default: () => [],
  }),
});

/** A {@link CompactionRecord}, as the `compactionLog` channel and a thread export check it. @internal */
export const compactionRecordSchema = z.object({
  id: z.string(),
  at: z.string(),
  strategy: z.string(),
  status: z.enum(COMPACTION_STATUSES),
  tokensBefore: z.number().nullable(),
  tokensAfter: z.number().nullable(),
  messagesBefore: z.number(),
  messagesAfter: z.number(),
  removedIds: z.array(z.string()),
  replacedIds: z.array(z.string()),
  insertedIds: z.array(z.string()),
  summaryId: z.string().nullable(),
  archive: z.enum(["store", "state", "none"]),
  reason: z.string().optional(),
  durationMs: z.number().optional(),
  lastMessageId: z.string().nullable().optional(),
  repair: z
    .object({
      problems: z.array(z.looseObject({ kind: z.string(), index: z.number(), message: z.string() })),
      removedIds: z.array(z.string()),
      replacedIds: z.array(z.string()),
      movedIds: z.array(z.string()),
    })
    .optional(),
  sequence: z.number().optional(),
  previous: z.string().nullable().optional(),
  logged: z.enum(["store", "state"]).optional(),
}) as unknown as z.ZodType<CompactionRecord>;

/** An archived original's `ArchiveAnchor`. */
const archiveAnchorSchema = z.union([
  z.object({ kind: z.enum(["replaced-by", "before", "after"]), id: z.string() }),
  z.object({ kind: z.literal("start") }),
]);

/** A message as `mapChatMessagesToStoredMessages` serializes it. @internal */
export const storedMessageSchema = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) });

/** An {@link ArchivedCompaction}, as the `compactionArchive` channel and a thread export check it. @internal */
export const archivedCompactionSchema = z.object({
  compactionId: z.string(),
  messages: z.array(
    z.object({
      position: z.number(),
      anchor: archiveAnchorSchema,
      message: storedMessageSchema,
    }),
  ),
  dropped: z.array(z.string()),
  written: z.record(z.string(), z.string()).optional(),
  neighbours: z.record(z.string(), z.tuple([z.string().nullable(), z.string().nullable()])).optional(),
  record: compactionRecordSchema.optional(),
}) as unknown as z.ZodType<ArchivedCompaction>;

/** A `PackedArchivedCompaction`: its originals one string, which the schema does not walk. @internal */
export const packedArchivedCompactionSchema = z.object({
  compactionId: z.string(),
  packed: z.string(),
  encoding: z.literal("deflate").optional(),
  dropped: z.array(z.string()),
  record: compactionRecordSchema.optional(),
});

/** An entry of the `compactionArchive` channel: packed, or unpacked as earlier versions wrote it. @internal */
export const stateArchivedCompactionSchema = z.union([packedArchivedCompactionSchema, archivedCompactionSchema]) as unknown as z.ZodType<StateArchivedCompaction>;

/** A {@link LiveSummary}, as the `compactionSummary` channel checks it. @internal */
export const liveSummarySchema = z.object({
  id: z.string(),
  compactionId: z.string(),
  fingerprint: z.string(),
  position: z.number(),
  next: z.string().nullable(),
  message: storedMessageSchema,
  overwritten: z.enum(["edited", "removed"]).optional(),
}) as unknown as z.ZodType<LiveSummary>;


/**
 * The same channels as {@link CompactionState}, and `compactionSummary` (the newest summary and the
 * few the app overwrote, which `compactionMiddleware` checks and puts back), as a LangGraph `StateSchema` (zod): for
 * `StateSchema`-based graphs (spread its `fields` beside `messages: MessagesValue`) and for the
 * `createAgent` middleware's `stateSchema`.
 *
 * @example
 * const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
 */
export const CompactionStateSchema = new StateSchema({
  compactionLog: new ReducedValue(z.array(compactionRecordSchema).default(() => []), {
    inputSchema: z.union([compactionRecordSchema, z.array(compactionRecordSchema)]).optional(),
    reducer: mergeCompactionLog,
  }),
  compactionArchive: new ReducedValue(z.array(stateArchivedCompactionSchema).default(() => []), {
    inputSchema: z.union([stateArchivedCompactionSchema, z.array(stateArchivedCompactionSchema)]).optional(),
    reducer: mergeCompactionArchive,
  }),
  // The newest summary and the ones the app overwrote since (see `LiveSummary`); the middleware's.
  compactionSummary: new ReducedValue(z.array(liveSummarySchema).default(() => []), {
    inputSchema: z.array(liveSummarySchema).optional(),
    reducer: mergeLiveSummaries,
  }),
});

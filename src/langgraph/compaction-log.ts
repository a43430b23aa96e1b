import type { BaseStore } from "@langchain/langgraph";
import { InvalidHistoryError } from "../errors.js";
import type { CompactionRecord } from "../compaction-record.js";
import type { StateArchivedCompaction } from "./packed-archive.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "./compaction-archive.js";
import { asBaseStore, type SdkClientWithStore, type SdkStoreClient } from "./sdk-store.js";

/** The newest records the `compactionLog` channel keeps at most (besides those only it holds). @internal */
export const LOG_WINDOW_RECORDS = 8;
/** The characters of JSON the records the channel keeps may take together; the newest is always kept. @internal */
export const LOG_WINDOW_CHARS = 12_000;
/** Records read per store search. */
const SEARCH_PAGE = 500;

/**
 * The store namespace of a thread's full compaction log: the label `log` under its archive namespace
 * ({@link archiveNamespace}), so what deletes the thread's archive deletes its log too. One item per
 * record, keyed by the record's id.
 *
 * @example
 * compactionLogNamespace("thread-1"); // ["langchain-compaction", "archive", "thread-1", "log"]
 */
export function compactionLogNamespace(threadId: string, prefix: readonly string[] = DEFAULT_ARCHIVE_NAMESPACE): string[] {
  return [...archiveNamespace(threadId, prefix), "log"];
}

/**
 * The records the `compactionLog` channel keeps of `records` (oldest first): the newest ones, at most
 * {@link LOG_WINDOW_RECORDS} and {@link LOG_WINDOW_CHARS} of JSON (at least one), and every record the
 * full log does not hold (`logged` unset: written by 0.1.0, or not written to the store). @internal
 */
export function boundedLog(records: CompactionRecord[]): CompactionRecord[] {
  let start = records.length;
  let chars = 0;
  while (start > 0 && records.length - start < LOG_WINDOW_RECORDS) {
    chars += JSON.stringify(records[start - 1]).length;
    if (chars > LOG_WINDOW_CHARS && start < records.length) break;
    start--;
  }
  if (start === 0 || !records.slice(0, start).some((record) => record.logged !== undefined)) return records;
  return records.filter((record, position) => position >= start || record.logged === undefined);
}

/**
 * `records` with those that have a `sequence` in its order (stably): two middleware's records of
 * one step arrive innermost first. @internal
 */
export function inSequence(records: CompactionRecord[]): CompactionRecord[] {
  const chained = records.filter((record) => typeof record.sequence === "number");
  if (chained.every((record, position) => position === 0 || chained[position - 1]!.sequence! <= record.sequence!)) return records;
  return [...records.filter((record) => typeof record.sequence !== "number"), ...chained.sort((a, b) => a.sequence! - b.sequence!)];
}

/** What {@link readCompactionLog} reads: the state's `compactionLog`, and its `compactionArchive`. */
export interface CompactionLogState {
  compactionLog?: readonly CompactionRecord[];
  compactionArchive?: readonly StateArchivedCompaction[];
}

/** Options of {@link readCompactionLog}: where the thread's log records are when they are in a store. */
export interface ReadCompactionLogOptions {
  /**
   * The graph's store: a LangGraph `BaseStore`, or, for a thread served by a LangGraph API server, an
   * `@langchain/langgraph-sdk` `Client` (or its `client.store`).
   */
  store?: BaseStore | SdkClientWithStore | SdkStoreClient;
  /** The thread whose log to read. */
  threadId?: string;
  /** The namespace prefix the compaction node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: readonly string[];
}

/** The log as far as it could be read, and the record that could not be, if any. @internal */
export interface CollectedLog {
  readonly records: CompactionRecord[];
  /** The id of the newest record that could not be found (every one before it is missing too). */
  readonly missing?: string;
}

/** Every record under the thread's log namespace, every branch of the thread's history included. */
async function storedRecords(store: BaseStore, namespace: string[]): Promise<Map<string, CompactionRecord>> {
  const records = new Map<string, CompactionRecord>();
  for (let offset = 0; ; offset += SEARCH_PAGE) {
    const items = await store.search(namespace, { limit: SEARCH_PAGE, offset });
    for (const item of items) if (item.namespace.length === namespace.length) records.set(item.key, item.value as CompactionRecord);
    if (items.length < SEARCH_PAGE) return records;
  }
}

/**
 * The thread's log as far as `state` and `store` hold it: the records only the state holds, then,
 * from the state's newest record back through each one's `previous`, the records of the state's own
 * history (a fork's records in the store are not on its chain). @internal
 */
export async function collectCompactionLog(component: string, state: CompactionLogState, store: BaseStore | undefined, threadId: string | undefined, prefix: readonly string[] | undefined): Promise<CollectedLog> {
  const window = state?.compactionLog ?? [];
  if (!Array.isArray(window)) throw new InvalidHistoryError(`${component}: the state's \`compactionLog\` is not an array`);
  const chained = window.filter((record) => typeof record?.sequence === "number");
  if (chained.length === 0) return { records: [...window] };
  // Only the state holds these: 0.1.0's records, and records whose store write failed.
  const unlogged = window.filter((record) => record.logged === undefined);
  const stop = new Set(unlogged.filter((record) => typeof record.sequence !== "number").map((record) => record.id));
  const known = new Map<string, CompactionRecord>();
  const archives = Array.isArray(state.compactionArchive) ? state.compactionArchive : [];
  for (const archive of archives) if (archive?.record) known.set(archive.record.id, archive.record);
  for (const record of window) known.set(record.id, record);
  const namespace = threadId === undefined ? undefined : compactionLogNamespace(threadId, prefix);
  let searched = false;
  const newestFirst: CompactionRecord[] = [];
  const seen = new Set<string>();
  let record = chained[chained.length - 1]!;
  for (;;) {
    newestFirst.push(record);
    seen.add(record.id);
    const previous = record.previous;
    if (typeof previous !== "string" || stop.has(previous)) break;
    let next = known.get(previous);
    if (next === undefined && store && namespace) {
      if (!searched) {
        searched = true;
        for (const [id, stored] of await storedRecords(store, namespace)) if (!known.has(id)) known.set(id, stored);
        next = known.get(previous);
      }
      // Written after the search (the thread ran meanwhile): read by its key.
      next ??= (await store.get(namespace, previous))?.value as CompactionRecord | undefined;
    }
    if (next === undefined || seen.has(next.id)) {
      return { records: [...window.filter((entry) => stop.has(entry.id)), ...newestFirst.reverse()], missing: previous };
    }
    record = next;
  }
  return { records: [...window.filter((entry) => stop.has(entry.id)), ...newestFirst.reverse()] };
}

/**
 * The full compaction log of a graph thread, oldest first: the newest records the `compactionLog`
 * channel keeps, and the older ones from where the full log is kept (the store, under
 * {@link compactionLogNamespace}, or the `compactionArchive` channel without a store). Only the
 * records of the state's own history: after a fork or a time travel, the records of the abandoned
 * branch are left out. A log written by 0.1.0, whole in the state, is read as it is.
 *
 * @example
 * const { values } = await graph.getState({ configurable: { thread_id: "t1" } });
 * const log = await readCompactionLog(values, { store, threadId: "t1" });
 * @throws {CompactionArchiveError} when a record of the log is missing, or is in a store and no
 *   `store` and `threadId` were given.
 * @throws {InvalidHistoryError} when `state.compactionLog` is not an array.
 * @throws {InvalidOptionError} when `store` is neither a `BaseStore` nor an SDK client.
 */
export async function readCompactionLog(state: CompactionLogState, options: ReadCompactionLogOptions = {}): Promise<CompactionRecord[]> {
  return readLogFor("readCompactionLog", state, options);
}

/** {@link readCompactionLog} for another public function, named in its errors. @internal */
export async function readLogFor(component: string, state: CompactionLogState, options: ReadCompactionLogOptions): Promise<CompactionRecord[]> {
  const store = asBaseStore(component, options.store);
  const { records, missing } = await collectCompactionLog(component, state, store, options.threadId, options.namespace);
  if (missing === undefined) return records;
  if (!store || options.threadId === undefined) {
    throw new CompactionArchiveError(`${component}: the compaction log's records before ${records[0]?.id} are in a store; pass { store, threadId }`, { compactionId: missing });
  }
  throw new CompactionArchiveError(`${component}: record ${missing} of the compaction log is missing from the store`, { compactionId: missing });
}

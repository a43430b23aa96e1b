import type { BaseStore, Item } from "@langchain/langgraph";
import { describeValue, invalidOption } from "../option-errors.js";
import type { ArchivedCompaction } from "../compaction-record.js";
import { isPacked, type StateArchivedCompaction } from "./packed-archive.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace, underlyingStore } from "./compaction-archive.js";
import { STORE_TAKES, asBaseStore, type SdkClientWithStore, type SdkStoreClient } from "./sdk-store.js";

/**
 * A store holding a thread's archive: a LangGraph `BaseStore` (`InMemoryStore`, `SqliteStore`,
 * `PostgresStore`...), or the store of a LangGraph API server through an `@langchain/langgraph-sdk`
 * `Client` (or its `client.store`).
 */
export type ArchiveStore = BaseStore | SdkClientWithStore | SdkStoreClient;

/** Options of {@link deleteThreadArchive} and `redactArchived`. */
export interface ThreadArchiveOptions {
  /** The namespace prefix the compaction node or middleware was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: readonly string[];
  /** Items asked for per `search` request. @default 100 */
  pageSize?: number;
}

/** A thread's archive namespace and the store to search, checked. @internal */
export interface ThreadArchiveScope {
  readonly store: BaseStore;
  readonly namespace: string[];
  readonly pageSize: number;
}

/** Check the arguments every archive call shares. @internal */
export function threadArchiveScope(component: string, store: unknown, threadId: unknown, options: ThreadArchiveOptions = {}): ThreadArchiveScope {
  const baseStore = asBaseStore(component, store);
  if (!baseStore) throw invalidOption(component, "store", store, STORE_TAKES);
  if (typeof threadId !== "string" || threadId === "") throw invalidOption(component, "threadId", threadId, "a non-empty string");
  const pageSize = options.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw invalidOption(component, "pageSize", pageSize, "a positive integer");
  const prefix = options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE;
  const badLabel = Array.isArray(prefix) ? prefix.findIndex((label) => typeof label !== "string" || label === "") : -1;
  if (!Array.isArray(prefix) || badLabel >= 0) {
    throw invalidOption(component, "namespace", prefix, "an array of non-empty labels", badLabel >= 0 ? `label ${badLabel} is ${describeValue(prefix[badLabel])}` : undefined);
  }
  return { store: underlyingStore(baseStore), namespace: archiveNamespace(threadId, prefix), pageSize };
}

/** True when `namespace` is `prefix` or lies under it, label by label (`t1` is not under `t10`). */
function isUnder(namespace: readonly string[], prefix: readonly string[]): boolean {
  return namespace.length >= prefix.length && prefix.every((label, position) => namespace[position] === label);
}

/**
 * Every item in the thread's archive namespace and the namespaces under it, paged through with
 * `search(namespace, { limit, offset })` and deduplicated by namespace and key. A store's prefix
 * search may match by text (PostgresStore's `LIKE 'ns:t1%'` also matches thread `t10`): items outside
 * the namespace, label by label, are left out. @internal
 */
export async function threadArchiveItems(scope: ThreadArchiveScope): Promise<Item[]> {
  const items = new Map<string, Item>();
  for (let offset = 0; ; offset += scope.pageSize) {
    const page = await scope.store.search(scope.namespace, { limit: scope.pageSize, offset });
    for (const item of page) {
      if (isUnder(item.namespace, scope.namespace)) items.set(JSON.stringify([item.namespace, item.key]), item);
    }
    if (page.length < scope.pageSize) return [...items.values()];
  }
}

/** How many passes an erasure makes at most before it gives up on a store that keeps changing. @internal */
export const MAX_ERASURE_PASSES = 10;

/**
 * Delete everything this package keeps for a thread in a store: every item under the thread's
 * archive namespace (`archiveNamespace(threadId, namespace)`) and under any namespace below it.
 * Returns how many items it deleted. Other threads' items are never touched, including those whose
 * id starts with this one's (`t1` and `t10`).
 *
 * Pages through the namespace with `search`, deletes what it found, and searches again until a
 * search finds nothing, so items written meanwhile or skipped by a store whose order is not stable
 * are deleted too. Run it once the thread is idle: a run still going may archive again. Delete the
 * checkpoints with your checkpointer (`checkpointer.deleteThread(threadId)`, or
 * `client.threads.delete(threadId)` on a LangGraph API server); after this call alone,
 * `restoreHistory` of the thread throws `CompactionArchiveError` for the first compaction whose
 * archive was in the store.
 *
 * @example
 * await deleteThreadArchive(store, "thread-1");        // InMemoryStore, SqliteStore, PostgresStore
 * await checkpointer.deleteThread("thread-1");
 * await deleteThreadArchive(client, threadId);          // a LangGraph API server, through the SDK
 * await client.threads.delete(threadId);
 * @throws {InvalidOptionError} when `store` is not a store, `threadId` is not a non-empty string, or
 *   `namespace` or `pageSize` is invalid.
 * @throws {CompactionArchiveError} when items keep appearing in the namespace after 10 passes.
 */
export async function deleteThreadArchive(store: ArchiveStore, threadId: string, options: ThreadArchiveOptions = {}): Promise<number> {
  const scope = threadArchiveScope("deleteThreadArchive", store, threadId, options);
  let deleted = 0;
  for (let pass = 0; pass < MAX_ERASURE_PASSES; pass++) {
    const items = await threadArchiveItems(scope);
    if (items.length === 0) return deleted;
    for (let start = 0; start < items.length; start += scope.pageSize) {
      const batch = items.slice(start, start + scope.pageSize).map((item) => ({ namespace: item.namespace, key: item.key, value: null }));
      await scope.store.batch(batch);
    }
    deleted += items.length;
  }
  throw new CompactionArchiveError(`deleteThreadArchive: items kept appearing under ${scope.namespace.join("/")} after ${MAX_ERASURE_PASSES} passes: is a run still writing to the thread?`);
}

/**
 * The state update that empties every entry of the `compactionArchive` channel: the copy of the
 * originals a graph without a store (or thread id) keeps in the state. Write it with
 * `graph.updateState(config, update)` (or `client.threads.updateState(threadId, { values: update })`).
 * Each entry stays, under its compaction id, with no originals and nothing dropped (its log record kept), so
 * `restoreHistory` still reads the thread: it gives the messages as the state has them (summaries
 * and hidden placeholders as they are). Earlier checkpoints still hold the originals: to erase them,
 * delete the thread (`checkpointer.deleteThread`).
 *
 * @example
 * const { values } = await graph.getState(config);
 * await graph.updateState(config, clearArchivedState(values));
 */
export function clearArchivedState(state: { readonly compactionArchive?: readonly StateArchivedCompaction[] | undefined }): { compactionArchive: ArchivedCompaction[] } {
  const archives = state?.compactionArchive ?? [];
  return {
    compactionArchive: archives
      // A packed entry holds originals (an archive without any is not packed).
      .filter((archive) => isPacked(archive) || archive.messages.length > 0 || archive.dropped.length > 0)
      .map((archive) => ({ compactionId: archive.compactionId, messages: [], dropped: [], ...(archive.record !== undefined ? { record: archive.record } : {}) })),
  };
}

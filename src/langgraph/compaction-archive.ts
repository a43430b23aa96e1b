import type { BaseStore } from "@langchain/langgraph";
import { CompactionError } from "../errors.js";
import type { ArchivedCompaction } from "../compaction-record.js";

/** Namespace prefix of the archive in a LangGraph store; the thread id is the last label. */
export const DEFAULT_ARCHIVE_NAMESPACE: readonly string[] = ["langchain-compaction", "archive"];

/**
 * A compaction archive could not be written or read: no store or thread to archive in, a store
 * that failed, or an archive entry that the log names but nobody stored.
 *
 * @example
 * try {
 *   history = await restoreHistory(values, { store, threadId });
 * } catch (error) {
 *   if (CompactionArchiveError.isInstance(error)) console.warn(`archive of ${error.compactionId} missing`);
 *   else throw error;
 * }
 */
export class CompactionArchiveError extends CompactionError {
  /** The compaction whose archive is concerned, when there is one. */
  readonly compactionId: string | undefined;

  constructor(message: string, options: { compactionId?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CompactionArchiveError";
    this.compactionId = options.compactionId;
  }

  static override isInstance(error: unknown): error is CompactionArchiveError {
    return CompactionError.isInstance(error) && error.name === "CompactionArchiveError";
  }
}

/**
 * The store namespace holding one thread's archive: `[...prefix, threadId]`, the thread id encoded
 * so that any id is a valid, distinct label in every store: letters, digits and `-` stay; any other
 * character becomes `~` and its UTF-8 bytes in hex (PostgresStore rejects `.`, `%`, `_` and `\` in
 * labels; other stores reject `:`).
 *
 * @example
 * archiveNamespace("thread-1");   // ["langchain-compaction", "archive", "thread-1"]
 * archiveNamespace("a.b_c/d");    // ["langchain-compaction", "archive", "a~2Eb~5Fc~2Fd"]
 */
export function archiveNamespace(threadId: string, prefix: readonly string[] = DEFAULT_ARCHIVE_NAMESPACE): string[] {
  const encoded = threadId.replace(/[^A-Za-z0-9-]/gu, (character) =>
    [...new TextEncoder().encode(character)].map((byte) => `~${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
  return [...prefix, encoded];
}

/** The thread id of a run's config, if it has a usable one. @internal */
export function threadIdOf(configurable: Record<string, unknown> | undefined): string | undefined {
  const threadId = configurable?.["thread_id"];
  if (typeof threadId === "string" && threadId !== "") return threadId;
  return typeof threadId === "number" ? String(threadId) : undefined;
}

/**
 * The store under LangGraph's per-run `AsyncBatchedStore` (what a node's `config.store` is), or
 * `store` itself. The wrapper queues each operation until its next batch, which it starts from a
 * `setTimeout(0)` loop: behind every timer and I/O callback of the process, such as another run's
 * checkpoint write. @internal
 */
export function underlyingStore(store: BaseStore): BaseStore {
  const wrapper = store as BaseStore & { lg_name?: unknown; store?: { put?: unknown } };
  return wrapper.lg_name === "AsyncBatchedStore" && typeof wrapper.store?.put === "function" ? (wrapper.store as BaseStore) : store;
}

/**
 * Write one compaction's archive under its id, unindexed (the archive is read by key, never
 * searched), straight to the store under LangGraph's batching wrapper (see {@link underlyingStore}):
 * the node waits for its own write only, and the wrapper's `put` would drop the `index: false`.
 * @internal
 */
export async function writeArchive(store: BaseStore, namespace: string[], archive: ArchivedCompaction): Promise<void> {
  await underlyingStore(store).put(namespace, archive.compactionId, { ...archive }, false);
}

/** Read one compaction's archive, or undefined when the store has none under its id. @internal */
export async function readArchive(store: BaseStore, namespace: string[], compactionId: string): Promise<ArchivedCompaction | undefined> {
  const item = await store.get(namespace, compactionId);
  return item ? (item.value as ArchivedCompaction) : undefined;
}

import { readFile } from "node:fs/promises";
import { BaseMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { InvalidHistoryError } from "../errors.js";
import { invalidOption } from "../option-errors.js";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "../langgraph/compaction-archive.js";
import { unpackArchive, type StateArchivedCompaction } from "../langgraph/packed-archive.js";
import { collectCompactionLog } from "../langgraph/compaction-log.js";
import { parseThreadExport } from "./thread-export.js";
import { existingThreads } from "./thread-list.js";
import { THREAD_EXPORT_FORMAT, type ThreadExport } from "./inspection.js";

/** Where a thread's store-archived compactions are read. */
export interface ThreadStoreOptions {
  /** The graph's store, for compactions archived there. Without it they are left out (the inspection warns). */
  store?: BaseStore;
  /** The namespace prefix the compaction node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: readonly string[];
}

/** The state {@link exportThreadState} reads: what `graph.getState(config)` gives as `values`. */
export interface ThreadState {
  messages: readonly BaseMessage[];
  compactionLog?: readonly CompactionRecord[];
  compactionArchive?: readonly StateArchivedCompaction[];
}

/** Plain JSON: what the export holds is what a JSON file of it gives back. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A {@link ThreadExport} of a graph thread's state: its messages (serialized with
 * `mapChatMessagesToStoredMessages`), its whole compaction log (as `readCompactionLog` reads it), and
 * every archive entry, from the `compactionArchive` channel and, for compactions archived in a store,
 * from `store`. Without a store those are left out and {@link buildInspection} warns that their
 * originals are missing; so are the log's records the store holds (the state keeps the newest).
 *
 * @example
 * const config = { configurable: { thread_id: "t1" } };
 * const { values } = await graph.getState(config);
 * const thread = await exportThreadState(values, "t1", { store });
 * await writeFile("t1.json", JSON.stringify(thread));
 * @throws {InvalidHistoryError} when `state.messages` is not an array of messages or the log is malformed.
 */
export async function exportThreadState(state: ThreadState, threadId: string, options: ThreadStoreOptions = {}): Promise<ThreadExport> {
  const messages: unknown = state?.messages;
  if (!Array.isArray(messages)) throw new InvalidHistoryError(`exportThreadState: the state's \`messages\` is not an array (got ${typeof messages})`);
  messages.forEach((message, position) => {
    if (!BaseMessage.isInstance(message)) throw new InvalidHistoryError(`exportThreadState: \`messages.${position}\` is not a message`);
  });
  const inState = state.compactionArchive ?? [];
  if (!Array.isArray(inState)) throw new InvalidHistoryError("exportThreadState: the state's `compactionArchive` is not an array");
  const { store } = options;
  // The whole log: the state keeps its newest records. Without the store, the records it holds are left out.
  const { records: log } = await collectCompactionLog("exportThreadState", state, store, threadId, options.namespace);
  const archived = new Set(inState.map((archive) => archive.compactionId));
  // The records in the state's archive entries are the log's: the export holds them once.
  const archives: ArchivedCompaction[] = inState.map((entry) => {
    const { record: _record, ...archive } = unpackArchive(entry);
    return archive;
  });
  const wanted = log.filter((record) => record.archive === "store" && !archived.has(record.id));
  if (store && wanted.length > 0) {
    const namespace = archiveNamespace(threadId, options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE);
    // One batch: a single round trip to a database store however many compactions there were.
    const items = await store.batch(wanted.map((record) => ({ namespace, key: record.id })));
    for (const item of items) if (item) archives.push(item.value as ArchivedCompaction);
  }
  return parseThreadExport(
    plain({
      format: THREAD_EXPORT_FORMAT,
      threadId,
      messages: mapChatMessagesToStoredMessages(messages as BaseMessage[]),
      compactionLog: log,
      archives,
    }),
    "exportThreadState",
  );
}

/**
 * A {@link ThreadExport} of the latest checkpoint of a thread: read with
 * `checkpointer.getTuple({ configurable: { thread_id } })`, archives from the state and (with a
 * store) from the store. Reads only.
 *
 * @example
 * const thread = await exportThread(checkpointer, "t1", { store });
 * const inspection = await buildInspection(thread);
 * @throws {InvalidOptionError} when the checkpointer has no checkpoint for `threadId` (the message lists
 *   the threads it has, read with `checkpointer.list({})`).
 * @throws {InvalidHistoryError} when the checkpoint's state is not a messages state.
 */
export async function exportThread(checkpointer: BaseCheckpointSaver, threadId: string, options: ThreadStoreOptions = {}): Promise<ThreadExport> {
  const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId } });
  if (!tuple) {
    const threads = new Set<string>();
    for await (const { config } of checkpointer.list({})) {
      const id: unknown = config.configurable?.["thread_id"];
      if (typeof id === "string") threads.add(id);
    }
    throw invalidOption("exportThread", "threadId", threadId, "the id of a thread the checkpointer holds", `no checkpoint for it; ${existingThreads([...threads].sort(), threads.size)}`);
  }
  return exportThreadState(tuple.checkpoint.channel_values as unknown as ThreadState, threadId, options);
}

/**
 * An error's `code` (pg and Node errors carry one).
 * @internal
 */
export const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
/**
 * An error's message, or the thrown value as text.
 * @internal
 */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A thread exported to a JSON file (`inspect --format json`, or `JSON.stringify` of a
 * {@link ThreadExport}).
 *
 * @example
 * const thread = await loadThreadFromJson("thread.json");
 * @throws {InvalidOptionError} when the file cannot be read.
 * @throws {InvalidHistoryError} when it is not JSON or not a thread export (the message names the problem).
 */
export async function loadThreadFromJson(path: string): Promise<ThreadExport> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw invalidOption("loadThreadFromJson", "path", path, "the path of a thread export (JSON)", codeOf(error) === "ENOENT" ? "no such file" : `cannot read it: ${messageOf(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidHistoryError(`loadThreadFromJson: ${path} is not JSON (${messageOf(error)})`);
  }
  return parseThreadExport(value, `loadThreadFromJson: ${path}`);
}

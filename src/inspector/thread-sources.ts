import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { BaseMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { CompactionError, InvalidHistoryError, InvalidOptionError } from "../errors.js";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "../langgraph/compaction-archive.js";
import { parseThreadExport } from "./thread-export.js";
import { existingThreads, postgresThreads } from "./thread-list.js";
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
  compactionArchive?: readonly ArchivedCompaction[];
}

/** Plain JSON: what the export holds is what a JSON file of it gives back. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A {@link ThreadExport} of a graph thread's state: its messages (serialized with
 * `mapChatMessagesToStoredMessages`), its compaction log, and every archive entry, from the
 * `compactionArchive` channel and, for compactions archived in a store, from `store`. Without a store
 * those are left out and {@link buildInspection} warns that their originals are missing.
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
  const log = state.compactionLog ?? [];
  const inState = state.compactionArchive ?? [];
  if (!Array.isArray(log)) throw new InvalidHistoryError("exportThreadState: the state's `compactionLog` is not an array");
  if (!Array.isArray(inState)) throw new InvalidHistoryError("exportThreadState: the state's `compactionArchive` is not an array");
  const archived = new Set(inState.map((archive) => archive.compactionId));
  const archives: ArchivedCompaction[] = [...inState];
  const { store } = options;
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
    throw new InvalidOptionError("exportThread", "threadId", `no checkpoint for thread "${threadId}"; ${existingThreads([...threads].sort(), threads.size)}`);
  }
  return exportThreadState(tuple.checkpoint.channel_values as unknown as ThreadState, threadId, options);
}

/**
 * Import an optional peer package, or say which one to install.
 * @internal
 */
export async function importOptional<Module>(specifier: string, component: string, install: string): Promise<Module> {
  try {
    return (await import(specifier)) as Module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new CompactionError(`${component} needs the optional package ${install}: npm install ${install}`, { cause: error });
    }
    throw error;
  }
}

/** An error's `code` (pg and Node errors carry one). */
const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The one row of a checkpoint the inspector needs: its serialized form. */
interface CheckpointRow {
  readonly type: string | null;
  readonly checkpoint: Uint8Array | string;
}

/**
 * The latest checkpoint of a thread in a SQLite checkpoint file written by LangGraph's `SqliteSaver`
 * (`@langchain/langgraph-checkpoint-sqlite`, an optional peer) or by `SqliteBlobSaver`. Archives come
 * from the state channel and, when the file has a `SqliteStore` table (`store`), from that store;
 * compactions archived in another store are left out (the inspection warns).
 *
 * Reads only: the file is opened read-only and must exist, so nothing is created or written (not even
 * the tables and the WAL journal mode `SqliteSaver` sets up before its first read). A database in WAL
 * mode gets the `-wal` and `-shm` files every SQLite reader of such a database needs.
 *
 * @example
 * const thread = await loadThreadFromSqlite("checkpoints.db", "thread-1");
 * @throws {InvalidOptionError} when the path does not exist, is not a file, is not a SQLite database,
 *   holds no checkpoints, or has none for `threadId` (the message lists the threads it has).
 * @throws {CompactionError} when `@langchain/langgraph-checkpoint-sqlite` is not installed (the message says so).
 */
export async function loadThreadFromSqlite(path: string, threadId: string): Promise<ThreadExport> {
  const invalid = (option: string, problem: string) => new InvalidOptionError("loadThreadFromSqlite", option, problem);
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw invalid("path", codeOf(error) === "ENOENT" ? `no such file: ${path}` : `cannot read ${path}: ${messageOf(error)}`);
  }
  if (!stats.isFile()) throw invalid("path", `${path} is not a file${stats.isDirectory() ? " (it is a directory)" : ""}`);
  const { SqliteSaver } = await importOptional<typeof import("@langchain/langgraph-checkpoint-sqlite")>(
    "@langchain/langgraph-checkpoint-sqlite",
    "loadThreadFromSqlite",
    "@langchain/langgraph-checkpoint-sqlite",
  );
  // better-sqlite3 is the saver's dependency, not ours (it may not resolve from this package): its
  // Database class is taken from a handle the saver opens in memory, which touches no file.
  const probe = SqliteSaver.fromConnString(":memory:").db;
  probe.close();
  const Database = probe.constructor as new (path: string, options: { readonly: boolean; fileMustExist: boolean }) => typeof probe;
  let database: typeof probe;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw invalid("path", `cannot open ${path} (${messageOf(error)})`);
  }
  try {
    let table: unknown;
    try {
      table = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
    } catch (error) {
      throw invalid("path", `${path} is not a SQLite database (${messageOf(error)})`);
    }
    if (table === undefined) throw invalid("path", `${path} holds no LangGraph checkpoints (no \`checkpoints\` table)`);
    // SqliteSaver.getTuple's query without its join on `writes`: pending writes are not part of the
    // state, and a file written by another version may lack that table.
    const row = database
      .prepare("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")
      .get(threadId) as CheckpointRow | undefined;
    if (row === undefined) {
      const threads = database.prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id").pluck().all() as string[];
      throw invalid("threadId", `no checkpoint for thread "${threadId}" in ${path}; ${existingThreads(threads, threads.length)}`);
    }
    // The saver's own serializer, so the checkpoint decodes exactly as getTuple would decode it.
    const { serde } = new SqliteSaver(database);
    const checkpoint = (await serde.loadsTyped(row.type ?? "json", row.checkpoint)) as { id: string; channel_values: Record<string, unknown> };
    const hasTable = (name: string) => database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    // A file written by SqliteBlobSaver and SqliteStore (langchain-compaction/sqlite): channel values
    // kept once in `checkpoint_blobs`, archives in the `store` table.
    const { SqliteStore, hasBlobReferences, resolveBlobReferences } = await import("../store/sqlite-internals.js");
    let values = checkpoint.channel_values;
    if (hasBlobReferences(values) && hasTable("checkpoint_blobs")) {
      values = await resolveBlobReferences(database, serde, { threadId, namespace: "", checkpointId: checkpoint.id }, values);
    }
    const storeOptions = hasTable("store") ? { store: new SqliteStore(database) } : {};
    return await exportThreadState(values as unknown as ThreadState, threadId, storeOptions);
  } finally {
    database.close();
  }
}

/** Options of {@link loadThreadFromPostgres}. */
export interface PostgresThreadOptions {
  /** The schema of the checkpointer's and the store's tables. @default "public" */
  schema?: string;
  /** The namespace prefix the compaction node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: readonly string[];
}

/**
 * The latest checkpoint of a thread in PostgreSQL, written by LangGraph's `PostgresSaver`, with the
 * archives the compaction node wrote to a `PostgresStore` in the same database and schema
 * (`@langchain/langgraph-checkpoint-postgres`, an optional peer). Reads only: no table is
 * created; a database without store tables just has no store archives (the inspection warns). The
 * connection pools are closed before it returns.
 *
 * @example
 * const thread = await loadThreadFromPostgres("postgresql://user@localhost:5432/app", "thread-1", { schema: "agents" });
 * @throws {InvalidOptionError} when `connectionString` is not a PostgreSQL URL, or the schema holds no
 *   checkpoints or none for `threadId` (the message lists the first 20 threads it has and how many more).
 * @throws {CompactionError} when `@langchain/langgraph-checkpoint-postgres` is not installed (the message says so).
 */
export async function loadThreadFromPostgres(connectionString: string, threadId: string, options: PostgresThreadOptions = {}): Promise<ThreadExport> {
  // pg reads anything else as a host name relative to a dummy URL and fails with a DNS error that names neither.
  if (!isPostgresConnectionString(connectionString)) {
    throw new InvalidOptionError("loadThreadFromPostgres", "connectionString", "expected a postgres:// or postgresql:// URL (or a socket path)");
  }
  const install = "@langchain/langgraph-checkpoint-postgres";
  const { PostgresSaver } = await importOptional<typeof import("@langchain/langgraph-checkpoint-postgres")>(
    "@langchain/langgraph-checkpoint-postgres",
    "loadThreadFromPostgres",
    install,
  );
  const { PostgresStore } = await importOptional<typeof import("@langchain/langgraph-checkpoint-postgres/store")>(
    "@langchain/langgraph-checkpoint-postgres/store",
    "loadThreadFromPostgres",
    install,
  );
  const schema = options.schema ?? "public";
  const saver = PostgresSaver.fromConnString(connectionString, { schema });
  const store = PostgresStore.fromConnString(connectionString, { schema, ensureTables: false });
  try {
    let tuple;
    try {
      tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
    } catch (error) {
      // 42P01: undefined_table.
      if (codeOf(error) === "42P01") throw new InvalidOptionError("loadThreadFromPostgres", "schema", `schema "${schema}" holds no LangGraph checkpoints (${messageOf(error)})`);
      throw error;
    }
    if (!tuple) {
      const threads = await postgresThreads(saver, schema);
      throw new InvalidOptionError("loadThreadFromPostgres", "threadId", `no checkpoint for thread "${threadId}" in schema "${schema}"${threads === null ? "" : `; ${existingThreads(threads.ids, threads.total)}`}`);
    }
    const state = tuple.checkpoint.channel_values as unknown as ThreadState;
    const storeOptions = { store, ...(options.namespace ? { namespace: options.namespace } : {}) };
    try {
      return await exportThreadState(state, threadId, storeOptions);
    } catch (error) {
      if (codeOf(error) !== "42P01") throw error;
      // Checkpoints without store tables: the thread was run without a PostgresStore.
      return await exportThreadState(state, threadId);
    }
  } finally {
    await Promise.all([saver.end(), store.stop()]);
  }
}

/** A connection string pg reads as one: a `postgres:`, `postgresql:` or `socket:` URL, or a socket directory's path. */
function isPostgresConnectionString(value: string): boolean {
  if (value.startsWith("/")) return true;
  try {
    return ["postgres:", "postgresql:", "socket:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

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
    throw new InvalidOptionError("loadThreadFromJson", "path", codeOf(error) === "ENOENT" ? `no such file: ${path}` : `cannot read ${path}: ${messageOf(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidHistoryError(`loadThreadFromJson: ${path} is not JSON (${messageOf(error)})`);
  }
  return parseThreadExport(value, `loadThreadFromJson: ${path}`);
}

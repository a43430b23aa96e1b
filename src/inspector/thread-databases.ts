// A thread read straight from a database a checkpointer wrote: a SQLite file (SqliteSaver or
// SqliteBlobSaver, with a SqliteStore) or a PostgreSQL schema (PostgresSaver and PostgresStore).
// The checkpointer packages are optional peers, imported when first needed.
import { statSync } from "node:fs";
import { CompactionError, InvalidOptionError } from "../errors.js";
import { describeValue, invalidOption } from "../option-errors.js";
import type { ThreadExport } from "./inspection.js";
import { existingThreads, postgresThreads } from "./thread-list.js";
import { codeOf, exportThreadState, messageOf, type ThreadState } from "./thread-sources.js";

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
  const FILE = "the path of a SQLite checkpoint file";
  const invalid = (option: string, value: unknown, expected: string, reason: string) => invalidOption("loadThreadFromSqlite", option, value, expected, reason);
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw invalid("path", path, FILE, codeOf(error) === "ENOENT" ? "no such file" : `cannot read it: ${messageOf(error)}`);
  }
  if (!stats.isFile()) throw invalid("path", path, FILE, stats.isDirectory() ? "it is a directory" : "it is not a file");
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
    throw invalid("path", path, FILE, `cannot open it: ${messageOf(error)}`);
  }
  try {
    let table: unknown;
    try {
      table = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
    } catch (error) {
      throw invalid("path", path, FILE, `it is not a SQLite database: ${messageOf(error)}`);
    }
    if (table === undefined) throw invalid("path", path, FILE, "it holds no LangGraph checkpoints: no `checkpoints` table");
    // SqliteSaver.getTuple's query without its join on `writes`: pending writes are not part of the
    // state, and a file written by another version may lack that table.
    const row = database
      .prepare("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")
      .get(threadId) as CheckpointRow | undefined;
    if (row === undefined) {
      const threads = database.prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id").pluck().all() as string[];
      throw invalid("threadId", threadId, `the id of a thread in ${path}`, `no checkpoint for it; ${existingThreads(threads, threads.length)}`);
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
    // Not shown: a connection string may hold a password.
    const got = typeof connectionString === "string" ? "a string that is not one (not shown: it may hold a password)" : describeValue(connectionString);
    throw new InvalidOptionError("loadThreadFromPostgres", "connectionString", { got, expected: "a postgres:// or postgresql:// URL, or a socket path" });
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
      if (codeOf(error) === "42P01") throw invalidOption("loadThreadFromPostgres", "schema", schema, "a schema that holds LangGraph checkpoints", messageOf(error));
      throw error;
    }
    if (!tuple) {
      const threads = await postgresThreads(saver, schema);
      throw invalidOption("loadThreadFromPostgres", "threadId", threadId, `the id of a thread in schema "${schema}"`, `no checkpoint for it${threads === null ? "" : `; ${existingThreads(threads.ids, threads.total)}`}`);
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

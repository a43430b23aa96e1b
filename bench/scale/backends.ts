/**
 * Where the scale run keeps its threads: PostgreSQL (PostgresSaver + PostgresStore, one schema per
 * run, shared by every worker process) or SQLite (SqliteBlobSaver + SqliteStore in one file, one
 * process), and how many bytes a run left in each.
 */
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import pg from "pg";
import { SqliteBlobSaver, SqliteStore } from "../../src/store/index.js";

/** A checkpointer (and store) opened by one process. */
export interface Persistence {
  readonly checkpointer: BaseCheckpointSaver;
  readonly store: BaseStore | undefined;
  close(): Promise<void>;
}

/** Where a run's threads live. */
export type BackendSpec = { kind: "postgres"; url: string; schema: string } | { kind: "sqlite"; path: string };

/**
 * When the server cuts a connection (a restart, a failover), node-postgres emits an `error` event:
 * on the pool for an idle client, on the client itself for one checked out between two queries
 * (PostgresSaver holds one across a transaction). Without a listener either is an uncaught exception
 * that kills the process. The query in flight still fails (the step fails, and is retried from its
 * checkpoint); the pool drops the broken client and the next query opens a new connection.
 */
function survivePoolErrors(pool: pg.Pool, what: string): void {
  const report = (error: Error) => {
    if (process.env["SCALE_DEBUG"]) console.error(`[${what}] connection error: ${error.message}`);
  };
  pool.on("error", report);
  pool.on("connect", (client) => client.on("error", report));
}

/**
 * Open PostgreSQL persistence in `schema` (created if missing). The saver gets a pool of ours so its
 * idle-client errors are handled; PostgresStore creates its pool itself and does not expose it, so
 * the listener goes on its internal pool.
 */
export async function openPostgres(url: string, schema: string, setup = true): Promise<Persistence> {
  const pool = new pg.Pool({ connectionString: url });
  survivePoolErrors(pool, "PostgresSaver");
  const checkpointer = new PostgresSaver(pool, undefined, { schema });
  const store = PostgresStore.fromConnString(url, { schema });
  const storePool = (store as unknown as { core?: { pool?: pg.Pool } }).core?.pool;
  if (storePool) survivePoolErrors(storePool, "PostgresStore");
  if (setup) {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await checkpointer.setup();
    await store.setup();
  }
  return {
    checkpointer,
    store,
    async close() {
      await checkpointer.end();
      await store.stop();
    },
  };
}

/**
 * Open SQLite persistence on a file (WAL mode, as the examples use it) with the package's embedded
 * default: `SqliteBlobSaver` (each channel value stored once) and a `SqliteStore` on the same
 * connection, where the compaction node archives the originals once per compaction. The run without
 * the compaction node uses the same saver, so the two sizes compare layouts, not savers.
 */
export function openSqlite(path: string): Persistence {
  mkdirSync(dirname(path), { recursive: true });
  const checkpointer = SqliteBlobSaver.fromConnString(path);
  checkpointer.db.pragma("journal_mode = WAL");
  const store = new SqliteStore(checkpointer.db);
  return {
    checkpointer,
    store,
    async close() {
      checkpointer.db.close();
    },
  };
}

export async function openBackend(spec: BackendSpec, setup = true): Promise<Persistence> {
  return spec.kind === "postgres" ? openPostgres(spec.url, spec.schema, setup) : openSqlite(spec.path);
}

/** Drop a run's schema, or delete its SQLite file (and WAL). */
export async function dropBackend(spec: BackendSpec): Promise<void> {
  if (spec.kind === "sqlite") {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(spec.path + suffix, { force: true });
    return;
  }
  const client = new pg.Client({ connectionString: spec.url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${spec.schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Bytes a run left in its database, by table. */
export interface StorageSize {
  readonly total: number;
  readonly tables: Record<string, number>;
}

/**
 * Bytes of every table of a run: PostgreSQL's `pg_total_relation_size` (table, TOAST and indexes)
 * of each table in the schema, after `VACUUM FULL` so dead rows of upserts do not count; SQLite's
 * pages in use (page count minus free pages, times the page size) after checkpointing the WAL into
 * the file, split by table with the `dbstat` virtual table when the build has it.
 */
export async function storageSize(spec: BackendSpec): Promise<StorageSize> {
  if (spec.kind === "sqlite") {
    const saver = SqliteSaver.fromConnString(spec.path);
    try {
      const db = saver.db;
      db.pragma("wal_checkpoint(TRUNCATE)");
      const pageSize = Number(db.pragma("page_size", { simple: true }));
      const used = Number(db.pragma("page_count", { simple: true })) - Number(db.pragma("freelist_count", { simple: true }));
      const tables: Record<string, number> = {};
      try {
        for (const row of db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[]) tables[row.name] = row.bytes;
      } catch {
        // This SQLite build has no dbstat: the total is still exact.
      }
      return { total: used * pageSize, tables };
    } finally {
      saver.db.close();
    }
  }
  const client = new pg.Client({ connectionString: spec.url });
  await client.connect();
  try {
    const { rows: names } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1", [spec.schema]);
    const tables: Record<string, number> = {};
    for (const { name } of names) {
      await client.query(`VACUUM FULL "${spec.schema}"."${name}"`);
      const { rows } = await client.query<{ bytes: string }>("SELECT pg_total_relation_size(format('%I.%I', $1::text, $2::text)) AS bytes", [spec.schema, name]);
      tables[name] = Number(rows[0]!.bytes);
    }
    return { total: Object.values(tables).reduce((sum, bytes) => sum + bytes, 0), tables };
  } finally {
    await client.end();
  }
}

/** Checkpoint bytes per graph step (one checkpoint each) in each fifth of a thread's life, over every thread of a run. */
export interface LifeBytes {
  /** Bytes written per checkpoint, first fifth of each thread's checkpoints to last. */
  readonly bytesPerStep: number[];
  readonly checkpoints: number;
}

/**
 * What each checkpoint of a run cost in its database, by fifth of its thread's life: on PostgreSQL
 * its row, its pending writes and the channel blobs it was the first to reference (PostgresSaver
 * writes a channel's value once per version); on SQLite its row (SqliteSaver writes every channel
 * whole into it) and its pending writes.
 */
export async function checkpointBytesByLife(spec: BackendSpec): Promise<LifeBytes> {
  const fifthsOf = (rows: { fifth: number | string; bytes: number | string; checkpoints: number | string }[]): LifeBytes => {
    const bytesPerStep = [0, 1, 2, 3, 4].map((fifth) => {
      const row = rows.find((entry) => Number(entry.fifth) === fifth);
      return row ? Number(row.bytes) / Number(row.checkpoints) : 0;
    });
    return { bytesPerStep, checkpoints: rows.reduce((sum, row) => sum + Number(row.checkpoints), 0) };
  };
  if (spec.kind === "sqlite") {
    const saver = SqliteSaver.fromConnString(spec.path);
    try {
      const rows = saver.db
        .prepare(
          `WITH cp AS (SELECT thread_id, checkpoint_id, LENGTH(checkpoint) + LENGTH(metadata) AS own,
             ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY checkpoint_id) AS n, COUNT(*) OVER (PARTITION BY thread_id) AS total
             FROM checkpoints WHERE checkpoint_ns = ''),
           w AS (SELECT thread_id, checkpoint_id, SUM(LENGTH(value)) AS bytes FROM writes WHERE checkpoint_ns = '' GROUP BY 1, 2)
           SELECT MIN(4, ((cp.n - 1) * 5) / cp.total) AS fifth, SUM(cp.own + COALESCE(w.bytes, 0)) AS bytes, COUNT(*) AS checkpoints
           FROM cp LEFT JOIN w ON w.thread_id = cp.thread_id AND w.checkpoint_id = cp.checkpoint_id GROUP BY 1 ORDER BY 1`,
        )
        .all() as { fifth: number; bytes: number; checkpoints: number }[];
      return fifthsOf(rows);
    } finally {
      saver.db.close();
    }
  }
  const client = new pg.Client({ connectionString: spec.url });
  await client.connect();
  try {
    const s = `"${spec.schema}"`;
    const { rows } = await client.query<{ fifth: string; bytes: string; checkpoints: string }>(
      `WITH cp AS (SELECT thread_id, checkpoint_id, checkpoint, octet_length(checkpoint::text) + octet_length(metadata::text) AS own,
         ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY checkpoint_id) AS n, COUNT(*) OVER (PARTITION BY thread_id) AS total
         FROM ${s}.checkpoints WHERE checkpoint_ns = ''),
       w AS (SELECT thread_id, checkpoint_id, SUM(octet_length(blob)) AS bytes FROM ${s}.checkpoint_writes WHERE checkpoint_ns = '' GROUP BY 1, 2),
       first_reference AS (
         SELECT b.thread_id, b.channel, b.version, COALESCE(octet_length(b.blob), 0) AS bytes, MIN(cp.checkpoint_id) AS checkpoint_id
         FROM ${s}.checkpoint_blobs b JOIN cp ON cp.thread_id = b.thread_id AND cp.checkpoint -> 'channel_versions' ->> b.channel = b.version
         WHERE b.checkpoint_ns = '' GROUP BY 1, 2, 3, 4),
       bl AS (SELECT thread_id, checkpoint_id, SUM(bytes) AS bytes FROM first_reference GROUP BY 1, 2)
       SELECT LEAST(4, ((cp.n - 1) * 5) / cp.total) AS fifth, SUM(cp.own + COALESCE(w.bytes, 0) + COALESCE(bl.bytes, 0)) AS bytes, COUNT(*) AS checkpoints
       FROM cp LEFT JOIN w USING (thread_id, checkpoint_id) LEFT JOIN bl USING (thread_id, checkpoint_id) GROUP BY 1 ORDER BY 1`,
    );
    return fifthsOf(rows);
  } finally {
    await client.end();
  }
}

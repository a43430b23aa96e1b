/**
 * Erasing and redacting a compacted `createAgent` thread on one SQLite file: `SqliteStore` with
 * `SqliteSaver`, and with `SqliteBlobSaver` (whose `deleteThread` also deletes the thread's blobs).
 * The shared suite of test/langgraph/support/erasure-suite.ts, plus what is left in the file itself.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll } from "vitest";
import { SqliteBlobSaver, SqliteStore } from "../../src/store/index.js";
import { erasureSuite, type ErasureBackend } from "../langgraph/support/erasure-suite.js";

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-erasure-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

function openSqlite(saver: (path: string) => SqliteSaver, tables: readonly string[]): () => Promise<ErasureBackend> {
  return async () => {
    const path = join(directory, `agent-${files++}.sqlite`);
    const checkpointer = saver(path);
    // What the docs ask for erasure on disk: SQLite overwrites what it deletes.
    checkpointer.db.pragma("secure_delete = ON");
    const store = new SqliteStore(checkpointer.db);
    return {
      store,
      checkpointer,
      async threadRows(threadId) {
        let rows = 0;
        for (const table of tables) rows += (checkpointer.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ?`).get(threadId) as { n: number }).n;
        return rows;
      },
      async rawContents() {
        // The database and its write-ahead log (SqliteSaver opens the file in WAL mode).
        return [path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file).toString("latin1")).join("");
      },
      async finishErasure() {
        checkpointer.db.pragma("wal_checkpoint(TRUNCATE)");
      },
      async close() {
        checkpointer.db.close();
      },
    };
  };
}

erasureSuite("SqliteStore and SqliteSaver on a file", openSqlite((path) => SqliteSaver.fromConnString(path), ["checkpoints", "writes"]), { rawContents: true });
erasureSuite("SqliteStore and SqliteBlobSaver on a file", openSqlite((path) => SqliteBlobSaver.fromConnString(path), ["checkpoints", "writes", "checkpoint_blobs"]), { rawContents: true });

/**
 * Where the inspector reads threads: a SQLite file written by a real graph, a JSON export, a
 * checkpointer with a store, and PostgreSQL (PostgresSaver with the archive in a PostgresStore).
 * The graph is examples/react-agent.ts's ReAct agent replaying a recorded session with the examples'
 * compaction (autoCompaction: the no-model summarizer, then truncation).
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleCompaction, sqliteCheckpointer } from "../../examples/react-agent.js";
import { CompactionError, InvalidHistoryError, InvalidOptionError, restoreHistory } from "../../src/index.js";
import {
  THREAD_EXPORT_FORMAT,
  buildInspection,
  exportThread,
  exportThreadState,
  loadThreadFromJson,
  loadThreadFromPostgres,
  loadThreadFromSqlite,
  type ThreadExport,
} from "../../src/inspector/index.js";
import { importOptional } from "../../src/inspector/thread-databases.js";
import { describeValue } from "../../src/option-errors.js";
import { caught } from "../support/errors.js";
import { createTestSchema, describeWithPostgres } from "../support/postgres.js";
import { AIRLINE_SESSION_ID as SESSION_ID, leafOf, loadReplay, md5Of, replayThread, sqliteJournalMode, timelineLeaves as leaves, type AgentState } from "./support/recorded-thread.js";

/** Small enough for the 62-message session to be summarized and truncated several times. */
const WINDOW = 2_500;
const replay = loadReplay(SESSION_ID);

const directories: string[] = [];
function temporaryPath(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-inspector-"));
  directories.push(directory);
  return join(directory, name);
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Replay the whole session on one thread with the examples' compaction; its final state. */
function runAgent(threadId: string, checkpointer: BaseCheckpointSaver, store?: BaseStore): Promise<AgentState> {
  return replayThread({ replay, threadId, checkpointer, compaction: exampleCompaction(WINDOW), ...(store ? { store } : {}) });
}

const expectedLeaves = replay.expectedHistory.map(leafOf);

describe("loadThreadFromSqlite, on a file a real graph wrote with SqliteSaver", () => {
  const threadId = `inspect/${SESSION_ID}`;
  let path: string;
  let state: AgentState;

  beforeAll(async () => {
    path = temporaryPath("checkpoints.sqlite");
    const checkpointer = sqliteCheckpointer(path);
    state = await runAgent(threadId, checkpointer);
    checkpointer.db.close();
  }, 120_000);

  it("gives the thread's messages, log and state archive, as exportThreadState does from the live state", async () => {
    expect(await loadThreadFromSqlite(path, threadId)).toEqual(await exportThreadState(state, threadId));
  });

  it("the thread compacted: summaries, then truncations, all archived in the state", async () => {
    const thread = await loadThreadFromSqlite(path, threadId);
    expect({
      statuses: [...new Set(thread.compactionLog.map((record) => record.status))].sort(),
      archivedIn: [...new Set(thread.compactionLog.map((record) => record.archive))],
      archives: thread.archives.map((archive) => archive.compactionId),
    }).toEqual({
      statuses: ["summarized", "truncated"],
      archivedIn: ["state"],
      archives: thread.compactionLog.map((record) => record.id),
    });
  });

  it("its inspection's timeline holds the whole recorded session, in restoreHistory's order", async () => {
    const inspection = await buildInspection(await loadThreadFromSqlite(path, threadId));
    expect({ leaves: leaves(inspection.timeline), warnings: inspection.warnings }).toEqual({
      leaves: (await restoreHistory(state)).map(leafOf),
      warnings: [],
    });
    expect(leaves(inspection.timeline)).toEqual(expectedLeaves);
  });

  it("reads a rollback-journal file without a `writes` table and leaves it as it was, byte for byte", async () => {
    // Another writer's file: journal mode DELETE, and no table for pending writes.
    const copy = temporaryPath("rollback.sqlite");
    copyFileSync(path, copy);
    const database = SqliteSaver.fromConnString(copy).db;
    database.pragma("journal_mode = DELETE");
    database.exec("DROP TABLE writes");
    database.close();
    const before = { md5: md5Of(copy), journal: sqliteJournalMode(copy), files: readdirSync(dirname(copy)) };
    const thread = await loadThreadFromSqlite(copy, threadId);
    expect({ thread, md5: md5Of(copy), journal: sqliteJournalMode(copy), files: readdirSync(dirname(copy)) }).toEqual({
      thread: await exportThreadState(state, threadId),
      md5: before.md5,
      journal: "rollback",
      files: ["rollback.sqlite"],
    });
  });

  it("rejects a thread the file does not have, listing the threads it has", async () => {
    const error = await caught(() => loadThreadFromSqlite(path, "nobody"));
    expect({ isOptionError: InvalidOptionError.isInstance(error), message: (error as Error).message }).toEqual({
      isOptionError: true,
      message: `loadThreadFromSqlite: invalid option \`threadId\`: expected the id of a thread in ${path}; got the string "nobody" (no checkpoint for it; its threads: "${threadId}")`,
    });
  });

  it("rejects a directory, naming it", async () => {
    const directory = dirname(temporaryPath("unused"));
    const error = await caught(() => loadThreadFromSqlite(directory, threadId));
    expect({ isOptionError: InvalidOptionError.isInstance(error), message: (error as Error).message }).toEqual({
      isOptionError: true,
      message: `loadThreadFromSqlite: invalid option \`path\`: expected the path of a SQLite checkpoint file; got ${describeValue(directory)} (it is a directory)`,
    });
  });

  it("rejects a missing file, and does not create it", async () => {
    const missing = temporaryPath("missing.sqlite");
    const error = await caught(() => loadThreadFromSqlite(missing, threadId));
    expect({ message: (error as Error).message, created: existsQuietly(missing) }).toEqual({
      message: `loadThreadFromSqlite: invalid option \`path\`: expected the path of a SQLite checkpoint file; got ${describeValue(missing)} (no such file)`,
      created: false,
    });
  });

  it("rejects a SQLite file without checkpoints, and creates no table in it", async () => {
    const other = temporaryPath("other.sqlite");
    // A plain database: SqliteSaver's handle is better-sqlite3's, and it creates nothing until used as a checkpointer.
    const database = SqliteSaver.fromConnString(other).db;
    database.exec("CREATE TABLE notes (text TEXT)");
    database.close();
    const error = await caught(() => loadThreadFromSqlite(other, threadId));
    const reopened = SqliteSaver.fromConnString(other).db;
    const tables = reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    reopened.close();
    expect({ message: (error as Error).message, tables }).toEqual({
      message: `loadThreadFromSqlite: invalid option \`path\`: expected the path of a SQLite checkpoint file; got ${describeValue(other)} (it holds no LangGraph checkpoints: no \`checkpoints\` table)`,
      tables: [{ name: "notes" }],
    });
  });

  it("rejects a file that is not a SQLite database", async () => {
    const text = temporaryPath("notes.txt");
    writeFileSync(text, "not a database, just some text that is long enough to have a header".repeat(10));
    const error = await caught(() => loadThreadFromSqlite(text, threadId));
    expect({ isOptionError: InvalidOptionError.isInstance(error), message: (error as Error).message }).toEqual({
      isOptionError: true,
      message: `loadThreadFromSqlite: invalid option \`path\`: expected the path of a SQLite checkpoint file; got ${describeValue(text)} (it is not a SQLite database: file is not a database)`,
    });
  });
});

/** The session replayed once onto a MemorySaver with the archive in an InMemoryStore; shared by the describes that read it. */
const STORE_THREAD_ID = "store-thread";
let storeThread: Promise<{ state: AgentState; store: InMemoryStore; checkpointer: MemorySaver }> | undefined;
function replayedWithStore() {
  storeThread ??= (async () => {
    const store = new InMemoryStore();
    const checkpointer = new MemorySaver();
    return { state: await runAgent(STORE_THREAD_ID, checkpointer, store), store, checkpointer };
  })();
  return storeThread;
}

describe("a thread archived in a store", () => {
  const threadId = STORE_THREAD_ID;
  let state: AgentState;
  let store: InMemoryStore;
  let checkpointer: MemorySaver;
  let sqlitePath: string;

  beforeAll(async () => {
    ({ state, store, checkpointer } = await replayedWithStore());
    // The same run on SQLite with the store: the file alone lacks the store's archive.
    sqlitePath = temporaryPath("store.sqlite");
    const sqlite = sqliteCheckpointer(sqlitePath);
    await runAgent(threadId, sqlite, new InMemoryStore());
    sqlite.db.close();
  }, 120_000);

  it("exportThread reads the checkpointer and the store: every compaction's archive, none in the state", async () => {
    const thread = await exportThread(checkpointer, threadId, { store });
    expect({
      stateArchive: state.compactionArchive,
      archivedIn: [...new Set(thread.compactionLog.map((record) => record.archive))],
      archives: thread.archives.map((archive) => archive.compactionId),
    }).toEqual({ stateArchive: [], archivedIn: ["store"], archives: thread.compactionLog.map((record) => record.id) });
  });

  it("exportThread rejects a thread the checkpointer does not have, listing the threads it has", async () => {
    const error = await caught(() => exportThread(checkpointer, "nobody", { store }));
    expect({ isOptionError: InvalidOptionError.isInstance(error), message: (error as Error).message }).toEqual({
      isOptionError: true,
      message: `exportThread: invalid option \`threadId\`: expected the id of a thread the checkpointer holds; got the string "nobody" (no checkpoint for it; its threads: "${threadId}")`,
    });
  });

  it("its inspection holds the whole session", async () => {
    const inspection = await buildInspection(await exportThread(checkpointer, threadId, { store }));
    expect({ leaves: leaves(inspection.timeline), warnings: inspection.warnings }).toEqual({ leaves: expectedLeaves, warnings: [] });
  });

  it("from the SQLite file alone: one warning per store-archived compaction, the current context still shown", async () => {
    const thread = await loadThreadFromSqlite(sqlitePath, threadId);
    const inspection = await buildInspection(thread);
    expect({
      warnings: inspection.warnings,
      contextMessages: inspection.totals.contextMessages,
    }).toEqual({
      warnings: thread.compactionLog.map(
        (record, position) =>
          `compaction #${position + 1} (${record.id}, ${record.strategy}) archived its originals in the store, and the thread has no entry for it (was it exported without its store?): its ${record.removedIds.length + record.replacedIds.length} originals are not shown`,
      ),
      contextMessages: thread.messages.length,
    });
  });
});

describe("an unknown thread among many", () => {
  /** A SQLite file with `count` threads (t00, t01, ...), one checkpoint each, written by a real graph. */
  async function fileWithThreads(count: number): Promise<string> {
    const path = temporaryPath(`threads-${count}.sqlite`);
    const checkpointer = SqliteSaver.fromConnString(path);
    const graph = new StateGraph(MessagesAnnotation).addNode("echo", () => ({})).addEdge(START, "echo").compile({ checkpointer });
    for (let thread = 0; thread < count; thread++) {
      await graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: `t${String(thread).padStart(2, "0")}` } });
    }
    checkpointer.db.close();
    return path;
  }

  it("lists the first 20 threads, sorted, and how many more there are", async () => {
    const path = await fileWithThreads(23);
    const listed = Array.from({ length: 20 }, (_, thread) => `"t${String(thread).padStart(2, "0")}"`).join(", ");
    expect((await caught(() => loadThreadFromSqlite(path, "t99")) as Error).message).toBe(
      `loadThreadFromSqlite: invalid option \`threadId\`: expected the id of a thread in ${path}; got the string "t99" (no checkpoint for it; its threads: ${listed} and 3 more)`,
    );
  });

  it("says when the file holds no thread at all", async () => {
    const path = await fileWithThreads(0);
    // SqliteSaver creates its tables on first use: a checkpoints table with no row.
    const saver = SqliteSaver.fromConnString(path);
    expect(await saver.getTuple({ configurable: { thread_id: "x" } })).toBeUndefined();
    saver.db.close();
    expect((await caught(() => loadThreadFromSqlite(path, "t00")) as Error).message).toBe(
      `loadThreadFromSqlite: invalid option \`threadId\`: expected the id of a thread in ${path}; got the string "t00" (no checkpoint for it; it holds no threads)`,
    );
  });
});

describe("loadThreadFromJson", () => {
  let thread: ThreadExport;
  beforeAll(async () => {
    const { store, checkpointer } = await replayedWithStore();
    thread = await exportThread(checkpointer, STORE_THREAD_ID, { store });
  }, 120_000);

  it("gives back exactly the export written to the file", async () => {
    const path = temporaryPath("thread.json");
    writeFileSync(path, JSON.stringify(thread));
    expect(await loadThreadFromJson(path)).toEqual(thread);
  });

  it("an export inspects the same after the round trip", async () => {
    const path = temporaryPath("thread.json");
    writeFileSync(path, JSON.stringify(thread));
    const now = new Date("2025-01-01T00:00:00.000Z");
    expect(await buildInspection(await loadThreadFromJson(path), { now })).toEqual(await buildInspection(thread, { now }));
  });

  it("rejects JSON that is not a thread export, naming what is wrong", async () => {
    const path = temporaryPath("package.json");
    writeFileSync(path, JSON.stringify({ name: "x", version: "1.0.0" }));
    const error = await caught(() => loadThreadFromJson(path));
    expect({ isHistoryError: InvalidHistoryError.isInstance(error), message: (error as Error).message }).toEqual({
      isHistoryError: true,
      message: `loadThreadFromJson: ${path}: not a thread export: "format" is missing, expected "${THREAD_EXPORT_FORMAT}"`,
    });
  });

  it("rejects an export of another format version", async () => {
    const path = temporaryPath("thread.json");
    writeFileSync(path, JSON.stringify({ ...thread, format: "langchain-compaction/thread@2" }));
    expect(((await caught(() => loadThreadFromJson(path))) as Error).message).toBe(
      `loadThreadFromJson: ${path}: not a thread export: "format" is "langchain-compaction/thread@2", expected "${THREAD_EXPORT_FORMAT}"`,
    );
  });

  it("rejects a file that is not JSON", async () => {
    const path = temporaryPath("thread.json");
    writeFileSync(path, "<html></html>");
    expect(((await caught(() => loadThreadFromJson(path))) as Error).message).toMatch(new RegExp(`^loadThreadFromJson: ${escape(path)} is not JSON \\(`));
  });
});

describe("loadThreadFromPostgres, before connecting", () => {
  it("rejects a connection string that is not a PostgreSQL URL, naming the option", async () => {
    const error = await caught(() => loadThreadFromPostgres("notaurl", "t1"));
    expect({ isOptionError: InvalidOptionError.isInstance(error), option: (error as InvalidOptionError).option, message: (error as Error).message }).toEqual({
      isOptionError: true,
      option: "connectionString",
      message:
        "loadThreadFromPostgres: invalid option `connectionString`: expected a postgres:// or postgresql:// URL, or a socket path; got a string that is not one (not shown: it may hold a password)",
    });
  });
});

describe("optional packages", () => {
  it("a missing package gives an error saying what to install", async () => {
    const error = await caught(() => importOptional("@langchain/no-such-checkpointer", "loadThreadFromSomewhere", "@langchain/no-such-checkpointer"));
    expect({ isCompactionError: CompactionError.isInstance(error), message: (error as Error).message }).toEqual({
      isCompactionError: true,
      message: "loadThreadFromSomewhere needs the optional package @langchain/no-such-checkpointer: npm install @langchain/no-such-checkpointer",
    });
  });
});

describeWithPostgres("loadThreadFromPostgres, PostgresSaver with the archive in a PostgresStore", (url) => {
  const threadId = `inspect/${SESSION_ID}`;
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let state: AgentState;
  let expected: ThreadExport;

  beforeAll(async () => {
    schema = await createTestSchema(url, "inspector_test");
    const checkpointer = PostgresSaver.fromConnString(url, { schema: schema.name });
    const store = PostgresStore.fromConnString(url, { schema: schema.name });
    await checkpointer.setup();
    await store.setup();
    try {
      state = await runAgent(threadId, checkpointer, store);
      expected = await exportThreadState(state, threadId, { store });
    } finally {
      await checkpointer.end();
      await store.stop();
    }
  }, 120_000);
  afterAll(async () => {
    await schema?.drop();
  });

  it("gives the thread with every archive from the store, as exportThreadState does from the live state and store", async () => {
    const thread = await loadThreadFromPostgres(url, threadId, { schema: schema.name });
    expect({ thread, archivedIn: [...new Set(thread.compactionLog.map((record) => record.archive))], stateArchive: state.compactionArchive }).toEqual({
      thread: expected,
      archivedIn: ["store"],
      stateArchive: [],
    });
    expect(thread.archives.map((archive) => archive.compactionId)).toEqual(thread.compactionLog.map((record) => record.id));
  });

  it("its inspection holds the whole recorded session, without warnings", async () => {
    const inspection = await buildInspection(await loadThreadFromPostgres(url, threadId, { schema: schema.name }));
    expect({ leaves: leaves(inspection.timeline), warnings: inspection.warnings }).toEqual({ leaves: expectedLeaves, warnings: [] });
  });

  it("rejects a thread the database does not have", async () => {
    const error = await caught(() => loadThreadFromPostgres(url, "nobody", { schema: schema.name }));
    expect((error as Error).message).toBe(
      `loadThreadFromPostgres: invalid option \`threadId\`: expected the id of a thread in schema "${schema.name}"; got the string "nobody" (no checkpoint for it; its threads: "${threadId}")`,
    );
  });

  it("rejects a schema without checkpoints, and creates nothing in it", async () => {
    const empty = await createTestSchema(url, "inspector_empty");
    try {
      const error = await caught(() => loadThreadFromPostgres(url, threadId, { schema: empty.name }));
      expect((error as Error).message).toMatch(new RegExp(`^loadThreadFromPostgres: invalid option \`schema\`: expected a schema that holds LangGraph checkpoints; got ${escape(describeValue(empty.name))} \\(relation .* does not exist\\)$`));
    } finally {
      await empty.drop();
    }
  });
});

function existsQuietly(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

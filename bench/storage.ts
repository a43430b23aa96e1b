/**
 * Storage per thread on SQLite: the examples' ReAct graph replays recorded sessions, each layout in
 * its own fresh SQLite file (one thread per file), and the bytes the file's pages hold afterwards
 * (VACUUMed: page_count x page_size) are the thread's bytes: checkpoints, writes, blobs and store rows.
 *
 *   npx tsx bench/storage.ts                                   # the demo's session (bundled SWE-bench run), window 8000
 *   npx tsx bench/storage.ts --traces examples/fixtures/public.jsonl.gz   # every session of a trace file, summed
 *   npx tsx bench/storage.ts --window 16000 --session <id>
 *   npx tsx bench/storage.ts --file <path>/demo.sqlite   # bytes per thread of an existing file (e.g. the one npm run demo printed)
 *
 * Layouts: without compaction (SqliteSaver), and with compaction: the archive in the state channel on
 * SqliteSaver (0.1.0's default on SQLite), in a SqliteStore beside a SqliteSaver, in the state
 * channel on SqliteBlobSaver (no store), and in a SqliteStore beside a SqliteBlobSaver. Each replay is
 * checked: restoreHistory gives back the whole session, message by message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createTokenCounter, restoreHistory } from "../src/index.js";
import { archiveNamespace } from "../src/extend/index.js";
import { SqliteBlobSaver, SqliteStore } from "../src/store/index.js";
import { buildReactAgent, exampleCompaction } from "../examples/react-agent.js";
import { ReplayChatModel, ReplaySession, replayTools } from "../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions, type TraceSession } from "../examples/traces.js";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

/**
 * The bytes each thread's rows hold in an existing file (threads share its pages, so rows, not
 * pages): checkpoints and metadata, writes, SqliteBlobSaver's blobs, the SqliteStore archive.
 */
function bytesPerThread(path: string): void {
  const db = SqliteSaver.fromConnString(path).db;
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
  const sum = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number | null }).n ?? 0;
  for (const { thread_id: threadId } of db.prepare("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id").all() as { thread_id: string }[]) {
    const checkpoints = sum("SELECT sum(length(checkpoint) + length(metadata)) AS n FROM checkpoints WHERE thread_id = ?", threadId);
    const writes = tables.has("writes") ? sum("SELECT sum(length(value)) AS n FROM writes WHERE thread_id = ?", threadId) : 0;
    const blobs = tables.has("checkpoint_blobs") ? sum("SELECT sum(length(value)) AS n FROM checkpoint_blobs WHERE thread_id = ?", threadId) : 0;
    const store = tables.has("store") ? sum("SELECT sum(length(value)) AS n FROM store WHERE namespace = ?", archiveNamespace(threadId).join(":")) : 0;
    const count = sum("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?", threadId);
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
    console.log(`${threadId}: ${mb(checkpoints + writes + blobs + store)} (${count} checkpoints: ${mb(checkpoints)}, writes ${mb(writes)}, blobs ${mb(blobs)}, store ${mb(store)})`);
  }
  db.close();
}
if (flag("--file")) {
  bytesPerThread(flag("--file")!);
  process.exit(0);
}
const tracesPath = flag("--traces") ?? BUNDLED_TRACES_PATH;
const window = Number(flag("--window") ?? 8_000);
const all = loadTraceSessions(tracesPath);
const sessions: TraceSession[] = flag("--traces") && !flag("--session") ? all : [all.find((each) => each.id === (flag("--session") ?? all[0]!.id))!];

interface Layout {
  readonly name: string;
  readonly compaction: boolean;
  open(path: string): { checkpointer: BaseCheckpointSaver & { db: SqliteSaver["db"] }; store?: BaseStore };
}
const LAYOUTS: readonly Layout[] = [
  { name: "without compaction (SqliteSaver)", compaction: false, open: (path) => ({ checkpointer: SqliteSaver.fromConnString(path) }) },
  { name: "archive in state, SqliteSaver (0.1.0)", compaction: true, open: (path) => ({ checkpointer: SqliteSaver.fromConnString(path) }) },
  {
    name: "archive in SqliteStore, SqliteSaver",
    compaction: true,
    open: (path) => {
      const checkpointer = SqliteSaver.fromConnString(path);
      return { checkpointer, store: new SqliteStore(checkpointer.db) };
    },
  },
  { name: "archive in state, SqliteBlobSaver", compaction: true, open: (path) => ({ checkpointer: SqliteBlobSaver.fromConnString(path) }) },
  {
    name: "archive in SqliteStore, SqliteBlobSaver",
    compaction: true,
    open: (path) => {
      const checkpointer = SqliteBlobSaver.fromConnString(path);
      return { checkpointer, store: new SqliteStore(checkpointer.db) };
    },
  },
  { name: "without compaction (SqliteBlobSaver)", compaction: false, open: (path) => ({ checkpointer: SqliteBlobSaver.fromConnString(path) }) },
];

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-storage-"));
const tokenCounter = createTokenCounter({ model: "gpt-4o" });

async function measure(session: TraceSession, layout: Layout, index: number): Promise<{ bytes: number; checkpoints: number; restored: boolean }> {
  const path = join(directory, `${index}.sqlite`);
  const replay = new ReplaySession(session);
  const { checkpointer, store } = layout.open(path);
  const agent = buildReactAgent({
    model: new ReplayChatModel(replay),
    tools: replayTools(replay),
    ...(layout.compaction ? { compaction: exampleCompaction(window, { tokenCounter }) } : {}),
    checkpointer,
    ...(store ? { store } : {}),
  });
  const threadId = session.id;
  const config = { configurable: { thread_id: threadId }, recursionLimit: 10_000 };
  for (const input of replay.turns) await agent.invoke({ messages: input }, config);
  const { values } = await agent.getState(config);
  const restored = await restoreHistory(values, { ...(store ? { store } : {}), threadId });
  const same = JSON.stringify(restored.map((message) => message.id)) === JSON.stringify(replay.expectedHistory.map((message) => message.id));
  const db = checkpointer.db;
  const checkpoints = (db.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n;
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("VACUUM");
  const pages = db.pragma("page_count", { simple: true }) as number;
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.close();
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  return { bytes: pages * pageSize, checkpoints, restored: same };
}

const totals = LAYOUTS.map(() => ({ bytes: 0, checkpoints: 0, restored: 0 }));
let index = 0;
for (const session of sessions) {
  process.stderr.write(`${session.id}\n`);
  for (const [position, layout] of LAYOUTS.entries()) {
    const result = await measure(session, layout, index++);
    totals[position]!.bytes += result.bytes;
    totals[position]!.checkpoints += result.checkpoints;
    totals[position]!.restored += result.restored ? 1 : 0;
  }
}
rmSync(directory, { recursive: true, force: true });

const baseline = totals[0]!.bytes;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
console.log(`${sessions.length === 1 ? `session ${sessions[0]!.id}` : `${sessions.length} sessions of ${tracesPath}`}, window ${window} tokens`);
console.log("bytes of SQLite pages per layout (one file per thread, VACUUMed), vs without compaction on SqliteSaver:\n");
const width = Math.max(...LAYOUTS.map((layout) => layout.name.length));
for (const [position, layout] of LAYOUTS.entries()) {
  const total = totals[position]!;
  console.log(
    `  ${layout.name.padEnd(width)}  ${mb(total.bytes).padStart(10)}  ${(total.bytes / baseline).toFixed(2)}x  ${String(total.checkpoints).padStart(5)} checkpoints  restored ${total.restored}/${sessions.length}`,
  );
}
if (totals.some((total) => total.restored !== sessions.length)) process.exitCode = 1;

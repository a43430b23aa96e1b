/**
 * Offline demo: the ReAct agent graph of examples/react-agent.ts replays a real recorded session,
 * once without compaction and once with autoCompaction (keeping the newest 2 tool calls' results
 * when it hides, so that the session shows a hiding as well as summaries), checkpointed to a SQLite file (SqliteBlobSaver, each
 * channel value stored once, and a SqliteStore in the same file for the archive of originals); then a
 * before/after table. No API key, no server. The inspector then reads both threads back from the
 * SQLite file, and the demo checks that it gives the same figures under the same names (exit code 1
 * otherwise). Each run writes a new SQLite file in a new temporary folder (mkdtemp), and prints its
 * path and the `npm run inspect` command that opens the compacted thread.
 *
 *   npm run demo                                  # the bundled SWE-bench session
 *   npm run demo -- --session tau-bench-airline/task2-trial1
 *   npm run demo -- --window 16000 --traces examples/fixtures/public.jsonl.gz --session <id>
 *   npm run demo -- --sqlite demo.sqlite         # this file instead (replaced if it exists)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { autoCompaction, readCompactionLog, restoreHistory, validateToolPairing, type ArchivedCompaction } from "../src/index.js";
import { archiveNamespace, unpackArchive } from "../src/extend/index.js";
import { buildInspection, loadThreadFromSqlite, type InspectionTotals } from "../src/inspector/index.js";
import { SqliteBlobSaver, SqliteStore } from "../src/store/index.js";
import { ReactAgentState, buildReactAgent } from "./react-agent.js";
import { ContextMeter, ReplayChatModel, ReplaySession, replayTools } from "./replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "./traces.js";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const tracesPath = flag("--traces") ?? BUNDLED_TRACES_PATH;
const window = Number(flag("--window") ?? 8_000);
/** autoCompaction's trigger at this window: 0.8 of it (the default threshold; 60,000 tokens of conversation come later). */
const trigger = Math.floor(0.8 * window);
/**
 * autoCompaction with one option changed: its hiding keeps the newest 2 tool calls' results (the
 * default keeps 3), which frees enough at one firing of this session for a hiding to stand alone.
 */
const compaction = () => autoCompaction({ contextWindow: window, hiding: { keepRecentGroups: 2 } });
// A new folder per run, so that two runs (at once, or one after the other) never share a file.
const sqlitePath = flag("--sqlite") ?? join(mkdtempSync(join(tmpdir(), "langchain-compaction-demo-")), "demo.sqlite");

/** `text` as one shell word: as it is when it is safe, else in single quotes. */
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

const sessions = loadTraceSessions(tracesPath);
const session = sessions.find((each) => each.id === (flag("--session") ?? sessions[0]!.id));
if (!session) throw new Error(`no session ${flag("--session")} in ${tracesPath}; there are: ${sessions.map((each) => each.id).join(", ")}`);
const replay = new ReplaySession(session);
const toolResultIds = new Set(replay.expectedHistory.filter((message) => message.type === "tool").map((message) => message.id));

/** A progress bar on stderr: redrawn in place on a terminal, a few plain lines otherwise (CI logs). */
function progress(label: string, total: number): { tick(done: number, context: number): void; end(): void } {
  const terminal = process.stderr.isTTY === true;
  const width = 30;
  let lastQuarter = -1;
  const draw = (done: number, context: number) => {
    const filled = Math.round((done / total) * width);
    return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} model calls, context ${context.toLocaleString("en-US")} tokens`;
  };
  return {
    tick(done, context) {
      if (terminal) {
        // \x1b[K clears what a longer previous line left.
        process.stderr.write(`\r${draw(done, context)}\x1b[K`);
      } else {
        const quarter = Math.floor((done / total) * 4);
        if (quarter > lastQuarter) {
          lastQuarter = quarter;
          process.stderr.write(`${draw(done, context)}\n`);
        }
      }
    },
    end() {
      if (terminal) process.stderr.write("\n");
    },
  };
}

interface RunFigures {
  readonly meter: ContextMeter;
  readonly pairingProblems: number;
  /** Records in the compaction log, and how many of them failed (which changes nothing). */
  readonly compactions: number;
  readonly failed: number;
  /** Compactions that summarized, and those that hid tool results (and how many results they hid). */
  readonly summaries: number;
  readonly hidings: number;
  readonly hiddenResults: number;
  readonly archived: number;
  /** Messages stored: the whole history restoreHistory gives back. */
  readonly stored: number;
  /** Messages in the checkpointed context at the end. */
  readonly inContext: number;
  /** Whether restoreHistory on the checkpointed state gives back the whole session, message by message. */
  readonly restored: boolean;
  readonly threadId: string;
}

/**
 * The demo's persistence, on SQLite alone: a SqliteBlobSaver (a SqliteSaver that stores each channel
 * value once, so the compaction log is not rewritten at every step) and, on its connection, a
 * SqliteStore in the same file, where the compaction node archives the originals once.
 */
function sqlitePersistence(path: string): { checkpointer: SqliteBlobSaver; store: SqliteStore } {
  mkdirSync(dirname(path), { recursive: true });
  const checkpointer = SqliteBlobSaver.fromConnString(path);
  checkpointer.db.pragma("journal_mode = WAL");
  return { checkpointer, store: new SqliteStore(checkpointer.db) };
}

async function run(label: string, compacting: boolean): Promise<RunFigures> {
  const meter = new ContextMeter();
  const { checkpointer, store } = sqlitePersistence(sqlitePath);
  const bar = progress(label, replay.modelCalls);
  let pairingProblems = 0;
  const observe = async (messages: readonly BaseMessage[]) => {
    pairingProblems += validateToolPairing(messages).length;
    const call = await meter.record(messages);
    bar.tick(meter.modelCalls, call.tokens);
  };
  const agent = buildReactAgent({
    model: new ReplayChatModel(replay),
    tools: replayTools(replay),
    ...(compacting ? { compaction: compaction() } : {}),
    checkpointer,
    store,
    observe,
  });
  const threadId = `${session!.id}/${compacting ? "with" : "without"}-compaction`;
  const config = { configurable: { thread_id: threadId }, recursionLimit: 10_000 };
  for (const input of replay.turns) await agent.invoke({ messages: input }, config);
  bar.end();
  const state = (await agent.getState(config)).values as typeof ReactAgentState.State;
  // The whole log (the state keeps its newest records; the rest is in the store beside the archive).
  const log = await readCompactionLog(state, { store, threadId });
  const archive = (await store.search(archiveNamespace(threadId), { limit: Number.MAX_SAFE_INTEGER })).map((item) => item.value as ArchivedCompaction);
  const restoredIds = (await restoreHistory(state, { store, threadId })).map((message) => message.id);
  const stored = restoredIds.length;
  return {
    meter,
    pairingProblems,
    compactions: log.length,
    failed: log.filter((record) => record.status === "failed").length,
    summaries: log.filter((record) => record.summaryId !== null).length,
    hidings: log.filter((record) => record.summaryId === null && record.replacedIds.length > 0).length,
    // A hiding also trims older assistant texts: its tool results are the replaced tool messages.
    hiddenResults: log.reduce((sum, record) => sum + (record.summaryId === null ? record.replacedIds.filter((id) => toolResultIds.has(id)).length : 0), 0),
    // The store's log records sit beside the archive entries: only entries hold messages.
    archived: [...(state.compactionArchive ?? []).map(unpackArchive), ...archive].reduce((sum, entry) => sum + (entry.messages?.length ?? 0), 0),
    stored,
    inContext: state.messages.length,
    restored: JSON.stringify(restoredIds) === JSON.stringify(replay.expectedHistory.map((message) => message.id)),
    threadId,
  };
}

// A fresh file each run (`--sqlite` names one that may exist): the demo's threads are not meant to be resumed.
for (const file of [sqlitePath, `${sqlitePath}-wal`, `${sqlitePath}-shm`]) rmSync(file, { force: true });

console.log("langchain-compaction demo: a LangGraph ReAct agent replaying a real recorded session");
console.log(`session ${session.id} (${replay.recorded.length} recorded messages, from ${relative(process.cwd(), tracesPath)}; sources: examples/fixtures/README.md)`);
console.log(`context window ${window.toLocaleString("en-US")} tokens; tokens counted exactly (o200k_base)`);
console.log(
  `compaction: autoCompaction before every model call: at ${trigger.toLocaleString("en-US")} tokens (80% of the window) it hides older tool results (keeping the newest 2 calls'),\n` +
    "or summarizes when hiding is not enough (offline, the no-model summarizer)\n",
);

const before = await run("without compaction", false);
const after = await run("with compaction   ", true);

const number = (value: number) => value.toLocaleString("en-US");
const change = (from: number, to: number) => (from === 0 ? "" : `${to <= from ? "-" : "+"}${Math.round((Math.abs(from - to) / from) * 100)}%`);
// The same names as the inspector's (its header and `inspect --format text`), for the same numbers.
const rows: [string, string, string, string][] = [
  ["model calls", number(before.meter.modelCalls), number(after.meter.modelCalls), ""],
  ["messages stored", number(before.stored), number(after.stored), "every message, as restoreHistory gives them"],
  ["messages in context at the end", number(before.inContext), number(after.inContext), ""],
  ["input tokens, all model calls", number(before.meter.inputTokens), number(after.meter.inputTokens), change(before.meter.inputTokens, after.meter.inputTokens)],
  ["peak context (tokens sent in one model call)", number(before.meter.peakContext), number(after.meter.peakContext), `window ${number(window)}`],
  ["compactions (failed)", `${number(before.compactions)} (${number(before.failed)})`, `${number(after.compactions)} (${number(after.failed)})`, ""],
  ["  summaries", number(before.summaries), number(after.summaries), ""],
  ["  hidings (tool results hidden)", `${number(before.hidings)} (${number(before.hiddenResults)})`, `${number(after.hidings)} (${number(after.hiddenResults)})`, ""],
  ["archived messages", number(before.archived), number(after.archived), ""],
];
const header: [string, string, string, string] = ["", "without compaction", "with compaction", ""];
const widths = [header, ...rows].reduce((max, row) => row.map((cell, column) => Math.max(max[column]!, cell.length)), [0, 0, 0, 0]);
const line = (row: readonly string[]) => `  ${row[0]!.padEnd(widths[0]!)}   ${row[1]!.padStart(widths[1]!)}   ${row[2]!.padStart(widths[2]!)}   ${row[3]}`.trimEnd();
console.log("");
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log("");
console.log(`SQLite checkpoints: ${sqlitePath} (threads "${before.threadId}" and "${after.threadId}")`);
console.log(
  after.restored
    ? `restoreHistory(checkpointed state) gives back all ${replay.expectedHistory.length} messages of the session, in order`
    : "restoreHistory(checkpointed state) did NOT give back the session",
);

// The inspector reads the same threads back from the SQLite file: its figures must be the demo's.
async function inspectorAgrees(figures: RunFigures): Promise<string[]> {
  const { totals } = await buildInspection(await loadThreadFromSqlite(sqlitePath, figures.threadId));
  const expected: Partial<Record<keyof InspectionTotals, number | null>> = {
    modelCalls: figures.meter.modelCalls,
    originalMessages: figures.stored,
    contextMessages: figures.inContext,
    peakContextTokens: figures.meter.peakContext,
    compactions: figures.compactions,
    failedCompactions: figures.failed,
    archivedMessages: figures.archived,
    summaries: figures.summaries,
    hiddenResults: figures.hiddenResults,
  };
  return Object.entries(expected)
    .filter(([key, value]) => totals[key as keyof InspectionTotals] !== value)
    .map(([key, value]) => `${figures.threadId}: ${key} ${totals[key as keyof InspectionTotals]} in the inspector, ${value} here`);
}
const disagreements = [...(await inspectorAgrees(before)), ...(await inspectorAgrees(after))];
console.log(
  disagreements.length === 0
    ? "the inspector reads the same figures from the SQLite file; to see the compacted thread, in the clone:\n" +
        `  npm run inspect -- --sqlite ${shellWord(sqlitePath)} --thread ${shellWord(after.threadId)} --format text\n` +
        `  (without --format text, it writes an HTML page and prints its path; add --window ${window} --trigger ${trigger} to draw them on its chart)`
    : `the inspector's figures DIFFER:\n${disagreements.map((line) => `  ${line}`).join("\n")}`,
);

const fits = after.meter.peakContext <= window;
const valid = after.pairingProblems === 0 && before.pairingProblems === 0;
console.log(`${fits ? "every" : "NOT every"} model call fit the window; tool pairing ${valid ? "valid" : "BROKEN"} at every call`);
if (!fits || !valid || !after.restored || disagreements.length > 0) process.exitCode = 1;

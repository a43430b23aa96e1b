/**
 * The scale benchmark (`npm run bench:scale`): N threads replaying the public traces through a
 * LangGraph ReAct graph with the compaction node before the model, on PostgreSQL (PostgresSaver +
 * PostgresStore in one schema) driven by W worker processes sharing the database, and on SQLite (one
 * process); each also without the compaction node, as the baseline. Reports steps per second (a step
 * is one model call), p50/p99 of the time inside the compaction node, database bytes per thread, and
 * checks every thread: `restoreHistory` equals the recorded session message by message, and tool
 * pairing held at every model call.
 *
 *   eval "$(bash scripts/start-postgres.sh)"
 *   npm run bench:scale -- [--threads 200] [--workers 4] [--concurrency 2] [--window 8000]
 *                          [--traces examples/fixtures/public.jsonl.gz] [--out bench/scale-results.json]
 *                          [--postgres-url URL] [--only postgres|sqlite] [--sqlite-dir DIR] [--keep] [--floor] [--in-model]
 *                          [--model-ms 0]
 *
 * --floor also runs each backend with a pass-through node in the compaction node's place (one await,
 * no update), timed the same way. It is not a floor for every node: a node that awaits a few more
 * times meets the previous checkpoint's write there (SCALE_FLOOR_AWAITS=3 adds three awaits; see
 * bench/README.md). --in-model also runs compaction inside the model node (`compactingNode`): one
 * step, one checkpoint per model call. Every run reports the wait between a tool result and the model
 * call that reads it, with and without compaction. --model-ms D makes every model call take D ms, as a
 * hosted model's does: what is left to after a step (checkpoint writes, autoCompaction's work, the
 * archive write `compactingNode` overlaps with the model) then runs during the call, as in a
 * deployment. Step times leave D out.
 *
 * Exits non-zero when a correctness check fails (timings and sizes are reported, not enforced).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { lifeTable, nodeTable, resultsTable, verdictLines, verdicts, waitTable } from "./report.js";
import { PASS_THROUGH } from "./graph.js";
import { runScenario, type ScenarioResult } from "./scenario.js";
import { planThreads } from "./threads.js";

const { values: flags } = parseArgs({
  options: {
    threads: { type: "string", default: "200" },
    workers: { type: "string", default: "4" },
    concurrency: { type: "string", default: "2" },
    window: { type: "string", default: "8000" },
    "model-ms": { type: "string", default: "0" },
    traces: { type: "string" },
    out: { type: "string" },
    "postgres-url": { type: "string" },
    only: { type: "string" },
    "sqlite-dir": { type: "string" },
    keep: { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
    "in-model": { type: "boolean", default: false },
  },
});

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer (got ${value})`);
  return parsed;
}

const threadsCount = positive("threads", flags.threads);
const workers = positive("workers", flags.workers);
const concurrency = positive("concurrency", flags.concurrency);
const window = positive("window", flags.window);
const modelMs = Number(flags["model-ms"]);
if (!Number.isFinite(modelMs) || modelMs < 0) throw new Error(`--model-ms must be a number of ms, 0 or more (got ${flags["model-ms"]})`);
const tracesPath = flags.traces ?? defaultTracesPath();
const postgresUrl = flags["postgres-url"] ?? process.env["LANGCHAIN_COMPACTION_POSTGRES_URL"];
const only = flags.only;
if (only !== undefined && only !== "postgres" && only !== "sqlite") throw new Error(`--only must be postgres or sqlite (got ${only})`);
if (only !== "sqlite" && !postgresUrl) {
  throw new Error('no PostgreSQL: start one with eval "$(bash scripts/start-postgres.sh)" (exports LANGCHAIN_COMPACTION_POSTGRES_URL), pass --postgres-url, or run --only sqlite');
}

const sessions = loadTraceSessions(tracesPath);
const runId = `scale_${Date.now().toString(36)}`;
const threads = planThreads(sessions, threadsCount, runId);
const sqliteDir = flags["sqlite-dir"] ?? join(tmpdir(), "langchain-compaction-scale");
const log = (line: string) => console.error(`[bench:scale] ${line}`);

const results: ScenarioResult[] = [];
const started = Date.now();
log(`${threadsCount} threads over ${sessions.length} sessions of ${tracesPath}; window ${window}; model calls take ${modelMs} ms; ${cpus().length} CPUs`);
/** The runs per backend: without a node, the pass-through floor with --floor, with the compaction node, with compaction in the model node with --in-model. */
const nodes = [
  { label: "without", described: "without the compaction node", window: undefined },
  ...(flags.floor ? [{ label: "floor", described: "with a pass-through node", window: PASS_THROUGH }] : []),
  { label: "with", described: "with the compaction node", window },
  ...(flags["in-model"] ? [{ label: "inmodel", described: "with compaction inside the model node", window, inModel: true }] : []),
];
if (only !== "sqlite") {
  for (const node of nodes) {
    log(`PostgreSQL, ${workers} workers x ${concurrency} units, ${node.described} ...`);
    const schema = `${runId}_${node.label}`;
    const result = await runScenario({ tracesPath, threads, backend: { kind: "postgres", url: postgresUrl!, schema }, window: node.window, inModel: node.inModel ?? false, modelMs, workers, concurrency, keep: flags.keep });
    log(`  ${result.modelCalls} model calls in ${(result.wallMs / 1000).toFixed(1)} s`);
    results.push(result);
  }
}
if (only !== "postgres") {
  for (const node of nodes) {
    log(`SQLite, one process, ${node.described} ...`);
    const path = join(sqliteDir, `${runId}-${node.label}.sqlite`);
    const result = await runScenario({ tracesPath, threads, backend: { kind: "sqlite", path }, window: node.window, inModel: node.inModel ?? false, modelMs, workers: 0, concurrency, keep: flags.keep });
    log(`  ${result.modelCalls} model calls in ${(result.wallMs / 1000).toFixed(1)} s`);
    results.push(result);
  }
}

const list = verdicts(results);
console.log(resultsTable(results));
console.log("\nCompaction node, ms, by kind of step:");
console.log(nodeTable(results));
console.log("\nCheckpoint bytes per graph step, by fifth of each thread's life:");
console.log(lifeTable(results));
console.log(
  "\nBetween a tool result and the model call that reads it (wait: end of the tools node to the model call, compaction included), from one model call to the next (step), and from a tool result to the end of the model node, model time left out (turnaround), for steps that did not compact and those that did:",
);
console.log(waitTable(results));
console.log("");
console.log(verdictLines(list));
console.log(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)`);
for (const result of results) {
  for (const bad of result.badThreads.slice(0, 5)) console.log(`  ${result.backend}${result.node === "none" ? "" : `+${result.node}`} ${bad.threadId}: ${JSON.stringify(bad)}`);
}
if (flags.out) {
  mkdirSync(dirname(flags.out), { recursive: true });
  // The environment variables that change a run (bench/README), so the command in the file reruns it.
  const environment = ["SCALE_FLOOR_AWAITS", "SCALE_DURABILITY", "SCALE_SUMMARY_MODEL"].filter((name) => process.env[name] !== undefined).map((name) => `${name}=${process.env[name]} `);
  const report = {
    command: `${environment.join("")}npm run bench:scale -- ${process.argv.slice(2).join(" ")}`.trim(),
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    options: { threads: threadsCount, workers, concurrency, window, modelMs, traces: tracesPath, sessions: sessions.length },
    results: results.map(({ badThreads, pairingFailures, ...rest }) => ({ ...rest, pairingFailures: pairingFailures.length, badThreads: badThreads.slice(0, 20) })),
    verdicts: list,
  };
  writeFileSync(flags.out, `${JSON.stringify(report, null, 2)}\n`);
  log(`results written to ${flags.out}`);
}
const correctness = list.filter((verdict) => verdict.target.includes("lost"));
process.exitCode = correctness.every((verdict) => verdict.met) ? 0 : 1;

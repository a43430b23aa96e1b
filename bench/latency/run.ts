/**
 * The latency scenario on its own (`npm run bench` runs it as its 6th target):
 *
 *   npx tsx bench/latency/run.ts [--quick] [--traces <file.jsonl>] [--trace <id>]... [--delay <ms>]
 *                                [--think <ms>] [--window <tokens>] [--concurrency <threads>] [--processes <n>] [--in-process]
 *                                [--system blocking|prepared|summarizationMiddleware]... [--json <file>]
 *
 * By default each system runs in its own process, its threads all at once, one process at a time
 * (`--processes n`: n at a time). `--in-process` runs every system in this process;
 * `--concurrency n` runs at most n threads at once. See bench/README.md, "Latency".
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { analyseLatency, type SystemLatency } from "./analysis.js";
import { runLatencyInProcesses, type SessionSource } from "./processes.js";
import { latencyTable, latencyVerdict, preparedBreakdown, stepClassTable } from "./report.js";
import { LATENCY_SYSTEMS, runLatency, type LatencyRun, type LatencySettings, type LatencySystem } from "./scenario.js";

/** The summary model's delay: the 2 s of the target. */
export const DEFAULT_DELAY_MS = 2000;
/**
 * The agent's own model call: 1 s. A hosted model's call takes seconds; at 1 s, shorter than the
 * summary call, a summary prepared at one step is ready two steps later at the earliest.
 */
export const DEFAULT_THINK_MS = 1000;
/**
 * The context window of every system: autoCompaction fires at 0.8 of it (12 800 tokens) and
 * summarizes when hiding is not enough; summarizationMiddleware fires at the same size. Every
 * SWE-bench session compacts several times; the airline sessions stay under it.
 */
export const DEFAULT_WINDOW = 16_000;
/** `--quick`: these sessions (the two bundled with the project), a 500 ms summary model, 250 ms per model call. */
export const QUICK_SESSIONS = ["mini-swe-agent/matplotlib__matplotlib-25775", "tau-bench-airline/task2-trial1"];
const QUICK = { delayMs: 500, thinkMs: 250 };

/** The scenario's settings and sessions for `npm run bench` (full or `--quick`). */
export function latencyPlanFor(tracesPath: string, quick: boolean): { source: SessionSource; settings: LatencySettings } {
  const ids = loadTraceSessions(tracesPath).map((session) => session.id);
  const sessionIds = quick ? ids.filter((id) => QUICK_SESSIONS.includes(id)) : ids;
  return { source: { tracesPath, sessionIds }, settings: quick ? { ...QUICK, window: DEFAULT_WINDOW } : { delayMs: DEFAULT_DELAY_MS, thinkMs: DEFAULT_THINK_MS, window: DEFAULT_WINDOW } };
}

/** Analyse a run: the figures of each system, the target's verdict and the report lines. */
export function latencyReport(run: LatencyRun) {
  const systems = analyseLatency(run);
  return { systems, verdict: latencyVerdict(run.settings, systems), lines: reportLines(run, systems) };
}

function reportLines(run: LatencyRun, systems: readonly SystemLatency[]): string[] {
  const { settings } = run;
  return [
    `${run.sessions.length} sessions x ${systems.length} systems; ` +
      (settings.concurrency === undefined ? "all threads at once, starts spread over one model call" : `at most ${settings.concurrency} thread(s) at once`) +
      `; summary model: ChatOpenAI against 127.0.0.1, ${settings.delayMs} ms per call; agent model: ${settings.thinkMs} ms per call; window ${settings.window} tokens; wall time ${(run.wallMs / 1000).toFixed(1)} s`,
    "added latency per model call = wall time of the compaction node (summarizationMiddleware: its beforeModel hook); to model = from entering it to the model being called",
    latencyTable(systems),
    "",
    stepClassTable(systems),
    ...preparedBreakdown(systems),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      traces: { type: "string" },
      trace: { type: "string", multiple: true },
      delay: { type: "string" },
      think: { type: "string" },
      window: { type: "string" },
      concurrency: { type: "string" },
      processes: { type: "string" },
      "in-process": { type: "boolean", default: false },
      system: { type: "string", multiple: true },
      json: { type: "string" },
    },
    strict: true,
  });
  const number = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number, got ${value}`);
    return parsed;
  };
  const systems = values.system as LatencySystem[] | undefined;
  for (const system of systems ?? []) if (!LATENCY_SYSTEMS.includes(system)) throw new Error(`--system must be one of ${LATENCY_SYSTEMS.join(", ")}, got ${system}`);
  const base = latencyPlanFor(values.traces ?? defaultTracesPath(), values.quick === true);
  const sessionIds = values.trace ? base.source.sessionIds.filter((id) => values.trace!.some((wanted) => id.includes(wanted))) : base.source.sessionIds;
  const concurrency = number(values.concurrency, "concurrency");
  const settings: LatencySettings = {
    delayMs: number(values.delay, "delay") ?? base.settings.delayMs,
    thinkMs: number(values.think, "think") ?? base.settings.thinkMs,
    window: number(values.window, "window") ?? base.settings.window,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(systems ? { systems } : {}),
  };
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const source = { ...base.source, sessionIds };
  const run = values["in-process"]
    ? await runLatency(loadTraceSessions(source.tracesPath).filter((session) => sessionIds.includes(session.id)), settings)
    : await runLatencyInProcesses(source, settings, log, number(values.processes, "processes"));
  const { systems: figures, verdict, lines } = latencyReport(run);
  console.log(lines.join("\n"));
  console.log(`\n[${verdict.verdict}] ${verdict.description}\n  ${verdict.detail}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ settings, sessions: run.sessions, wallMs: run.wallMs, systems: figures, verdict }, null, 2)}\n`);
}

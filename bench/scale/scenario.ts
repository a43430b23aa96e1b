/**
 * One measured run of the scale benchmark: every thread replayed to the end on one backend, with or
 * without the compaction node, then its storage measured and every thread checked.
 */
import { performance } from "node:perf_hooks";
import { loadTraceSessions } from "../../examples/traces.js";
import { checkpointBytesByLife, dropBackend, openBackend, storageSize, type BackendSpec, type LifeBytes, type StorageSize } from "./backends.js";
import { runWorkers } from "./coordinator.js";
import { PASS_THROUGH, type NodeRun } from "./graph.js";
import { ThreadRunner, type PairingFailure } from "./runner.js";
import type { ThreadPlan } from "./threads.js";
import { checkThread, totalChecks, type CheckTotals, type ThreadCheck } from "./verify.js";

/** What to run. */
export interface ScenarioOptions {
  readonly tracesPath: string;
  readonly threads: readonly ThreadPlan[];
  readonly backend: BackendSpec;
  /** Context window of the compaction node; `undefined`: the graph without it; `PASS_THROUGH`: a pass-through node instead. */
  readonly window: number | undefined;
  /** Compact inside the model node instead of a node before it (see `ScaleGraphOptions.inModel`). @default false */
  readonly inModel?: boolean;
  /** Each model call's delay, ms (see `ScaleGraphOptions.modelMs`). @default 0 */
  readonly modelMs?: number;
  /** Worker processes; 0 runs every thread in this process (SQLite). */
  readonly workers: number;
  /** Units of work in flight per process. */
  readonly concurrency: number;
  /** Keep the schema or file afterwards. @default false */
  readonly keep?: boolean;
}

/** How many times something was timed, and its p50, p99 and max, ms. */
export interface TimeFigures {
  readonly calls: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function timeFigures(samples: readonly number[]): TimeFigures | null {
  return samples.length > 0 ? { calls: samples.length, ...spread(samples), max: samples.reduce((max, ms) => Math.max(max, ms), 0) } : null;
}

/** p50 and p99 of one measure of the node, ms. */
export interface Spread {
  readonly p50: number;
  readonly p99: number;
}

/** The node's time on one kind of step, split: wall, the process's CPU, the compactor, the adapter. */
export interface NodeBreakdown {
  readonly runs: number;
  readonly wall: Spread;
  /** The process's CPU time during the node (see `NodeRun.cpuMs`). */
  readonly cpu: Spread;
  /** Inside the compactor's `compact()`. */
  readonly compactor: Spread;
  /** The rest of the wall time: the graph adapter's checks, update and archive write. */
  readonly adapter: Spread;
}

/** What one run measured. */
export interface ScenarioResult {
  readonly backend: BackendSpec["kind"];
  /** Whether compaction ran (not the pass-through node, not the graph without a node). */
  readonly compaction: boolean;
  /** Where compaction runs: a node before the model (`compaction`), inside the model node (`in-model`); or the pass-through floor, or none. */
  readonly node: "compaction" | "in-model" | "pass-through" | "none";
  readonly threads: number;
  readonly workers: number;
  readonly concurrency: number;
  /** Each model call's delay, ms; left out of the step times. */
  readonly modelMs: number;
  readonly modelCalls: number;
  readonly wallMs: number;
  readonly stepsPerSecond: number;
  /** Time inside the compaction node, ms (null without the node). */
  readonly nodeMs: {
    readonly runs: number;
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    /** Runs that compacted (a summary, the archive write, the log record) and their p50/p99: the slow path. */
    readonly compactingRuns: number;
    readonly compactingP50: number;
    readonly compactingP99: number;
    /** p99 of the runs that had nothing to do (the node's cost on most steps). */
    readonly idleP99: number;
    /** The steps that had nothing to do and those that compacted, each split by where the time went. */
    readonly idle: NodeBreakdown;
    /** The idle runs decided without an await, and those that awaited (see `NodeRun.atOnce`). */
    readonly idleAtOnce: NodeBreakdown;
    readonly idleAwaited: NodeBreakdown;
    readonly compacting: NodeBreakdown;
    /** p99 of the process's CPU time during the node, over every run (see `NodeRun.cpuMs`). */
    readonly cpuP99: number;
  } | null;
  /**
   * Time from the end of the tools node to the start of the model node, ms, over the model calls
   * that follow a tool call (null when none did): what the agent waits for between a tool result
   * and the model call, whatever runs there (see `ScaleGraphHooks.onModelWait`).
   */
  readonly modelWaitMs: TimeFigures | null;
  /**
   * Time between consecutive model calls of a thread within a unit, ms (null when no unit made two):
   * a whole step's overhead, since the replayed model and tools take no time (see
   * `ScaleGraphHooks.onModelInterval`).
   */
  readonly modelIntervalMs: TimeFigures | null;
  /**
   * Time from the end of the tools node to the end of the model node, the model's own delay left
   * out, ms, over the steps that did not compact and those that did (see
   * `ScaleGraphHooks.onModelTurnaround`): the compaction and what the model node waits for, wherever
   * they run.
   */
  readonly turnaroundMs: { idle: TimeFigures | null; compacting: TimeFigures | null };
  readonly storage: StorageSize;
  /** Checkpoint bytes per graph step by fifth of each thread's life (see `checkpointBytesByLife`). */
  readonly lifeBytes: LifeBytes;
  readonly bytesPerThread: number;
  readonly pairingFailures: readonly PairingFailure[];
  readonly unitErrors: number;
  readonly deadWorkers: number;
  readonly checks: CheckTotals;
  /** Threads whose check found anything wrong (all of them would be too long). */
  readonly badThreads: readonly ThreadCheck[];
}

/** The value below which `fraction` of the sorted samples lie (nearest rank). */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

function spread(samples: readonly number[]): Spread {
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

function breakdown(runs: readonly NodeRun[]): NodeBreakdown {
  return {
    runs: runs.length,
    wall: spread(runs.map((run) => run.wallMs)),
    cpu: spread(runs.map((run) => run.cpuMs)),
    compactor: spread(runs.map((run) => run.compactorMs)),
    adapter: spread(runs.map((run) => run.wallMs - run.compactorMs)),
  };
}

function nodeFigures(runs: readonly NodeRun[]): NonNullable<ScenarioResult["nodeMs"]> {
  const all = runs.map((run) => run.wallMs);
  const idle = breakdown(runs.filter((run) => !run.compacted));
  const compacting = breakdown(runs.filter((run) => run.compacted));
  return {
    runs: all.length,
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    max: all.reduce((max, ms) => Math.max(max, ms), 0),
    compactingRuns: compacting.runs,
    compactingP50: compacting.wall.p50,
    compactingP99: compacting.wall.p99,
    idleP99: idle.wall.p99,
    idle,
    idleAtOnce: breakdown(runs.filter((run) => !run.compacted && run.atOnce)),
    idleAwaited: breakdown(runs.filter((run) => !run.compacted && !run.atOnce)),
    compacting,
    cpuP99: percentile(runs.map((run) => run.cpuMs), 0.99),
  };
}

async function runInProcess(options: ScenarioOptions) {
  const persistence = await openBackend(options.backend);
  const runner = new ThreadRunner({ sessions: loadTraceSessions(options.tracesPath), persistence, window: options.window, inModel: options.inModel ?? false, modelMs: options.modelMs ?? 0 });
  const queue = [...options.threads];
  const unitErrors: string[] = [];
  const started = performance.now();
  const lane = async () => {
    for (let plan = queue.shift(); plan; plan = queue.shift()) {
      try {
        await runner.runThread(plan.threadId, plan.session);
      } catch (error) {
        unitErrors.push(`${plan.threadId}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));
  const wallMs = performance.now() - started;
  await persistence.close();
  return { wallMs, ...runner.takeMetrics(), unitErrors: unitErrors.length, deadWorkers: 0 };
}

/** Check every thread of a finished run against its recording, in this process. */
export async function checkThreads(tracesPath: string, backend: BackendSpec, threads: readonly ThreadPlan[]): Promise<ThreadCheck[]> {
  const persistence = await openBackend(backend, false);
  try {
    const runner = new ThreadRunner({ sessions: loadTraceSessions(tracesPath), persistence, window: undefined });
    const checks: ThreadCheck[] = [];
    for (const plan of threads) {
      const { values } = await runner.state(plan.threadId, plan.session);
      checks.push(await checkThread(plan.threadId, values, runner.session(plan.session).replay, persistence.store));
    }
    return checks;
  } finally {
    await persistence.close();
  }
}

/** Run, measure and check one scenario; the backend starts empty (its schema or file is dropped first). */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  await dropBackend(options.backend);
  if (options.workers > 0) {
    // Migrations once, before the workers start (they open without running them).
    await (await openBackend(options.backend)).close();
  }
  const run =
    options.workers > 0
      ? await runWorkers({ tracesPath: options.tracesPath, threads: options.threads, backend: options.backend, window: options.window, inModel: options.inModel ?? false, modelMs: options.modelMs ?? 0, workers: options.workers, concurrency: options.concurrency })
      : await runInProcess(options);
  const lifeBytes = await checkpointBytesByLife(options.backend);
  const storage = await storageSize(options.backend);
  const checks = await checkThreads(options.tracesPath, options.backend, options.threads);
  if (!options.keep) await dropBackend(options.backend);
  const nodeMs = run.nodeRuns.length > 0 ? nodeFigures(run.nodeRuns) : null;
  const node = options.window === undefined ? "none" : options.window === PASS_THROUGH ? "pass-through" : options.inModel ? "in-model" : "compaction";
  return {
    backend: options.backend.kind,
    compaction: node === "compaction" || node === "in-model",
    node,
    threads: options.threads.length,
    workers: options.workers,
    concurrency: options.concurrency,
    modelMs: options.modelMs ?? 0,
    modelCalls: run.modelCalls,
    wallMs: run.wallMs,
    stepsPerSecond: run.modelCalls / (run.wallMs / 1000),
    nodeMs,
    modelWaitMs: timeFigures(run.modelWaits),
    modelIntervalMs: timeFigures(run.modelIntervals),
    turnaroundMs: { idle: timeFigures(run.turnarounds.idle), compacting: timeFigures(run.turnarounds.compacting) },
    storage,
    lifeBytes,
    bytesPerThread: storage.total / options.threads.length,
    pairingFailures: run.pairingFailures,
    unitErrors: typeof run.unitErrors === "number" ? run.unitErrors : run.unitErrors.length,
    deadWorkers: run.deadWorkers,
    checks: totalChecks(checks),
    badThreads: checks.filter((check) => check.lost > 0 || check.duplicated > 0 || check.mismatched || check.unrestorable !== null),
  };
}

/**
 * One measured run of the scale benchmark: every thread replayed to the end on one backend, with or
 * without the compaction node, then its storage measured and every thread checked.
 */
import { performance } from "node:perf_hooks";
import { loadTraceSessions } from "../../examples/traces.js";
import { dropBackend, openBackend, storageSize, type BackendSpec, type StorageSize } from "./backends.js";
import { runWorkers } from "./coordinator.js";
import { ThreadRunner, type PairingFailure } from "./runner.js";
import type { ThreadPlan } from "./threads.js";
import { checkThread, totalChecks, type CheckTotals, type ThreadCheck } from "./verify.js";

/** What to run. */
export interface ScenarioOptions {
  readonly tracesPath: string;
  readonly threads: readonly ThreadPlan[];
  readonly backend: BackendSpec;
  /** Context window of the compaction node; `undefined`: the graph without it. */
  readonly window: number | undefined;
  /** Worker processes; 0 runs every thread in this process (SQLite). */
  readonly workers: number;
  /** Units of work in flight per process. */
  readonly concurrency: number;
  /** Keep the schema or file afterwards. @default false */
  readonly keep?: boolean;
}

/** What one run measured. */
export interface ScenarioResult {
  readonly backend: BackendSpec["kind"];
  readonly compaction: boolean;
  readonly threads: number;
  readonly workers: number;
  readonly concurrency: number;
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
  } | null;
  readonly storage: StorageSize;
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

function nodeFigures(all: readonly number[], compacting: readonly number[]): NonNullable<ScenarioResult["nodeMs"]> {
  // The idle runs are all runs minus the compacting ones (matched by value: durations are distinct floats).
  const slow = new Map<number, number>();
  for (const ms of compacting) slow.set(ms, (slow.get(ms) ?? 0) + 1);
  const idle = all.filter((ms) => {
    const left = slow.get(ms) ?? 0;
    if (left === 0) return true;
    slow.set(ms, left - 1);
    return false;
  });
  return {
    runs: all.length,
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    max: all.reduce((max, ms) => Math.max(max, ms), 0),
    compactingRuns: compacting.length,
    compactingP50: percentile(compacting, 0.5),
    compactingP99: percentile(compacting, 0.99),
    idleP99: percentile(idle, 0.99),
  };
}

async function runInProcess(options: ScenarioOptions) {
  const persistence = await openBackend(options.backend);
  const runner = new ThreadRunner({ sessions: loadTraceSessions(options.tracesPath), persistence, window: options.window });
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
      ? await runWorkers({ tracesPath: options.tracesPath, threads: options.threads, backend: options.backend, window: options.window, workers: options.workers, concurrency: options.concurrency })
      : await runInProcess(options);
  const storage = await storageSize(options.backend);
  const checks = await checkThreads(options.tracesPath, options.backend, options.threads);
  if (!options.keep) await dropBackend(options.backend);
  const nodeMs = run.compactionMs.length > 0 ? nodeFigures(run.compactionMs, run.compactingMs) : null;
  return {
    backend: options.backend.kind,
    compaction: options.window !== undefined,
    threads: options.threads.length,
    workers: options.workers,
    concurrency: options.concurrency,
    modelCalls: run.modelCalls,
    wallMs: run.wallMs,
    stepsPerSecond: run.modelCalls / (run.wallMs / 1000),
    nodeMs,
    storage,
    bytesPerThread: storage.total / options.threads.length,
    pairingFailures: run.pairingFailures,
    unitErrors: typeof run.unitErrors === "number" ? run.unitErrors : run.unitErrors.length,
    deadWorkers: run.deadWorkers,
    checks: totalChecks(checks),
    badThreads: checks.filter((check) => check.lost > 0 || check.duplicated > 0 || check.mismatched || check.unrestorable !== null),
  };
}

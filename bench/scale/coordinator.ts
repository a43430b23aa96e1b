/**
 * The coordinator of a multi-process scale run: forks W worker processes that share one database,
 * hands out threads one unit of work at a time (a finished unit puts its thread back at the end of the
 * queue, so consecutive turns of a thread usually run in different processes), and merges what the
 * workers measured. A worker that dies (killed mid-step by a fault test) is replaced and its threads
 * are handed out again: the next worker resumes each from its last checkpoint.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import type { BackendSpec } from "./backends.js";
import type { FromWorker, ToWorker, WorkerFaults } from "./protocol.js";
import type { NodeRun } from "./graph.js";
import type { PairingFailure, RunnerMetrics } from "./runner.js";
import type { ThreadPlan } from "./threads.js";

const WORKER_PATH = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** A worker process as the coordinator sees it. */
export interface WorkerHandle {
  readonly index: number;
  readonly child: ChildProcess;
  /** Threads it is running now. */
  readonly inFlight: Set<string>;
  /** Kill it (SIGKILL: no cleanup, as a crash or an OOM kill). */
  kill(): void;
}

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions {
  readonly tracesPath: string;
  readonly threads: readonly ThreadPlan[];
  readonly backend: BackendSpec;
  /** Context window of the compaction node; `undefined`: the graph without it. */
  readonly window: number | undefined;
  /** Compact inside the model node (see `ScaleGraphOptions.inModel`). @default false */
  readonly inModel?: boolean;
  /** Each model call's delay, ms (see `ScaleGraphOptions.modelMs`). @default 0 */
  readonly modelMs?: number;
  readonly workers: number;
  /** Units each worker runs at once. @default 1 */
  readonly concurrency?: number;
  /** Faults for the first worker process only (replacements run clean). */
  readonly faults?: WorkerFaults;
  /**
   * Called when a worker reports it stopped at an injected fault; the worker stays stopped there
   * until the callback kills it (a rejected promise fails the run).
   */
  readonly onBlocked?: (worker: WorkerHandle, message: Extract<FromWorker, { type: "blocked" }>) => void | Promise<void>;
  /** Failed units of one thread before the run gives up on it. @default 5 */
  readonly maxFailures?: number;
}

/** What a multi-process run did. */
export interface WorkersResult {
  /** From the first unit handed out to the last one finished. */
  readonly wallMs: number;
  readonly nodeRuns: NodeRun[];
  /** See `RunnerMetrics.modelWaits`. */
  readonly modelWaits: number[];
  /** See `RunnerMetrics.modelIntervals`. */
  readonly modelIntervals: number[];
  /** See `RunnerMetrics.turnarounds`. */
  readonly turnarounds: { idle: number[]; compacting: number[] };
  readonly modelCalls: number;
  readonly pairingFailures: PairingFailure[];
  /** Units that failed (the thread was handed out again), with the error. */
  readonly unitErrors: { threadId: string; error: string }[];
  /** Worker processes that died before being told to stop. */
  readonly deadWorkers: number;
  /** Threads given up after too many failures. */
  readonly abandoned: string[];
}

/**
 * Run every thread to the end of its session on `workers` processes.
 *
 * @throws {Error} when a worker cannot open the database.
 */
export async function runWorkers(options: RunWorkersOptions): Promise<WorkersResult> {
  const concurrency = options.concurrency ?? 1;
  const maxFailures = options.maxFailures ?? 5;
  const sessionOf = new Map(options.threads.map((plan) => [plan.threadId, plan.session] as const));
  const queue = options.threads.map((plan) => plan.threadId);
  const failures = new Map<string, number>();
  const merged: RunnerMetrics = { nodeRuns: [], modelWaits: [], modelIntervals: [], turnarounds: { idle: [], compacting: [] }, modelCalls: 0, pairingFailures: [] };
  const unitErrors: { threadId: string; error: string }[] = [];
  const abandoned: string[] = [];
  let remaining = options.threads.length;
  let deadWorkers = 0;
  let started = 0;
  let spawned = 0;
  const live = new Set<WorkerHandle>();

  return new Promise<WorkersResult>((resolve, reject) => {
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const wallMs = performance.now() - started;
      const exits = [...live].map((worker) => new Promise((exited) => worker.child.once("exit", exited)));
      for (const worker of live) worker.child.send({ type: "stop" } satisfies ToWorker);
      void Promise.all(exits).then(() => resolve({ wallMs, ...merged, unitErrors, deadWorkers, abandoned }));
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const worker of live) worker.kill();
      reject(error);
    };
    const dispatch = (worker: WorkerHandle) => {
      while (worker.inFlight.size < concurrency && queue.length > 0) {
        const threadId = queue.shift()!;
        worker.inFlight.add(threadId);
        worker.child.send({ type: "unit", threadId, session: sessionOf.get(threadId)! } satisfies ToWorker);
      }
    };
    const spawn = (faults: WorkerFaults | undefined) => {
      const child = fork(WORKER_PATH, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
      const handle: WorkerHandle = { index: spawned++, child, inFlight: new Set(), kill: () => void child.kill("SIGKILL") };
      live.add(handle);
      child.send({ type: "init", tracesPath: options.tracesPath, backend: options.backend, window: options.window ?? null, inModel: options.inModel ?? false, modelMs: options.modelMs ?? 0, concurrency, ...(faults ? { faults } : {}) } satisfies ToWorker);
      child.on("message", (message: FromWorker) => {
        if (message.type === "ready") {
          if (started === 0) started = performance.now();
          dispatch(handle);
        } else if (message.type === "fatal") fail(new Error(`worker ${handle.index}: ${message.error}`));
        else if (message.type === "blocked") {
          Promise.resolve(options.onBlocked?.(handle, message)).catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
        }
        else if (message.type === "done") {
          handle.inFlight.delete(message.threadId);
          merged.nodeRuns.push(...message.metrics.nodeRuns);
          merged.modelWaits.push(...message.metrics.modelWaits);
          merged.modelIntervals.push(...message.metrics.modelIntervals);
          merged.turnarounds.idle.push(...message.metrics.turnarounds.idle);
          merged.turnarounds.compacting.push(...message.metrics.turnarounds.compacting);
          merged.modelCalls += message.metrics.modelCalls;
          merged.pairingFailures.push(...message.metrics.pairingFailures);
          if (message.action === "over") remaining--;
          else if (message.action === null) {
            unitErrors.push({ threadId: message.threadId, error: message.error ?? "unknown error" });
            const count = (failures.get(message.threadId) ?? 0) + 1;
            failures.set(message.threadId, count);
            if (count >= maxFailures) {
              abandoned.push(message.threadId);
              remaining--;
            } else queue.push(message.threadId);
          } else queue.push(message.threadId);
          if (remaining === 0) finish();
          else for (const worker of live) dispatch(worker);
        }
      });
      child.on("exit", () => {
        live.delete(handle);
        if (settled) return;
        // Died mid-run: its threads go back to the queue, a clean replacement takes its place.
        deadWorkers++;
        queue.unshift(...handle.inFlight);
        handle.inFlight.clear();
        spawn(undefined);
      });
    };
    for (let index = 0; index < options.workers; index++) spawn(index === 0 ? options.faults : undefined);
  });
}

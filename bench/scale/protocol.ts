/**
 * Messages between the scale run's coordinator and its worker processes (over the `fork` IPC
 * channel). The coordinator hands out threads one unit of work at a time (see `runUnit`), so a
 * thread moves between workers from one turn to the next, as runs do in a LangGraph deployment.
 */
import type { BackendSpec } from "./backends.js";
import type { NextAction } from "./threads.js";
import type { RunnerMetrics } from "./runner.js";

/** Faults a worker injects into itself, for the fault tests. */
export interface WorkerFaults {
  /**
   * At the first model call that follows a compaction, wait until the checkpoint written after the
   * compaction node is in the database, report `blocked` and never go on (the test kills the process
   * there: between the compaction node and the model node).
   */
  readonly blockBeforeModelAfterCompaction?: boolean;
  /**
   * After the first store write (the compaction node's archive write) has been committed, report
   * `blocked` and never return from it (the test kills the process in the middle of the node).
   */
  readonly blockAfterStoreWrite?: boolean;
}

/** The coordinator's first message to a worker. */
export interface WorkerInit {
  readonly type: "init";
  readonly tracesPath: string;
  readonly backend: BackendSpec;
  /** Context window of the compaction node; `null`: the graph without the node. */
  readonly window: number | null;
  /** Compact inside the model node (see `ScaleGraphOptions.inModel`). */
  readonly inModel?: boolean;
  /** Each model call's delay, ms (see `ScaleGraphOptions.modelMs`). */
  readonly modelMs?: number;
  /** Units of work the worker runs at once. */
  readonly concurrency: number;
  readonly faults?: WorkerFaults;
}

export type ToWorker = WorkerInit | { readonly type: "unit"; readonly threadId: string; readonly session: number } | { readonly type: "stop" };

export type FromWorker =
  | { readonly type: "ready"; readonly pid: number }
  | {
      readonly type: "done";
      readonly threadId: string;
      /** What the unit did; `null` when it failed (`error` says why; the thread's checkpoint is where it stopped). */
      readonly action: NextAction["kind"] | null;
      readonly error?: string;
      readonly metrics: RunnerMetrics;
    }
  | { readonly type: "blocked"; readonly at: "before-model" | "store-write"; readonly threadId: string; readonly detail: string }
  | { readonly type: "fatal"; readonly error: string };

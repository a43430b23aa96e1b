/**
 * The scale benchmark's table and target verdicts.
 */
import { renderTable } from "../measure.js";
import type { ScenarioResult } from "./scenario.js";

/** One target and whether the run met it. */
export interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number | undefined) => (value === undefined ? "-" : `${value.toFixed(2)} ms`);

/** The results table: one row per scenario. */
export function resultsTable(results: readonly ScenarioResult[]): string {
  const header = ["backend", "node", "threads", "workers", "model calls", "wall", "steps/s", "node p50", "node p99", "p99 idle", "p99 compacting (n)", "bytes/thread", "lost", "dup", "unrestorable", "mismatched", "pairing fails", "unit errors"];
  const rows = results.map((result) => [
    result.backend,
    result.node,
    String(result.threads),
    result.workers === 0 ? "1 (in-process)" : String(result.workers),
    String(result.modelCalls),
    `${(result.wallMs / 1000).toFixed(1)} s`,
    result.stepsPerSecond.toFixed(1),
    ms(result.nodeMs?.p50),
    ms(result.nodeMs?.p99),
    ms(result.nodeMs?.idleP99),
    result.nodeMs && result.nodeMs.compactingRuns > 0 ? `${ms(result.nodeMs.compactingP99)} (${result.nodeMs.compactingRuns})` : "-",
    kb(result.bytesPerThread),
    String(result.checks.lost),
    String(result.checks.duplicated),
    String(result.checks.unrestorableThreads),
    String(result.checks.mismatchedThreads),
    String(result.pairingFailures.length),
    String(result.unitErrors),
  ]);
  return renderTable(header, rows, new Set([2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]));
}

/** The rows of {@link nodeTable}: idle steps, split by whether they were decided without an await (`NodeRun.atOnce`), and compacting steps. */
const KIND_LABELS = { idle: "idle", idleAtOnce: "idle, at once", idleAwaited: "idle, awaited", compacting: "compacting" } as const;

/**
 * Where the compaction node's time goes, per backend that ran it: the steps with nothing to do (all,
 * then those decided without an await and those that awaited) and those that compacted, each as
 * p50 / p99 of the wall time, of the process's CPU time while the node ran (the wall time without the waits for a CPU and for the database, but with the other units'
 * work that ran in the node's awaits), of the compactor's `compact()` and of the rest (the graph
 * adapter: checks, update, archive write).
 */
export function nodeTable(results: readonly ScenarioResult[]): string {
  const pair = (spread: { p50: number; p99: number }) => `${spread.p50.toFixed(2)} / ${spread.p99.toFixed(2)}`;
  const header = ["backend", "steps", "runs", "wall p50 / p99", "CPU p50 / p99", "compact() p50 / p99", "adapter p50 / p99"];
  const rows = results.flatMap((result) =>
    result.nodeMs
      ? (["idle", "idleAtOnce", "idleAwaited", "compacting"] as const).filter((kind) => result.nodeMs![kind]?.runs).map((kind) => {
          const figures = result.nodeMs![kind];
          return [`${result.backend}${result.node === "compaction" ? "" : ` (${result.node})`}`, KIND_LABELS[kind], String(figures.runs), pair(figures.wall), pair(figures.cpu), pair(figures.compactor), pair(figures.adapter)];
        })
      : [],
  );
  return renderTable(header, rows, new Set([2, 3, 4, 5, 6]));
}

/**
 * What the agent waits for between a tool result and the model call that reads it (the end of the
 * tools node to the model call), a whole step (from one model call of a thread to the next in the
 * same unit, the model's delay left out), and the turnaround (the end of the tools node to the end
 * of the model node) of steps that did not compact and those that did, per run: the compaction's
 * cost as the agent meets it, next to the same graph without it.
 */
export function waitTable(results: readonly ScenarioResult[]): string {
  const header = ["backend", "node", "calls", "wait p50", "wait p99", "wait max", "steps", "step p50", "step p99", "turnaround idle p50 / p99", "compacting (n) p50 / p99"];
  const rows = results.map((result) => {
    const wait = result.modelWaitMs;
    const step = result.modelIntervalMs;
    const { idle, compacting } = result.turnaroundMs;
    return [
      result.backend,
      result.node,
      String(wait?.calls ?? 0),
      ms(wait?.p50),
      ms(wait?.p99),
      ms(wait?.max),
      String(step?.calls ?? 0),
      ms(step?.p50),
      ms(step?.p99),
      `${ms(idle?.p50)} / ${ms(idle?.p99)}`,
      `(${compacting?.calls ?? 0}) ${ms(compacting?.p50)} / ${ms(compacting?.p99)}`,
    ];
  });
  return renderTable(header, rows, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]));
}

/** The targets, per backend that ran both with and without the node (a pass-through run has only the correctness one). */
export function verdicts(results: readonly ScenarioResult[]): Verdict[] {
  const out: Verdict[] = [];
  for (const backend of ["postgres", "sqlite"] as const) {
    const without = results.find((result) => result.backend === backend && result.node === "none");
    if (!without) continue;
    for (const withNode of results.filter((result) => result.backend === backend && result.compaction)) {
      // The compaction node's run keeps the targets' names; compaction inside the model node says so.
      const name = withNode.node === "compaction" ? backend : `${backend} (${withNode.node})`;
      if (backend === "postgres") {
        const p99 = withNode.nodeMs?.p99 ?? Number.NaN;
        out.push({ target: `${name}: compaction node p99 < 5 ms per step`, measured: ms(p99), met: p99 < 5 });
      }
      const throughput = withNode.stepsPerSecond / without.stepsPerSecond;
      out.push({ target: `${name}: throughput with the node >= 0.8x without`, measured: `${throughput.toFixed(2)}x`, met: throughput >= 0.8 });
      const bytes = withNode.bytesPerThread / without.bytesPerThread;
      out.push({ target: `${name}: bytes per thread with compaction <= 0.5x without`, measured: `${bytes.toFixed(2)}x (${kb(withNode.bytesPerThread)} vs ${kb(without.bytesPerThread)})`, met: bytes <= 0.5 });
      // The project's rule: a step's latency shrinks with compaction, never grows.
      for (const [label, key] of [["median", "p50"], ["p99", "p99"]] as const) {
        const [withStep, withoutStep] = [withNode.modelIntervalMs?.[key], without.modelIntervalMs?.[key]];
        if (withStep === undefined || withoutStep === undefined) continue;
        out.push({ target: `${name}: step ${label} with compaction <= without`, measured: `${ms(withStep)} vs ${ms(withoutStep)}`, met: withStep <= withoutStep });
      }
    }
  }
  for (const result of results) {
    const { lost, duplicated, unrestorableThreads, mismatchedThreads } = result.checks;
    const wrong = lost + duplicated + unrestorableThreads + mismatchedThreads + result.pairingFailures.length;
    out.push({
      target: `${result.backend}${result.node === "none" ? "" : ` + ${result.node}`}: 0 lost/duplicated/unrestorable messages, pairing at every call`,
      measured: `${lost} lost, ${duplicated} duplicated, ${unrestorableThreads} unrestorable threads, ${mismatchedThreads} mismatched threads, ${result.pairingFailures.length} calls with broken pairing over ${result.modelCalls} calls`,
      met: wrong === 0,
    });
  }
  return out;
}

export function verdictLines(list: readonly Verdict[]): string {
  return list.map((verdict) => `${verdict.met ? "met    " : "NOT MET"}  ${verdict.target}: ${verdict.measured}`).join("\n");
}

/** Checkpoint bytes per graph step (one checkpoint each) by fifth of each thread's life: flat when nothing in the state grows. */
export function lifeTable(results: readonly ScenarioResult[]): string {
  const header = ["backend", "node", "checkpoints", "1st fifth", "2nd", "3rd", "4th", "5th", "last / first"];
  const rows = results.map((result) => {
    const [first, , , , last] = result.lifeBytes.bytesPerStep;
    return [result.backend, result.node, String(result.lifeBytes.checkpoints), ...result.lifeBytes.bytesPerStep.map((bytes) => kb(bytes)), first ? `${(last! / first).toFixed(2)}x` : "-"];
  });
  return renderTable(header, rows, new Set([2, 3, 4, 5, 6, 7, 8]));
}

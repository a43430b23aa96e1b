/** Timing helpers: median of runs, setup outside the timed region, optional GC between runs. */
import { performance } from "node:perf_hooks";

/** `global.gc` when node runs with `--expose-gc`, else undefined. */
const collectGarbage: (() => void) | undefined = (() => {
  const candidate: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof candidate === "function" ? () => (candidate as () => void)() : undefined;
})();

export const gcAvailable = collectGarbage !== undefined;

export interface Timing {
  /** Median of the samples, ms. */
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Every timed run, ms, in order. */
  readonly samplesMs: readonly number[];
  readonly runs: number;
  /** Runs asked for; `runs` is lower when the time budget stopped early. */
  readonly requestedRuns: number;
}

export interface MeasureOptions {
  /** Runs to time (at least 1). */
  runs: number;
  /** Stop after this many ms of timed work, once `minRuns` runs are done. @default Infinity */
  budgetMs?: number;
  /** @default 1 */
  minRuns?: number;
  /**
   * One untimed warm-up run first (JIT, inline caches, garbage left by the previous measurement).
   * A warm-up run that takes at least this long is kept as the first sample instead: at that length
   * the transients are noise, and repeating a multi-second run only costs time. @default 1000
   */
  warmupKeepAboveMs?: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Time `run(input)` over fresh inputs: `setup()` makes each run's input outside the timed region
 * (fresh counters, fresh message objects, fresh array copies), then the timed call. `check` sees
 * each result (outside the timed region) so the work cannot be skipped. First a GC (when node
 * exposes it) and one warm-up run (see `warmupKeepAboveMs`).
 */
export async function measure<Input, Output>(
  options: MeasureOptions,
  setup: () => Input | Promise<Input>,
  run: (input: Input) => Promise<Output>,
  check?: (output: Output, input: Input) => void,
): Promise<Timing> {
  const samples: number[] = [];
  const minRuns = Math.max(1, options.minRuns ?? 1);
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  let spent = 0;
  const timedRun = async (): Promise<number> => {
    const input = await setup();
    const start = performance.now();
    const output = await run(input);
    const elapsed = performance.now() - start;
    check?.(output, input);
    return elapsed;
  };
  // Collect the previous measurement's garbage (when node exposes gc) so that it is not billed to
  // this one. Only here, not before every run: a forced full GC shrinks the young generation, and
  // the run right after it is slower than any run in real use (measured: ours at 4000 messages
  // 10.6 -> 26.9 ms with a forced GC before every run). The warm-up run absorbs that.
  collectGarbage?.();
  const warmup = await timedRun();
  if (warmup >= (options.warmupKeepAboveMs ?? 1000)) {
    samples.push(warmup);
    spent += warmup;
  }
  while (samples.length < options.runs) {
    if (samples.length >= minRuns && spent + spent / samples.length > budget) break;
    const elapsed = await timedRun();
    samples.push(elapsed);
    spent += elapsed;
  }
  return timingOf(samples, options.runs);
}

/** The summary of a set of samples. */
export function timingOf(samples: number[], requestedRuns: number): Timing {
  return {
    medianMs: median(samples),
    minMs: Math.min(...samples),
    maxMs: Math.max(...samples),
    samplesMs: samples,
    runs: samples.length,
    requestedRuns,
  };
}

/** `ms` for the table: 3 significant figures, at least 2 decimals below 10. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || Number.isNaN(ms)) return "—";
  if (ms >= 1000) return ms.toFixed(0);
  if (ms >= 100) return ms.toFixed(1);
  if (ms >= 10) return ms.toFixed(2);
  return ms.toFixed(3);
}

export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return "—";
  return ratio >= 100 ? `${ratio.toFixed(0)}x` : ratio >= 10 ? `${ratio.toFixed(1)}x` : `${ratio.toFixed(2)}x`;
}

/** A plain-text table with a header row, columns padded to their widest cell. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number> = new Set()): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

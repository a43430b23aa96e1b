/**
 * What the latency scenario measured: per system, the latency added to each model call (the wall
 * time of the compaction node, or of the middleware's hook) over every model call of every thread,
 * and what each step did. A step's summary calls are told apart by thread and arrival time: a request
 * that arrived while a summarizing step ran was made at the firing; one that arrived after a no-op
 * step (and before the next step) is a summary being prepared ahead, which that step started.
 */
import type { GcPause, LatencyRun, LatencySystem, RecordedRequest, ThreadRun } from "./scenario.js";
import type { StepSample } from "./systems.js";

/** What one step did, as reported. */
export type StepClass =
  | "idle"
  | "idle, counted"
  | "started a preparation"
  | "hiding"
  | "summary from a preparation"
  | "summary made at the firing"
  | "truncated"
  | "failed"
  | "repaired";

export const STEP_CLASSES: readonly StepClass[] = ["idle", "idle, counted", "started a preparation", "hiding", "summary from a preparation", "summary made at the firing", "truncated", "failed", "repaired"];

/** Why a firing of the prepared system made its summary then. */
export type MissReason = "no preparation since the last compaction" | "preparation still running" | "preparation ready, not applied";

/** p50, p99 and max of a set of samples (nearest rank). */
export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** A step, classified, with its thread and position. */
export interface ClassifiedStep {
  readonly thread: string;
  /** 1-based position of the step (= the model call) in its thread. */
  readonly call: number;
  readonly nodeMs: number;
  /** From entering the node (hook) to the agent's model being called: the node plus the graph's step to the model. */
  readonly toModelMs: number | undefined;
  /** Ours: the policy's `compact()` inside the node; the rest is the node's update, record and archive write. */
  readonly compactMs: number | undefined;
  /** Garbage-collection pauses of the process inside the step. */
  readonly gcMs: number;
  /** Ours: the history's tokens at the step (the prepared system: every step; the blocking one: compactions). */
  readonly tokensBefore?: number;
  /** For a summary made at the firing of the prepared system: the call and tokens of the step that sent the newest preparation. */
  readonly preparedAt?: { readonly call: number; readonly tokens: number | undefined };
  /** Ours, for a compaction: the history's tokens before and after it. */
  readonly tokens?: readonly [number | null, number | null];
  /** Ours, for a compaction: the reason it logged. */
  readonly reason?: string;
  readonly class: StepClass;
  /** For a summary made at the firing of the prepared system: why no preparation was applied. */
  readonly miss?: MissReason;
  /** For a preparation missed while running: how long before the firing it was sent. */
  readonly missLeadMs?: number;
}

/** One system's figures. */
export interface SystemLatency {
  readonly system: LatencySystem;
  readonly threads: number;
  /** The node's (hook's) wall time over every model call. */
  readonly added: Percentiles;
  /** From entering the node (hook) to the model being called. */
  readonly toModel: Percentiles;
  /** Per step class: the node's wall time. */
  readonly byClass: Partial<Record<StepClass, Percentiles>>;
  /** Per step class: the policy's own `compact()` time inside the node (ours). */
  readonly compactByClass: Partial<Record<StepClass, Percentiles>>;
  /** Steps that took `slowMs` or more, by class, and how many of them spent half their time or more in GC pauses. */
  readonly slow: { readonly thresholdMs: number; readonly byClass: Partial<Record<StepClass, number>>; readonly mostlyGc: number };
  readonly summaryCalls: { readonly total: number; readonly answered: number; readonly aborted: number };
  /** Summaries made at a firing of the prepared system, by why no preparation was applied. */
  readonly misses: Partial<Record<MissReason, number>>;
  /** Those steps themselves, in thread order. */
  readonly missed: readonly ClassifiedStep[];
  /** Per thread: its model calls and its idle steps' added latency (to compare runs with other concurrency). */
  readonly perThread: readonly { readonly thread: string; readonly calls: number; readonly idle: Percentiles }[];
  /** The slowest steps, slowest first. */
  readonly slowest: readonly ClassifiedStep[];
}

/** p50, p99 and max by nearest rank; NaN for no samples. */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (share: number) => sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50: rank(0.5), p99: rank(0.99), max: sorted.at(-1) ?? Number.NaN };
}

function baseClass(step: StepSample): StepClass {
  switch (step.kind) {
    case "compacted":
      return "hiding";
    case "summarized":
      return "summary made at the firing";
    case "noop":
      return step.counted ? "idle, counted" : "idle";
    default:
      return step.kind;
  }
}

/** The time of `pauses` (sorted by start) inside [start, end]. */
function pausedWithin(pauses: readonly GcPause[], start: number, end: number): number {
  // The first pause that may end after `start`: pauses do not overlap, so they also end in order.
  let low = 0;
  let high = pauses.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (pauses[middle]!.startMs + pauses[middle]!.durationMs <= start) low = middle + 1;
    else high = middle;
  }
  let paused = 0;
  for (let index = low; index < pauses.length && pauses[index]!.startMs < end; index++) {
    const pause = pauses[index]!;
    paused += Math.max(0, Math.min(end, pause.startMs + pause.durationMs) - Math.max(start, pause.startMs));
  }
  return paused;
}

/**
 * Classify one thread's steps by the summary requests that arrived while each step ran or after it
 * (before the next step), and measure the GC pauses (`pauses`, sorted by start) inside each.
 */
export function classifyThread(run: ThreadRun, delayMs: number, pauses: readonly GcPause[] = []): ClassifiedStep[] {
  const { steps } = run;
  const requests = [...run.requests].sort((a, b) => a.arrivedAt - b.arrivedAt);
  const classified: ClassifiedStep[] = [];
  let cursor = 0;
  // The newest preparation sent since the thread's last compaction, and the step that sent it.
  let preparation: RecordedRequest | undefined;
  let preparedAt: { call: number; tokens: number | undefined } | undefined;
  for (const [index, step] of steps.entries()) {
    const until = steps[index + 1]?.startMs ?? Number.POSITIVE_INFINITY;
    const own: RecordedRequest[] = [];
    while (cursor < requests.length && requests[cursor]!.arrivedAt < until) {
      if (requests[cursor]!.arrivedAt >= step.startMs) own.push(requests[cursor]!);
      cursor++;
    }
    let stepClass = baseClass(step);
    let miss: MissReason | undefined;
    let missLeadMs: number | undefined;
    if (step.kind === "summarized" && run.system === "prepared") {
      const madeNow = own.some((request) => request.arrivedAt <= step.startMs + step.nodeMs);
      if (!madeNow) stepClass = "summary from a preparation";
      else if (!preparation) miss = "no preparation since the last compaction";
      else if (preparation.arrivedAt + delayMs > step.startMs) {
        miss = "preparation still running";
        missLeadMs = step.startMs - preparation.arrivedAt;
      } else miss = "preparation ready, not applied";
    }
    const missedPreparation = miss !== undefined && preparation ? preparedAt : undefined;
    if (step.kind === "noop" && own.length > 0) {
      stepClass = "started a preparation";
      preparation = own.at(-1);
      preparedAt = { call: index + 1, tokens: step.tokensBefore };
    }
    if (step.kind !== "noop") preparation = preparedAt = undefined;
    classified.push({
      thread: run.thread,
      call: index + 1,
      nodeMs: step.nodeMs,
      toModelMs: step.modelCalledAt === undefined ? undefined : step.modelCalledAt - step.startMs,
      compactMs: step.compactMs,
      gcMs: pausedWithin(pauses, step.startMs, step.startMs + step.nodeMs),
      class: stepClass,
      ...(step.tokensBefore !== undefined ? { tokensBefore: step.tokensBefore } : {}),
      ...(missedPreparation ? { preparedAt: missedPreparation } : {}),
      ...(step.record ? { tokens: [step.record.tokensBefore, step.record.tokensAfter] as const } : {}),
      ...(step.record?.reason !== undefined ? { reason: step.record.reason } : {}),
      ...(miss ? { miss } : {}),
      ...(missLeadMs !== undefined ? { missLeadMs } : {}),
    });
  }
  return classified;
}

/** How many times each key occurs (`undefined` is skipped). */
function countBy<Key extends string>(keys: readonly (Key | undefined)[]): Partial<Record<Key, number>> {
  const counts: Partial<Record<Key, number>> = {};
  for (const key of keys) if (key !== undefined) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

/** The figures of each system of a run, in the run's order. */
export function analyseLatency(run: LatencyRun, { slowMs = 5, slowest = 10 }: { slowMs?: number; slowest?: number } = {}): SystemLatency[] {
  const systems = [...new Set(run.threads.map((thread) => thread.system))];
  return systems.map((system) => {
    const threads = run.threads.filter((thread) => thread.system === system);
    const pauses = [...(run.gcPauses[system] ?? [])].sort((a, b) => a.startMs - b.startMs);
    const classified = threads.map((thread) => classifyThread(thread, run.settings.delayMs, pauses));
    const steps = classified.flat();
    const byClass: Partial<Record<StepClass, Percentiles>> = {};
    const compactByClass: Partial<Record<StepClass, Percentiles>> = {};
    for (const stepClass of STEP_CLASSES) {
      const ofClass = steps.filter((step) => step.class === stepClass);
      if (ofClass.length > 0) byClass[stepClass] = percentiles(ofClass.map((step) => step.nodeMs));
      const compact = ofClass.flatMap((step) => (step.compactMs === undefined ? [] : [step.compactMs]));
      if (compact.length > 0) compactByClass[stepClass] = percentiles(compact);
    }
    const slowSteps = steps.filter((step) => step.nodeMs >= slowMs);
    const requests = threads.flatMap((thread) => thread.requests);
    return {
      system,
      threads: threads.length,
      added: percentiles(steps.map((step) => step.nodeMs)),
      toModel: percentiles(steps.flatMap((step) => (step.toModelMs === undefined ? [] : [step.toModelMs]))),
      byClass,
      compactByClass,
      slow: { thresholdMs: slowMs, byClass: countBy(slowSteps.map((step) => step.class)), mostlyGc: slowSteps.filter((step) => step.gcMs >= step.nodeMs / 2).length },
      summaryCalls: {
        total: requests.length,
        answered: requests.filter((request) => request.outcome === "completed").length,
        aborted: requests.filter((request) => request.outcome === "aborted").length,
      },
      misses: countBy(steps.map((step) => step.miss)),
      missed: steps.filter((step) => step.miss !== undefined),
      perThread: threads.map((thread, index) => {
        const own = classified[index]!;
        return { thread: thread.thread, calls: own.length, idle: percentiles(own.filter((step) => step.class === "idle" || step.class === "idle, counted").map((step) => step.nodeMs)) };
      }),
      slowest: [...steps].sort((a, b) => b.nodeMs - a.nodeMs).slice(0, slowest),
    };
  });
}

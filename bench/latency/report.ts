/** The latency scenario's tables and its target verdict. */
import { formatMs, renderTable } from "../measure.js";
import { STEP_CLASSES, type SystemLatency } from "./analysis.js";
import type { LatencySettings } from "./scenario.js";

/** The target: prepared summaries add < 5 ms per model call at p99 with a 2 s summary model. */
export const LATENCY_TARGET_P99_MS = 5;
/** The summary model's delay the target is stated for. */
export const LATENCY_TARGET_DELAY_MS = 2000;

const SYSTEM_LABEL: Record<SystemLatency["system"], string> = {
  blocking: "ours autoCompaction, prepare: false",
  prepared: "ours autoCompaction, prepare: true",
  summarizationMiddleware: "LangChain summarizationMiddleware",
  passThrough: "pass-through node (the floor)",
};

/** One row per system: the added latency per model call and what the compactions were. */
export function latencyTable(systems: readonly SystemLatency[]): string {
  const rows = systems.map((entry) => {
    const count = (name: keyof SystemLatency["byClass"]) => entry.byClass[name]?.count ?? 0;
    return [
      SYSTEM_LABEL[entry.system],
      `${entry.added.count} / ${entry.threads}`,
      formatMs(entry.added.p50),
      formatMs(entry.added.p99),
      formatMs(entry.added.max),
      formatMs(entry.toModel.p50),
      formatMs(entry.toModel.p99),
      String(count("hiding")),
      `${count("summary from a preparation") + count("summary made at the firing")} (${count("summary from a preparation")} prepared)`,
      `${entry.summaryCalls.total} (${entry.summaryCalls.aborted} aborted)`,
    ];
  });
  return renderTable(
    ["system", "model calls / threads", "p50 ms", "p99 ms", "max ms", "to model p50", "to model p99", "hidings", "summaries", "summary calls"],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]),
  );
}

/** Per system and step class: how many steps, their added latency, the policy's share of it, the steps over the target. */
export function stepClassTable(systems: readonly SystemLatency[]): string {
  const rows: string[][] = [];
  for (const entry of systems) {
    for (const stepClass of STEP_CLASSES) {
      const figures = entry.byClass[stepClass];
      const compact = entry.compactByClass[stepClass];
      if (!figures) continue;
      rows.push([
        entry.system,
        stepClass,
        String(figures.count),
        formatMs(figures.p50),
        formatMs(figures.p99),
        formatMs(figures.max),
        compact ? formatMs(compact.p50) : "—",
        String(entry.slow.byClass[stepClass] ?? 0),
      ]);
    }
  }
  const slowMs = systems[0]?.slow.thresholdMs ?? 5;
  return renderTable(["system", "step", "steps", "p50 ms", "p99 ms", "max ms", "compact() p50 ms", `steps >= ${slowMs} ms`], rows, new Set([2, 3, 4, 5, 6, 7]));
}

/** The prepared system's firings that summarized then, by reason, and its slowest steps. */
export function preparedBreakdown(systems: readonly SystemLatency[]): string[] {
  const prepared = systems.find((entry) => entry.system === "prepared");
  if (!prepared) return [];
  const misses = Object.entries(prepared.misses).map(([reason, count]) => `${count} ${reason}`);
  const slow = Object.values(prepared.slow.byClass).reduce((sum, count) => sum + count, 0);
  const describe = (step: SystemLatency["slowest"][number]) =>
    `${step.thread} call ${step.call}: ${step.class} ${formatMs(step.nodeMs)} ms` +
    (step.compactMs !== undefined ? ` (compact() ${formatMs(step.compactMs)} ms)` : "") +
    (step.gcMs > 0 ? ` (GC ${formatMs(step.gcMs)} ms)` : "") +
    (step.tokens ? ` (${step.tokens[0] ?? "?"} -> ${step.tokens[1] ?? "?"} tokens)` : "") +
    (step.missLeadMs !== undefined ? ` (preparation sent ${formatMs(step.missLeadMs)} ms before)` : "") +
    (step.preparedAt ? ` (prepared at call ${step.preparedAt.call}, ${step.preparedAt.tokens ?? "?"} tokens)` : "");
  return [
    `prepared: summaries made at the firing: ${misses.length > 0 ? misses.join(", ") : "none"}`,
    ...prepared.missed.map((step) => `  ${describe(step)}: ${step.miss}`),
    `prepared: ${slow} steps of ${prepared.added.count} took >= ${prepared.slow.thresholdMs} ms; ${prepared.slow.mostlyGc} of them spent half their time or more in GC pauses`,
    "prepared: slowest steps:",
    ...prepared.slowest.map((step) => `  ${describe(step)}`),
  ];
}

/** The target's verdict: SKIP unless the summary model took the 2 s the target is stated for. */
export function latencyVerdict(settings: LatencySettings, systems: readonly SystemLatency[]) {
  const prepared = systems.find((entry) => entry.system === "prepared");
  const blocking = systems.find((entry) => entry.system === "blocking");
  const peer = systems.find((entry) => entry.system === "summarizationMiddleware");
  const description = `prepared summaries: p99 added latency per model call < ${LATENCY_TARGET_P99_MS} ms with a ${LATENCY_TARGET_DELAY_MS / 1000} s summary model`;
  if (!prepared || settings.delayMs !== LATENCY_TARGET_DELAY_MS) {
    return { verdict: "SKIP" as const, description, threshold: `< ${LATENCY_TARGET_P99_MS} ms`, detail: `summary model delay ${settings.delayMs} ms in this run (--quick)` };
  }
  const summaries = (entry: SystemLatency | undefined) => (entry?.byClass["summary from a preparation"]?.count ?? 0) + (entry?.byClass["summary made at the firing"]?.count ?? 0);
  return {
    verdict: prepared.added.p99 < LATENCY_TARGET_P99_MS ? ("PASS" as const) : ("FAIL" as const),
    description,
    value: prepared.added.p99,
    threshold: `< ${LATENCY_TARGET_P99_MS} ms`,
    detail:
      `prepared p99 ${formatMs(prepared.added.p99)} ms (p50 ${formatMs(prepared.added.p50)}, max ${formatMs(prepared.added.max)}) over ${prepared.added.count} model calls, ` +
      `${summaries(prepared)} summaries (${prepared.byClass["summary from a preparation"]?.count ?? 0} from a preparation); ` +
      `blocking p99 ${formatMs(blocking?.added.p99)} ms (${summaries(blocking)} summaries); summarizationMiddleware p99 ${formatMs(peer?.added.p99)} ms (${summaries(peer)} summaries)`,
  };
}

/**
 * Warm step: a running agent whose history is far below the trigger. The history was returned by the
 * same compactor at the previous step (a no-op), then one assistant + tool-result group was appended
 * as new message objects; each step times one `compact()`, which returns a no-op. With the exact
 * counter, this is the step where tokenizing the new results used to dominate.
 *
 *   npx tsx bench/warm-step.ts [--size <n>] [--steps <n>]
 */
import type { BaseMessage } from "@langchain/core/messages";
import { autoCompaction, createTokenCounter, toolResultHiding, type Compactor, type TokenCounter } from "../src/index.js";
import { formatMs, measure, renderTable, type Timing } from "./measure.js";
import { SyntheticAgent, renewMessages } from "./synthetic.js";

/** A trigger far above any history of the benchmark: every step is a no-op. */
export const WARM_STEP_TRIGGER_TOKENS = 100_000_000;

export interface WarmStepPlan {
  size: number;
  warmupSteps: number;
  steps: number;
  seed: number;
}

export interface WarmStepResult {
  size: number;
  exact: { autoCompaction: Timing; toolResultHiding: Timing };
  approximate: { autoCompaction: Timing; toolResultHiding: Timing };
}

type Kind = "exact" | "approximate";
type Name = "autoCompaction" | "toolResultHiding";

function compactorFor(name: Name, tokenCounter: TokenCounter): Compactor {
  return name === "autoCompaction"
    ? autoCompaction({ contextWindow: WARM_STEP_TRIGGER_TOKENS * 2, trigger: { tokens: WARM_STEP_TRIGGER_TOKENS }, tokenCounter })
    : toolResultHiding({ trigger: { tokens: WARM_STEP_TRIGGER_TOKENS }, tokenCounter });
}

/** Time one compactor's warm steps: each returns a no-op on the previous output plus one new group. */
async function warmSteps(plan: WarmStepPlan, name: Name, kind: Kind): Promise<Timing> {
  const agent = new SyntheticAgent(plan.seed);
  const base = agent.history(plan.size);
  const stepMessages = Array.from({ length: plan.warmupSteps + plan.steps }, () => agent.step());
  const compactor = compactorFor(name, kind === "exact" ? createTokenCounter() : createTokenCounter({ mode: "approximate" }));
  let history: BaseMessage[] = (await compactor.compact(renewMessages(base))).messages;
  let index = 0;
  const timing = await measure(
    { runs: plan.warmupSteps + plan.steps, warmupKeepAboveMs: 0 },
    () => [...history, ...stepMessages[index++]!],
    (grown) => compactor.compact(grown),
    (result) => {
      if (result.status !== "noop") throw new Error(`warm step: expected a no-op, got ${result.status}`);
      history = result.messages;
    },
  );
  const samples = timing.samplesMs.slice(plan.warmupSteps);
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return {
    medianMs: sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2,
    minMs: sorted[0]!,
    maxMs: sorted.at(-1)!,
    samplesMs: samples,
    runs: samples.length,
    requestedRuns: plan.steps,
  };
}

/** The warm-step scenario: autoCompaction and toolResultHiding, exact and approximate counters. */
export async function warmStep(plan: WarmStepPlan): Promise<WarmStepResult> {
  return {
    size: plan.size,
    exact: { autoCompaction: await warmSteps(plan, "autoCompaction", "exact"), toolResultHiding: await warmSteps(plan, "toolResultHiding", "exact") },
    approximate: {
      autoCompaction: await warmSteps(plan, "autoCompaction", "approximate"),
      toolResultHiding: await warmSteps(plan, "toolResultHiding", "approximate"),
    },
  };
}

/** The warm-step table: one row per compactor and counter. */
export function warmStepTable(result: WarmStepResult): string {
  const rows: string[][] = [];
  for (const kind of ["exact", "approximate"] as const) {
    for (const name of ["autoCompaction", "toolResultHiding"] as const) {
      const timing = result[kind][name];
      rows.push([`ours ${name}, ${kind === "exact" ? "exact o200k" : "approximate"}, no-op`, formatMs(timing.medianMs), formatMs(timing.minMs), formatMs(timing.maxMs), String(timing.runs)]);
    }
  }
  return renderTable(["per compaction call", "median ms", "min ms", "max ms", "steps"], rows, new Set([1, 2, 3, 4]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { size: { type: "string" }, steps: { type: "string" } } });
  const result = await warmStep({ size: Number(values.size ?? 8000), warmupSteps: 5, steps: Number(values.steps ?? 50), seed: 42 });
  console.log(warmStepTable(result));
}

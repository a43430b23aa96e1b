/**
 * Scenario 2: a running agent, per step. Each step times one compaction of the previous step's
 * output grown by one assistant + tool-result group: ours with warm caches, LangChain on its own
 * cleared history.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { formatMs, formatRatio, measure, renderTable, timingOf, type Timing } from "./measure.js";
import { applyClearToolUses, clearToolUsesEdit, langChainApproximateCounter } from "./peers.js";
import { SEED, TRUNCATE_MAX_TOKENS, type CounterKind, type Plan } from "./settings.js";
import { ourCounter, ourStrategy, record } from "./sides.js";
import { SyntheticAgent, renewMessages, syntheticHistory } from "./synthetic.js";
import type { SyntheticPass } from "./synthetic-pass.js";

export interface PerStepResult {
  size: number;
  historyRange: [number, number];
  oursApproximate: Timing;
  oursExact: Timing;
  langchainApproximate: Timing;
}

/**
 * A running agent: the history was compacted by the same strategy at the previous step (so our
 * counter's cache is warm for every old message) and grew by one assistant + tool-result group (new
 * message objects). Each step times one `compact()` of the grown history.
 *
 * LangChain runs on its own steady state: the history ClearToolUsesEdit already cleared, grown by
 * the same steps (its best case: cleared results are skipped; it has no cache to warm): `cleared`, the
 * output of the full pass at this size, when there is one; else the synthetic history of this size,
 * cleared once here.
 */
export async function perStep(plan: Plan, cleared: SyntheticPass["cleared"], log: (line: string) => void): Promise<PerStepResult> {
  const { size, warmupSteps, steps, langChainSteps } = plan.perStep;
  const agent = new SyntheticAgent(SEED);
  const base = agent.history(size);
  const stepMessages = Array.from({ length: warmupSteps + steps }, () => agent.step());
  const sizes: number[] = [];

  const runOurs = async (kind: CounterKind): Promise<Timing> => {
    const strategy = ourStrategy("hide", ourCounter(kind), TRUNCATE_MAX_TOKENS);
    let history = (await strategy.compact(renewMessages(base))).messages;
    let index = 0;
    return measure(
      { runs: warmupSteps + steps, warmupKeepAboveMs: 0 },
      () => {
        const grown = [...history, ...stepMessages[index]!];
        index += 1;
        return grown;
      },
      (grown) => strategy.compact(grown),
      (result, grown) => {
        // A no-op when the group that aged was hidden already, superseded inside the kept groups.
        if (result.status !== "compacted" && result.status !== "noop") throw new Error(`per-step: expected a compaction, got ${result.status}`);
        history = result.messages;
        if (kind === "approximate") sizes.push(grown.length);
      },
    ).then((timing) => dropWarmup(timing, warmupSteps));
  };

  const oursApproximate = await runOurs("approximate");
  log(`  per step, ours approximate: ${formatMs(oursApproximate.medianMs)} ms`);
  const oursExact = await runOurs("exact");
  log(`  per step, ours exact: ${formatMs(oursExact.medianMs)} ms`);

  let langchainHistory: BaseMessage[];
  if (cleared?.size === size) langchainHistory = cleared.messages;
  else {
    langchainHistory = [...syntheticHistory(size, SEED)];
    await applyClearToolUses(clearToolUsesEdit(), langchainHistory, langChainApproximateCounter);
  }
  let index = 0;
  const edit = clearToolUsesEdit();
  const langchainTiming = await measure(
    { runs: warmupSteps + langChainSteps, budgetMs: plan.langChainBudgetMs, minRuns: warmupSteps + 1, warmupKeepAboveMs: 0 },
    () => {
      const grown = [...langchainHistory, ...stepMessages[index]!];
      index += 1;
      return grown;
    },
    async (grown) => {
      await applyClearToolUses(edit, grown, langChainApproximateCounter);
      return grown;
    },
    (grown) => {
      langchainHistory = grown;
    },
  );
  const langchainApproximate = dropWarmup(langchainTiming, warmupSteps);
  log(`  per step, ClearToolUsesEdit approximate: ${formatMs(langchainApproximate.medianMs)} ms`);

  const measuredSizes = sizes.slice(warmupSteps);
  const range: [number, number] = [Math.min(...measuredSizes), Math.max(...measuredSizes)];
  const common = { scenario: "per-step" as const, task: "hide" as const, messages: size };
  record({ ...common, side: "ours", implementation: "toolResultHiding", counter: "approximate", caches: "warm: previous step's output + one new group", timing: oursApproximate, work: {} });
  record({ ...common, side: "ours", implementation: "toolResultHiding", counter: "exact", caches: "warm: previous step's output + one new group", timing: oursExact, work: {} });
  record({
    ...common,
    side: "langchain",
    implementation: "ClearToolUsesEdit",
    counter: "approximate",
    caches: "none; input already cleared by ClearToolUsesEdit + one new group",
    timing: langchainApproximate,
    work: {},
  });
  return { size, historyRange: range, oursApproximate, oursExact, langchainApproximate };
}

function dropWarmup(timing: Timing, warmup: number): Timing {
  return timingOf(timing.samplesMs.slice(warmup), timing.requestedRuns - warmup);
}

/** The per-step table: median, min and max of one compaction call, each side against ours (approximate). */
export function perStepTable(step: PerStepResult): string {
  const row = (label: string, timing: Timing) => [
    label,
    formatMs(timing.medianMs),
    formatMs(timing.minMs),
    formatMs(timing.maxMs),
    String(timing.runs),
    formatRatio(timing.medianMs / step.oursApproximate.medianMs),
  ];
  return renderTable(
    ["per compaction call", "median ms", "min ms", "max ms", "steps", "vs ours (approximate)"],
    [
      row("ours toolResultHiding, approximate, warm", step.oursApproximate),
      row("ours toolResultHiding, exact o200k, warm", step.oursExact),
      row("LangChain ClearToolUsesEdit, approximate", step.langchainApproximate),
    ],
    new Set([1, 2, 3, 4, 5]),
  );
}

/**
 * Scenario 1: one full pass over the synthetic histories, ours and LangChain's, cold caches, with
 * both counters and both tasks at every size of the plan.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { formatMs, formatRatio, renderTable } from "./measure.js";
import { SEED, TASK_LABEL, TRUNCATE_MAX_TOKENS, type CounterKind, type Plan, type Task } from "./settings.js";
import { timeOurs, timeTheirs, type Measurement, type Subject, type Work } from "./sides.js";
import { contentCharacters, renewMessages, syntheticHistory } from "./synthetic.js";

export interface Comparison {
  counter: CounterKind;
  task: Task;
  messages: number;
  ours: Measurement;
  langchain?: Measurement;
  /** LangChain median / our median. */
  ratio?: number;
}

/** What the full pass produced: the comparisons, and ClearToolUsesEdit's output at the per-step size. */
export interface SyntheticPass {
  comparisons: Comparison[];
  /**
   * The history ClearToolUsesEdit (approximate counter) cleared at the per-step scenario's size, in
   * its last run: the per-step scenario starts LangChain from it. Undefined when that size was not
   * measured.
   */
  cleared?: { size: number; messages: BaseMessage[] };
}

/**
 * The synthetic histories, all generated before anything is timed: the generator's garbage is then
 * collected during the warm-up, not during the first timed runs of whoever comes first.
 */
export function syntheticSubjects(plan: Plan): Map<number, Subject> {
  const subjects = new Map<number, Subject>();
  for (const size of plan.sizes) {
    const messages = syntheticHistory(size, SEED);
    // Fresh objects for cold runs: same fields and strings (js-tiktoken keeps no cache), new identities.
    subjects.set(size, { messages, fresh: () => renewMessages(messages), maxTokens: TRUNCATE_MAX_TOKENS });
  }
  return subjects;
}

/**
 * Ours and LangChain at every size, counter and task of the plan (LangChain with the exact counter
 * only at the plan's exact sizes), on the subjects made beforehand.
 */
export async function syntheticFullPass(plan: Plan, subjects: ReadonlyMap<number, Subject>, log: (line: string) => void): Promise<SyntheticPass> {
  const comparisons: Comparison[] = [];
  let cleared: SyntheticPass["cleared"];
  for (const size of plan.sizes) {
    const subject = subjects.get(size)!;
    const messages = subject.messages;
    log(`synthetic ${size} messages (${(contentCharacters(messages) / 1e6).toFixed(2)} M characters)`);
    for (const kind of ["approximate", "exact"] as const) {
      for (const task of ["hide", "truncate"] as const) {
        const ours = await timeOurs("synthetic", task, kind, subject, plan.runs);
        let langchain: Measurement | undefined;
        const langChainRuns = kind === "exact" ? plan.langChainExactRuns : plan.runs;
        if (kind === "approximate" || plan.langChainExactSizes.includes(size)) {
          // The two target measurements always get their asked runs; the others stop at the budget.
          const isTarget = task === "hide" && ((kind === "approximate" && size === 4000) || (kind === "exact" && size === 400));
          langchain = await timeTheirs("synthetic", task, kind, subject, {
            runs: langChainRuns,
            budgetMs: plan.langChainBudgetMs,
            minRuns: isTarget ? langChainRuns : 1,
            keepOutput: (output) => {
              if (task === "hide" && kind === "approximate" && size === plan.perStep.size) cleared = { size, messages: output };
            },
          });
        }
        const comparison: Comparison = {
          counter: kind,
          task,
          messages: size,
          ours,
          ...(langchain ? { langchain, ratio: langchain.timing.medianMs / ours.timing.medianMs } : {}),
        };
        comparisons.push(comparison);
        log(
          `  ${kind.padEnd(11)} ${TASK_LABEL[task].ours.padEnd(16)} ours ${formatMs(ours.timing.medianMs)} ms` +
            (langchain ? `, ${TASK_LABEL[task].langchain} ${formatMs(langchain.timing.medianMs)} ms [${langchain.timing.runs} run(s)]` : ""),
        );
      }
    }
  }
  return { comparisons, ...(cleared !== undefined ? { cleared } : {}) };
}

/** The full-pass table: one row per size, counter and task, with each side's work beside its time. */
export function syntheticTable(comparisons: readonly Comparison[]): string {
  const rows = comparisons.map((c) => [
    c.counter,
    `${TASK_LABEL[c.task].ours} vs ${TASK_LABEL[c.task].langchain}`,
    String(c.messages),
    `${formatMs(c.ours.timing.medianMs)} [${c.ours.timing.runs}]`,
    ((c.ours.timing.medianMs * 1000) / c.messages).toFixed(2),
    c.langchain ? `${formatMs(c.langchain.timing.medianMs)} [${c.langchain.timing.runs}]` : "—",
    formatRatio(c.ratio),
    workSummary(c),
  ]);
  return renderTable(
    ["counter", "ours vs LangChain", "messages", "ours ms [runs]", "ours µs/msg", "LangChain ms [runs]", "LangChain / ours", "work (ours | LangChain)"],
    rows,
    new Set([2, 3, 4, 5, 6]),
  );
}

function workSummary(c: Comparison): string {
  const describe = (work: Work | undefined) =>
    work === undefined ? "—" : c.task === "hide" ? `${work.hidden ?? "?"} hidden` : `${work.kept ?? "?"} kept`;
  return `${describe(c.ours.work)} | ${c.langchain ? describe(c.langchain.work) : "—"}`;
}

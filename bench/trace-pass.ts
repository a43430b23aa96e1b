/**
 * Scenario 3: the real trace sessions, each a cold full pass as in scenario 1, summed over sessions.
 * With the exact counter only ours runs.
 */
import type { TraceSession } from "../examples/traces.js";
import { createTokenCounter } from "../src/index.js";
import { formatMs, formatRatio, median, renderTable } from "./measure.js";
import { TASK_LABEL, type CounterKind, type Plan, type Task } from "./settings.js";
import { timeOurs, timeTheirs, type Measurement, type Subject } from "./sides.js";
import { renewMessages } from "./synthetic.js";

export interface TraceSummary {
  counter: CounterKind;
  task: Task;
  sessions: number;
  messages: number;
  /** Sum over sessions of each session's median. */
  oursTotalMs: number;
  langchainTotalMs?: number;
  ratioOfTotals?: number;
  medianSessionRatio?: number;
  oursMaxSessionMs: number;
  langchainMaxSessionMs?: number;
}

/** Ours and LangChain over every session, per counter and task; each session is cut to half its own tokens. */
export async function tracePass(plan: Plan, sessions: readonly TraceSession[], log: (line: string) => void): Promise<TraceSummary[]> {
  const summaries: TraceSummary[] = [];
  const kinds: CounterKind[] = plan.tracesExact ? ["approximate", "exact"] : ["approximate"];
  // Per session, cut to half its tokens (our approximate count), so every session is truncated.
  const budgetCounter = createTokenCounter({ mode: "approximate" });
  const subjects: Subject[] = [];
  for (const session of sessions) {
    const tokens = await budgetCounter.countMessages(session.messages);
    subjects.push({
      messages: session.messages,
      fresh: () => renewMessages(session.messages),
      maxTokens: Math.max(1_000, Math.floor(tokens / 2)),
      session: session.id,
    });
  }
  for (const kind of kinds) {
    for (const task of ["hide", "truncate"] as const) {
      const ours: Measurement[] = [];
      const theirs: Measurement[] = [];
      for (const subject of subjects) {
        ours.push(await timeOurs("trace", task, kind, subject, plan.runs));
        if (kind === "approximate") theirs.push(await timeTheirs("trace", task, kind, subject, { runs: plan.runs, budgetMs: plan.langChainBudgetMs }));
      }
      const oursTotalMs = ours.reduce((sum, m) => sum + m.timing.medianMs, 0);
      const summary: TraceSummary = {
        counter: kind,
        task,
        sessions: subjects.length,
        messages: subjects.reduce((sum, s) => sum + s.messages.length, 0),
        oursTotalMs,
        oursMaxSessionMs: Math.max(...ours.map((m) => m.timing.medianMs)),
      };
      if (theirs.length === ours.length) {
        const langchainTotalMs = theirs.reduce((sum, m) => sum + m.timing.medianMs, 0);
        summary.langchainTotalMs = langchainTotalMs;
        summary.ratioOfTotals = langchainTotalMs / oursTotalMs;
        summary.medianSessionRatio = median(theirs.map((m, i) => m.timing.medianMs / ours[i]!.timing.medianMs));
        summary.langchainMaxSessionMs = Math.max(...theirs.map((m) => m.timing.medianMs));
      }
      summaries.push(summary);
      log(`  traces ${kind} ${TASK_LABEL[task].ours}: ours ${formatMs(oursTotalMs)} ms total` + (summary.langchainTotalMs !== undefined ? `, LangChain ${formatMs(summary.langchainTotalMs)} ms` : ""));
    }
  }
  return summaries;
}

/** The traces table: sums of per-session medians, the slowest session, the ratios. */
export function tracesTable(summaries: readonly TraceSummary[]): string {
  const rows = summaries.map((s) => [
    s.counter,
    `${TASK_LABEL[s.task].ours} vs ${TASK_LABEL[s.task].langchain}`,
    `${s.sessions} / ${s.messages}`,
    formatMs(s.oursTotalMs),
    formatMs(s.oursMaxSessionMs),
    formatMs(s.langchainTotalMs),
    formatMs(s.langchainMaxSessionMs),
    formatRatio(s.ratioOfTotals),
    formatRatio(s.medianSessionRatio),
  ]);
  return renderTable(
    ["counter", "ours vs LangChain", "sessions / msgs", "ours total ms", "ours max ms", "LangChain total ms", "LangChain max ms", "LangChain / ours (totals)", "median per-session ratio"],
    rows,
    new Set([3, 4, 5, 6, 7, 8]),
  );
}

/**
 * The benchmark's fixed settings, its command line and the plan of a run (full or `--quick`).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultTracesPath } from "../examples/traces.js";

export const SEED = 42;
/** Ours: the newest 3 tool-call groups keep their results (LangChain: its newest 3 tool results). */
export const KEEP_RECENT_GROUPS = 3;
/** The budget both truncations cut the synthetic histories to. */
export const TRUNCATE_MAX_TOKENS = 32_000;
/**
 * hardTruncate's `keepRecent` cap, set above every history length so that, as in trimMessages, the
 * token budget alone decides how much is kept (both then keep "as many newest messages as fit").
 */
export const KEEP_RECENT_UNBOUNDED = 1_000_000;
/** ClearToolUsesEdit and trimMessages with the per-call js-tiktoken counter are impractical above this. */
export const LANGCHAIN_EXACT_MAX_MESSAGES = 400;

export type CounterKind = "approximate" | "exact";
export type Task = "hide" | "truncate";
export type Side = "ours" | "langchain";

export const TASK_LABEL: Record<Task, { ours: string; langchain: string }> = {
  hide: { ours: "toolResultHiding", langchain: "ClearToolUsesEdit" },
  truncate: { ours: "hardTruncate", langchain: "trimMessages" },
};

export interface CliArgs {
  tracesPath: string;
  runs: number;
  quick: boolean;
}

export function parseCli(): CliArgs {
  const { values } = parseArgs({
    options: {
      traces: { type: "string" },
      runs: { type: "string" },
      quick: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log("usage: npx tsx bench/run.ts [--traces <path.jsonl>] [--runs <n>] [--quick]");
    process.exit(0);
  }
  const quick = values.quick === true;
  const runs = values.runs === undefined ? (quick ? 2 : 5) : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  return { tracesPath: resolve(values.traces ?? defaultTracesPath()), runs, quick };
}

export interface Plan {
  sizes: number[];
  runs: number;
  /** Time budget of one LangChain measurement (ms of timed work); stops early, after >= 1 run. */
  langChainBudgetMs: number;
  /** Runs asked for LangChain with the exact counter (seconds per run). */
  langChainExactRuns: number;
  /** Sizes at which LangChain runs with the exact counter. */
  langChainExactSizes: number[];
  perStep: { size: number; warmupSteps: number; steps: number; langChainSteps: number };
  /** Timed steps of the hiding step (bench/hiding-step.ts), at the per-step size. */
  hidingSteps: number;
  /** The agent step (bench/agent-step.ts): thread size, timed steps per round, rounds. */
  agent: { size: number; steps: number; rounds: number };
  /** Run the trace sessions with the exact counter too (ours only; LangChain is impractical there). */
  tracesExact: boolean;
}

export function planFor(args: CliArgs): Plan {
  if (args.quick) {
    return {
      sizes: [250, 400, 1000],
      runs: args.runs,
      langChainBudgetMs: 5_000,
      langChainExactRuns: 1,
      langChainExactSizes: [250],
      perStep: { size: 1000, warmupSteps: 3, steps: 20, langChainSteps: 5 },
      hidingSteps: 20,
      agent: { size: 500, steps: 5, rounds: 1 },
      tracesExact: false,
    };
  }
  return {
    sizes: [250, 400, 1000, 4000, 8000],
    runs: args.runs,
    langChainBudgetMs: 25_000,
    langChainExactRuns: Math.min(3, args.runs),
    langChainExactSizes: [250, 400],
    perStep: { size: 8000, warmupSteps: 5, steps: 50, langChainSteps: 10 },
    hidingSteps: 20,
    // One round per system: with the order rotated each round, every system runs once in every position.
    agent: { size: 3000, steps: 20, rounds: 5 },
    tracesExact: true,
  };
}

/**
 * Benchmark: this package's strategies against their LangChain.js counterparts, side by side, in one
 * process. Not a test (vitest only collects test/**\/*.test.ts).
 *
 *   npx tsx bench/run.ts [--traces <path.jsonl>] [--runs <n>] [--quick]
 *
 * Prints the tables and the target verdicts and writes bench/results.json. See bench/README.md.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, platform, arch, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, hardTruncate, toolResultHiding, type CompactionResult, type CompactionStrategy, type TokenCounter } from "../src/index.js";
import { defaultTracesPath, loadTraceSessions, type TraceSession } from "../examples/traces.js";
import { formatMs, formatRatio, gcAvailable, measure, median, renderTable, timingOf, type Timing } from "./measure.js";
import {
  applyClearToolUses,
  clearToolUsesEdit,
  isClearedByLangChain,
  langChainApproximateCounter,
  o200kEncoder,
  tiktokenCounter,
  trimToBudget,
  type LangChainTokenCounter,
} from "./peers.js";
import { SyntheticAgent, contentCharacters, renewMessages, syntheticHistory } from "./synthetic.js";
import { WARM_STEP_TRIGGER_TOKENS, warmStep, warmStepTable, type WarmStepResult } from "./warm-step.js";
import { runLatencyInProcesses } from "./latency/processes.js";
import { latencyPlanFor, latencyReport } from "./latency/run.js";

const benchDir = dirname(fileURLToPath(import.meta.url));
const projectRoot = resolve(benchDir, "..");

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

const SEED = 42;
/** Ours: the newest 3 tool-call groups keep their results (LangChain: its newest 3 tool results). */
const KEEP_RECENT_GROUPS = 3;
/** The budget both truncations cut the synthetic histories to. */
const TRUNCATE_MAX_TOKENS = 32_000;
/**
 * hardTruncate's `keepRecent` cap, set above every history length so that, as in trimMessages, the
 * token budget alone decides how much is kept (both then keep "as many newest messages as fit").
 */
const KEEP_RECENT_UNBOUNDED = 1_000_000;
/** ClearToolUsesEdit and trimMessages with the per-call js-tiktoken counter are impractical above this. */
const LANGCHAIN_EXACT_MAX_MESSAGES = 400;

type CounterKind = "approximate" | "exact";
type Task = "hide" | "truncate";
type Side = "ours" | "langchain";

const TASK_LABEL: Record<Task, { ours: string; langchain: string }> = {
  hide: { ours: "toolResultHiding", langchain: "ClearToolUsesEdit" },
  truncate: { ours: "hardTruncate", langchain: "trimMessages" },
};

interface CliArgs {
  tracesPath: string;
  runs: number;
  quick: boolean;
}

function parseCli(): CliArgs {
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

interface Plan {
  sizes: number[];
  runs: number;
  /** Time budget of one LangChain measurement (ms of timed work); stops early, after >= 1 run. */
  langChainBudgetMs: number;
  /** Runs asked for LangChain with the exact counter (seconds per run). */
  langChainExactRuns: number;
  /** Sizes at which LangChain runs with the exact counter. */
  langChainExactSizes: number[];
  perStep: { size: number; warmupSteps: number; steps: number; langChainSteps: number };
  /** Run the trace sessions with the exact counter too (ours only; LangChain is impractical there). */
  tracesExact: boolean;
}

function planFor(args: CliArgs): Plan {
  if (args.quick) {
    return {
      sizes: [250, 400, 1000],
      runs: args.runs,
      langChainBudgetMs: 5_000,
      langChainExactRuns: 1,
      langChainExactSizes: [250],
      perStep: { size: 1000, warmupSteps: 3, steps: 20, langChainSteps: 5 },
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
    tracesExact: true,
  };
}

// ---------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------

/** What a run produced, so readers can check both sides did the same job. */
interface Work {
  /** hide: tool results replaced by a placeholder. */
  hidden?: number;
  /** truncate: messages kept. */
  kept?: number;
  /** Our own token figures (our counter). */
  tokensBefore?: number;
  tokensAfter?: number;
}

interface Measurement {
  scenario: "synthetic" | "per-step" | "trace";
  side: Side;
  implementation: string;
  task: Task;
  counter: CounterKind;
  /** Messages in the input. */
  messages: number;
  /** How caches were set up for the timed runs. */
  caches: string;
  session?: string;
  timing: Timing;
  work: Work;
}

const measurements: Measurement[] = [];

function record(measurement: Measurement): Measurement {
  measurements.push(measurement);
  return measurement;
}

function ourCounter(kind: CounterKind): TokenCounter {
  return kind === "exact" ? createTokenCounter() : createTokenCounter({ mode: "approximate" });
}

function theirCounter(kind: CounterKind): LangChainTokenCounter {
  return kind === "exact" ? tiktokenCounter() : langChainApproximateCounter;
}

function ourStrategy(task: Task, tokenCounter: TokenCounter, maxTokens: number): CompactionStrategy {
  return task === "hide"
    ? // Fires at every run and hides whatever that frees, like the peer's { tokens: 1 } trigger and its
      // clearAtLeast 0: the timing is of the hiding itself.
      toolResultHiding({ keepRecentGroups: KEEP_RECENT_GROUPS, trigger: { messages: 1 }, clearAtLeast: 0, receipts: false, tokenCounter })
    : hardTruncate({ maxTokens, keepRecent: KEEP_RECENT_UNBOUNDED, tokenCounter });
}

function workOfOurs(task: Task, result: CompactionResult): Work {
  return {
    ...(task === "hide" ? { hidden: result.replaced.length } : { kept: result.messagesAfter }),
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
  };
}

interface Subject {
  /** The history (shared objects). */
  messages: BaseMessage[];
  /** Fresh message objects with the same content, for runs that must start with cold caches. */
  fresh: () => BaseMessage[];
  maxTokens: number;
  session?: string;
}

/**
 * Ours, one full pass with cold caches: a fresh counter every run (its per-message cache is empty);
 * with the exact counter also fresh message objects. The strategy is built outside the timed region
 * (construction validates options once, as in real use); `compact()` runs whole, input checks
 * included.
 */
async function timeOurs(scenario: Measurement["scenario"], task: Task, kind: CounterKind, subject: Subject, runs: number): Promise<Measurement> {
  let work: Work = {};
  const timing = await measure(
    { runs },
    () => ({ strategy: ourStrategy(task, ourCounter(kind), subject.maxTokens), messages: kind === "exact" ? subject.fresh() : subject.messages }),
    ({ strategy, messages }) => strategy.compact(messages),
    (result) => {
      if (result.status === "failed") throw new Error(`${TASK_LABEL[task].ours} failed: ${result.reason ?? ""}`);
      work = workOfOurs(task, result);
    },
  );
  return record({
    scenario,
    side: "ours",
    implementation: TASK_LABEL[task].ours,
    task,
    counter: kind,
    messages: subject.messages.length,
    caches: kind === "exact" ? "cold: fresh counter and fresh message objects per run" : "cold: fresh counter per run",
    ...(subject.session !== undefined ? { session: subject.session } : {}),
    timing,
    work,
  });
}

/** LangChain, one full pass: a fresh shallow copy of the array (ClearToolUsesEdit edits it in place) made outside the timed region. */
interface TheirRunOptions {
  runs: number;
  /** Stop after about this much timed work... */
  budgetMs: number;
  /** ...but never before this many runs. @default 1 */
  minRuns?: number;
  /** Receives each run's output (ClearToolUsesEdit: the edited array). */
  keepOutput?: (messages: BaseMessage[]) => void;
}

async function timeTheirs(
  scenario: Measurement["scenario"],
  task: Task,
  kind: CounterKind,
  subject: Subject,
  { runs, budgetMs, minRuns = 1, keepOutput }: TheirRunOptions,
): Promise<Measurement> {
  let work: Work = {};
  const countTokens = theirCounter(kind);
  const timing =
    task === "hide"
      ? await measure(
          { runs, budgetMs, minRuns },
          () => ({ edit: clearToolUsesEdit(), messages: [...subject.messages] }),
          async ({ edit, messages }) => {
            await applyClearToolUses(edit, messages, countTokens);
            return messages;
          },
          (messages) => {
            work = { hidden: messages.filter(isClearedByLangChain).length };
            keepOutput?.(messages);
          },
        )
      : await measure(
          { runs, budgetMs, minRuns },
          () => [...subject.messages],
          (messages) => trimToBudget(messages, subject.maxTokens, countTokens),
          (kept) => {
            work = { kept: kept.length };
          },
        );
  return record({
    scenario,
    side: "langchain",
    implementation: TASK_LABEL[task].langchain,
    task,
    counter: kind,
    messages: subject.messages.length,
    caches: "none (LangChain keeps no token cache)",
    ...(subject.session !== undefined ? { session: subject.session } : {}),
    timing,
    work,
  });
}

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

interface Comparison {
  counter: CounterKind;
  task: Task;
  messages: number;
  ours: Measurement;
  langchain?: Measurement;
  /** LangChain median / our median. */
  ratio?: number;
}

/** Untimed: JIT every path on a small history, and load both o200k encoders. */
async function warmUp(): Promise<void> {
  o200kEncoder().encode("warm up <|endoftext|>", [], []);
  await createTokenCounter().countText("warm up");
  const small = syntheticHistory(250, SEED + 1);
  const tiny = syntheticHistory(40, SEED + 2);
  for (let round = 0; round < 3; round++) {
    for (const task of ["hide", "truncate"] as const) {
      for (const kind of ["approximate", "exact"] as const) {
        const messages = kind === "exact" ? tiny : small;
        await ourStrategy(task, ourCounter(kind), 4_000).compact(renewMessages(messages));
        const countTokens = theirCounter(kind);
        if (task === "hide") await applyClearToolUses(clearToolUsesEdit(), [...messages], countTokens);
        else await trimToBudget([...messages], 4_000, countTokens);
      }
    }
  }
}

let clearedAt: { size: number; messages: BaseMessage[] } | undefined;

/**
 * The synthetic histories, all generated before anything is timed: the generator's garbage is then
 * collected during the warm-up, not during the first timed runs of whoever comes first.
 */
function syntheticSubjects(plan: Plan): Map<number, Subject> {
  const subjects = new Map<number, Subject>();
  for (const size of plan.sizes) {
    const messages = syntheticHistory(size, SEED);
    // Fresh objects for cold runs: same fields and strings (js-tiktoken keeps no cache), new identities.
    subjects.set(size, { messages, fresh: () => renewMessages(messages), maxTokens: TRUNCATE_MAX_TOKENS });
  }
  return subjects;
}

async function syntheticFullPass(plan: Plan, subjects: ReadonlyMap<number, Subject>, log: (line: string) => void): Promise<Comparison[]> {
  const comparisons: Comparison[] = [];
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
              if (task === "hide" && kind === "approximate" && size === plan.perStep.size) clearedAt = { size, messages: output };
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
  return comparisons;
}

interface PerStepResult {
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
 * the same steps (its best case: cleared results are skipped; it has no cache to warm).
 */
async function perStep(plan: Plan, log: (line: string) => void): Promise<PerStepResult> {
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
        if (result.status !== "compacted") throw new Error(`per-step: expected a compaction, got ${result.status}`);
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
  if (clearedAt?.size === size) langchainHistory = clearedAt.messages;
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

interface TraceSummary {
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

async function traces(plan: Plan, sessions: readonly TraceSession[], log: (line: string) => void): Promise<TraceSummary[]> {
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

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

interface TargetVerdict {
  id: number;
  description: string;
  verdict: "PASS" | "FAIL" | "SKIP";
  /** The measured figure compared with the threshold. */
  value?: number;
  threshold: string;
  detail: string;
}

function find(comparisons: readonly Comparison[], counter: CounterKind, task: Task, messages: number): Comparison | undefined {
  return comparisons.find((c) => c.counter === counter && c.task === task && c.messages === messages);
}

function evaluateTargets(comparisons: readonly Comparison[], step: PerStepResult, warm: WarmStepResult): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];

  const t1 = find(comparisons, "approximate", "hide", 4000);
  verdicts.push(
    t1?.ratio !== undefined
      ? {
          id: 1,
          description: "full pass, 4000 messages, approximate counter (fresh counter per run: cold cache): ours >= 100x faster than ClearToolUsesEdit",
          verdict: t1.ratio >= 100 ? "PASS" : "FAIL",
          value: t1.ratio,
          threshold: ">= 100x",
          detail: `ClearToolUsesEdit ${formatMs(t1.langchain!.timing.medianMs)} ms [${t1.langchain!.timing.runs}] / ours ${formatMs(t1.ours.timing.medianMs)} ms [${t1.ours.timing.runs}] = ${formatRatio(t1.ratio)}`,
        }
      : skipped(1, "full pass, 4000 messages, approximate counter", ">= 100x"),
  );

  const t2 = find(comparisons, "exact", "hide", 400);
  verdicts.push(
    t2?.ratio !== undefined
      ? {
          id: 2,
          description:
            "full pass, 400 messages, exact o200k counter (ours: fresh counter + fresh messages per run: cold caches; LangChain: js-tiktoken per call, no cache): ours >= 50x faster than ClearToolUsesEdit",
          verdict: t2.ratio >= 50 ? "PASS" : "FAIL",
          value: t2.ratio,
          threshold: ">= 50x",
          detail: `ClearToolUsesEdit ${formatMs(t2.langchain!.timing.medianMs)} ms [${t2.langchain!.timing.runs} run(s)] / ours ${formatMs(t2.ours.timing.medianMs)} ms [${t2.ours.timing.runs}] = ${formatRatio(t2.ratio)}`,
        }
      : skipped(2, "full pass, 400 messages, exact counter", ">= 50x"),
  );

  verdicts.push(
    step.size === 8000
      ? {
          id: 3,
          description: `per-step cost in a running agent at 8000 messages (warm caches, +1 group per step, approximate counter), median over ${step.oursApproximate.runs} steps: ours < 1 ms`,
          verdict: step.oursApproximate.medianMs < 1 ? "PASS" : "FAIL",
          value: step.oursApproximate.medianMs,
          threshold: "< 1 ms",
          detail:
            `ours ${formatMs(step.oursApproximate.medianMs)} ms (max ${formatMs(step.oursApproximate.maxMs)}); ClearToolUsesEdit on its own cleared history ${formatMs(step.langchainApproximate.medianMs)} ms ` +
            `[${step.langchainApproximate.runs} steps] (${formatRatio(step.langchainApproximate.medianMs / step.oursApproximate.medianMs)}); ours with the exact counter ${formatMs(step.oursExact.medianMs)} ms`,
        }
      : skipped(3, `per-step cost at 8000 messages (measured at ${step.size} only)`, "< 1 ms"),
  );

  const perMessage = (c: Comparison | undefined) => (c ? (c.ours.timing.medianMs * 1000) / c.messages : undefined);
  const hideSmall = perMessage(find(comparisons, "approximate", "hide", 1000));
  const hideLarge = perMessage(find(comparisons, "approximate", "hide", 8000));
  const truncSmall = perMessage(find(comparisons, "approximate", "truncate", 1000));
  const truncLarge = perMessage(find(comparisons, "approximate", "truncate", 8000));
  if (hideSmall !== undefined && hideLarge !== undefined) {
    const growth = hideLarge / hideSmall;
    const truncGrowth = truncSmall !== undefined && truncLarge !== undefined ? truncLarge / truncSmall : undefined;
    // Flat within 2x: the per-message time at 8000 is between half and twice the time at 1000.
    const flat = (ratio: number) => ratio <= 2 && ratio >= 0.5;
    verdicts.push({
      id: 4,
      description: "ours, time per message flat within 2x from 1000 to 8000 messages (toolResultHiding, approximate, cold)",
      verdict: flat(growth) ? "PASS" : "FAIL",
      value: growth,
      threshold: "0.5x .. 2x",
      detail:
        `toolResultHiding ${hideSmall.toFixed(2)} µs/msg at 1000 -> ${hideLarge.toFixed(2)} µs/msg at 8000 (${growth.toFixed(2)}x)` +
        (truncGrowth !== undefined
          ? `; hardTruncate ${truncSmall!.toFixed(2)} -> ${truncLarge!.toFixed(2)} µs/msg (${truncGrowth.toFixed(2)}x, ${flat(truncGrowth) ? "within" : "NOT within"} 2x)`
          : ""),
    });
  } else verdicts.push(skipped(4, "per-message time flat from 1000 to 8000 messages", "0.5x .. 2x"));
  const warmAuto = warm.exact.autoCompaction;
  verdicts.push(
    warm.size === 8000
      ? {
          id: 5,
          description: `warm step at 8000 messages far below the trigger (no compaction needed), exact o200k counter, autoCompaction, median over ${warmAuto.runs} steps: < 0.5 ms`,
          verdict: warmAuto.medianMs < 0.5 ? "PASS" : "FAIL",
          value: warmAuto.medianMs,
          threshold: "< 0.5 ms",
          detail:
            `autoCompaction ${formatMs(warmAuto.medianMs)} ms (max ${formatMs(warmAuto.maxMs)}); toolResultHiding ${formatMs(warm.exact.toolResultHiding.medianMs)} ms; ` +
            `ClearToolUsesEdit per step ${formatMs(step.langchainApproximate.medianMs)} ms (${formatRatio(step.langchainApproximate.medianMs / warmAuto.medianMs)})`,
        }
      : skipped(5, `warm step at 8000 messages (measured at ${warm.size} only)`, "< 0.5 ms"),
  );
  return verdicts;
}

function skipped(id: number, description: string, threshold: string): TargetVerdict {
  return { id, description, verdict: "SKIP", threshold, detail: "size not measured in this run (--quick)" };
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

function syntheticTable(comparisons: readonly Comparison[]): string {
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

function tracesTable(summaries: readonly TraceSummary[]): string {
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

function perStepTable(step: PerStepResult): string {
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

function packageVersion(name: string): string {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(projectRoot, "node_modules", name, "package.json"), "utf8"));
    const version = typeof manifest === "object" && manifest !== null ? (manifest as Record<string, unknown>)["version"] : undefined;
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
}

/** The commit measured, and whether src/ had uncommitted changes ("unknown" outside a git checkout). */
function sourceRevision(): { commit: string; srcModified: boolean | "unknown" } {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: projectRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return { commit: git("rev-parse", "--short", "HEAD"), srcModified: git("status", "--porcelain", "--", "src") !== "" };
  } catch {
    return { commit: "unknown", srcModified: "unknown" };
  }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  const args = parseCli();
  const plan = planFor(args);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cpuList = cpus();
  const environment = {
    node: process.version,
    v8: process.versions.v8,
    platform: `${platform()} ${arch()}`,
    cpu: `${cpuList[0]?.model ?? "unknown"} x ${cpuList.length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    gcExposed: gcAvailable,
    source: sourceRevision(),
    packages: {
      "@langchain/core": packageVersion("@langchain/core"),
      langchain: packageVersion("langchain"),
      "js-tiktoken": packageVersion("js-tiktoken"),
    },
  };
  log(`node ${environment.node}, ${environment.cpu}, gc ${gcAvailable ? "exposed" : "not exposed"}; runs ${plan.runs}${args.quick ? " (quick)" : ""}`);

  const subjects = syntheticSubjects(plan);
  log("warming up ...");
  await warmUp();
  const comparisons = await syntheticFullPass(plan, subjects, log);
  log(`running agent, per step at ${plan.perStep.size} messages ...`);
  const step = await perStep(plan, log);
  log(`warm steps (no compaction needed) at ${plan.perStep.size} messages ...`);
  const warm = await warmStep({ size: plan.perStep.size, warmupSteps: plan.perStep.warmupSteps, steps: plan.perStep.steps, seed: SEED });
  log(`  warm step, autoCompaction exact: ${formatMs(warm.exact.autoCompaction.medianMs)} ms`);
  log(`traces from ${args.tracesPath} ...`);
  const sessions = loadTraceSessions(args.tracesPath);
  const traceSummaries = await traces(plan, sessions, log);
  const latencyPlan = latencyPlanFor(args.tracesPath, args.quick);
  log(`latency: ${latencyPlan.source.sessionIds.length} sessions, blocking vs prepared summaries vs summarizationMiddleware, one process each ...`);
  const latencyRun = await runLatencyInProcesses(latencyPlan.source, latencyPlan.settings, log);
  const latency = latencyReport(latencyRun);
  const targets: TargetVerdict[] = [...evaluateTargets(comparisons, step, warm), { id: 6, ...latency.verdict }];
  const wallTimeMs = performance.now() - started;

  const out: string[] = [];
  out.push("");
  out.push(
    `langchain-compaction benchmark — commit ${environment.source.commit}${environment.source.srcModified === true ? " + uncommitted src changes" : ""}, ` +
      `node ${environment.node}, ${environment.cpu}, langchain ${environment.packages.langchain}, @langchain/core ${environment.packages["@langchain/core"]}`,
  );
  out.push(
    `median ms over [runs], after one untimed warm-up run (kept as a sample when it takes >= 1 s); LangChain / ours > 1 means ours is faster. ` +
      `gc before each measurement: ${gcAvailable ? "yes" : "no (NODE_OPTIONS=--expose-gc to enable)"}`,
  );
  out.push("");
  out.push(`1) One full pass over a synthetic history (seed ${SEED}), cold caches`);
  out.push(`   toolResultHiding({ keepRecentGroups: ${KEEP_RECENT_GROUPS}, trigger: { messages: 1 }, clearAtLeast: 0, receipts: false }) vs ClearToolUsesEdit({ trigger: { tokens: 1 }, keep: { messages: 3 } })`);
  out.push(`   hardTruncate({ maxTokens: ${TRUNCATE_MAX_TOKENS}, keepRecent: ${KEEP_RECENT_UNBOUNDED} }) vs trimMessages({ maxTokens: ${TRUNCATE_MAX_TOKENS}, strategy: "last", includeSystem, startOn: ["human","ai"] })`);
  out.push(`   exact: LangChain only up to ${LANGCHAIN_EXACT_MAX_MESSAGES} messages ("—" above), ${plan.langChainExactRuns} run(s) asked; LangChain runs also stop after ~${plan.langChainBudgetMs / 1000} s of timed work`);
  out.push(syntheticTable(comparisons));
  out.push("");
  out.push(`2) Running agent: per compaction call at ${step.size} messages (history ${step.historyRange[0]}..${step.historyRange[1]} over the steps), +1 assistant/tool-result group per step`);
  out.push("   ours: the previous step's compacted output + the new group (warm caches); LangChain: its own cleared history + the same group");
  out.push(perStepTable(step));
  out.push("");
  out.push(`2b) Warm step: per compaction call at ${warm.size} messages far below the trigger (${WARM_STEP_TRIGGER_TOKENS} tokens): every call is a no-op`);
  out.push("   the previous step's output + one new assistant/tool-result group (new objects); the no-op's token figures are not read (as the graph node does not)");
  out.push(warmStepTable(warm));
  out.push("");
  out.push(`3) Real traces: ${sessions.length} sessions from ${args.tracesPath}`);
  out.push("   each session cold (as in 1); truncation budget = half the session's tokens; totals are sums of per-session medians");
  out.push("   exact counter: ours only (LangChain with per-call tiktoken takes minutes on these sessions)");
  out.push(tracesTable(traceSummaries));
  out.push("");
  out.push("4) Latency: the sessions replayed through a LangGraph agent (ours) and createAgent (LangChain), a summary model on 127.0.0.1 answering after a fixed delay");
  for (const line of latency.lines) out.push(line === "" ? "" : `   ${line.replaceAll("\n", "\n   ")}`);
  out.push("");
  out.push("Targets");
  for (const target of targets) out.push(`  [${target.verdict}] ${target.id}. ${target.description}\n         ${target.detail}`);
  out.push("");
  out.push(`total wall time ${(wallTimeMs / 1000).toFixed(1)} s`);
  console.log(out.join("\n"));

  const results = {
    date: new Date().toISOString(),
    environment,
    args: { traces: args.tracesPath, runs: args.runs, quick: args.quick },
    settings: {
      seed: SEED,
      sizes: plan.sizes,
      keepRecentGroups: KEEP_RECENT_GROUPS,
      clearToolUsesEdit: { trigger: { tokens: 1 }, keep: { messages: 3 } },
      truncateMaxTokens: TRUNCATE_MAX_TOKENS,
      hardTruncateKeepRecent: KEEP_RECENT_UNBOUNDED,
      langChainExactSizes: plan.langChainExactSizes,
      langChainExactRuns: plan.langChainExactRuns,
      langChainBudgetMs: plan.langChainBudgetMs,
      perStep: plan.perStep,
    },
    synthetic: comparisons.map((c) => ({
      counter: c.counter,
      task: c.task,
      messages: c.messages,
      oursMs: c.ours.timing.medianMs,
      langchainMs: c.langchain?.timing.medianMs ?? null,
      ratio: c.ratio ?? null,
    })),
    perStep: step,
    warmStep: warm,
    traces: traceSummaries,
    latency: { settings: latencyRun.settings, sessions: latencyRun.sessions, wallMs: latencyRun.wallMs, systems: latency.systems },
    targets,
    measurements,
    wallTimeMs,
  };
  const target = join(benchDir, "results.json");
  writeFileSync(`${target}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
  log(`wrote ${target}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

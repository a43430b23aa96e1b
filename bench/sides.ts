/**
 * The two sides, timed: ours (a strategy of this package with our token counter) and LangChain's
 * counterpart (ClearToolUsesEdit or trimMessages with its counter), one full pass each, and the
 * record of every measurement that `results.json` lists.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, hardTruncate, toolResultHiding, type CompactionResult, type TokenCounter } from "../src/index.js";
import { type CompactionStrategy } from "../src/extend/index.js";
import { measure, type Timing } from "./measure.js";
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
import { KEEP_RECENT_GROUPS, KEEP_RECENT_UNBOUNDED, SEED, TASK_LABEL, type CounterKind, type Side, type Task } from "./settings.js";
import { renewMessages, syntheticHistory } from "./synthetic.js";

/** What a run produced, so readers can check both sides did the same job. */
export interface Work {
  /** hide: tool results replaced by a placeholder. */
  hidden?: number;
  /** truncate: messages kept. */
  kept?: number;
  /** Our own token figures (our counter). */
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface Measurement {
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

/** Every measurement recorded so far, in order. */
export function recordedMeasurements(): readonly Measurement[] {
  return measurements;
}

/** Adds a measurement to the record (`results.json` → `measurements`) and returns it. */
export function record(measurement: Measurement): Measurement {
  measurements.push(measurement);
  return measurement;
}

export function ourCounter(kind: CounterKind): TokenCounter {
  return kind === "exact" ? createTokenCounter() : createTokenCounter({ mode: "approximate" });
}

function theirCounter(kind: CounterKind): LangChainTokenCounter {
  return kind === "exact" ? tiktokenCounter() : langChainApproximateCounter;
}

export function ourStrategy(task: Task, tokenCounter: TokenCounter, maxTokens: number): CompactionStrategy {
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

export interface Subject {
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
export async function timeOurs(scenario: Measurement["scenario"], task: Task, kind: CounterKind, subject: Subject, runs: number): Promise<Measurement> {
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

/** How long LangChain's side is timed, and what it sees of each run's output. */
export interface TheirRunOptions {
  runs: number;
  /** Stop after about this much timed work... */
  budgetMs: number;
  /** ...but never before this many runs. @default 1 */
  minRuns?: number;
  /** Receives each run's output (ClearToolUsesEdit: the edited array). */
  keepOutput?: (messages: BaseMessage[]) => void;
}

/** LangChain, one full pass: a fresh shallow copy of the array (ClearToolUsesEdit edits it in place) made outside the timed region. */
export async function timeTheirs(
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

/** Untimed: JIT every path on a small history, and load both o200k encoders. */
export async function warmUp(): Promise<void> {
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

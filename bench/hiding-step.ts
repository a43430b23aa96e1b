/**
 * Hiding step: `toolResultHiding` with its default options (and the exact counter) in a running
 * agent whose history is over the trigger, batched: the previous step's output grows by one shell
 * call and its result (new message objects), and most steps are no-ops (what aged since the last
 * firing frees less than `clearAtLeast`). Two histories: every call repeats an earlier command
 * (`ls`: each result supersedes the one before), or every command is new. Default supersession
 * beside `supersession: false`, in the same process.
 *
 *   npx tsx bench/hiding-step.ts [--size <n>] [--steps <n>]
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, toolResultHiding } from "../src/index.js";
import { formatMs, median, renderTable, type Timing } from "./measure.js";
import { seededRandom } from "./synthetic.js";

export type HidingStepHistory = "repeated command" | "new command";
export const HIDING_STEP_HISTORIES: readonly HidingStepHistory[] = ["repeated command", "new command"];

export interface HidingStepPlan {
  size: number;
  warmupSteps: number;
  steps: number;
  seed: number;
}

export interface HidingStepRow {
  history: HidingStepHistory;
  supersession: boolean;
  timing: Timing;
  /** The same steps' process CPU time (user + system), median, ms: less moved by other processes on a shared machine. */
  cpuMedianMs: number;
  /** Steps (timed ones) that hid something. */
  firings: number;
}

export interface HidingStepResult {
  size: number;
  rows: HidingStepRow[];
}

/** A shell agent: each step one `bash` call and its result (100-1500 characters). */
class ShellAgent {
  readonly #random: () => number;
  #calls = 0;
  constructor(
    seed: number,
    private readonly history: HidingStepHistory,
  ) {
    this.#random = seededRandom(seed);
  }

  #output(): string {
    const lines: string[] = [];
    const size = Math.round(100 * Math.pow(15, this.#random()));
    let length = 0;
    while (length < size) {
      const line = `src/module_${Math.floor(this.#random() * 500)}/file_${Math.floor(this.#random() * 90)}.ts`;
      lines.push(line);
      length += line.length + 1;
    }
    return lines.join("\n");
  }

  step(): BaseMessage[] {
    this.#calls += 1;
    const id = `call_${this.#calls}`;
    const command = this.history === "repeated command" ? "ls" : `grep -rn "symbol_${this.#calls}" src/`;
    return [
      new AIMessage({ id: `ai_${this.#calls}`, content: "", tool_calls: [{ id, name: "bash", args: { command }, type: "tool_call" }] }),
      new ToolMessage({ id: `tool_${this.#calls}`, tool_call_id: id, name: "bash", content: this.#output() }),
    ];
  }

  /** A history of about `size` messages: a system message, a task, then steps. */
  start(size: number): BaseMessage[] {
    const messages: BaseMessage[] = [new SystemMessage({ id: "system", content: "You are a coding agent with a shell." }), new HumanMessage({ id: "task", content: "Find and fix the failing test." })];
    while (messages.length + 2 <= size) messages.push(...this.step());
    return messages;
  }
}

/** One setting's agent: its history, its steps to come, its strategy, and what was measured. */
class HidingRun implements Measured {
  readonly samples: number[] = [];
  readonly cpuSamples: number[] = [];
  firings = 0;
  #messages: BaseMessage[] = [];
  readonly #steps: BaseMessage[][];
  readonly #base: BaseMessage[];
  readonly #hiding;

  constructor(plan: HidingStepPlan, history: HidingStepHistory, supersession: boolean) {
    const agent = new ShellAgent(plan.seed, history);
    this.#base = agent.start(plan.size);
    this.#steps = Array.from({ length: plan.warmupSteps + plan.steps }, () => agent.step());
    this.#hiding = toolResultHiding({ tokenCounter: createTokenCounter(), ...(supersession ? {} : { supersession: false }) });
  }

  async start(): Promise<void> {
    this.#messages = (await this.#hiding.compact(this.#base)).messages;
  }

  /** Step `step`: the history grows by one call and its result; timed unless a warm-up step. */
  async step(step: number, timed: boolean): Promise<void> {
    const grown = [...this.#messages, ...this.#steps[step]!];
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await this.#hiding.compact(grown);
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    this.#messages = result.messages;
    // The model call between two steps: a turn of the event loop, untimed, in which work a step put off runs.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (result.status !== "noop" && result.status !== "compacted") throw new Error(`hiding step: expected a no-op or a compaction, got ${result.status}`);
    if (!timed) return;
    this.samples.push(elapsed);
    this.cpuSamples.push((used.user + used.system) / 1000);
    if (result.status === "compacted") this.firings += 1;
  }

}

/** What one setting's steps measured, in one process or in several. */
interface Measured {
  readonly samples: number[];
  readonly cpuSamples: number[];
  firings: number;
}

function rowOf(history: HidingStepHistory, supersession: boolean, { samples, cpuSamples, firings }: Measured, requestedRuns: number): HidingStepRow {
  const medianMs = median(samples);
  return { history, supersession, firings, cpuMedianMs: median(cpuSamples), timing: { medianMs, minMs: Math.min(...samples), maxMs: Math.max(...samples), samplesMs: samples, runs: samples.length, requestedRuns } };
}

/**
 * One setting in this process: first an untimed run on a shorter history (the process warmed as a
 * long-running agent's is: its code compiled), then its history built and `warmupSteps + steps` steps.
 */
async function runSetting(plan: HidingStepPlan, history: HidingStepHistory, supersession: boolean): Promise<Measured> {
  const warm = new HidingRun({ ...plan, size: 1000, warmupSteps: 0, steps: 200, seed: plan.seed + 1 }, history, supersession);
  await warm.start();
  for (let step = 0; step < 200; step++) await warm.step(step, false);
  const run = new HidingRun(plan, history, supersession);
  await run.start();
  for (let step = 0; step < plan.warmupSteps + plan.steps; step++) await run.step(step, step >= plan.warmupSteps);
  return { samples: run.samples, cpuSamples: run.cpuSamples, firings: run.firings };
}

/**
 * Both histories, default supersession and `supersession: false`, each setting in a process of its
 * own (as an agent runs one history: no other setting's JIT warm-up or garbage in its process), the
 * four in turn, `rounds` times; each row holds the steps of all its rounds.
 */
export async function hidingStep(plan: HidingStepPlan, rounds = 2): Promise<HidingStepResult> {
  const { execFileSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const settings = HIDING_STEP_HISTORIES.flatMap((history) => [true, false].map((supersession) => ({ history, supersession })));
  const runs = settings.map((): Measured => ({ samples: [], cpuSamples: [], firings: 0 }));
  for (let round = 0; round < rounds; round++) {
    for (const [position, { history, supersession }] of settings.entries()) {
      const args = ["--child", JSON.stringify({ plan, history, supersession })];
      const output = execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
      const measured = JSON.parse(output) as Measured;
      const run = runs[position]!;
      run.samples.push(...measured.samples);
      run.cpuSamples.push(...measured.cpuSamples);
      run.firings += measured.firings;
    }
  }
  return { size: plan.size, rows: settings.map(({ history, supersession }, position) => rowOf(history, supersession, runs[position]!, plan.steps * rounds)) };
}

/** The hiding-step table: one row per history and supersession setting. */
export function hidingStepTable(result: HidingStepResult): string {
  const rows = result.rows.map((row) => [
    `toolResultHiding(), exact o200k, ${row.history}, ${row.supersession ? "default supersession" : "supersession: false"}`,
    formatMs(row.timing.medianMs),
    formatMs(row.timing.minMs),
    formatMs(row.timing.maxMs),
    formatMs(row.cpuMedianMs),
    `${row.timing.runs} (${row.firings} fired)`,
  ]);
  return renderTable(["per compaction call", "median ms", "min ms", "max ms", "CPU median ms", "steps"], rows, new Set([1, 2, 3, 4, 5]));
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--child") {
  const { plan, history, supersession } = JSON.parse(process.argv[3]!) as { plan: HidingStepPlan; history: HidingStepHistory; supersession: boolean };
  process.stdout.write(JSON.stringify(await runSetting(plan, history, supersession)));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { size: { type: "string" }, steps: { type: "string" } } });
  const result = await hidingStep({ size: Number(values.size ?? 8000), warmupSteps: 5, steps: Number(values.steps ?? 20), seed: 42 });
  console.log(hidingStepTable(result));
}

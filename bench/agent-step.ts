/**
 * What an agent pays per model call: a `createAgent` agent (LangChain's) with `MemorySaver`, a
 * scripted model (`fakeModel`, which answers at once) and one `lookup` tool, on a thread of about
 * 3,000 messages. Each agent step (model call, tool call, their checkpoints) is timed from one tool
 * run to the next; the figure is the median over the steps. Side by side in one process, run in
 * turn, repeated: no middleware (LangGraph's own step), `compactionMiddleware(toolResultHiding())`
 * with a trigger it never reaches, with the default options (it fires: every older result is hidden
 * at the first step, then a batch when what aged frees `clearAtLeast`), the same with an
 * `InMemoryStore` (the originals of hidden results go there, not to the state's archive channel), and
 * `compactionMiddleware(autoCompaction({ contextWindow: 10_000_000, trigger: { tokens: 5_000_000 } }))`
 * (under its trigger: the default one, 60,000 tokens, would summarize this thread at once).
 *
 *   npx tsx bench/agent-step.ts [--size <n>] [--steps <n>] [--rounds <n>]
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent, type AgentMiddleware } from "langchain";
import { z } from "zod/v4";
import { autoCompaction, createTokenCounter, toolResultHiding } from "../src/index.js";
import { compactionMiddleware } from "../src/middleware/index.js";
import { formatMs, median, renderTable } from "./measure.js";
import { seededRandom } from "./synthetic.js";

export type AgentSystem = "no middleware" | "toolResultHiding, never fires" | "toolResultHiding()" | "toolResultHiding(), InMemoryStore" | "autoCompaction, under its trigger";
export const AGENT_SYSTEMS: readonly AgentSystem[] = [
  "no middleware",
  "toolResultHiding, never fires",
  "toolResultHiding()",
  "toolResultHiding(), InMemoryStore",
  "autoCompaction, under its trigger",
];

export interface AgentStepPlan {
  size: number;
  /** Timed steps per round (after one untimed step). */
  steps: number;
  /** Rounds: each runs every system once, in turn. */
  rounds: number;
  seed: number;
}

export interface AgentStepRow {
  system: AgentSystem;
  /** Every timed step of every round: wall time, ms. */
  samplesMs: number[];
  medianMs: number;
  /** The same steps' CPU time of the process (user + system), ms: less moved by other processes on a shared machine. */
  cpuSamplesMs: number[];
  cpuMedianMs: number;
  /**
   * What this system adds to the no-middleware step, wall time and CPU time: the median over rounds of
   * its round's median step over the no-middleware round's, minus 1 (paired by round).
   */
  overhead: number;
  cpuOverhead: number;
}

export interface AgentStepResult {
  size: number;
  steps: number;
  rounds: number;
  rows: AgentStepRow[];
}

export function middlewareFor(system: AgentSystem): AgentMiddleware[] {
  const tokenCounter = createTokenCounter();
  switch (system) {
    case "no middleware":
      return [];
    case "toolResultHiding, never fires":
      return [compactionMiddleware(toolResultHiding({ trigger: { tokens: 100_000_000 }, tokenCounter }))];
    case "toolResultHiding()":
    case "toolResultHiding(), InMemoryStore":
      return [compactionMiddleware(toolResultHiding({ tokenCounter }))];
    case "autoCompaction, under its trigger":
      // The default trigger (60,000 tokens) would fire on this thread: a window and a trigger above it.
      return [compactionMiddleware(autoCompaction({ contextWindow: 10_000_000, trigger: { tokens: 5_000_000 }, tokenCounter }))];
  }
}

/** The results of the lookup tool: 200-3000 characters, seeded. */
function lookupText(random: () => number, callId: string): string {
  const size = Math.round(200 * Math.pow(15, random()));
  return `lookup ${callId}: ${"row id=17 name=config value=enabled; ".repeat(Math.ceil(size / 38))}`.slice(0, size);
}

/** A thread of `size` messages: a task, then lookup calls and their results, ending on a user message. */
export function threadHistory(size: number, seed: number): BaseMessage[] {
  const random = seededRandom(seed);
  const messages: BaseMessage[] = [new HumanMessage({ id: "task", content: "Look up every setting and report." })];
  for (let n = 1; messages.length + 3 <= size; n++) {
    const id = `old${n}`;
    messages.push(new AIMessage({ id: `a-${id}`, content: "", tool_calls: [{ id, name: "lookup", args: { query: `q${n}` }, type: "tool_call" }] }));
    messages.push(new ToolMessage({ id: `t-${id}`, tool_call_id: id, name: "lookup", content: lookupText(random, id) }));
  }
  messages.push(new HumanMessage({ id: "go-on", content: "Go on." }));
  return messages;
}

/** One round of one system: a new thread, `steps + 2` lookups then an answer; the wall and CPU times between lookups. */
export async function agentRound(plan: AgentStepPlan, system: AgentSystem, round: number): Promise<{ wall: number[]; cpu: number[] }> {
  const random = seededRandom(plan.seed + round);
  const model = fakeModel();
  for (let n = 1; n <= plan.steps + 2; n++) model.respond(new AIMessage({ id: `a${n}`, content: "", tool_calls: [{ id: `c${n}`, name: "lookup", args: { query: `new ${n}` }, type: "tool_call" }] }));
  model.respond(new AIMessage({ id: "final", content: "done" }));
  const stamps: number[] = [];
  const cpuStamps: number[] = [];
  const lookup = tool(
    async (_args: unknown, config) => {
      stamps.push(performance.now());
      const cpu = process.cpuUsage();
      cpuStamps.push((cpu.user + cpu.system) / 1000);
      const callId = config.toolCall!.id!;
      return new ToolMessage({ id: `t-${callId}`, tool_call_id: callId, name: "lookup", content: lookupText(random, callId) });
    },
    { name: "lookup", description: "look something up", schema: z.object({ query: z.string().optional() }) },
  );
  // Without a store the originals of hidden results go to the state's archive channel, which every checkpoint serializes; with one, to the store.
  const store = system === "toolResultHiding(), InMemoryStore" ? { store: new InMemoryStore() } : {};
  const agent = createAgent({ model, tools: [lookup], middleware: middlewareFor(system), checkpointer: new MemorySaver(), ...store });
  await agent.invoke({ messages: threadHistory(plan.size, plan.seed) }, { configurable: { thread_id: `${system}-${round}` }, recursionLimit: 4 * plan.steps + 20 });
  // The first interval holds the first step's work (a first firing, a first count): left out.
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let step = 2; step < stamps.length; step++) {
    wall.push(stamps[step]! - stamps[step - 1]!);
    cpu.push(cpuStamps[step]! - cpuStamps[step - 1]!);
  }
  return { wall, cpu };
}

/** Every system, `rounds` times in turn (round `r` starts with the `r`-th system). */
export async function agentStep(plan: AgentStepPlan, log: (line: string) => void = () => undefined): Promise<AgentStepResult> {
  const samples = new Map<AgentSystem, { wall: number[]; cpu: number[]; roundWall: number[]; roundCpu: number[] }>(AGENT_SYSTEMS.map((system) => [system, { wall: [], cpu: [], roundWall: [], roundCpu: [] }]));
  for (let round = 0; round < plan.rounds; round++) {
    // Each round starts with another system: none always pays for what the round before left to collect.
    for (const system of [...AGENT_SYSTEMS.slice(round % AGENT_SYSTEMS.length), ...AGENT_SYSTEMS.slice(0, round % AGENT_SYSTEMS.length)]) {
      const { wall, cpu } = await agentRound(plan, system, round);
      const all = samples.get(system)!;
      all.wall.push(...wall);
      all.cpu.push(...cpu);
      all.roundWall.push(median(wall));
      all.roundCpu.push(median(cpu));
      log(`  agent step, round ${round + 1}, ${system}: ${formatMs(median(all.wall))} ms (CPU ${formatMs(median(all.cpu))} ms) so far`);
    }
  }
  const base = samples.get("no middleware")!;
  // Paired by round: each round's median over the no-middleware median of the same round, then the median of those ratios (a load that drifts over minutes moves both sides of a pair).
  const pairedOverhead = (mine: number[], theirs: number[]) => median(mine.map((value, round) => value / theirs[round]!)) - 1;
  const rows = AGENT_SYSTEMS.map((system) => {
    const { wall, cpu, roundWall, roundCpu } = samples.get(system)!;
    return { system, samplesMs: wall, medianMs: median(wall), cpuSamplesMs: cpu, cpuMedianMs: median(cpu), overhead: pairedOverhead(roundWall, base.roundWall), cpuOverhead: pairedOverhead(roundCpu, base.roundCpu) };
  });
  return { size: plan.size, steps: plan.steps, rounds: plan.rounds, rows };
}

/** The per-call table: one row per system, with what it adds to the agent's own step. */
export function agentStepTable(result: AgentStepResult): string {
  const percent = (share: number) => `${share >= 0 ? "+" : ""}${(100 * share).toFixed(1)}%`;
  const rows = result.rows.map((row) => [
    `createAgent + MemorySaver, ${row.system}`,
    formatMs(row.medianMs),
    row.system === "no middleware" ? "—" : percent(row.overhead),
    formatMs(row.cpuMedianMs),
    row.system === "no middleware" ? "—" : percent(row.cpuOverhead),
    String(row.samplesMs.length),
  ]);
  return renderTable(["per model call", "median ms", "vs none", "CPU ms", "CPU vs none", "steps"], rows, new Set([1, 2, 3, 4, 5]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { size: { type: "string" }, steps: { type: "string" }, rounds: { type: "string" } } });
  const result = await agentStep(
    { size: Number(values.size ?? 3000), steps: Number(values.steps ?? 20), rounds: Number(values.rounds ?? 5), seed: 42 },
    (line) => process.stderr.write(`${line}\n`),
  );
  console.log(agentStepTable(result));
}

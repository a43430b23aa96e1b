/**
 * The compaction's time per step in one process with nothing else running: every public trace
 * replayed as an agent loop through `autoCompaction` (the history grows by the recorded messages
 * before each model call, a compaction's output replaces it), a pause standing for the model call
 * after each step (work the policy leaves to after a step runs there), each step timed with its
 * kind. What `npm run bench:scale` measures under contention, without it. With the offline summary
 * model, each step's CPU is also given without the time the step spent inside the model's `invoke`
 * (a summary the step had to wait for): the node's own work, as issue-style targets that exclude
 * the summary model's time read it.
 *
 *   npx tsx bench/compacting-steps.ts [--window 8000] [--model-ms 30] [--summary-model offline]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { BaseMessage } from "@langchain/core/messages";
import { autoCompaction, createTokenCounter } from "../src/index.js";
import { defaultTracesPath, loadTraceSessions } from "../examples/traces.js";
import { DeterministicSummaryModel } from "./eval/summary-model.js";
import { percentile } from "./scale/scenario.js";

const { values: flags } = parseArgs({ options: { window: { type: "string", default: "8000" }, "model-ms": { type: "string", default: "30" }, "summary-model": { type: "string" } } });
const window = Number(flags.window);
const modelMs = Number(flags["model-ms"]);
if (flags["summary-model"] !== undefined && flags["summary-model"] !== "offline") throw new Error(`--summary-model must be "offline" (got ${flags["summary-model"]})`);

/** CPU spent inside the summary model's `invoke`, all steps and background work together (ms). */
let summaryModelCpu = 0;
/** The offline summary model, its `invoke` timed in process CPU. */
class TimedSummaryModel extends DeterministicSummaryModel {
  override async invoke(...args: Parameters<DeterministicSummaryModel["invoke"]>) {
    const started = process.cpuUsage();
    try {
      return await super.invoke(...args);
    } finally {
      const used = process.cpuUsage(started);
      summaryModelCpu += (used.user + used.system) / 1000;
    }
  }
}

const tokenCounter = createTokenCounter();
const times = { idle: [] as number[], compacting: [] as number[] };
/** The process's CPU time per step (user and system, ms): what the step cost whatever else the machine ran. */
const cpu = { idle: [] as number[], compacting: [] as number[] };
/** The CPU time per step less what the summary model took during it. */
const ownCpu = { idle: [] as number[], compacting: [] as number[] };
/** Steps during which the summary model ran: a summary the step waited for (or background work that landed in it). */
let stepsWithModel = 0;
for (const session of loadTraceSessions(defaultTracesPath())) {
  const policy = autoCompaction({
    contextWindow: window,
    tokenCounter,
    ...(flags["summary-model"] ? { summaryModel: new TimedSummaryModel({ tokenCounter }) } : {}),
  });
  let history: BaseMessage[] = [];
  let added = 0;
  for (let position = 0; position < session.messages.length; position++) {
    if (session.messages[position]!.getType() !== "ai") continue;
    history = [...history, ...session.messages.slice(added, position)];
    added = position;
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const modelCpuBefore = summaryModelCpu;
    const result = await policy.compact(history, { threadId: session.id });
    const ms = performance.now() - started;
    const cpuUsed = process.cpuUsage(cpuStarted);
    const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
    const kind = result.status === "noop" ? "idle" : "compacting";
    times[kind].push(ms);
    cpu[kind].push(cpuMs);
    ownCpu[kind].push(cpuMs - (summaryModelCpu - modelCpuBefore));
    if (summaryModelCpu > modelCpuBefore) stepsWithModel++;
    if (result.status !== "noop") history = result.messages;
    await new Promise((resolve) => setTimeout(resolve, modelMs));
  }
}
const figures = (samples: number[]) => `${samples.length} steps, p50 ${percentile(samples, 0.5).toFixed(2)} / p90 ${percentile(samples, 0.9).toFixed(2)} / p99 ${percentile(samples, 0.99).toFixed(2)} ms`;
console.log(`window ${window}, model calls ${modelMs} ms, summary model: ${flags["summary-model"] ?? "none (no-model snapshot in the step)"}`);
console.log(`idle:       ${figures(times.idle)}`);
console.log(`compacting: ${figures(times.compacting)}`);
console.log(`all:        ${figures([...times.idle, ...times.compacting])}`);
console.log("CPU time per step:");
console.log(`idle:       ${figures(cpu.idle)}`);
console.log(`compacting: ${figures(cpu.compacting)}`);
console.log(`all:        ${figures([...cpu.idle, ...cpu.compacting])}`);
if (flags["summary-model"]) {
  console.log("CPU time per step, less the summary model's (the steps that waited for a summary):");
  console.log(`idle:       ${figures(ownCpu.idle)}`);
  console.log(`compacting: ${figures(ownCpu.compacting)}`);
  console.log(`all:        ${figures([...ownCpu.idle, ...ownCpu.compacting])}`);
  console.log(`steps during which the summary model ran: ${stepsWithModel}`);
}

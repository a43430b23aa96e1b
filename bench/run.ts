/**
 * Benchmark: this package's strategies against their LangChain.js counterparts, side by side, in one
 * process. Not a test (vitest only collects test/**\/*.test.ts).
 *
 *   npx tsx bench/run.ts [--traces <path.jsonl>] [--runs <n>] [--quick]
 *
 * Prints the tables and the target verdicts and writes bench/results.json. See bench/README.md.
 */
import { performance } from "node:perf_hooks";
import { loadTraceSessions } from "../examples/traces.js";
import { runLatencyInProcesses } from "./latency/processes.js";
import { latencyPlanFor, latencyReport } from "./latency/run.js";
import { longThreadBench } from "./long-thread.js";
import { formatMs, gcAvailable } from "./measure.js";
import { perStep } from "./per-step.js";
import { reportText } from "./report.js";
import { benchEnvironment, writeResults, type BenchRun } from "./results.js";
import { SEED, parseCli, planFor } from "./settings.js";
import { warmUp } from "./sides.js";
import { syntheticFullPass, syntheticSubjects } from "./synthetic-pass.js";
import { evaluateTargets, type TargetVerdict } from "./targets.js";
import { tracePass } from "./trace-pass.js";
import { warmStep } from "./warm-step.js";
import { agentStep } from "./agent-step.js";
import { hidingStep } from "./hiding-step.js";
import { hidingVariants } from "./hiding-variants.js";
import { evaluateStepTargets } from "./step-targets.js";

async function main(): Promise<void> {
  const started = performance.now();
  const args = parseCli();
  const plan = planFor(args);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const environment = benchEnvironment();
  log(`node ${environment.node}, ${environment.cpu}, gc ${gcAvailable ? "exposed" : "not exposed"}; runs ${plan.runs}${args.quick ? " (quick)" : ""}`);

  const subjects = syntheticSubjects(plan);
  log("warming up ...");
  await warmUp();
  const { comparisons, cleared } = await syntheticFullPass(plan, subjects, log);
  log("full pass around the defaults (supersession: false, receipts: true) ...");
  const variants = await hidingVariants(plan, subjects, comparisons);
  log(`running agent, per step at ${plan.perStep.size} messages ...`);
  const step = await perStep(plan, cleared, log);
  log(`warm steps (no compaction needed) at ${plan.perStep.size} messages ...`);
  const warm = await warmStep({ size: plan.perStep.size, warmupSteps: plan.perStep.warmupSteps, steps: plan.perStep.steps, seed: SEED });
  log(`  warm step, autoCompaction exact: ${formatMs(warm.exact.autoCompaction.medianMs)} ms`);
  log(`hiding steps over the trigger at ${plan.perStep.size} messages ...`);
  const hiding = await hidingStep({ size: plan.perStep.size, warmupSteps: plan.perStep.warmupSteps, steps: plan.hidingSteps, seed: SEED });
  log(`agent steps: createAgent + MemorySaver at ${plan.agent.size} messages ...`);
  const agent = await agentStep({ ...plan.agent, seed: SEED }, log);
  log(`traces from ${args.tracesPath} ...`);
  const sessions = loadTraceSessions(args.tracesPath);
  const traceSummaries = await tracePass(plan, sessions, log);
  const latencyPlan = latencyPlanFor(args.tracesPath, args.quick);
  log(`latency: ${latencyPlan.source.sessionIds.length} sessions, blocking vs prepared summaries vs summarizationMiddleware, one process each, one at a time ...`);
  const latencyRun = await runLatencyInProcesses(latencyPlan.source, latencyPlan.settings, log);
  const latency = latencyReport(latencyRun);
  await longThreadBench(log);
  const targets: TargetVerdict[] = [...evaluateTargets(comparisons, step, warm), { id: 6, ...latency.verdict }, ...evaluateStepTargets(hiding, variants, agent)];
  const wallTimeMs = performance.now() - started;

  const run: BenchRun = { environment, args, plan, comparisons, variants, step, warm, hiding, agent, traceSummaries, latencyRun, latency, targets, wallTimeMs };
  console.log(reportText(run, sessions.length));
  log(`wrote ${writeResults(run)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * What `results.json` records besides the figures: the environment (node, CPU, the commit measured,
 * the LangChain versions), and the writing of the file itself.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { arch, cpus, platform, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LatencyRun } from "./latency/scenario.js";
import type { latencyReport } from "./latency/run.js";
import { gcAvailable } from "./measure.js";
import type { PerStepResult } from "./per-step.js";
import { KEEP_RECENT_GROUPS, KEEP_RECENT_UNBOUNDED, SEED, TRUNCATE_MAX_TOKENS, type CliArgs, type Plan } from "./settings.js";
import { recordedMeasurements } from "./sides.js";
import type { Comparison } from "./synthetic-pass.js";
import type { TargetVerdict } from "./targets.js";
import type { TraceSummary } from "./trace-pass.js";
import type { WarmStepResult } from "./warm-step.js";
import type { AgentStepResult } from "./agent-step.js";
import type { HidingStepResult } from "./hiding-step.js";
import type { HidingVariantsResult } from "./hiding-variants.js";

const benchDir = dirname(fileURLToPath(import.meta.url));
const projectRoot = resolve(benchDir, "..");

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

/** The machine, node, the commit measured and the versions of the LangChain packages compared. */
export function benchEnvironment() {
  const cpuList = cpus();
  return {
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
}

export type BenchEnvironment = ReturnType<typeof benchEnvironment>;

/** Everything one run of the benchmark measured. */
export interface BenchRun {
  environment: BenchEnvironment;
  args: CliArgs;
  plan: Plan;
  comparisons: readonly Comparison[];
  variants: HidingVariantsResult;
  step: PerStepResult;
  warm: WarmStepResult;
  hiding: HidingStepResult;
  agent: AgentStepResult;
  traceSummaries: readonly TraceSummary[];
  latencyRun: LatencyRun;
  latency: ReturnType<typeof latencyReport>;
  targets: readonly TargetVerdict[];
  wallTimeMs: number;
}

/**
 * Writes bench/results.json (through a temporary file, renamed): the run's settings, every figure,
 * every measurement recorded and the target verdicts. Returns the file's path.
 */
export function writeResults(run: BenchRun): string {
  const { environment, args, plan, comparisons, variants, step, warm, hiding, agent, traceSummaries, latencyRun, latency, targets, wallTimeMs } = run;
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
      hidingSteps: plan.hidingSteps,
      agent: plan.agent,
    },
    synthetic: comparisons.map((c) => ({
      counter: c.counter,
      task: c.task,
      messages: c.messages,
      oursMs: c.ours.timing.medianMs,
      langchainMs: c.langchain?.timing.medianMs ?? null,
      ratio: c.ratio ?? null,
    })),
    hidingVariants: variants,
    perStep: step,
    warmStep: warm,
    hidingStep: hiding,
    agentStep: agent,
    traces: traceSummaries,
    latency: { settings: latencyRun.settings, sessions: latencyRun.sessions, wallMs: latencyRun.wallMs, systems: latency.systems },
    targets,
    measurements: recordedMeasurements(),
    wallTimeMs,
  };
  const target = join(benchDir, "results.json");
  writeFileSync(`${target}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
  return target;
}

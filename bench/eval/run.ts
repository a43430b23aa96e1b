/**
 * The evaluation on real traces (issue 5): every system replayed over every recorded session at
 * each window, side by side, in one process. Not a test.
 *
 *   npm run eval -- [--traces <file.jsonl>] [--window <tokens>[,<tokens>...]]... [--out <dir>]
 *                   [--summary-model <name>] [--price-input <n>] [--price-cached <n>] [--price-output <n>]
 *                   [--trace <id>]... [--chart-trace <id>] [--variant <json>]... [--probe-compactions <n>|all] [--quiet]
 *
 * Writes <out>/EVAL.md, <out>/eval-results.json and <out>/eval-chart.svg (default out: bench/).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { arch, cpus, platform } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { autoCompaction, createTokenCounter, type AutoCompactionOptions, type TokenCounter } from "../../src/index.js";
import { defaultTracesPath, loadTraceSessions, type TraceSession } from "../../examples/traces.js";
import { DEFAULT_PRICES, type Prices } from "./metrics.js";
import { aggregateProbeResults, generateProbes, judgeFromEnvironment, runProbes, type ProbeResult } from "./probes.js";
import { EMPTY_TOTALS, addTotals, replayTrace, totalsOf, type ReplayTotals, type TraceReplay } from "./replay.js";
import {
  goalMatrix,
  renderChart,
  renderMarkdown,
  rowOf,
  systemsMeetingAllGoals,
  traceSourceOf,
  type ChartSeries,
  type EvalReport,
  type ProbeSection,
  type WindowResult,
} from "./report.js";
import { DETERMINISTIC_SUMMARY_MAX_TOKENS, DeterministicSummaryModel } from "./summary-model.js";
import { ALL_SYSTEMS, CONTEXT_EDITING_SYSTEMS, RECOMMENDED_DEFAULT, ours, type SystemSpec } from "./systems.js";

const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const projectRoot = resolve(benchDir, "..");

/** Issue 5's default windows. */
export const DEFAULT_WINDOWS: readonly number[] = [16_000, 32_000, 64_000];
/** The window of the chart (issue 5: 16 000), or the smallest window run. */
const CHART_WINDOW = 16_000;
const DEFAULT_SUMMARY_MODEL = "gpt-4o-mini";

interface CliArgs {
  tracesPath: string;
  windows: number[];
  out: string;
  summaryModel: string;
  prices: Prices;
  traces: string[];
  chartTrace: string | undefined;
  variants: AutoCompactionOptions[];
  probeCompactions: number;
  quiet: boolean;
}

const USAGE =
  "usage: npm run eval -- [--traces <file.jsonl>] [--window <tokens>[,<tokens>]]... [--out <dir>] [--summary-model <name>]\n" +
  "                       [--price-input <n>] [--price-cached <n>] [--price-output <n>] [--trace <id>]... [--chart-trace <id>]\n" +
  "                       [--variant <autoCompaction options as JSON>]... [--probe-compactions <n>|all] [--quiet]";

/** A mistake in the command line: reported with the usage, exit code 2. */
class UsageError extends Error {}

/** `text` as a number: "positive integer" (e.g. a window), "non-negative integer" (a count), or "non-negative number" (a price). */
function numberArg(flag: string, text: string, kind: "positive integer" | "non-negative integer" | "non-negative number"): number {
  const value = text.trim() === "" ? Number.NaN : Number(text.replace(/_/g, ""));
  const valid = Number.isFinite(value) && value >= 0 && (kind === "non-negative number" || Number.isInteger(value)) && (kind !== "positive integer" || value > 0);
  if (!valid) throw new UsageError(`${flag} must be a ${kind}, got "${text}"`);
  return value;
}

function parseCli(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    // node:util's parseArgs throws a TypeError (code ERR_PARSE_ARGS_*) for an unknown flag or a missing value.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return parseCliValues(parsed.values);
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      traces: { type: "string" },
      window: { type: "string", multiple: true },
      out: { type: "string" },
      "summary-model": { type: "string" },
      "price-input": { type: "string" },
      "price-cached": { type: "string" },
      "price-output": { type: "string" },
      trace: { type: "string", multiple: true },
      "chart-trace": { type: "string" },
      variant: { type: "string", multiple: true },
      "probe-compactions": { type: "string" },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
}

function parseCliValues(values: ReturnType<typeof parseOptions>["values"]): CliArgs {
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const windows = (values.window ?? []).flatMap((value) => value.split(",")).filter((value) => value.trim() !== "").map((value) => numberArg("--window", value.trim(), "positive integer"));
  const variants = (values.variant ?? []).map((text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`--variant must be a JSON object of autoCompaction options, got ${text}`);
    return parsed as AutoCompactionOptions;
  });
  return {
    tracesPath: resolve(values.traces ?? defaultTracesPath()),
    windows: windows.length > 0 ? [...new Set(windows)].sort((a, b) => a - b) : [...DEFAULT_WINDOWS],
    out: resolve(values.out ?? benchDir),
    summaryModel: values["summary-model"] ?? DEFAULT_SUMMARY_MODEL,
    prices: {
      input: values["price-input"] === undefined ? DEFAULT_PRICES.input : numberArg("--price-input", values["price-input"], "non-negative number"),
      cached: values["price-cached"] === undefined ? DEFAULT_PRICES.cached : numberArg("--price-cached", values["price-cached"], "non-negative number"),
      output: values["price-output"] === undefined ? DEFAULT_PRICES.output : numberArg("--price-output", values["price-output"], "non-negative number"),
    },
    traces: values.trace ?? [],
    chartTrace: values["chart-trace"],
    variants,
    // Issue 5: probes after each compaction; a number caps the compactions probed per trace and system (a judge costs money).
    probeCompactions:
      values["probe-compactions"] === undefined || values["probe-compactions"] === "all"
        ? Number.POSITIVE_INFINITY
        : numberArg("--probe-compactions", values["probe-compactions"], "non-negative integer"),
    quiet: values.quiet === true,
  };
}

/** The summary model: ChatOpenAI with a key, else the deterministic one. */
async function summaryModelFor(args: CliArgs, tokenCounter: TokenCounter): Promise<{ model: BaseChatModel; description: string }> {
  const apiKey = process.env["OPENAI_API_KEY"]?.trim();
  if (apiKey) {
    const { ChatOpenAI } = await import("@langchain/openai");
    const baseURL = process.env["OPENAI_BASE_URL"]?.trim();
    const model = new ChatOpenAI({ model: args.summaryModel, apiKey, maxTokens: 1000, ...(baseURL ? { configuration: { baseURL } } : {}) });
    return { model: model as unknown as BaseChatModel, description: `ChatOpenAI ${args.summaryModel} (OPENAI_API_KEY set), for every summarizing system` };
  }
  return {
    model: new DeterministicSummaryModel({ tokenCounter }),
    description:
      `offline deterministic model (bench/eval/summary-model.ts) for every summarizing system, LangChain's included: ` +
      `the package's no-model <state_snapshot> and artifact index of the conversation in the prompt text, capped at ${DETERMINISTIC_SUMMARY_MAX_TOKENS} tokens`,
  };
}

/** The commit measured and whether src/ or bench/ had uncommitted changes. */
function sourceRevision(): { commit: string; modified: boolean | "unknown" } {
  try {
    const git = (...gitArgs: string[]) => execFileSync("git", gitArgs, { cwd: projectRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return { commit: git("rev-parse", "--short", "HEAD"), modified: git("status", "--porcelain", "--", "src", "bench/eval") !== "" };
  } catch {
    return { commit: "unknown", modified: "unknown" };
  }
}

function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** A variant of our recommended default with some options changed, reported as its own row. */
function variantSystem(options: AutoCompactionOptions): SystemSpec {
  return ours(`${RECOMMENDED_DEFAULT} ${JSON.stringify(options)}`, ({ window, tokenCounter, model }) =>
    autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, ...options }),
  );
}

function selectTraces(sessions: readonly TraceSession[], filters: readonly string[]): TraceSession[] {
  if (filters.length === 0) return [...sessions];
  const selected = sessions.filter((session) => filters.some((filter) => session.id === filter || session.id.includes(filter)));
  if (selected.length === 0) throw new UsageError(`--trace ${filters.join(", ")}: no session matches`);
  return selected;
}

/** The session `--chart-trace` names (exact id, else the first id containing it), or the longest session. */
function chartTraceOf(sessions: readonly TraceSession[], filter: string | undefined): TraceSession {
  if (filter === undefined) return sessions.reduce((longest, session) => (session.messages.length > longest.messages.length ? session : longest));
  const chosen = sessions.find((session) => session.id === filter) ?? sessions.find((session) => session.id.includes(filter));
  if (!chosen) throw new UsageError(`--chart-trace ${filter}: no session of the selected traces matches`);
  return chosen;
}

async function main(): Promise<void> {
  const started = performance.now();
  const argv = process.argv.slice(2);
  const args = parseCli(argv);
  const log = (line: string) => {
    if (!args.quiet) process.stderr.write(`${line}\n`);
  };
  const tokenCounter = createTokenCounter();
  const summary = await summaryModelFor(args, tokenCounter);
  const sessions = selectTraces(loadTraceSessions(args.tracesPath), args.traces);
  const chartTrace = chartTraceOf(sessions, args.chartTrace);
  const chartWindow = args.windows.includes(CHART_WINDOW) ? CHART_WINDOW : args.windows[0]!;
  const systems = [...ALL_SYSTEMS, ...args.variants.map(variantSystem)];
  const judge = judgeFromEnvironment();
  const probesOn = !("skipped" in judge) && args.probeCompactions > 0;
  log(`${sessions.length} traces, windows ${args.windows.join(", ")}, ${systems.length} systems; summarizer: ${summary.description}`);

  const windows: WindowResult[] = [];
  const perTrace: { window: number; trace: string; system: string; totals: ReplayTotals }[] = [];
  const chartSeries: ChartSeries[] = [];
  const probeResults = new Map<string, ProbeResult[]>();
  let steps = 0;
  for (const window of args.windows) {
    const totals = new Map<string, ReplayTotals>(systems.map((system) => [system.name, EMPTY_TOTALS]));
    // Per trace source, then per system (sources in the order the traces first show them).
    const sourceTotals = new Map<string, Map<string, ReplayTotals>>();
    for (const session of sessions) {
      const source = traceSourceOf(session.id);
      if (!sourceTotals.has(source)) sourceTotals.set(source, new Map(systems.map((system) => [system.name, EMPTY_TOTALS])));
      const bySystem = sourceTotals.get(source)!;
      const traceStarted = performance.now();
      for (const spec of systems) {
        let probedCompactions = 0;
        const probeKey = `${window}\u0000${spec.name}`;
        const replay: TraceReplay = await replayTrace(session, spec.create({ window, tokenCounter, summaryModel: summary.model }), {
          window,
          tokenCounter,
          ...(probesOn && spec.kind !== "baseline"
            ? {
                onCompaction: async (event) => {
                  if (probedCompactions >= args.probeCompactions || "skipped" in judge) return;
                  probedCompactions++;
                  const probes = generateProbes({ originals: event.originals, history: event.history, perKind: 1 });
                  const results = await runProbes({ answerModel: judge.answerModel, judgeModel: judge.judgeModel, context: event.context, probes });
                  probeResults.set(probeKey, [...(probeResults.get(probeKey) ?? []), ...results]);
                },
              }
            : {}),
        });
        const replayTotals = totalsOf(replay);
        totals.set(spec.name, addTotals(totals.get(spec.name)!, replayTotals));
        bySystem.set(spec.name, addTotals(bySystem.get(spec.name)!, replayTotals));
        perTrace.push({ window, trace: session.id, system: spec.name, totals: replayTotals });
        if (window === chartWindow && session === chartTrace) {
          chartSeries.push({
            system: spec.name,
            inputTokens: replay.steps.map((step) => step.inputTokens),
            compactions: replay.steps.flatMap((step, index) => (step.compacted ? [index] : [])),
          });
        }
        if (window === args.windows[0] && spec === systems[0]) steps += replay.steps.length;
      }
      log(`  window ${window}: ${session.id} (${session.messages.length} messages) ${((performance.now() - traceStarted) / 1000).toFixed(1)} s`);
    }
    windows.push({
      window,
      rows: systems.map((spec) => rowOf(spec.name, spec.kind, totals.get(spec.name)!, args.prices)),
      sources: [...sourceTotals].map(([source, bySystem]) => ({ source, rows: systems.map((spec) => rowOf(spec.name, spec.kind, bySystem.get(spec.name)!, args.prices)) })),
    });
  }

  const probes: ProbeSection =
    "skipped" in judge
      ? { skipped: judge.skipped }
      : args.probeCompactions === 0
        ? { skipped: "--probe-compactions 0" }
        : {
            judge: judge.name,
            compactionsProbed: args.probeCompactions,
            rows: [...probeResults].map(([key, results]) => {
              const [window, system] = key.split("\u0000") as [string, string];
              const aggregate = aggregateProbeResults(results);
              return { window: Number(window), system, count: aggregate.count, unscored: aggregate.unscored, overall: aggregate.overall, byKind: aggregate.byKind, byDimension: aggregate.byDimension };
            }),
          };

  mkdirSync(args.out, { recursive: true });
  const chartFile = "eval-chart.svg";
  writeAtomically(
    join(args.out, chartFile),
    renderChart({ title: `Input tokens per model call: ${chartTrace.id}, window ${chartWindow.toLocaleString("en-US")}`, window: chartWindow, series: chartSeries }),
  );
  const revision = sourceRevision();
  const cpuList = cpus();
  const report: EvalReport = {
    command: `npm run eval${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`,
    date: new Date().toISOString(),
    commit: revision.commit,
    sourceModified: revision.modified,
    environment: `node ${process.version}, ${platform()} ${arch()}, ${cpuList[0]?.model ?? "unknown"} × ${cpuList.length}`,
    tracesPath: relative(projectRoot, args.tracesPath) || args.tracesPath,
    traceCount: sessions.length,
    steps,
    summarizer: summary.description,
    prices: args.prices,
    windows,
    recommended: RECOMMENDED_DEFAULT,
    contextEditing: CONTEXT_EDITING_SYSTEMS,
    probes,
    chart: { file: chartFile, trace: chartTrace.id, window: chartWindow },
    wallTimeMs: performance.now() - started,
  };
  const markdown = renderMarkdown(report);
  writeAtomically(join(args.out, "EVAL.md"), markdown);
  const goals = goalMatrix(report);
  // Pretty at the top; one line per trace row and per chart line, so the file stays small and diffable.
  const summaryJson = JSON.stringify(
    {
      ...report,
      goals: Object.fromEntries([...goals].map(([system, byWindow]) => [system, Object.fromEntries(byWindow)])),
      systemsMeetingAllGoals: systemsMeetingAllGoals(report),
    },
    null,
    2,
  );
  const lines = (items: readonly unknown[]) => `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}\n  ]`;
  writeAtomically(
    join(args.out, "eval-results.json"),
    `${summaryJson.slice(0, -2)},\n  "perTrace": ${lines(perTrace)},\n  "chartSeries": ${lines(chartSeries)}\n}\n`,
  );
  if (!args.quiet) console.log(markdown);
  log(`wrote ${join(args.out, "EVAL.md")}, eval-results.json, ${chartFile} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});

/**
 * The evaluation on real traces: every system replayed over every recorded session at each window,
 * side by side, in one process. Not a test. Flags: see `USAGE` in cli.ts.
 *
 * Writes <out>/EVAL.md, <out>/eval-results.json, <out>/eval-chart.svg and one
 * <out>/eval-cost-retention-<window>.svg and eval-cost-grounding-<window>.svg per window; with
 * `--frontier`, also the sweep of frontier.ts and one <out>/eval-frontier-<window>.svg per window.
 * Without `--out`, <out> is a new temporary folder, printed on stderr: the repository's committed
 * report (bench/) is written only when asked (`--out bench`, or `npm run eval:commit`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { arch, cpus, platform, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createTokenCounter, type TokenCounter } from "../../src/index.js";
import { loadTraceSessions, type TraceSession } from "../../examples/traces.js";
import { USAGE, UsageError, parseCli, selectSystems, type CliArgs } from "./cli.js";
import { aggregateProbeResults, generateProbes, judgeFromEnvironment, runProbes, type ProbeResult } from "./probes.js";
import { EMPTY_TOTALS, addTotals, replayTrace, totalsOf, type ReplayTotals, type TraceReplay } from "./replay.js";
import { renderChart, renderCostRetentionChart, type ChartSeries } from "./report-charts.js";
import { goalMatrix, systemsMeetingAllGoals } from "./report-goals.js";
import { renderFrontierChart } from "./frontier-chart.js";
import { runFrontier } from "./frontier-run.js";
import { presetCostsOf, priceSetsOf, rowOf, traceSourceOf, withRecallRows } from "./report-tables.js";
import { renderMarkdown, type EvalReport, type ProbeSection, type WindowResult } from "./report.js";
import { DETERMINISTIC_SUMMARY_MAX_TOKENS, DeterministicSummaryModel } from "./summary-model.js";
import { ALL_SYSTEMS, RECALL_REPLAYS, RECALL_SYSTEMS } from "./systems.js";

const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const projectRoot = resolve(benchDir, "..");

/** The window of the input-tokens chart (16 000), or the smallest window run. */
const CHART_WINDOW = 16_000;

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
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const priceSets = priceSetsOf(args.prices);
  const log = (line: string) => {
    if (!args.quiet) process.stderr.write(`${line}\n`);
  };
  const tokenCounter = createTokenCounter();
  const summary = await summaryModelFor(args, tokenCounter);
  const sessions = selectTraces(loadTraceSessions(args.tracesPath), args.traces);
  const chartTrace = chartTraceOf(sessions, args.chartTrace);
  const chartWindow = args.windows.includes(CHART_WINDOW) ? CHART_WINDOW : args.windows[0]!;
  const systems = selectSystems(ALL_SYSTEMS, args.systems, args.variants);
  // The rows with recall on replay their system as it runs with the recall tool.
  const recallReplays = systems.flatMap((spec) => {
    const replay = RECALL_SYSTEMS.includes(spec.name) ? RECALL_REPLAYS.get(spec.name) : undefined;
    return replay === undefined ? [] : [{ system: spec.name, spec: replay }];
  });
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
    const recallTotals = new Map<string, ReplayTotals>(recallReplays.map(({ system }) => [system, EMPTY_TOTALS]));
    const recallSourceTotals = new Map<string, Map<string, ReplayTotals>>();
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
      if (!recallSourceTotals.has(source)) recallSourceTotals.set(source, new Map(recallReplays.map(({ system }) => [system, EMPTY_TOTALS])));
      for (const { system, spec } of recallReplays) {
        const replayTotals = totalsOf(await replayTrace(session, spec.create({ window, tokenCounter, summaryModel: summary.model }), { window, tokenCounter }));
        recallTotals.set(system, addTotals(recallTotals.get(system)!, replayTotals));
        recallSourceTotals.get(source)!.set(system, addTotals(recallSourceTotals.get(source)!.get(system)!, replayTotals));
      }
      log(`  window ${window}: ${session.id} (${session.messages.length} messages) ${((performance.now() - traceStarted) / 1000).toFixed(1)} s`);
    }
    // The default and the frugal setting once more with recall on: replayed as they run with the recall tool, priced with recalls.
    const rowsOf = (byName: ReadonlyMap<string, ReplayTotals>, withRecall: ReadonlyMap<string, ReplayTotals>) =>
      withRecallRows(
        systems.map((spec) => rowOf(spec.name, spec.kind, byName.get(spec.name)!, args.prices)),
        RECALL_SYSTEMS,
        args.prices,
        withRecall,
      );
    const rows = rowsOf(totals, recallTotals);
    windows.push({
      window,
      rows,
      presetCosts: presetCostsOf(rows, priceSets),
      sources: [...sourceTotals].map(([source, bySystem]) => ({ source, rows: rowsOf(bySystem, recallSourceTotals.get(source)!) })),
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

  const frontier = args.frontier ? await runFrontier({ sessions, headline: windows, tokenCounter, summaryModel: summary.model, prices: args.prices, priceSets, log }) : undefined;

  // A new folder unless one is named: a run never overwrites the committed report by default.
  const out = args.out ?? mkdtempSync(join(tmpdir(), "langchain-compaction-eval-"));
  mkdirSync(out, { recursive: true });
  const frontierCharts = (frontier?.windows ?? []).map((frontierAt) => {
    const file = `eval-frontier-${frontierAt.window}.svg`;
    writeAtomically(
      join(out, file),
      renderFrontierChart({ title: `Cost with re-reads vs reply grounding, window ${frontierAt.window.toLocaleString("en-US")} (reference prices)`, frontier: frontierAt, prices: priceSets[0]!.id }),
    );
    return { window: frontierAt.window, file };
  });
  const chartFile = "eval-chart.svg";
  writeAtomically(
    join(out, chartFile),
    renderChart({ title: `Input tokens per model call: ${chartTrace.id}, window ${chartWindow.toLocaleString("en-US")}`, window: chartWindow, series: chartSeries }),
  );
  const costRetentionCharts = windows.map(({ window, rows }) => {
    const file = `eval-cost-retention-${window}.svg`;
    const baseline = rows.find((row) => row.kind === "baseline")!;
    const points = rows.map((row) => ({ system: row.system, kind: row.kind, costRatio: row.cost / baseline.cost, retention: row.retention }));
    writeAtomically(join(out, file), renderCostRetentionChart({ title: `Cost vs retention, window ${window.toLocaleString("en-US")} (reference prices)`, points }));
    const groundingFile = `eval-cost-grounding-${window}.svg`;
    const groundingPoints = rows.map((row) => ({ system: row.system, kind: row.kind, costRatio: row.cost / baseline.cost, retention: row.grounding }));
    writeAtomically(
      join(out, groundingFile),
      renderCostRetentionChart({ title: `Cost vs reply grounding, window ${window.toLocaleString("en-US")} (reference prices)`, points: groundingPoints, yLabel: "reply grounding", yName: "grounding" }),
    );
    return { window, file, groundingFile };
  });
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
    priceSets,
    windows,
    probes,
    chart: { file: chartFile, trace: chartTrace.id, window: chartWindow },
    costRetentionCharts,
    ...(frontier ? { frontier: { result: frontier, charts: frontierCharts } } : {}),
    wallTimeMs: performance.now() - started,
  };
  const markdown = renderMarkdown(report);
  writeAtomically(join(out, "EVAL.md"), markdown);
  const goals = goalMatrix(report.windows);
  // Pretty at the top; one line per trace row, per chart line and per frontier point, so the file stays small and diffable.
  const { frontier: frontierReport, ...headlineReport } = report;
  const summaryJson = JSON.stringify(
    {
      ...headlineReport,
      ...(frontierReport ? { frontierRun: { settings: frontierReport.result.settings, wallTimeMs: frontierReport.result.wallTimeMs } } : {}),
      goals: Object.fromEntries([...goals].map(([system, byWindow]) => [system, Object.fromEntries(byWindow)])),
      systemsMeetingAllGoals: systemsMeetingAllGoals(report.windows),
    },
    null,
    2,
  );
  const lines = (items: readonly unknown[]) => `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}\n  ]`;
  writeAtomically(
    join(out, "eval-results.json"),
    `${summaryJson.slice(0, -2)},\n  "perTrace": ${lines(perTrace)},\n  "chartSeries": ${lines(chartSeries)}${
      frontierReport
        ? `,\n  "frontier": ${lines(frontierReport.result.windows.map(({ points: _points, ...rest }) => ({ ...rest, chart: frontierReport.charts.find((chart) => chart.window === rest.window)?.file })))},` +
          `\n  "frontierPoints": ${lines(frontierReport.result.windows.flatMap(({ window, points }) => points.map((point) => ({ window, ...point }))))}`
        : ""
    }\n}\n`,
  );
  if (!args.quiet) console.log(markdown);
  const files = ["EVAL.md", "eval-results.json", chartFile, ...costRetentionCharts.flatMap((chart) => [chart.file, chart.groundingFile]), ...frontierCharts.map((chart) => chart.file)];
  const where = args.out === undefined ? `${out} (a new folder; --out <dir> names one, npm run eval:commit rewrites the committed bench/ report)` : out;
  // A temporary folder is printed even with --quiet: it is found nowhere else.
  if (!args.quiet || args.out === undefined) process.stderr.write(`wrote ${files.join(", ")} to ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
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

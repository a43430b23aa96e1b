/**
 * The evaluation's outputs: per-window rows of derived figures, the goal check of our recommended
 * default, the markdown report, the SVG chart and the JSON.
 */
import { costOf, shareOf, type Prices } from "./metrics.js";
import type { ReplayTotals } from "./replay.js";
import type { SystemKind } from "./systems.js";

/** One row of a window's table: a system's totals over every trace, and what follows from them. */
export interface SystemRow {
  readonly system: string;
  readonly kind: SystemKind;
  readonly totals: ReplayTotals;
  /** Model-call and summary-call input tokens. */
  readonly inputTokens: number;
  /** Agent replies and summaries. */
  readonly outputTokens: number;
  readonly cachedShare: number;
  readonly cost: number;
  /** The part of `cost` spent on summary calls (their input uncached, their output). */
  readonly summaryCost: number;
  /** Mean over steps (with at least one artifact seen) of the share of artifacts present. */
  readonly retention: number;
  /** Share of steps whose model input has valid tool pairing. */
  readonly pairingShare: number;
}

/** The row of a system from its totals. */
export function rowOf(system: string, kind: SystemKind, totals: ReplayTotals, prices: Prices): SystemRow {
  const inputTokens = totals.modelInputTokens + totals.summaryInputTokens;
  const outputTokens = totals.agentOutputTokens + totals.summaryOutputTokens;
  return {
    system,
    kind,
    totals,
    inputTokens,
    outputTokens,
    cachedShare: shareOf(totals.cachedTokens, inputTokens) ?? 0,
    cost: costOf({ input: inputTokens, cached: totals.cachedTokens, output: outputTokens }, prices),
    summaryCost: costOf({ input: totals.summaryInputTokens, cached: 0, output: totals.summaryOutputTokens }, prices),
    retention: shareOf(totals.retentionShareSum, totals.retentionSteps) ?? 1,
    pairingShare: shareOf(totals.pairingValidSteps, totals.modelCalls) ?? 1,
  };
}

/** One goal of issue 5 for one system at one window. */
export interface GoalVerdict {
  readonly goal: string;
  /** One word for the goal, for the summary table. */
  readonly short: "window" | "cost" | "cache" | "retention";
  readonly met: boolean;
  readonly detail: string;
}

/** The names of the peer rows a default must beat on cost. */
const isPeerRow = (row: SystemRow) => row.kind === "baseline" || row.kind === "peer";

/**
 * Issue 5's goals for `candidate` at one window: no call over the window (model calls and summary
 * calls), a lower cost than every peer row (no compaction and LangChain's two), a higher
 * cached-prefix share than LangChain's context editing, and retention of at least 0.9.
 */
export function goalsFor(candidate: SystemRow, rows: readonly SystemRow[], contextEditing: string): GoalVerdict[] {
  const peers = rows.filter(isPeerRow);
  const cheapestPeer = peers.reduce<SystemRow | undefined>((best, row) => (best === undefined || row.cost < best.cost ? row : best), undefined);
  const editing = rows.find((row) => row.system === contextEditing);
  const over = candidate.totals.callsOverWindow + candidate.totals.summaryCallsOverWindow;
  return [
    {
      goal: "no call over the window",
      short: "window",
      met: over === 0,
      detail: `${candidate.totals.callsOverWindow} model calls and ${candidate.totals.summaryCallsOverWindow} summary calls over (peak input ${fmtInt(candidate.totals.peakInputTokens)})`,
    },
    {
      goal: "lower cost than every peer row",
      short: "cost",
      met: cheapestPeer !== undefined && peers.every((row) => candidate.cost < row.cost),
      // Split into model calls and summary calls: the two differ in what drives them.
      detail: cheapestPeer
        ? `${fmtCost(candidate.cost)} vs cheapest peer ${cheapestPeer.system} ${fmtCost(cheapestPeer.cost)} (${fmtRatio(candidate.cost / cheapestPeer.cost)}); ` +
          `model calls ${fmtCost(candidate.cost - candidate.summaryCost)} vs ${fmtCost(cheapestPeer.cost - cheapestPeer.summaryCost)}, ` +
          `summary calls ${fmtCost(candidate.summaryCost)} vs ${fmtCost(cheapestPeer.summaryCost)}`
        : "no peer row",
    },
    {
      goal: `higher cached-prefix share than ${contextEditing}`,
      short: "cache",
      met: editing !== undefined && candidate.cachedShare > editing.cachedShare,
      // The share is a ratio: a system that sends fewer tokens in all has a larger uncached share for
      // the same new tokens, so the absolute uncached input is given beside it.
      detail: editing
        ? `${fmtShare(candidate.cachedShare)} vs ${fmtShare(editing.cachedShare)}; uncached input tokens ${fmtInt(candidate.inputTokens - candidate.totals.cachedTokens)} vs ` +
          `${fmtInt(editing.inputTokens - editing.totals.cachedTokens)}, input tokens ${fmtInt(candidate.inputTokens)} vs ${fmtInt(editing.inputTokens)}`
        : "no context-editing row",
    },
    { goal: "artifact retention >= 0.9", short: "retention", met: candidate.retention >= 0.9, detail: fmtShare(candidate.retention) },
  ];
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

export function fmtInt(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function fmtShare(value: number): string {
  return value.toFixed(3);
}

export function fmtCost(value: number): string {
  return `${(value / 1e6).toFixed(3)} M`;
}

export function fmtRatio(value: number): string {
  return `${value.toFixed(2)}×`;
}

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const align = header.map((_, column) => (rightAligned.has(column) ? "---:" : ":---"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** The markdown table of one window. */
export function windowTable(rows: readonly SystemRow[]): string {
  const baseline = rows.find((row) => row.kind === "baseline");
  const kindShare = (kind: "files" | "identifiers" | "errors", row: SystemRow) => {
    const { present, total } = row.totals.retentionByKind[kind];
    return total === 0 ? "—" : (present / total).toFixed(2);
  };
  return markdownTable(
    [
      "system",
      "input tokens",
      "of which summary calls",
      "output tokens",
      "cached-prefix tokens",
      "cached share",
      "cost",
      "cost vs none",
      "peak input",
      "calls > window (model / summary)",
      "compactions",
      "compaction ms",
      "retention",
      "retention files / ids / errors",
      "tool pairing valid",
    ],
    rows.map((row) => [
      row.kind === "ours" ? `**${row.system}**` : row.system,
      fmtInt(row.inputTokens),
      `${fmtInt(row.totals.summaryInputTokens)} (${row.totals.summaryCalls} calls)`,
      fmtInt(row.outputTokens),
      fmtInt(row.totals.cachedTokens),
      fmtShare(row.cachedShare),
      fmtCost(row.cost),
      baseline ? fmtRatio(row.cost / baseline.cost) : "—",
      fmtInt(row.totals.peakInputTokens),
      `${row.totals.callsOverWindow} / ${row.totals.summaryCallsOverWindow}`,
      String(row.totals.compactions),
      fmtInt(row.totals.compactionMs),
      fmtShare(row.retention),
      `${kindShare("files", row)} / ${kindShare("identifiers", row)} / ${kindShare("errors", row)}`,
      `${(row.pairingShare * 100).toFixed(1)}%`,
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]),
  );
}

// ---------------------------------------------------------------------------------------------
// Chart
// ---------------------------------------------------------------------------------------------

/** One system's line on the chart. */
export interface ChartSeries {
  readonly system: string;
  /** Input tokens of each model call, in order. */
  readonly inputTokens: readonly number[];
  /** Indexes (into `inputTokens`) of the calls before which the system compacted. */
  readonly compactions: readonly number[];
}

const PALETTE = ["#6b7280", "#d97706", "#dc2626", "#0891b2", "#7c3aed", "#db2777", "#16a34a", "#2563eb", "#854d0e", "#0f766e"];

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A "nice" step for axis ticks: 1, 2 or 5 times a power of ten, giving about `count` ticks. */
function tickStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

/**
 * A self-contained SVG line chart: input tokens per model call for every system, the window as a
 * dashed line, compactions as circles on each system's line, and a legend.
 */
export function renderChart(options: { title: string; window: number; series: readonly ChartSeries[] }): string {
  const { title, window, series } = options;
  const width = 1000;
  const height = 560;
  const margin = { left: 70, right: 230, top: 40, bottom: 50 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const steps = Math.max(1, ...series.map((line) => line.inputTokens.length));
  const maxTokens = Math.max(window, ...series.flatMap((line) => line.inputTokens)) * 1.05;
  const x = (step: number) => margin.left + (steps <= 1 ? 0 : (step / (steps - 1)) * plotWidth);
  const y = (tokens: number) => margin.top + plotHeight - (tokens / maxTokens) * plotHeight;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${margin.left}" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  const yStep = tickStep(maxTokens, 8);
  for (let tick = 0; tick <= maxTokens; tick += yStep) {
    parts.push(`<line x1="${margin.left}" y1="${y(tick).toFixed(1)}" x2="${margin.left + plotWidth}" y2="${y(tick).toFixed(1)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${(tick / 1000).toLocaleString("en-US")}k</text>`);
  }
  const xStep = tickStep(steps, 10);
  for (let tick = 0; tick < steps; tick += xStep) {
    parts.push(`<line x1="${x(tick).toFixed(1)}" y1="${margin.top + plotHeight}" x2="${x(tick).toFixed(1)}" y2="${margin.top + plotHeight + 4}" stroke="#374151"/>`);
    parts.push(`<text x="${x(tick).toFixed(1)}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${tick + 1}</text>`);
  }
  parts.push(`<line x1="${margin.left}" y1="${margin.top + plotHeight}" x2="${margin.left + plotWidth}" y2="${margin.top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<text x="${margin.left + plotWidth / 2}" y="${height - 10}" text-anchor="middle">model call (step)</text>`);
  parts.push(`<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">input tokens</text>`);
  parts.push(
    `<line x1="${margin.left}" y1="${y(window).toFixed(1)}" x2="${margin.left + plotWidth}" y2="${y(window).toFixed(1)}" stroke="#111827" stroke-dasharray="6 4"/>`,
    `<text x="${margin.left + plotWidth - 4}" y="${(y(window) - 5).toFixed(1)}" text-anchor="end">window ${window.toLocaleString("en-US")}</text>`,
  );
  series.forEach((line, index) => {
    const color = PALETTE[index % PALETTE.length]!;
    const points = line.inputTokens.map((tokens, step) => `${x(step).toFixed(1)},${y(tokens).toFixed(1)}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.6" points="${points}"><title>${escapeXml(line.system)}</title></polyline>`);
    for (const step of line.compactions) {
      const tokens = line.inputTokens[step];
      if (tokens !== undefined) parts.push(`<circle cx="${x(step).toFixed(1)}" cy="${y(tokens).toFixed(1)}" r="3.5" fill="#ffffff" stroke="${color}" stroke-width="1.6"/>`);
    }
    const legendY = margin.top + 10 + index * 20;
    const legendX = margin.left + plotWidth + 20;
    parts.push(`<line x1="${legendX}" y1="${legendY}" x2="${legendX + 24}" y2="${legendY}" stroke="${color}" stroke-width="2.5"/>`);
    parts.push(`<text x="${legendX + 30}" y="${legendY + 4}">${escapeXml(line.system)} (${line.compactions.length})</text>`);
  });
  const noteY = margin.top + 20 + series.length * 20;
  parts.push(`<circle cx="${margin.left + plotWidth + 32}" cy="${noteY}" r="3.5" fill="#ffffff" stroke="#374151" stroke-width="1.6"/>`);
  parts.push(`<text x="${margin.left + plotWidth + 42}" y="${noteY + 4}">compaction (count)</text>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------

/** The rows of one window. */
export interface WindowResult {
  readonly window: number;
  readonly rows: readonly SystemRow[];
}

/** The probe section: skipped (and why), or the aggregates per window and system. */
export type ProbeSection =
  | { readonly skipped: string }
  | {
      readonly judge: string;
      readonly rows: readonly { window: number; system: string; count: number; unscored: number; overall: number; byKind: Record<string, number>; byDimension: Record<string, number> }[];
    };

/** Everything the markdown report says. */
export interface EvalReport {
  readonly command: string;
  readonly date: string;
  readonly commit: string;
  readonly sourceModified: boolean | "unknown";
  readonly environment: string;
  readonly tracesPath: string;
  readonly traceCount: number;
  readonly steps: number;
  readonly summarizer: string;
  readonly prices: Prices;
  readonly windows: readonly WindowResult[];
  /** Our recommended default, checked against the goals. */
  readonly recommended: string;
  /** The context-editing peer the cached-share goal compares with. */
  readonly contextEditing: string;
  readonly probes: ProbeSection;
  readonly chart: { readonly file: string; readonly trace: string; readonly window: number } | undefined;
  readonly wallTimeMs: number;
}

/** Goal verdicts of every system of ours at every window. */
export function goalMatrix(report: Pick<EvalReport, "windows" | "contextEditing">): Map<string, Map<number, GoalVerdict[]>> {
  const matrix = new Map<string, Map<number, GoalVerdict[]>>();
  for (const { window, rows } of report.windows) {
    for (const row of rows) {
      if (row.kind !== "ours") continue;
      let byWindow = matrix.get(row.system);
      if (!byWindow) matrix.set(row.system, (byWindow = new Map()));
      byWindow.set(window, goalsFor(row, rows, report.contextEditing));
    }
  }
  return matrix;
}

/** Our systems that meet every goal at every window. */
export function systemsMeetingAllGoals(report: Pick<EvalReport, "windows" | "contextEditing">): string[] {
  return [...goalMatrix(report)].filter(([, byWindow]) => [...byWindow.values()].every((verdicts) => verdicts.every((verdict) => verdict.met))).map(([system]) => system);
}

function goalSection(report: EvalReport): string[] {
  const lines: string[] = [];
  const matrix = goalMatrix(report);
  const recommended = matrix.get(report.recommended);
  lines.push(`## Goal check: ${report.recommended} (the recommended default)`, "");
  if (!recommended) {
    lines.push(`${report.recommended} was not run.`, "");
    return lines;
  }
  for (const [window, verdicts] of recommended) {
    lines.push(`Window ${fmtInt(window)}:`, "");
    for (const verdict of verdicts) lines.push(`- ${verdict.met ? "met" : "**NOT met**"}: ${verdict.goal} — ${verdict.detail}`);
    lines.push("");
  }
  const allMet = [...recommended.values()].every((verdicts) => verdicts.every((verdict) => verdict.met));
  const others = systemsMeetingAllGoals(report).filter((system) => system !== report.recommended);
  if (allMet) lines.push(`${report.recommended} meets every goal at every window.`);
  else if (others.length > 0) {
    lines.push(
      `${report.recommended} does not meet every goal; ${others.join(", ")} ${others.length === 1 ? "does" : "do"} at every window. ` +
        `Proposal: make ${others[0]} the recommended default (see the tables for what changes).`,
    );
  } else lines.push(`${report.recommended} does not meet every goal, and no other system of ours meets them all at every window either.`);
  lines.push("");
  lines.push("All of ours, goals met out of 4 per window (window: no call over it; cost: below every peer row; cache: cached share above the context-editing row; retention: at least 0.9):", "");
  const windows = report.windows.map((result) => result.window);
  lines.push(
    markdownTable(
      ["system", ...windows.map((window) => fmtInt(window))],
      [...matrix].map(([system, byWindow]) => [
        system,
        ...windows.map((window) => {
          const verdicts = byWindow.get(window) ?? [];
          const failed = verdicts.filter((verdict) => !verdict.met).map((verdict) => verdict.short);
          return `${verdicts.length - failed.length}/4${failed.length > 0 ? ` (not ${failed.join(", ")})` : ""}`;
        }),
      ]),
      new Set(),
    ),
  );
  lines.push("");
  return lines;
}

function probeSection(probes: ProbeSection): string[] {
  const lines = ["## Probes (seed 002)", ""];
  if ("skipped" in probes) {
    lines.push(`probes: skipped (${probes.skipped})`, "");
    return lines;
  }
  lines.push(`Judge: ${probes.judge}. Scores 0-5, mean over the probes asked after each system's first compaction of each trace.`, "");
  const kinds = ["recall", "artifact", "continuation", "decision"];
  lines.push(
    markdownTable(
      ["window", "system", "probes", "unscored", "overall", ...kinds],
      probes.rows.map((row) => [fmtInt(row.window), row.system, String(row.count), String(row.unscored), row.overall.toFixed(2), ...kinds.map((kind) => (row.byKind[kind] ?? Number.NaN).toFixed(2))]),
      new Set([0, 2, 3, 4, 5, 6, 7, 8]),
    ),
  );
  lines.push("");
  return lines;
}

/** The markdown report (bench/EVAL.md). */
export function renderMarkdown(report: EvalReport): string {
  const lines: string[] = [];
  lines.push("# Evaluation on real traces (issue 5)", "");
  lines.push("```", report.command, "```", "");
  lines.push(
    `- date: ${report.date}`,
    `- commit: ${report.commit}${report.sourceModified === true ? " (with uncommitted changes in src/ or bench/)" : ""}`,
    `- environment: ${report.environment}`,
    `- traces: ${report.traceCount} sessions, ${fmtInt(report.steps)} model calls each system and window (${report.tracesPath})`,
    `- summarizer: ${report.summarizer}`,
    `- prices per token: input ${report.prices.input}, cached input ${report.prices.cached}, output ${report.prices.output}`,
    `- wall time: ${(report.wallTimeMs / 1000).toFixed(1)} s`,
    "",
  );
  lines.push("## How it was measured", "");
  lines.push(
    "- Each trace is replayed as an agent runs: before each assistant message of the recording, the persisted history plus the messages added since the last call goes through the system, and what the model would receive is measured; the recorded reply then joins the history.",
    "- Ours run as the compaction node runs them: `compact`, then `compactionUpdate` and LangGraph's `messagesStateReducer` apply the result to the persisted history. Defaults, with the window as `contextWindow`.",
    `- ClearToolUsesEdit: LangChain's class inside \`contextEditingMiddleware\`, called through the middleware's own \`wrapModelCall\` on a copy of the messages at every call (a view: the history stays whole); trigger 0.8 × window tokens, keep 3.`,
    "- summarizationMiddleware: LangChain's middleware, its own `beforeModel` hook called with the state, its update applied with `messagesStateReducer` (persisted); trigger 0.8 × window tokens, keep 20 messages, its other options at their defaults (it summarizes the last 4000 tokens of the part it replaces).",
    "- Every system triggers with, and every figure is measured by, the same exact counter (`createTokenCounter()`, o200k_base); LangChain gets it as its token counter.",
    "- Input tokens: every model call's input plus every summary call's prompt as sent. Output tokens: the recording's assistant messages (the same for every system) plus the summaries.",
    "- Cached-prefix tokens: per call, the longest run of leading messages identical (role, content, tool calls, tool-call id, name) to the previous call's, their token counts summed. Message granularity: a changed message breaks the prefix at its start; providers' 128-token block rounding is ignored. Summary calls count as uncached. Cached share = cached-prefix tokens / input tokens.",
    "- Cost: (input − cached) × input price + cached × cached price + output × output price.",
    "- Retention: at each call, of the file paths, identifiers and error lines the original stream has shown so far (the package's `extractArtifacts`, unbounded), the share present as substrings of the model's input (contents and tool-call arguments, summaries included), averaged over calls. Per-kind figures pool every call.",
    "- Calls over the window: model calls whose input exceeds the window / summary calls whose prompt does. Compactions: steps at which the system changed the history (ClearToolUsesEdit: the request). Compaction ms: time spent before the model calls, summary calls included.",
    "- Tool pairing valid: share of calls whose input passes `validateToolPairing`.",
    "",
  );
  for (const { window, rows } of report.windows) {
    lines.push(`## Window ${fmtInt(window)} tokens`, "");
    lines.push(windowTable(rows), "");
  }
  lines.push(...goalSection(report));
  lines.push(...probeSection(report.probes));
  if (report.chart) {
    lines.push("## Input tokens per step", "");
    lines.push(`${report.chart.trace} at window ${fmtInt(report.chart.window)}; circles mark compactions.`, "");
    lines.push(`![input tokens per step](${report.chart.file})`, "");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The evaluation's outputs: per-window rows of derived figures, the goal check of our recommended
 * default, the markdown report, the SVG chart and the JSON.
 */
import { costOf, shareOf, type Prices } from "./metrics.js";
import type { ReplayTotals } from "./replay.js";
import { SUMMARIZATION_TRIM_TOKENS, summarization, type SystemKind } from "./systems.js";

/** One row of a window's table: a system's totals over every trace, and what follows from them. */
export interface SystemRow {
  readonly system: string;
  readonly kind: SystemKind;
  readonly totals: ReplayTotals;
  /** Model-call and summary-call input tokens. */
  readonly inputTokens: number;
  /** Agent replies and summaries. */
  readonly outputTokens: number;
  /**
   * Issue 5's "input tokens summed over the task": model-call input + summary-call input +
   * summary-call output, averaged over the traces.
   */
  readonly tokensPerTask: number;
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
    tokensPerTask: shareOf(inputTokens + totals.summaryOutputTokens, totals.traces) ?? 0,
    cachedShare: shareOf(totals.cachedTokens, inputTokens) ?? 0,
    cost: costOf({ input: inputTokens, cached: totals.cachedTokens, output: outputTokens }, prices),
    summaryCost: costOf({ input: totals.summaryInputTokens, cached: 0, output: totals.summaryOutputTokens }, prices),
    retention: shareOf(totals.retentionShareSum, totals.retentionSteps) ?? 1,
    pairingShare: shareOf(totals.pairingValidSteps, totals.modelCalls) ?? 1,
  };
}

/** Cached shares closer than this are a tie: neither is higher (message-granular prefixes are not that precise). */
export const CACHE_TIE_MARGIN = 0.005;

/** One goal of issue 5 for one system at one window. */
export interface GoalVerdict {
  readonly goal: string;
  /** One word for the goal, for the summary table. */
  readonly short: "window" | "cost" | "cache" | "retention";
  readonly met: boolean;
  /** Not met because the two figures are within {@link CACHE_TIE_MARGIN} of each other. */
  readonly tie: boolean;
  readonly detail: string;
  /** When not met: one sentence of why, computed from the figures. */
  readonly why?: string;
}

/** The names of the peer rows a default must beat on cost. */
const isPeerRow = (row: SystemRow) => row.kind === "baseline" || row.kind === "peer";

const KINDS = ["files", "identifiers", "errors"] as const;

/** Why a peer's summary calls are smaller, where the peer's defaults explain it. */
const PEER_SUMMARY_NOTES: Readonly<Record<string, string>> = {
  [summarization.name]: `: the peer sends only the newest ${fmtInt(SUMMARIZATION_TRIM_TOKENS)} tokens of the part it summarizes (trimTokensToSummarize)`,
};

/** A kind's pooled retention, or "n/a (never compacted)" when no step after a compaction tracked it. */
export function kindRetention(totals: ReplayTotals, kind: (typeof KINDS)[number]): string {
  const { present, total, afterCompaction } = totals.retentionByKind[kind];
  return afterCompaction === 0 ? NEVER_COMPACTED : (present / total).toFixed(2);
}

/** How a figure reads where the system never compacted (a retention of 1 by construction). */
export const NEVER_COMPACTED = "n/a (never compacted)";

const mean = (sum: number, count: number) => (count === 0 ? 0 : sum / count);

function costWhy(candidate: SystemRow, peer: SystemRow, prices: Prices): string {
  const modelCost = (row: SystemRow) => row.cost - row.summaryCost - row.totals.agentOutputTokens * prices.output;
  const uncached = (row: SystemRow) => row.totals.modelInputTokens - row.totals.cachedTokens;
  const summaryDelta = candidate.summaryCost - peer.summaryCost;
  const modelDelta = modelCost(candidate) - modelCost(peer);
  const meanPrompt = (row: SystemRow) => fmtInt(mean(row.totals.summaryInputTokens, row.totals.summaryCalls));
  const note = summaryDelta > 0 && mean(peer.totals.summaryInputTokens, peer.totals.summaryCalls) < mean(candidate.totals.summaryInputTokens, candidate.totals.summaryCalls) ? (PEER_SUMMARY_NOTES[peer.system] ?? "") : "";
  return (
    `${candidate.system} costs ${fmtCost(candidate.cost - peer.cost)} more than ${peer.system}: summary calls ${fmtSigned(summaryDelta)} ` +
    `(ours ${candidate.totals.summaryCalls} calls of ${meanPrompt(candidate)} prompt tokens on average, the peer's ${peer.totals.summaryCalls} of ${meanPrompt(peer)}${note}), ` +
    `model calls ${fmtSigned(modelDelta)} (ours ${fmtInt(uncached(candidate))} uncached + ${fmtInt(candidate.totals.cachedTokens)} cached input tokens, the peer's ${fmtInt(uncached(peer))} + ${fmtInt(peer.totals.cachedTokens)}).`
  );
}

function cacheWhy(candidate: SystemRow, peer: SystemRow): string {
  const uncached = (row: SystemRow) => row.inputTokens - row.totals.cachedTokens;
  const uncachedDelta = uncached(candidate) - uncached(peer);
  const inputDelta = candidate.inputTokens - peer.inputTokens;
  if (uncachedDelta <= 0) {
    return (
      `${candidate.system} sends ${fmtInt(-uncachedDelta)} fewer uncached tokens than ${peer.system}; its share is ${candidate.cachedShare > peer.cachedShare ? "not clearly higher" : "lower"} ` +
      `because it sends ${fmtInt(Math.abs(inputDelta))} ${inputDelta <= 0 ? "fewer" : "more"} tokens in all (the share divides by every input token).`
    );
  }
  const summaryDelta = candidate.totals.summaryInputTokens - peer.totals.summaryInputTokens;
  return (
    `${candidate.system} sends ${fmtInt(uncachedDelta)} more uncached tokens than ${peer.system}: ${fmtSignedInt(summaryDelta)} in summary prompts (never cached) ` +
    `and ${fmtSignedInt(uncachedDelta - summaryDelta)} in model calls, whose cached prefix breaks at each of its ${candidate.totals.compactions} compactions (the peer's: ${peer.totals.compactions}).`
  );
}

function retentionWhy(candidate: SystemRow): string {
  const exposed = KINDS.filter((kind) => candidate.totals.retentionByKind[kind].afterCompaction > 0);
  const share = (kind: (typeof KINDS)[number]) => mean(candidate.totals.retentionByKind[kind].present, candidate.totals.retentionByKind[kind].total);
  const lowest = exposed.reduce<(typeof KINDS)[number] | undefined>((low, kind) => (low === undefined || share(kind) < share(low) ? kind : low), undefined);
  if (lowest === undefined) return `${candidate.system} never compacted, yet kept ${fmtShare(candidate.retention)}.`;
  return (
    `of the artifact kinds, ${candidate.system} keeps ${lowest} least: ${share(lowest).toFixed(2)} pooled over its calls ` +
    `(${KINDS.filter((kind) => kind !== lowest).map((kind) => `${kind} ${kindRetention(candidate.totals, kind)}`).join(", ")}).`
  );
}

/**
 * Issue 5's goals for `candidate` at one window: no call over the window (model calls and summary
 * calls), a lower cost than every peer row (no compaction and LangChain's), a higher cached-prefix
 * share than LangChain's context editing (each of `contextEditing`, so the higher of their shares;
 * within {@link CACHE_TIE_MARGIN} is a tie, not met), and retention of at least 0.9. Each goal not
 * met carries a computed sentence of why.
 *
 * @example
 * goalsFor(rows.find((row) => row.system === "autoCompaction")!, rows, ["ClearToolUsesEdit (view)", "ClearToolUsesEdit (createAgent)"], DEFAULT_PRICES);
 */
export function goalsFor(candidate: SystemRow, rows: readonly SystemRow[], contextEditing: readonly string[], prices: Prices): GoalVerdict[] {
  const peers = rows.filter(isPeerRow);
  const cheapestPeer = peers.reduce<SystemRow | undefined>((best, row) => (best === undefined || row.cost < best.cost ? row : best), undefined);
  const editing = rows
    .filter((row) => contextEditing.includes(row.system))
    .reduce<SystemRow | undefined>((best, row) => (best === undefined || row.cachedShare > best.cachedShare ? row : best), undefined);
  const over = candidate.totals.callsOverWindow + candidate.totals.summaryCallsOverWindow;
  const costMet = cheapestPeer !== undefined && peers.every((row) => candidate.cost < row.cost);
  const cacheTie = editing !== undefined && Math.abs(candidate.cachedShare - editing.cachedShare) < CACHE_TIE_MARGIN;
  const cacheMet = editing !== undefined && !cacheTie && candidate.cachedShare > editing.cachedShare;
  const retentionMet = candidate.retention >= 0.9;
  return [
    {
      goal: "no call over the window",
      short: "window",
      met: over === 0,
      tie: false,
      detail: `${candidate.totals.callsOverWindow} model calls and ${candidate.totals.summaryCallsOverWindow} summary calls over (peak input ${fmtInt(candidate.totals.peakInputTokens)})`,
      ...(over === 0
        ? {}
        : {
            why:
              `what ${candidate.system} leaves after compacting is still over the window at ${candidate.totals.callsOverWindow} of ${candidate.totals.modelCalls} model calls (largest ${fmtInt(candidate.totals.peakInputTokens)} tokens), ` +
              `and so is the prompt of ${candidate.totals.summaryCallsOverWindow} of its ${candidate.totals.summaryCalls} summary calls (largest ${fmtInt(candidate.totals.peakSummaryInputTokens)}).`,
          }),
    },
    {
      goal: "lower cost than every peer row",
      short: "cost",
      met: costMet,
      tie: false,
      // Split into model calls and summary calls: the two differ in what drives them.
      detail: cheapestPeer
        ? `${fmtCost(candidate.cost)} vs cheapest peer ${cheapestPeer.system} ${fmtCost(cheapestPeer.cost)} (${fmtRatio(candidate.cost / cheapestPeer.cost)}); ` +
          `model calls ${fmtCost(candidate.cost - candidate.summaryCost)} vs ${fmtCost(cheapestPeer.cost - cheapestPeer.summaryCost)}, ` +
          `summary calls ${fmtCost(candidate.summaryCost)} vs ${fmtCost(cheapestPeer.summaryCost)}`
        : "no peer row",
      ...(costMet || !cheapestPeer ? {} : { why: costWhy(candidate, cheapestPeer, prices) }),
    },
    {
      goal: `higher cached-prefix share than LangChain's context editing${contextEditing.length > 1 ? ` (the higher of its ${contextEditing.length} rows)` : ""}`,
      short: "cache",
      met: cacheMet,
      tie: cacheTie,
      // The share is a ratio: a system that sends fewer tokens in all has a larger uncached share for
      // the same new tokens, so the absolute uncached input is given beside it.
      detail: editing
        ? `${fmtShare(candidate.cachedShare)} vs ${editing.system} ${fmtShare(editing.cachedShare)}${cacheTie ? ` (tie: within ${CACHE_TIE_MARGIN})` : ""}; ` +
          `uncached input tokens ${fmtInt(candidate.inputTokens - candidate.totals.cachedTokens)} vs ${fmtInt(editing.inputTokens - editing.totals.cachedTokens)}, ` +
          `input tokens ${fmtInt(candidate.inputTokens)} vs ${fmtInt(editing.inputTokens)}`
        : "no context-editing row",
      ...(cacheMet || !editing ? {} : { why: cacheWhy(candidate, editing) }),
    },
    {
      goal: "artifact retention >= 0.9",
      short: "retention",
      met: retentionMet,
      tie: false,
      detail: fmtShare(candidate.retention),
      ...(retentionMet ? {} : { why: retentionWhy(candidate) }),
    },
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

/** A cost difference with its sign. */
export function fmtSigned(value: number): string {
  return `${value < 0 ? "−" : "+"}${fmtCost(Math.abs(value))}`;
}

/** A token difference with its sign. */
export function fmtSignedInt(value: number): string {
  return `${value < 0 ? "−" : "+"}${fmtInt(Math.abs(value))}`;
}

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const align = header.map((_, column) => (rightAligned.has(column) ? "---:" : ":---"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** The markdown table of one window. */
export function windowTable(rows: readonly SystemRow[]): string {
  const baseline = rows.find((row) => row.kind === "baseline");
  return markdownTable(
    [
      "system",
      "tokens per task",
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
      fmtInt(row.tokensPerTask),
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
      row.totals.compactions === 0 ? NEVER_COMPACTED : KINDS.map((kind) => kindRetention(row.totals, kind)).join(" / "),
      `${(row.pairingShare * 100).toFixed(1)}%`,
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
  );
}

/** The rows of one trace source (session id prefix) at one window. */
export interface SourceRows {
  readonly source: string;
  readonly rows: readonly SystemRow[];
}

/** The trace source of a session: its id up to the first "/" (e.g. "mini-swe-agent", "tau-bench-airline"). */
export function traceSourceOf(sessionId: string): string {
  const slash = sessionId.indexOf("/");
  return slash < 0 ? sessionId : sessionId.slice(0, slash);
}

/**
 * Retention per trace source at one window: per system, for each source, the mean retention and the
 * per-kind figures, or {@link NEVER_COMPACTED} where the system never compacted a trace of the source.
 */
export function retentionBySourceTable(sources: readonly SourceRows[]): string {
  const systems = sources[0]?.rows.map((row) => row.system) ?? [];
  return markdownTable(
    ["system", ...sources.flatMap(({ source }) => [`${source}: compactions`, `${source}: retention`, `${source}: files / ids / errors`])],
    systems.map((system) => [
      system,
      ...sources.flatMap(({ rows }) => {
        const row = rows.find((candidate) => candidate.system === system);
        if (!row) return ["—", "—", "—"];
        const compacted = row.totals.compactions > 0;
        return [
          String(row.totals.compactions),
          compacted ? fmtShare(row.retention) : NEVER_COMPACTED,
          compacted ? KINDS.map((kind) => (row.totals.retentionByKind[kind].total === 0 ? "—" : kindRetention(row.totals, kind))).join(" / ") : NEVER_COMPACTED,
        ];
      }),
    ]),
    new Set(sources.flatMap((_, index) => [1 + 3 * index, 2 + 3 * index])),
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
  const width = 1080;
  const height = 560;
  // The legend sits in the right margin: wide enough for "ClearToolUsesEdit (createAgent) (1263)".
  const margin = { left: 70, right: 290, top: 40, bottom: 50 };
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
  /** The same rows per trace source (session id prefix), for retention. */
  readonly sources: readonly SourceRows[];
}

/** The probe section: skipped (and why), or the aggregates per window and system. */
export type ProbeSection =
  | { readonly skipped: string }
  | {
      readonly judge: string;
      /** Compactions probed per trace and system at most (`Infinity`: every one). */
      readonly compactionsProbed: number;
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
  /** The context-editing rows the cached-share goal compares with (the higher share of them). */
  readonly contextEditing: readonly string[];
  readonly probes: ProbeSection;
  readonly chart: { readonly file: string; readonly trace: string; readonly window: number } | undefined;
  readonly wallTimeMs: number;
}

/** Goal verdicts of every system of ours at every window. */
export function goalMatrix(report: Pick<EvalReport, "windows" | "contextEditing" | "prices">): Map<string, Map<number, GoalVerdict[]>> {
  const matrix = new Map<string, Map<number, GoalVerdict[]>>();
  for (const { window, rows } of report.windows) {
    for (const row of rows) {
      if (row.kind !== "ours") continue;
      let byWindow = matrix.get(row.system);
      if (!byWindow) matrix.set(row.system, (byWindow = new Map()));
      byWindow.set(window, goalsFor(row, rows, report.contextEditing, report.prices));
    }
  }
  return matrix;
}

/** Our systems that meet every goal at every window. */
export function systemsMeetingAllGoals(report: Pick<EvalReport, "windows" | "contextEditing" | "prices">): string[] {
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
    for (const verdict of verdicts) {
      const status = verdict.met ? "met" : verdict.tie ? `**tie (within ${CACHE_TIE_MARGIN})**, not met` : "**NOT met**";
      lines.push(`- ${status}: ${verdict.goal} — ${verdict.detail}${verdict.why ? `. Why: ${verdict.why}` : ""}`);
    }
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
  lines.push(
    `All of ours, goals met out of 4 per window (window: no call over it; cost: below every peer row; cache: cached share above both context-editing rows, a tie within ${CACHE_TIE_MARGIN} not met; retention: at least 0.9):`,
    "",
  );
  const windows = report.windows.map((result) => result.window);
  lines.push(
    markdownTable(
      ["system", ...windows.map((window) => fmtInt(window))],
      [...matrix].map(([system, byWindow]) => [
        system,
        ...windows.map((window) => {
          const verdicts = byWindow.get(window) ?? [];
          const failed = verdicts.filter((verdict) => !verdict.met).map((verdict) => (verdict.tie ? `${verdict.short}: tie` : verdict.short));
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
  const which =
    probes.compactionsProbed === Number.POSITIVE_INFINITY
      ? "each compaction"
      : probes.compactionsProbed === 1
        ? "the first compaction"
        : `each of the first ${probes.compactionsProbed} compactions`;
  lines.push(`Judge: ${probes.judge}. Scores 0-5, mean over the probes asked after ${which} of each system on each trace.`, "");
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
    "- ClearToolUsesEdit, two rows: LangChain's class inside `contextEditingMiddleware`, called through the middleware's own `wrapModelCall`; trigger 0.8 × window tokens, keep 3. **(view)** is issue 5's reading: the middleware edits a copy of the messages at every call and the history stays whole. **(createAgent)** is what `createAgent` does: its agent node passes the state's own message array as `request.messages` and `ClearToolUsesEdit.apply` replaces cleared results in that array, so the clearing is persisted in the state and its checkpoint (checked against a real `createAgent` in test/eval/create-agent.test.ts). Both are peer rows for the cost goal; the cached-share goal compares with the higher of their shares.",
    "- summarizationMiddleware: LangChain's middleware, its own `beforeModel` hook called with the state, its update applied with `messagesStateReducer` (persisted); trigger 0.8 × window tokens, keep 20 messages, its other options at their defaults (it summarizes the last 4000 tokens of the part it replaces).",
    "- Every system triggers with, and every figure is measured by, the same exact counter (`createTokenCounter()`, o200k_base); LangChain gets it as its token counter.",
    "- Input tokens: every model call's input plus every summary call's prompt as sent. Output tokens: the recording's assistant messages (the same for every system) plus the summaries. Tokens per task: issue 5's input tokens summed over the task (model-call input + summary-call input + summary-call output), averaged over the traces.",
    "- Cached-prefix tokens: per call, the longest run of leading messages identical (role, content, tool calls, tool-call id, name) to the previous call's, their token counts summed. Message granularity: a changed message breaks the prefix at its start; providers' 128-token block rounding is ignored. Summary calls count as uncached. Cached share = cached-prefix tokens / input tokens.",
    "- Cost: (input − cached) × input price + cached × cached price + output × output price.",
    "- Retention: at each call, of the file paths, identifiers and error lines the original stream has shown so far (the package's `extractArtifacts`, unbounded), the share present as substrings of the model's input (contents and tool-call arguments, summaries included), averaged over calls. Per-kind figures pool every call; a kind that no call after a compaction tracked reads n/a (never compacted), as it would be 1 by construction. The offline deterministic summarizer's artifact index uses the same extractor as this metric: symmetric for every summarizing system offline, but it favours a design that renders the index into the context. Retention is also given per trace source (session id prefix), since only the tau-bench traces have identifiers.",
    "- Calls over the window: model calls whose input exceeds the window / summary calls whose prompt does. Compactions: steps at which the system changed the history (ClearToolUsesEdit (view): the request). Compaction ms: time spent before the model calls, summary calls included.",
    "- Tool pairing valid: share of calls whose input passes `validateToolPairing`.",
    "",
  );
  for (const { window, rows, sources } of report.windows) {
    lines.push(`## Window ${fmtInt(window)} tokens`, "");
    lines.push(windowTable(rows), "");
    if (sources.length > 0) {
      lines.push(`Retention per trace source at ${fmtInt(window)} tokens:`, "");
      lines.push(retentionBySourceTable(sources), "");
    }
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

import { SCRIPT, SCRIPT_HASH, STYLE } from "./html-assets.js";
import { renderChart } from "./html-chart.js";
import { escapeHtml, formatDuration, formatNumber, formatTime, messagesChange, tokensChange } from "./html-format.js";
import { explanation, renderHistory } from "./html-history.js";
import type { CompactionView, Inspection, InspectionTotals, RecallView } from "./inspection.js";

export { escapeHtml } from "./html-format.js";

/** Options of {@link renderInspectionHtml}. */
export interface RenderHtmlOptions {
  /** The page's title. @default `Compaction inspector: <thread id>` */
  readonly title?: string;
}

/**
 * Render an {@link Inspection} as one self-contained HTML page: totals in a header, a chart of
 * context tokens per step (inline SVG), the compaction list (what each did and why in plain
 * sentences) and the timeline: each compaction at the top level, in the order they ran, with the
 * originals it archived collapsed once under it, then the current context. Nothing is loaded from
 * the network: the CSS and the small script are inline. All message text is escaped.
 *
 * Stable hooks for tests and tools: the timeline (`#timeline`) holds `data-kind="compaction"`
 * entries with id `compaction-<n>` and `data-compaction-id`, each with a `details[data-kind="replaced"]`
 * of its originals, then a `data-kind="context"` heading and the current messages. Messages carry
 * `data-kind` (`message`, `summary`, `hidden`, `replacement`), `data-message-id` and, when a
 * compaction made them, `data-compaction-id`; a recall's result carries `data-recall` (its
 * number; the first one also `id="recall-<n>"`) and `data-recall-ref`. A plain-sentence reason keeps the record's own in
 * `data-reason`. Header figures carry `data-total="<InspectionTotals key>"`; the chart's figures
 * carry `data-chart="<name>"` (see docs/inspector.md).
 *
 * @example
 * const inspection = await buildInspection(await loadThreadFromSqlite("agent.sqlite", "t1"));
 * writeFileSync("report.html", renderInspectionHtml(inspection));
 */
export function renderInspectionHtml(inspection: Inspection, options: RenderHtmlOptions = {}): string {
  const title = options.title ?? `Compaction inspector: ${inspection.threadId}`;
  // Every compaction has its entry in the default timeline: the list and the chart link to each.
  const listed = new Set(inspection.compactions.map((view) => view.record.id));
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Belt and braces: even a message that slipped past escaping could load nothing.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head><body>",
    '<header class="page-header">',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">Thread <code data-thread-id>${escapeHtml(inspection.threadId)}</code> · generated ${escapeHtml(formatTime(inspection.generatedAt))}</p>`,
    renderTotals(inspection.totals, inspection.recalls ?? []),
    "</header><main>",
    renderWarnings(inspection.warnings),
    renderChart(inspection.chart, inspection.compactions, listed, { ...inspection.totals, limits: inspection.limits, recalls: inspection.recalls ?? [] }),
    renderCompactionList(inspection.compactions),
    `<section class="timeline-section"><h2>Timeline</h2>`,
    `<p class="hint">Each compaction in the order they ran, with what it replaced (open it to read the originals), then the current context.</p>`,
    `<div id="timeline" class="timeline">${renderHistory(inspection)}</div></section>`,
    "</main>",
    `<script>${SCRIPT}</script>`,
    "</body></html>",
  ].join("\n");
}

const HISTORY_NOTE = "the thread's full original history, with everything compactions archived put back";
const PEAK_NOTE = "tokens sent in one model call, the largest: the context right before an assistant message, after the compactions that ran there";

/** The header's figures: every total but the peak call's step (the chart marks it). */
type HeaderFigure = Exclude<keyof InspectionTotals, "peakCallStep">;

const TOTALS: readonly { readonly key: HeaderFigure; readonly label: string; readonly note?: string; readonly format?: (value: number) => string }[] = [
  { key: "originalMessages", label: "messages stored", note: HISTORY_NOTE },
  { key: "originalTokens", label: "tokens in history", note: HISTORY_NOTE },
  { key: "contextMessages", label: "messages in context" },
  { key: "contextTokens", label: "tokens in context" },
  { key: "modelCalls", label: "model calls", note: "the assistant messages of the history, each the answer to one model call" },
  { key: "peakContextTokens", label: "peak context (tokens sent in one model call)", note: PEAK_NOTE },
  { key: "compactions", label: "compactions" },
  { key: "failedCompactions", label: "failed" },
  { key: "summaries", label: "summaries" },
  { key: "hiddenResults", label: "hidden tool results" },
  { key: "archivedMessages", label: "archived messages" },
  { key: "tokensSaved", label: "tokens saved" },
  { key: "compactionMs", label: "spent compacting", format: (value) => formatDuration(value) },
];

const RECALLS_NOTE = "calls of the recall tool: the agent read archived originals back";

function renderTotals(totals: InspectionTotals, recalls: readonly RecallView[]): string {
  const cell = (key: string, value: string, label: string, note: string | undefined, bad = false) =>
    `<div${note ? ` title="${escapeHtml(note)}"` : ""} class="total${bad ? " bad" : ""}"><span class="figure" data-total="${key}">${escapeHtml(value)}</span><span class="label">${label}</span></div>`;
  const cells = TOTALS.map(({ key, label, note, format }) => {
    const value = totals[key];
    return cell(key, format ? format(value) : formatNumber(value), label, note, key === "failedCompactions" && value > 0);
  });
  // Only a thread that recalled shows its recalls (and the tokens they returned).
  if (recalls.length > 0) {
    cells.push(
      cell("recalls", formatNumber(recalls.length), "recalls", RECALLS_NOTE),
      cell("recalledTokens", formatNumber(recalls.reduce((sum, recall) => sum + recall.tokens, 0)), "tokens recalled", RECALLS_NOTE),
    );
  }
  return `<div class="totals">${cells.join("")}</div>`;
}

function renderWarnings(warnings: readonly string[]): string {
  if (warnings.length === 0) return "";
  const items = warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join("");
  return `<section class="warnings" data-kind="warnings"><h2>Warnings</h2><ul>${items}</ul></section>`;
}

function renderCompactionList(compactions: readonly CompactionView[]): string {
  if (compactions.length === 0) {
    return `<section class="compactions"><h2>Compactions</h2><p class="empty" data-kind="no-compactions">This thread was never compacted.</p></section>`;
  }
  const rows = compactions.map((view) => {
    const { record } = view;
    const link = `<a href="#compaction-${view.number}">#${view.number}</a>`;
    return (
      `<tr data-compaction-id="${escapeHtml(record.id)}">` +
      `<td class="n">${link}</td>` +
      `<td class="time">${escapeHtml(formatTime(record.at))}</td>` +
      `<td>${escapeHtml(record.strategy)}</td>` +
      `<td><span class="status status-${escapeHtml(record.status)}">${escapeHtml(record.status)}</span></td>` +
      `<td class="num">${tokensChange(view)}</td>` +
      `<td class="num">${messagesChange(view)}</td>` +
      `<td class="num">${formatNumber(view.archivedMessages)}</td>` +
      `<td class="num">${formatDuration(record.durationMs)}</td>` +
      `<td class="reason"${record.reason ? ` data-reason="${escapeHtml(record.reason)}"` : ""}>${escapeHtml(explanation(view))}</td></tr>`
    );
  });
  return (
    `<section class="compactions"><h2>Compactions</h2><div class="table-wrap"><table>` +
    `<thead><tr><th>#</th><th>time</th><th>strategy</th><th>status</th><th class="num">tokens</th><th class="num">messages</th><th class="num">archived</th><th class="num">duration</th><th>what it did and why</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div></section>`
  );
}

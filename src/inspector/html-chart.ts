// The inspector page's chart: context tokens per step, with a marker per compaction (inline SVG).
import { escapeHtml, formatNumber, messagesChange, plural, tokensChange } from "./html-format.js";
import type { ChartPoint, CompactionView, InspectionLimits, RecallView } from "./inspection.js";

const CHART = { width: 1160, height: 240, left: 64, right: 16, top: 24, bottom: 36 } as const;

/** Round tick spacing: 1, 2 or 5 times a power of ten, giving at most `count` ticks. */
function tickStep(max: number, count: number): number {
  if (max <= 0) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw)!;
  return Math.max(1, step);
}

/** What the chart marks besides the context line: the largest model call (the header's peak) and the limits. */
export interface ChartFigures {
  readonly peakContextTokens: number;
  readonly peakCallStep: number | null;
  readonly limits: InspectionLimits | undefined;
  /** The agent's recalls: each one with a result is marked at its result's step, linked to it. */
  readonly recalls?: readonly RecallView[];
}

/**
 * The chart: the context after each step, a marker per compaction (linked to its entry when
 * `placed`), a dot at the largest model call labelled with the header's peak figure, and the window
 * and trigger as lines when known, and a triangle under the line at each recall's result (linked to
 * it). Figures carry `data-chart` (`peak`, `window`, `trigger`, `recall`).
 */
export function renderChart(points: readonly ChartPoint[], compactions: readonly CompactionView[], placed: ReadonlySet<string>, figures: ChartFigures): string {
  const heading = `<h2>Context tokens per step</h2>`;
  if (points.length === 0) return `<section class="chart">${heading}<p class="empty">No messages.</p></section>`;
  const { width, height, left, right, top, bottom } = CHART;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const lastStep = Math.max(1, points[points.length - 1]!.step);
  const window = figures.limits?.contextWindow ?? null;
  const trigger = figures.limits?.triggerTokens ?? null;
  // A loop, not Math.max(...spread): a long thread's points would exceed the argument limit.
  let maxTokens = Math.max(1, window ?? 0, trigger ?? 0);
  for (const point of points) maxTokens = Math.max(maxTokens, point.tokens, point.after ?? 0);
  const yStep = tickStep(maxTokens, 4);
  const yMax = Math.ceil(maxTokens / yStep) * yStep;
  const x = (step: number) => left + (step / lastStep) * plotWidth;
  const y = (tokens: number) => top + plotHeight - (tokens / yMax) * plotHeight;
  const round = (value: number) => Math.round(value * 10) / 10;
  const parts: string[] = [];
  for (let tick = 0; tick <= yMax; tick += yStep) {
    parts.push(`<line class="grid" x1="${left}" x2="${width - right}" y1="${round(y(tick))}" y2="${round(y(tick))}"/>`);
    parts.push(`<text class="axis" x="${left - 6}" y="${round(y(tick)) + 4}" text-anchor="end">${formatNumber(tick)}</text>`);
  }
  const xStep = tickStep(lastStep, 10);
  for (let tick = 0; tick <= lastStep; tick += xStep) {
    parts.push(`<text class="axis" x="${round(x(tick))}" y="${height - bottom + 16}" text-anchor="middle">${formatNumber(tick)}</text>`);
  }
  parts.push(`<text class="axis-title" x="${left + plotWidth / 2}" y="${height - 4}" text-anchor="middle">step (message of the full history)</text>`);
  // The limits: full-width lines, labelled under their left end (the compaction labels are above the plot, the context starts low).
  for (const [name, tokens, label] of [
    ["window", window, "context window"],
    ["trigger", trigger, "trigger"],
  ] as const) {
    if (tokens === null) continue;
    const at = round(y(tokens));
    parts.push(
      `<g class="limit limit-${name}" data-chart-line="${name}" data-tokens="${tokens}"><title>${escapeHtml(`${label}: ${formatNumber(tokens)} tokens`)}</title>` +
        `<line x1="${left}" x2="${width - right}" y1="${at}" y2="${at}"/><text x="${left + 6}" y="${at + 13}">${label} ${formatNumber(tokens)}</text></g>`,
    );
  }
  let lastLabelX = -Infinity;
  for (const view of compactions) {
    if (view.step === null) continue;
    const at = round(x(points[view.step]?.step ?? view.step));
    // Labels of close compactions would overprint each other: the line stays, the label is dropped (the tooltip keeps it).
    const label = at - lastLabelX >= 22 ? `<text class="marker-label" x="${at}" y="${top - 8}" text-anchor="middle">#${view.number}</text>` : "";
    if (label !== "") lastLabelX = at;
    const tooltip = `#${view.number} ${view.record.strategy} (${view.record.status}) at step ${view.step}: tokens ${tokensChange(view)}, messages ${messagesChange(view)}`;
    // A link to the compaction's entry in the timeline; the wide transparent rect is what the pointer hits.
    const [open, close] = placed.has(view.record.id) ? [`<a href="#compaction-${view.number}"`, "</a>"] : ["<g", "</g>"];
    parts.push(
      `${open} class="chart-marker status-${escapeHtml(view.record.status)}" data-compaction-id="${escapeHtml(view.record.id)}">` +
        `<title>${escapeHtml(tooltip)}</title><line x1="${at}" x2="${at}" y1="${top}" y2="${top + plotHeight}"/>` +
        `<rect x="${at - 5}" y="${top - 20}" width="10" height="${plotHeight + 20}" fill="transparent"/>${label}${close}`,
    );
  }
  const recalls = (figures.recalls ?? []).filter((recall) => recall.resultStep !== null);
  for (const recall of recalls) {
    const [at, base] = [round(x(points[recall.resultStep!]?.step ?? recall.resultStep!)), top + plotHeight];
    const tooltip = `recall ${recall.number} of ${recall.ref}${recall.find === null ? "" : ` finding ${recall.find}`} at step ${recall.resultStep}: ${plural(recall.tokens, "token")} returned`;
    parts.push(
      `<a href="#recall-${recall.number}" class="chart-recall" data-chart="recall" data-recall="${recall.number}" data-step="${recall.resultStep}"><title>${escapeHtml(tooltip)}</title>` +
        `<path d="M${at},${round(base - 10)} l-5,9 h10 z"/></a>`,
    );
  }
  // A compaction's drop is vertical: the step's point, then the context after it at the same step.
  const line = points
    .map((point) => `${round(x(point.step))},${round(y(point.tokens))}${point.after === undefined ? "" : ` ${round(x(point.step))},${round(y(point.after))}`}`)
    .join(" ");
  parts.push(`<polyline class="tokens" points="${line}"/>`);
  // The largest model call: sent with the context of the step before its answer, after the compactions there.
  const { peakCallStep, peakContextTokens } = figures;
  let peakNote = "";
  if (peakCallStep !== null) {
    const before = points[peakCallStep - 1];
    const [cx, cy] = [round(x(before?.step ?? 0)), round(y(before ? (before.after ?? before.tokens) : 0))];
    const peak = formatNumber(peakContextTokens);
    parts.push(
      `<g class="peak" data-chart="peak" data-tokens="${peakContextTokens}" data-step="${peakCallStep}"><title>${escapeHtml(`peak context: ${peak} tokens sent in one model call (answered at step ${peakCallStep})`)}</title>` +
        `<circle cx="${cx}" cy="${cy}" r="4.5"/><text x="${cx}" y="${round(cy - 9)}" text-anchor="${cx > width - 140 ? "end" : "middle"}">peak ${peak}</text></g>`,
    );
    peakNote =
      ` The dot is the <strong>peak context</strong>, the most tokens sent in one model call: <span data-chart="peak">${peak}</span>, in the call answered at step ${formatNumber(peakCallStep)} (the header's figure, with the few tokens a request adds for the reply).` +
      " Where the line climbs above that, a compaction ran before the next model call and brought it down: the model was never sent that much.";
  }
  const limits = [
    window === null ? "" : `the context window (<span data-chart="window">${formatNumber(window)}</span> tokens)`,
    trigger === null ? "" : `the trigger (<span data-chart="trigger">${formatNumber(trigger)}</span> tokens: at this size a compaction starts)`,
  ].filter((text) => text !== "");
  const limitsNote = limits.length === 0 ? " The window and the trigger are not drawn: the compaction log does not record them (give them to buildInspection, or --window and --trigger to the CLI)." : ` Lines: ${limits.join(" and ")}.`;
  const marked = plural(compactions.filter((view) => view.step !== null).length, "compaction");
  const recallNote = recalls.length === 0 ? "" : ` A triangle at the bottom is one of the agent's <strong>${plural(recalls.length, "recall")}</strong> of what compactions took out (click it to go to its result).`;
  const label = `Context tokens after each of ${plural(points.length, "step")}; peak context ${formatNumber(peakContextTokens)} tokens sent in one model call; ${marked} marked.`;
  return (
    `<section class="chart">${heading}<p class="hint">The tokens of the messages in the context after each of ${plural(points.length, "step")}, with ${marked} marked (hover one for its figures, click it to go to its entry).` +
    `${peakNote}${recallNote}${limitsNote} A compaction's <em>target</em>, named in its reason, is the size it aims to leave.</p>` +
    `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(label)}" data-kind="chart">${parts.join("")}</svg></section>`
  );
}

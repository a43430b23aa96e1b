/**
 * The evaluation's SVG charts, as self-contained SVG strings (no dependencies): input tokens per
 * model call on one trace, and per window every system's cost (a multiple of no compaction) against
 * its artifact retention.
 */
import { escapeXml, tickStep } from "./report-format.js";
import type { SystemKind } from "./systems.js";

/** One system's line on the chart. */
export interface ChartSeries {
  readonly system: string;
  /** Input tokens of each model call, in order. */
  readonly inputTokens: readonly number[];
  /** Indexes (into `inputTokens`) of the calls before which the system compacted. */
  readonly compactions: readonly number[];
}

const PALETTE = ["#6b7280", "#d97706", "#dc2626", "#0891b2", "#7c3aed", "#db2777", "#16a34a", "#2563eb", "#854d0e", "#0f766e"];

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

/** One system on the cost-retention chart. */
export interface CostRetentionPoint {
  readonly system: string;
  readonly kind: SystemKind;
  /** Cost as a multiple of no compaction's (reference prices). */
  readonly costRatio: number;
  /** The y value, 0..1: artifact retention, or reply grounding on the cost-grounding chart. */
  readonly retention: number;
}

/** The cost-retention chart's size and plot area, in SVG units. */
export const COST_RETENTION_LAYOUT = Object.freeze({ width: 900, height: 560, left: 70, right: 30, top: 50, bottom: 50 });

/**
 * The axes of the cost-retention chart: x from 0 to 1.05 × the largest cost multiple (at least 1),
 * rounded up to a tenth; y from the lowest retention less 0.01, rounded down to a twentieth (at
 * least 0), to 1.
 */
export function costRetentionAxes(points: readonly CostRetentionPoint[]): { xMax: number; yMin: number } {
  const maxRatio = Math.max(1, ...points.map((point) => point.costRatio));
  const minRetention = Math.min(1, ...points.map((point) => point.retention));
  return { xMax: Math.ceil(Math.round(maxRatio * 1.05 * 1e6) / 1e5) / 10, yMin: Math.max(0, Math.floor(Math.round((minRetention - 0.01) * 2e7) / 1e6) / 20) };
}

const CHAR_WIDTH = 6.6;
const LABEL_HEIGHT = 14;

interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const overlaps = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

/**
 * A scatter chart of every system at one window: x = cost as a multiple of no compaction, y =
 * retention (or, with `yLabel` and `yName`, another share such as reply grounding). Ours are filled circles, LangChain's hollow circles, no compaction a cross; each point
 * is labelled with its system's name, labels moved down or up (with a leader line) where they would
 * overlap a label already placed, and to the left of the point where they would leave the plot.
 */
export function renderCostRetentionChart(options: { title: string; points: readonly CostRetentionPoint[]; yLabel?: string; yName?: string }): string {
  const { title, points, yLabel = "artifact retention", yName = "retention" } = options;
  const { width, height, left, right, top, bottom } = COST_RETENTION_LAYOUT;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const { xMax, yMin } = costRetentionAxes(points);
  const x = (ratio: number) => left + (ratio / xMax) * plotWidth;
  const y = (retention: number) => top + plotHeight - ((retention - yMin) / (1 - yMin)) * plotHeight;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${left}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  parts.push(
    `<circle cx="${left + 6}" cy="37" r="4.5" fill="#2563eb"/><text x="${left + 15}" y="41">ours</text>`,
    `<circle cx="${left + 66}" cy="37" r="4.5" fill="#ffffff" stroke="#d97706" stroke-width="1.8"/><text x="${left + 75}" y="41">LangChain</text>`,
    `<path d="M${left + 156} 33 l8 8 m0 -8 l-8 8" stroke="#111827" stroke-width="1.8"/><text x="${left + 169}" y="41">no compaction</text>`,
  );
  const xStep = tickStep(xMax, 10);
  for (let tick = 0; tick <= xMax + 1e-9; tick += xStep) {
    parts.push(`<line x1="${x(tick).toFixed(1)}" y1="${top}" x2="${x(tick).toFixed(1)}" y2="${top + plotHeight + 4}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${x(tick).toFixed(1)}" y="${top + plotHeight + 18}" text-anchor="middle">${Number(tick.toFixed(6))}×</text>`);
  }
  const yStep = tickStep(1 - yMin, 8);
  for (let tick = yMin; tick <= 1 + 1e-9; tick += yStep) {
    parts.push(`<line x1="${left - 4}" y1="${y(tick).toFixed(1)}" x2="${left + plotWidth}" y2="${y(tick).toFixed(1)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${left - 8}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${Number(tick.toFixed(6))}</text>`);
  }
  parts.push(`<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<text x="${left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">cost as a multiple of no compaction (reference prices)</text>`);
  parts.push(`<text transform="translate(18 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`);
  // Top to bottom, so a label pushed down moves away from the ones already placed; labels keep off every marker too.
  const order = points.map((point) => ({ point, px: x(point.costRatio), py: y(point.retention) })).sort((a, b) => a.py - b.py || a.px - b.px);
  const placed: Box[] = order.map(({ px, py }) => ({ x1: px - 6, x2: px + 6, y1: py - 6, y2: py + 6 }));
  for (const { point, px, py } of order) {
    const name = escapeXml(point.system);
    const marker =
      point.kind === "baseline"
        ? `<path d="M${(px - 5).toFixed(1)} ${(py - 5).toFixed(1)} l10 10 m0 -10 l-10 10" stroke="#111827" stroke-width="2"/>`
        : point.kind === "ours"
          ? `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="5" fill="#2563eb"/>`
          : `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="5" fill="#ffffff" stroke="#d97706" stroke-width="1.8"/>`;
    parts.push(`<g data-system="${name}" data-kind="${point.kind}" data-x="${px.toFixed(1)}" data-y="${py.toFixed(1)}"><title>${name}: ${point.costRatio.toFixed(3)}×, ${escapeXml(yName)} ${point.retention.toFixed(3)}</title>${marker}`);
    const labelWidth = point.system.length * CHAR_WIDTH;
    const toLeft = px + 9 + labelWidth > width - 4;
    const [x1, x2] = toLeft ? [px - 9 - labelWidth, px - 9] : [px + 9, px + 9 + labelWidth];
    const boxAt = (baseline: number): Box => ({ x1, x2, y1: baseline - LABEL_HEIGHT + 3, y2: baseline + 3 });
    let baseline = py + 4;
    for (let attempt = 1; attempt <= 40 && placed.some((box) => overlaps(box, boxAt(baseline))); attempt++) {
      // Try below, then above, then further away.
      baseline = py + 4 + (attempt % 2 === 1 ? 1 : -1) * Math.ceil(attempt / 2) * LABEL_HEIGHT;
    }
    placed.push(boxAt(baseline));
    const labelX = toLeft ? px - 9 : px + 9;
    if (Math.abs(baseline - (py + 4)) > 1) parts.push(`<line x1="${px.toFixed(1)}" y1="${py.toFixed(1)}" x2="${labelX.toFixed(1)}" y2="${(baseline - 4).toFixed(1)}" stroke="#9ca3af" stroke-width="0.8"/>`);
    parts.push(`<text x="${labelX.toFixed(1)}" y="${baseline.toFixed(1)}"${toLeft ? ' text-anchor="end"' : ""}>${name}</text></g>`);
  }
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

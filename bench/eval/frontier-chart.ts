/**
 * The frontier chart of one window (bench/eval-frontier-<window>.svg): cost with re-reads, as a
 * multiple of no compaction's, against reply grounding; every LangChain setting a hollow point, each
 * family of ours a curve through its settings that nothing of the family beats on both axes (its
 * other settings small dots), the default a black diamond, a row with recall on a hollow red
 * diamond, no compaction a cross.
 */
import type { FrontierPoint, FrontierWindow } from "./frontier.js";
import { paretoCurve } from "./frontier.js";
import { escapeXml, tickStep } from "./report-format.js";

const COLORS: Record<string, string> = { autoCompaction: "#2563eb", toolResultHiding: "#16a34a", ClearToolUsesEdit: "#d97706", summarizationMiddleware: "#7c3aed", default: "#111827", recall: "#dc2626" };

/** The label of a point with recall on: "default + recall", "frugal + recall", else its name. */
const recallLabel = (system: string) => (system === "autoCompaction + recall" ? "default + recall" : system.includes("frugal") ? "frugal + recall" : system);
const SHORT: Record<string, string> = { ClearToolUsesEdit: "CTU", summarizationMiddleware: "SUM" };

/** The chart's size and plot area, in SVG units. */
export const FRONTIER_LAYOUT = Object.freeze({ width: 960, height: 600, left: 70, right: 200, top: 50, bottom: 50 });

/**
 * The frontier chart of `frontier` at the price set `prices` (its id): x from the cheapest point to
 * the dearest (no compaction included), y from the lowest grounding to 1. A peer point over the
 * window is labelled with a trailing "*".
 */
export function renderFrontierChart(options: { title: string; frontier: FrontierWindow; prices: string }): string {
  const { title, frontier, prices } = options;
  const { width, height, left, right, top, bottom } = FRONTIER_LAYOUT;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const base = frontier.baseline[prices] ?? 1;
  const ratio = (point: FrontierPoint) => point.costWithRereads[prices]! / base;
  const ratios = [1, ...frontier.points.map(ratio)];
  const xMin = Math.floor(Math.min(...ratios) * 20 - 0.5) / 20;
  const xMax = Math.ceil(Math.max(...ratios) * 20 + 0.5) / 20;
  const yMin = Math.max(0, Math.floor((Math.min(1, ...frontier.points.map((point) => point.grounding)) - 0.01) * 50) / 50);
  const x = (value: number) => left + ((value - xMin) / (xMax - xMin)) * plotWidth;
  const y = (value: number) => top + plotHeight - ((value - yMin) / (1 - yMin)) * plotHeight;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${left}" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  const xStep = tickStep(xMax - xMin, 10);
  for (let tick = Math.ceil(xMin / xStep) * xStep; tick <= xMax + 1e-9; tick += xStep) {
    parts.push(`<line x1="${x(tick).toFixed(1)}" y1="${top}" x2="${x(tick).toFixed(1)}" y2="${top + plotHeight + 4}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${x(tick).toFixed(1)}" y="${top + plotHeight + 18}" text-anchor="middle">${Number(tick.toFixed(6))}×</text>`);
  }
  const yStep = tickStep(1 - yMin, 8);
  for (let tick = Math.ceil(yMin / yStep - 1e-9) * yStep; tick <= 1 + 1e-9; tick += yStep) {
    parts.push(`<line x1="${left - 4}" y1="${y(tick).toFixed(1)}" x2="${left + plotWidth}" y2="${y(tick).toFixed(1)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${left - 8}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${Number(tick.toFixed(6))}</text>`);
  }
  parts.push(`<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="#374151"/>`);
  parts.push(`<text x="${left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">cost with re-reads, as a multiple of no compaction</text>`);
  parts.push(`<text transform="translate(18 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">reply grounding</text>`);
  parts.push(`<line x1="${left}" y1="${y(frontier.floor).toFixed(1)}" x2="${left + plotWidth}" y2="${y(frontier.floor).toFixed(1)}" stroke="#9ca3af" stroke-dasharray="4 4"/>`);
  parts.push(`<text x="${left + plotWidth - 4}" y="${(y(frontier.floor) - 4).toFixed(1)}" text-anchor="end" fill="#6b7280">grounding floor ${frontier.floor.toFixed(3)}</text>`);
  for (const family of ["autoCompaction", "toolResultHiding"]) {
    const members = frontier.points.filter((point) => point.family === family);
    const curve = paretoCurve(members, prices);
    for (const point of members) parts.push(`<circle cx="${x(ratio(point)).toFixed(1)}" cy="${y(point.grounding).toFixed(1)}" r="2.5" fill="${COLORS[family]}" opacity="0.5"><title>${escapeXml(point.system)}: ${ratio(point).toFixed(3)}×, grounding ${point.grounding.toFixed(3)}</title></circle>`);
    if (curve.length > 0) {
      const line = curve.map((point) => `${x(ratio(point)).toFixed(1)},${y(point.grounding).toFixed(1)}`).join(" ");
      parts.push(`<polyline data-family="${family}" fill="none" stroke="${COLORS[family]}" stroke-width="2" points="${line}"/>`);
      for (const point of curve) {
        parts.push(`<g data-system="${escapeXml(point.system)}" data-kind="ours"><circle cx="${x(ratio(point)).toFixed(1)}" cy="${y(point.grounding).toFixed(1)}" r="4" fill="${COLORS[family]}"/>`);
        parts.push(`<text x="${(x(ratio(point)) + 6).toFixed(1)}" y="${(y(point.grounding) + 12).toFixed(1)}" fill="${COLORS[family]}" font-size="9">${point.trigger}/${point.keep}</text></g>`);
      }
    }
  }
  // Peer points at the same place (e.g. every setting that never compacts, at no compaction's) share one label.
  const labelled = new Map<string, string[]>();
  for (const point of frontier.points.filter((candidate) => candidate.kind === "peer")) {
    const px = x(ratio(point));
    const py = y(point.grounding);
    const label = `${SHORT[point.family] ?? point.family} ${point.trigger}/${point.keep}${point.callsOverWindow > 0 ? "*" : ""}`;
    const place = `${px.toFixed(0)},${py.toFixed(0)}`;
    const first = !labelled.has(place);
    labelled.set(place, [...(labelled.get(place) ?? []), label]);
    parts.push(
      `<g data-system="${escapeXml(point.system)}" data-kind="peer"><title>${escapeXml(point.system)}: ${ratio(point).toFixed(3)}×, grounding ${point.grounding.toFixed(3)}${point.callsOverWindow > 0 ? `, ${point.callsOverWindow} calls over the window` : ""}</title>` +
        `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="5" fill="#ffffff" stroke="${COLORS[point.family]}" stroke-width="1.8"/>` +
        (first ? `<text data-place="${place}" x="@@x${place}@@" y="${(py - 5).toFixed(1)}" fill="${COLORS[point.family]}"@@a${place}@@>@@${place}@@</text>` : "") +
        "</g>",
    );
  }
  const baseline = { px: x(1), py: y(1) };
  parts.push(`<path d="M${(baseline.px - 5).toFixed(1)} ${(baseline.py - 5).toFixed(1)} l10 10 m0 -10 l-10 10" stroke="#111827" stroke-width="2"><title>no compaction</title></path>`);
  const fallback = frontier.points.find((point) => point.family === "default");
  if (fallback) {
    const px = x(ratio(fallback));
    const py = y(fallback.grounding);
    parts.push(
      `<g data-system="${escapeXml(fallback.system)}" data-kind="default"><title>${escapeXml(fallback.system)} (the default): ${ratio(fallback).toFixed(3)}×, grounding ${fallback.grounding.toFixed(3)}</title>` +
        `<path d="M${px.toFixed(1)} ${(py - 7).toFixed(1)} l7 7 l-7 7 l-7 -7 z" fill="#111827"/><text x="${(px + 9).toFixed(1)}" y="${(py + 4).toFixed(1)}" font-weight="bold">default</text></g>`,
    );
  }
  for (const point of frontier.points.filter((candidate) => candidate.family === "recall")) {
    const px = x(ratio(point));
    const py = y(point.grounding);
    parts.push(
      `<g data-system="${escapeXml(point.system)}" data-kind="recall"><title>${escapeXml(point.system)}: ${ratio(point).toFixed(3)}×, grounding ${point.grounding.toFixed(3)}${point.callsOverWindow > 0 ? `, ${point.callsOverWindow} calls over the window` : ""}</title>` +
        `<path d="M${px.toFixed(1)} ${(py - 6).toFixed(1)} l6 6 l-6 6 l-6 -6 z" fill="#ffffff" stroke="${COLORS.recall}" stroke-width="2"/><text x="${(px + 8).toFixed(1)}" y="${(py - 6).toFixed(1)}" fill="${COLORS.recall}">${escapeXml(recallLabel(point.system))}</text></g>`,
    );
  }
  const legend = [
    ["autoCompaction (trigger/keep groups)", "ours"],
    ["toolResultHiding (trigger/keep groups)", "ours"],
    ["ClearToolUsesEdit, createAgent (CTU trigger/keep results)", "peer"],
    ["summarizationMiddleware (SUM trigger/keep messages)", "peer"],
  ] as const;
  legend.forEach(([text, kind], index) => {
    const family = text.split(" ")[0]!.replace(",", "");
    const ly = top + 10 + index * 34;
    const lx = left + plotWidth + 14;
    parts.push(
      kind === "ours"
        ? `<line x1="${lx}" y1="${ly}" x2="${lx + 18}" y2="${ly}" stroke="${COLORS[family]}" stroke-width="2"/><circle cx="${lx + 9}" cy="${ly}" r="3.5" fill="${COLORS[family]}"/>`
        : `<circle cx="${lx + 9}" cy="${ly}" r="5" fill="#ffffff" stroke="${COLORS[family]}" stroke-width="1.8"/>`,
    );
    const [first, ...rest] = text.split(" (");
    parts.push(`<text x="${lx + 24}" y="${ly + 4}">${escapeXml(first!)}</text><text x="${lx + 24}" y="${ly + 17}" fill="#6b7280" font-size="9">(${escapeXml(rest.join(" ("))}</text>`);
  });
  const notesY = top + 10 + legend.length * 34;
  parts.push(`<path d="M${left + plotWidth + 23} ${notesY - 7} l7 7 l-7 7 l-7 -7 z" fill="#111827"/><text x="${left + plotWidth + 38}" y="${notesY + 4}">the default</text>`);
  parts.push(`<path d="M${left + plotWidth + 23} ${notesY + 13} l6 6 l-6 6 l-6 -6 z" fill="#ffffff" stroke="${COLORS.recall}" stroke-width="2"/><text x="${left + plotWidth + 38}" y="${notesY + 23}">with recall</text>`);
  parts.push(`<text x="${left + plotWidth + 14}" y="${notesY + 46}" fill="#6b7280" font-size="9">* over the window at some call</text>`);
  parts.push(`<text x="${left + plotWidth + 14}" y="${notesY + 60}" fill="#6b7280" font-size="9">triggers: shares of the window</text>`);
  parts.push("</svg>");
  // A place's label: its first two settings and how many more; to the left of the point where it would leave the chart.
  const labelOf = (place: string) => {
    const labels = labelled.get(place)!;
    return labels.length <= 2 ? labels.join(", ") : `${labels.slice(0, 2).join(", ")} +${labels.length - 2} more`;
  };
  const leftward = (place: string) => Number(place.split(",")[0]) + 7 + labelOf(place).length * 6.2 > width - 4;
  return `${parts.join("\n")}\n`
    .replace(/@@x([^@]+)@@/g, (_, place: string) => (Number(place.split(",")[0]) + (leftward(place) ? -7 : 7)).toFixed(1))
    .replace(/@@a([^@]+)@@/g, (_, place: string) => (leftward(place) ? ' text-anchor="end"' : ""))
    .replace(/@@([^@]+)@@/g, (_, place: string) => escapeXml(labelOf(place)));
}

/** Number formats and the markdown table of the evaluation's report. */

/** An integer with thousands separators. */
export function fmtInt(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A share with three decimals. */
export function fmtShare(value: number): string {
  return value.toFixed(3);
}

/** A cost in millions of price units. */
export function fmtCost(value: number): string {
  return `${(value / 1e6).toFixed(3)} M`;
}

/** A ratio with two decimals, e.g. "0.83×". */
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

/** A markdown table; the columns in `rightAligned` are aligned right. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const align = header.map((_, column) => (rightAligned.has(column) ? "---:" : ":---"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** `text` with the characters XML gives a meaning escaped. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A "nice" step for axis ticks: 1, 2 or 5 times a power of ten, giving about `count` ticks over `0..max`. */
export function tickStep(max: number, count: number): number {
  const raw = max / count;
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

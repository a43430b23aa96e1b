// Text formatting for the inspector's HTML page: escaping, numbers, durations, times, and a
// compaction's before → after figures.
import type { CompactionView } from "./inspection.js";

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escape text for HTML element content and quoted attribute values.
 *
 * @example
 * escapeHtml('<script>alert("x")</script>'); // "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A number rounded to a whole one, with thousands separators (en-US); `—` for a missing one. */
export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : integer.format(value);
}

/** A duration: tenths of a millisecond under 100 ms, whole milliseconds under 10 s, else tenths of a second; `—` when unknown. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "—";
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${integer.format(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** ISO times shown as written (UTC), without the machine's locale or time zone. */
export function formatTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT/.test(iso) ? iso.replace("T", " ").replace(/Z$/, " UTC") : iso;
}

/** `count` with the noun that agrees with it: `1 step`, `2 steps`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

/** A compaction's tokens before → after, e.g. `9,120 → 2,210`. */
export function tokensChange(view: CompactionView): string {
  return `${formatNumber(view.record.tokensBefore)} → ${formatNumber(view.record.tokensAfter)}`;
}

/** A compaction's messages before → after, e.g. `40 → 9`. */
export function messagesChange(view: CompactionView): string {
  return `${formatNumber(view.record.messagesBefore)} → ${formatNumber(view.record.messagesAfter)}`;
}

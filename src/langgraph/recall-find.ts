import type { BaseMessage } from "@langchain/core/messages";
import { formatHistory } from "../summary/format-history.js";

// What the recall tool's `find` returns: the lines of the originals that hold one of the texts
// asked for, newest message first, each under its message's header line.

/** A matching line longer than this many characters is cut around its first match. */
const LONG_LINE = 400;
/** Characters kept on each side of the first match of a long line. */
const AROUND = 150;

/** Per message, its rendered block's lines, as the recall renders it. */
const LINES = new WeakMap<BaseMessage, { readonly lines: readonly string[]; readonly lower: readonly string[] }>();

function linesOf(message: BaseMessage): { readonly lines: readonly string[]; readonly lower: readonly string[] } {
  let cached = LINES.get(message);
  if (cached === undefined) {
    const lines = formatHistory([message], { dropUnansweredCalls: false }).split("\n");
    cached = { lines, lower: lines.map((line) => line.toLowerCase()) };
    LINES.set(message, cached);
  }
  return cached;
}

/** The texts `find` asks for: `|` separates several; case-insensitive; empty ones dropped. @internal */
export function findTerms(find: string): string[] {
  return find
    .split("|")
    .map((term) => term.trim().toLowerCase())
    .filter((term) => term !== "");
}

/** `line` as returned: whole, or, when long, cut to the characters around `at` with `…` where cut. */
function shown(line: string, at: number): string {
  if (line.length <= LONG_LINE) return line;
  let start = Math.max(0, at - AROUND);
  let end = Math.min(line.length, at + AROUND);
  // Never cut a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/u.test(line[start]!)) start--;
  if (end < line.length && /[\uDC00-\uDFFF]/u.test(line[end]!)) end++;
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
}

/**
 * The lines of `originals` that hold one of `terms` (lower-cased), newest message first: per message
 * with a match, its header line (`[user]`, `[tool name #id]`) then its matching lines in order, a
 * long line cut around its first match; messages separated by a blank line. Empty when nothing
 * matches. Linear in the originals' text. @internal
 */
export function findLines(originals: readonly BaseMessage[], terms: readonly string[]): string {
  const blocks: string[] = [];
  for (let index = originals.length - 1; index >= 0; index--) {
    const { lines, lower } = linesOf(originals[index]!);
    const kept: string[] = [];
    for (let line = 1; line < lines.length; line++) {
      let at = -1;
      for (const term of terms) {
        const found = lower[line]!.indexOf(term);
        if (found >= 0 && (at < 0 || found < at)) at = found;
      }
      if (at >= 0) kept.push(shown(lines[line]!, at));
    }
    if (kept.length === 0 && terms.some((term) => lower[0]!.includes(term))) kept.push("…");
    if (kept.length > 0) blocks.push([lines[0]!, ...kept].join("\n"));
  }
  return blocks.join("\n\n");
}

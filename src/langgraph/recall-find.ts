import type { BaseMessage } from "@langchain/core/messages";
import { formatHistory } from "../summary/format-history.js";

// What the recall tool's `find` returns: the lines of the originals that hold one of the texts
// asked for, each under its message's header line: first the newest message that holds each text,
// then the older matches, newest message first.

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
 * The lines of `originals` that hold one of `terms` (lower-cased): per message with a match, its
 * header line (`[user]`, `[tool name #id]`) then its matching lines in order, a long line cut around
 * its first match; messages separated by a blank line. First the newest message that holds each
 * term (`newest`: those messages, newest first), then the other messages with a match (`older`,
 * newest first); either may be empty. Linear in the originals' text. @internal
 */
export function findBlocks(originals: readonly BaseMessage[], terms: readonly string[]): { newest: string; older: string } {
  const newest: string[] = [];
  const older: string[] = [];
  const unseen = new Set(terms);
  for (let index = originals.length - 1; index >= 0; index--) {
    const { lines, lower } = linesOf(originals[index]!);
    const kept: string[] = [];
    const held = new Set<string>();
    for (let line = 1; line < lines.length; line++) {
      let at = -1;
      for (const term of terms) {
        const found = lower[line]!.indexOf(term);
        if (found < 0) continue;
        held.add(term);
        if (at < 0 || found < at) at = found;
      }
      if (at >= 0) kept.push(shown(lines[line]!, at));
    }
    if (kept.length === 0) {
      for (const term of terms) if (lower[0]!.includes(term)) held.add(term);
      if (held.size > 0) kept.push("…");
    }
    if (kept.length === 0) continue;
    let first = false;
    for (const term of held) first = unseen.delete(term) || first;
    (first ? newest : older).push([lines[0]!, ...kept].join("\n"));
  }
  return { newest: newest.join("\n\n"), older: older.join("\n\n") };
}

/** {@link findBlocks} as one text: the newest messages holding each term, then the others. Empty when nothing matches. @internal */
export function findLines(originals: readonly BaseMessage[], terms: readonly string[]): string {
  const { newest, older } = findBlocks(originals, terms);
  return newest === "" || older === "" ? newest + older : `${newest}\n\n${older}`;
}

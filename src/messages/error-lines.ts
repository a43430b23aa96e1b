/** The error lines of a text, for the artifact index. @internal */

/** Lines that report an error: exception names, tracebacks, test failures, shell and compiler errors. */
export const ERROR_LINE =
  /\b[A-Z]\w*(?:Error|Exception)\b|^Traceback \(most recent call last\)|\b(?:error|fatal|panic)\s*:|\bFAIL(?:ED|URE)?\b|\bfailed\b|No such file or directory|command not found|^E\s{2,}/;
/** Diff lines (`+ ...`, `- ...`) quote code, not errors. */
export const DIFF_LINE = /^[+-](?![+-])/;
/**
 * What every error line holds, and some other lines too: each alternative of {@link ERROR_LINE}
 * reduced to a literal (`rror` for `Error` and `error`), without its anchors and word checks, so that
 * the scan of a whole text looks for a few literals instead of trying every capitalized word. The
 * literals that share a first character share a branch (the scan tries one branch per position).
 * Only `rror` starts with `r`. Global, and reset before each scan (scans are synchronous).
 */
const ERROR_LINE_IN_TEXT = /rror|fa(?:tal|iled)|panic|command not found|E(?:xception|\s\s)|Traceback \(most recent call last\)|FAIL|No such file or directory/g;

const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_R = 114;

/** Whether a UTF-16 code unit is a regex word character (`\w`: ASCII letters, digits, `_`); `NaN` (out of the text) is not. */
function isWordUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 65 && unit <= 90) || (unit >= 48 && unit <= 57) || unit === 95;
}

/**
 * Whether the `rror` at `at` can be the `rror` of no match of {@link ERROR_LINE}: only `Error`
 * ending a word that starts with a capital and holds more than it (`ValueError`), and `error` starting
 * a word (`error:`) use one. Lines cannot differ here from the text: the units around a line's `rror`
 * are the line's, or a line end or trimmed white space, which are no word characters either.
 */
function isIdleRror(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  if (before === LOWER_E) return isWordUnit(text.charCodeAt(at - 2));
  if (before === UPPER_E) return !isWordUnit(text.charCodeAt(at - 2)) || isWordUnit(text.charCodeAt(at + 4));
  return true;
}

/**
 * The error lines of a text, trimmed, in order: its `\n`-separated lines that, trimmed, are not a
 * diff line and match {@link ERROR_LINE}. One scan of the text for what error lines hold; an `rror`
 * that cannot be part of a match (`new Error(`) is passed over where it is found, and only the lines
 * the scan stops at are split out and checked.
 */
export function errorLinesOf(text: string): string[] {
  const lines: string[] = [];
  const pattern = ERROR_LINE_IN_TEXT;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const at = match.index;
    if (text.charCodeAt(at) === LOWER_R && isIdleRror(text, at)) {
      pattern.lastIndex = at + 1;
      continue;
    }
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    const newline = text.indexOf("\n", at);
    const trimmed = text.slice(start, newline === -1 ? text.length : newline).trim();
    if (trimmed !== "" && !DIFF_LINE.test(trimmed) && ERROR_LINE.test(trimmed)) lines.push(trimmed);
    if (newline === -1) break;
    pattern.lastIndex = newline + 1;
  }
  return lines;
}

/**
 * Cutting text without splitting a character. JavaScript strings are UTF-16: a character outside the
 * Basic Multilingual Plane (most emoji, many CJK ideographs, mathematical letters) is two code units,
 * a surrogate pair. A cut between them leaves a lone surrogate, which is not valid Unicode: JSON
 * encoders write it as an escape that providers reject (Anthropic: "no low surrogate in string").
 * Every cut this package makes goes through these helpers, so it lands on a code-point boundary.
 */

const HIGH_SURROGATE_START = 0xd800;
const HIGH_SURROGATE_END = 0xdbff;
const LOW_SURROGATE_START = 0xdc00;
const LOW_SURROGATE_END = 0xdfff;

function isHighSurrogate(code: number): boolean {
  return code >= HIGH_SURROGATE_START && code <= HIGH_SURROGATE_END;
}

function isLowSurrogate(code: number): boolean {
  return code >= LOW_SURROGATE_START && code <= LOW_SURROGATE_END;
}

/** True when position `index` of `text` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  return index > 0 && index < text.length && isHighSurrogate(text.charCodeAt(index - 1)) && isLowSurrogate(text.charCodeAt(index));
}

/**
 * The code-point boundary at or before `index` (clamped to `0..text.length`): where a cut that must
 * not go past `index` lands.
 */
export function boundaryAtOrBefore(text: string, index: number): number {
  const clamped = Math.max(0, Math.min(text.length, Math.floor(index)));
  return splitsPair(text, clamped) ? clamped - 1 : clamped;
}

/**
 * The code-point boundary at or after `index` (clamped to `0..text.length`): where a cut that must
 * not start before `index` lands.
 */
export function boundaryAtOrAfter(text: string, index: number): number {
  const clamped = Math.max(0, Math.min(text.length, Math.floor(index)));
  return splitsPair(text, clamped) ? clamped + 1 : clamped;
}

/**
 * The first `maxUnits` UTF-16 code units of `text`, one fewer when the last would be half a pair.
 *
 * @example
 * headOf("ab😀", 3); // "ab"
 */
export function headOf(text: string, maxUnits: number): string {
  return text.slice(0, boundaryAtOrBefore(text, maxUnits));
}

/**
 * The last `maxUnits` UTF-16 code units of `text`, one fewer when the first would be half a pair.
 *
 * @example
 * tailOf("😀ab", 3); // "ab"
 */
export function tailOf(text: string, maxUnits: number): string {
  if (maxUnits <= 0) return "";
  return text.slice(boundaryAtOrAfter(text, text.length - maxUnits));
}

/** `text.slice(start, end)` with both ends moved inwards to code-point boundaries. */
export function sliceCodePoints(text: string, start: number, end: number = text.length): string {
  const from = boundaryAtOrAfter(text, start);
  const to = boundaryAtOrBefore(text, end);
  return to <= from ? "" : text.slice(from, to);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** True when `text` holds a surrogate that is not half of a pair (not well-formed Unicode). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** `text` with every lone surrogate replaced by U+FFFD, the replacement character. */
export function replaceLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATES, "\uFFFD");
}

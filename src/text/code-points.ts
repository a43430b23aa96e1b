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

/** ES2024's well-formedness methods (Node 20 has them; the ES2022 lib this package targets does not type them). */
interface WellFormedString {
  isWellFormed?(): boolean;
  toWellFormed?(): string;
}
const NATIVE_WELL_FORMED = typeof (String.prototype as WellFormedString).isWellFormed === "function" && typeof (String.prototype as WellFormedString).toWellFormed === "function";

/** {@link hasLoneSurrogate} by the pattern: what the native check is tested against. @internal */
export function hasLoneSurrogateByPattern(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** {@link replaceLoneSurrogates} by the pattern: what the native repair is tested against. @internal */
export function replaceLoneSurrogatesByPattern(text: string): string {
  return text.replace(LONE_SURROGATES, "\uFFFD");
}

/**
 * True when `text` holds a surrogate that is not half of a pair (not well-formed Unicode). The
 * engine's own `isWellFormed` where it has one (a one-byte string is answered without a scan),
 * else a pattern search.
 */
export const hasLoneSurrogate: (text: string) => boolean = NATIVE_WELL_FORMED
  ? (text) => !(text as WellFormedString).isWellFormed!()
  : hasLoneSurrogateByPattern;

/**
 * `text` with every lone surrogate replaced by U+FFFD, the replacement character (`text` itself when
 * it has none). The engine's own `toWellFormed` where it has one, else a pattern replace.
 */
export const replaceLoneSurrogates: (text: string) => string = NATIVE_WELL_FORMED
  ? (text) => ((text as WellFormedString).isWellFormed!() ? text : (text as WellFormedString).toWellFormed!())
  : replaceLoneSurrogatesByPattern;

import { boundaryAtOrBefore } from "../text/code-points.js";
import { BpeEncoder } from "./bpe-encoder.js";
import type { TokenEncodingName } from "./encoding-for-model.js";

/** Length (in UTF-16 code units, at most) of the pieces a long run of non-space characters is encoded in (see {@link encodeText}). */
export const LONG_RUN_PIECE = 64;

/** Whether a UTF-16 code unit is one of JavaScript's `\s` characters (the regular expression class). @internal */
export function isSpace(unit: number): boolean {
  if (unit < 0x80) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/**
 * The end of the first maximal run of more than {@link LONG_RUN_PIECE} non-space code units
 * (`/\S{65,}/`) at or after `from`, with its start; `undefined` when there is none. One pass (the
 * regular expression retried up to 65 units at every position).
 */
function nextLongRun(text: string, from: number): { start: number; end: number } | undefined {
  let start = from;
  for (let position = from; position <= text.length; position++) {
    if (position < text.length && !isSpace(text.charCodeAt(position))) continue;
    if (position - start > LONG_RUN_PIECE) return { start, end: position };
    start = position + 1;
  }
  return undefined;
}

const encoderLoads = new Map<TokenEncodingName, Promise<BpeEncoder>>();

/** Load one encoding's rank file (js-tiktoken's), once per process, only when first needed. */
export function loadEncoder(encoding: TokenEncodingName): Promise<BpeEncoder> {
  let load = encoderLoads.get(encoding);
  if (!load) {
    load = (async () => {
      const ranks =
        encoding === "cl100k_base"
          ? (await import("js-tiktoken/ranks/cl100k_base")).default
          : (await import("js-tiktoken/ranks/o200k_base")).default;
      return new BpeEncoder(ranks);
    })();
    encoderLoads.set(encoding, load);
    load.catch(() => encoderLoads.delete(encoding));
  }
  return load;
}

/**
 * Call `each` on the pieces a text is encoded in (`first`: its first long run, from `nextLongRun`). js-tiktoken's merge step is quadratic in the
 * length of one pre-token, so a long run of non-space characters (a 6 400-character "=====" line
 * took it seconds) is encoded in pieces of at most {@link LONG_RUN_PIECE} code units, cut on
 * code-point boundaries (a piece never ends between the two halves of a surrogate pair): off by at
 * most a token per piece, and the tokens still decode to the text. The counts this package reports
 * were defined that way, so they stay so.
 */
function forEachPiece(text: string, first: { start: number; end: number } | undefined, each: (piece: string) => void): void {
  let last = 0;
  for (let found = first; found !== undefined; found = nextLongRun(text, found.end)) {
    const { start } = found;
    if (start > last) each(text.slice(last, start));
    const run = text.slice(start, found.end);
    for (let piece = 0; piece < run.length; ) {
      // A piece ends at or before LONG_RUN_PIECE code units, on a code-point boundary (never empty:
      // a pair is two units, a piece up to 64).
      const end = boundaryAtOrBefore(run, piece + LONG_RUN_PIECE);
      each(run.slice(piece, end));
      piece = end;
    }
    last = start + run.length;
  }
  if (last < text.length) each(text.slice(last));
}

/**
 * The tokens of a text: the encoder's tokens (special tokens such as "<|endoftext|>" are ordinary
 * text), a long run of non-space characters encoded in pieces (see `forEachPiece`).
 */
export function encodeText(encoder: BpeEncoder, text: string): number[] {
  const first = nextLongRun(text, 0);
  if (first === undefined) return encoder.encode(text);
  const tokens: number[] = [];
  forEachPiece(text, first, (piece) => {
    for (const token of encoder.encode(piece)) tokens.push(token);
  });
  return tokens;
}

/** How many tokens {@link encodeText} gives for `text`, without building the array. */
export function countText(encoder: BpeEncoder, text: string): number {
  const first = nextLongRun(text, 0);
  if (first === undefined) return encoder.count(text);
  let count = 0;
  forEachPiece(text, first, (piece) => {
    count += encoder.count(piece);
  });
  return count;
}

/**
 * The longest prefix of `text` whose first `budget` tokens (`tokens`, from {@link encodeText}) cover
 * it. Decoding a token prefix can end inside a multi-byte character, which decodes to U+FFFD: those
 * are dropped, and the result is cut where it stops agreeing with `text`, on a code-point boundary.
 * So the result is always a prefix of `text`'s code points (it never ends in half a surrogate pair,
 * and it stops before a lone surrogate of `text`, which encodes as U+FFFD).
 */
export function tokenPrefix(encoder: BpeEncoder, text: string, tokens: readonly number[], budget: number): string {
  let decoded = encoder.decode(tokens.slice(0, budget));
  let end = decoded.length;
  while (end > 0 && decoded.charCodeAt(end - 1) === 0xfffd) end--;
  decoded = decoded.slice(0, end);
  let agree = 0;
  while (agree < decoded.length && decoded.charCodeAt(agree) === text.charCodeAt(agree)) agree++;
  return text.slice(0, boundaryAtOrBefore(text, agree));
}

import type { Tiktoken } from "js-tiktoken/lite";
import { boundaryAtOrBefore } from "../text/code-points.js";
import type { TokenEncodingName } from "./encoding-for-model.js";

/** Length (in UTF-16 code units, at most) of the pieces a long run of non-space characters is encoded in (see {@link encodeText}). */
export const LONG_RUN_PIECE = 64;
const LONG_RUN = new RegExp(`\\S{${LONG_RUN_PIECE + 1}}`);
const LONG_RUNS = new RegExp(`\\S{${LONG_RUN_PIECE + 1},}`, "g");

const encoderLoads = new Map<TokenEncodingName, Promise<Tiktoken>>();

/** Load one encoding's rank file, once per process, only when first needed. */
export function loadEncoder(encoding: TokenEncodingName): Promise<Tiktoken> {
  let load = encoderLoads.get(encoding);
  if (!load) {
    load = (async () => {
      const { Tiktoken } = await import("js-tiktoken/lite");
      const ranks =
        encoding === "cl100k_base"
          ? (await import("js-tiktoken/ranks/cl100k_base")).default
          : (await import("js-tiktoken/ranks/o200k_base")).default;
      return new Tiktoken(ranks);
    })();
    encoderLoads.set(encoding, load);
    load.catch(() => encoderLoads.delete(encoding));
  }
  return load;
}

/**
 * The tokens of a text. js-tiktoken's merge step is quadratic in the length of one pre-token, so a
 * long run of non-space characters (a 6 400-character "=====" line takes seconds) is encoded in
 * pieces of at most {@link LONG_RUN_PIECE} code units, cut on code-point boundaries (a piece never
 * ends between the two halves of a surrogate pair): linear, off by at most a token per piece, and
 * the tokens still decode to the text.
 */
export function encodeText(encoder: Tiktoken, text: string): number[] {
  // An empty disallowed list: text such as "<|endoftext|>" is ordinary text here, not an error.
  if (!LONG_RUN.test(text)) return encoder.encode(text, [], []);
  const tokens: number[] = [];
  const push = (piece: string) => {
    for (const token of encoder.encode(piece, [], [])) tokens.push(token);
  };
  let last = 0;
  for (const match of text.matchAll(LONG_RUNS)) {
    const start = match.index;
    if (start > last) push(text.slice(last, start));
    const run = match[0];
    for (let piece = 0; piece < run.length; ) {
      // A piece ends at or before LONG_RUN_PIECE code units, on a code-point boundary (never empty:
      // a pair is two units, a piece up to 64).
      const end = boundaryAtOrBefore(run, piece + LONG_RUN_PIECE);
      push(run.slice(piece, end));
      piece = end;
    }
    last = start + run.length;
  }
  if (last < text.length) push(text.slice(last));
  return tokens;
}

/**
 * The longest prefix of `text` whose first `budget` tokens (`tokens`, from {@link encodeText}) cover
 * it. Decoding a token prefix can end inside a multi-byte character, which decodes to U+FFFD: those
 * are dropped, and the result is cut where it stops agreeing with `text`, on a code-point boundary.
 * So the result is always a prefix of `text`'s code points (it never ends in half a surrogate pair,
 * and it stops before a lone surrogate of `text`, which encodes as U+FFFD).
 */
export function tokenPrefix(encoder: Tiktoken, text: string, tokens: readonly number[], budget: number): string {
  let decoded = encoder.decode(tokens.slice(0, budget));
  let end = decoded.length;
  while (end > 0 && decoded.charCodeAt(end - 1) === 0xfffd) end--;
  decoded = decoded.slice(0, end);
  let agree = 0;
  while (agree < decoded.length && decoded.charCodeAt(agree) === text.charCodeAt(agree)) agree++;
  return text.slice(0, boundaryAtOrBefore(text, agree));
}

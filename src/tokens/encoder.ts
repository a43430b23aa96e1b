import { boundaryAtOrBefore } from "../text/code-points.js";
import { BpeEncoder } from "./bpe-encoder.js";
import type { TokenEncodingName } from "./encoding-for-model.js";

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

/** The tokens of a text: the encoder's tokens, exactly js-tiktoken's `encode(text, [], [])` (special tokens such as "<|endoftext|>" are ordinary text). */
export function encodeText(encoder: BpeEncoder, text: string): number[] {
  return encoder.encode(text);
}

/** How many tokens {@link encodeText} gives for `text`, without building the array. */
export function countText(encoder: BpeEncoder, text: string): number {
  return encoder.count(text);
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

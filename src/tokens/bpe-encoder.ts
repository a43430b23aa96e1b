import { boundaryAtOrAfter } from "../text/code-points.js";
import { bytePairEncode } from "./bpe-merge.js";
import { parseRanks, type BpeRanks, type RankFile } from "./bpe-ranks.js";
import { copyOf, RecentPieces } from "./recent-pieces.js";
import { isAscii, utf8Binary } from "./utf8-binary.js";

/** Pieces whose tokens one encoder keeps (the map is emptied when it is full). */
export const PIECE_CACHE_MAX_ENTRIES = 16_384;

/**
 * An exact byte-pair encoder for one tiktoken encoding: the same tokens as js-tiktoken's
 * `Tiktoken.encode(text, [], [])` (special tokens such as `<|endoftext|>` are ordinary text) and
 * the same text as its `decode`, several times faster.
 *
 * - The pre-tokenizing pattern is compiled once (its groups made non-capturing).
 * - Ranks are keyed by binary strings (one code unit per byte), so an ASCII piece is its own key.
 * - Recent pieces are found by their characters in a small direct-mapped table (`RecentPieces`); the
 *   tokens of pieces that are not one token are also kept in a map (at most
 *   {@link PIECE_CACHE_MAX_ENTRIES}), so a piece is merged once.
 * - The merge updates only the neighbours of each merge (see `bytePairEncode`).
 *
 * @example
 * const encoder = new BpeEncoder((await import("js-tiktoken/ranks/o200k_base")).default);
 * encoder.decode(encoder.encode("hello world")); // "hello world"
 */
export class BpeEncoder {
  readonly #tables: BpeRanks;
  /** The pattern, sticky: it matches at `lastIndex` or not at all. */
  readonly #sticky: RegExp;
  /** The pattern, global: where the next piece starts when none starts at `lastIndex`. */
  readonly #global: RegExp;
  readonly #pieces = new Map<string, readonly number[]>();
  readonly #recent = new RecentPieces<number | readonly number[]>();
  readonly #decoder = new TextDecoder("utf-8");

  constructor(file: RankFile) {
    this.#tables = parseRanks(file);
    const source = file.pat_str.replace(/(?<!\\)\((?!\?)/g, "(?:");
    this.#sticky = new RegExp(source, "yu");
    this.#global = new RegExp(source, "gu");
  }

  /** The tokens of `text`, exactly js-tiktoken's `encode(text, [], [])`. */
  encode(text: string): number[] {
    const tokens: number[] = [];
    this.#run(text, tokens);
    return tokens;
  }

  /** How many tokens `text` has: `encode(text).length`, without building the array. */
  count(text: string): number {
    return this.#run(text, undefined);
  }

  /**
   * The text of `tokens`, exactly js-tiktoken's `decode`: the tokens' bytes (special tokens
   * included, unknown tokens skipped) decoded as UTF-8, an invalid sequence as U+FFFD.
   */
  decode(tokens: readonly number[]): string {
    const { bytesOf, specialBytes } = this.#tables;
    const parts: string[] = [];
    let length = 0;
    for (const token of tokens) {
      const bytes = bytesOf[token] ?? specialBytes.get(token);
      if (bytes === undefined) continue;
      parts.push(bytes);
      length += bytes.length;
    }
    const merged = new Uint8Array(length);
    let at = 0;
    for (const bytes of parts) for (let index = 0; index < bytes.length; index++) merged[at++] = bytes.charCodeAt(index);
    return this.#decoder.decode(merged);
  }

  /**
   * Encode the pieces of `text` in the order js-tiktoken's `matchAll` gives them, appending their
   * tokens to `tokens` when given; return how many tokens there are. Each character starts a match of
   * the tiktoken patterns, so the sticky test at the end of one piece finds the next. Were there none
   * (or an empty one), the global search decides, as in `matchAll`: characters before its match
   * belong to no piece, and an empty match yields no tokens and moves one code point on.
   */
  #run(text: string, tokens: number[] | undefined): number {
    const sticky = this.#sticky;
    let count = 0;
    for (let start = 0; start < text.length; ) {
      sticky.lastIndex = start;
      let end = sticky.test(text) ? sticky.lastIndex : start;
      if (end === start) {
        const global = this.#global;
        global.lastIndex = start;
        const match = global.exec(text);
        if (match === null) break;
        if (match[0] === "") {
          start = boundaryAtOrAfter(text, match.index + 1);
          continue;
        }
        start = match.index;
        end = start + match[0].length;
      }
      let found = this.#recent.lookup(text, start, end);
      if (found === undefined) {
        const piece = text.slice(start, end);
        found = this.#tokensOf(piece);
        this.#recent.remember(piece, found);
      }
      if (typeof found === "number") {
        count++;
        tokens?.push(found);
      } else {
        count += found.length;
        if (tokens) for (let index = 0; index < found.length; index++) tokens.push(found[index]!);
      }
      start = end;
    }
    return count;
  }

  /** The token of a piece that is one token, else its tokens. */
  #tokensOf(piece: string): number | readonly number[] {
    const ascii = isAscii(piece);
    if (ascii) {
      const token = this.#tables.ranks.get(piece);
      if (token !== undefined) return token;
    }
    const cached = this.#pieces.get(piece);
    if (cached !== undefined) return cached;
    const bytes = ascii ? piece : utf8Binary(piece);
    const token = ascii ? undefined : this.#tables.ranks.get(bytes);
    let tokens: number[];
    if (token !== undefined) tokens = [token];
    else {
      tokens = [];
      bytePairEncode(bytes, this.#tables, tokens);
    }
    if (this.#pieces.size >= PIECE_CACHE_MAX_ENTRIES) this.#pieces.clear();
    this.#pieces.set(copyOf(piece), tokens);
    return tokens;
  }
}

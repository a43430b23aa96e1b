/**
 * The pieces under BpeEncoder: its UTF-8 conversion and both merge paths; and the counter's
 * `encodeText` / `countText` / `tokenPrefix`, which must give js-tiktoken's tokens and cuts.
 */
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { boundaryAtOrBefore } from "../../src/text/code-points.js";
import { BpeEncoder } from "../../src/tokens/bpe-encoder.js";
import { bytePairEncode, HEAP_MERGE_MIN_BYTES } from "../../src/tokens/bpe-merge.js";
import { parseRanks } from "../../src/tokens/bpe-ranks.js";
import { countText, encodeText, tokenPrefix } from "../../src/tokens/encoder.js";
import { isAscii, utf8Binary } from "../../src/tokens/utf8-binary.js";
import { randomText, seededRandom } from "../support/random-text.js";

const reference = new Tiktoken(o200k);
const encoder = new BpeEncoder(o200k);

/** Every UTF-16 code unit that `/\s/` matches. */
function spaceCodeUnits(): string[] {
  return Array.from({ length: 0x10000 }, (_, unit) => String.fromCharCode(unit)).filter((unit) => /\s/.test(unit));
}

const binaryOf = (bytes: Uint8Array) => Array.from(bytes, (byte) => String.fromCharCode(byte)).join("");

describe("utf8Binary", () => {
  it("gives TextEncoder's bytes, a lone surrogate as U+FFFD", () => {
    const textEncoder = new TextEncoder();
    const random = seededRandom(11);
    const texts = ["", "abc", "é", "\u07ff\u0800", "\uffff", "😀", "\ud800", "x\udc00", "\ud83d\ud83d\ude00", "\ud83d", ...Array.from({ length: 500 }, () => randomText(random, 30))];
    for (const text of texts) expect({ text, bytes: utf8Binary(text) }).toEqual({ text, bytes: binaryOf(textEncoder.encode(text)) });
  });

  it("tells ASCII from anything else, Latin-1 included", () => {
    expect([isAscii(""), isAscii("abc ~\u007f"), isAscii("caf\u00e9"), isAscii("\u0080"), isAscii("😀")]).toEqual([true, true, false, false, false]);
  });
});

describe("bytePairEncode", () => {
  const tables = parseRanks(o200k);

  it("merges alike with the heap and by scanning, on random bytes and on runs", () => {
    const random = seededRandom(5);
    const alphabets = [" \n\ta", "ab", " ", "\n", null];
    let compared = 0;
    for (let index = 0; index < 1_500; index++) {
      const alphabet = alphabets[index % alphabets.length];
      const length = 2 + Math.floor(random() * 3 * HEAP_MERGE_MIN_BYTES);
      let bytes = "";
      for (let at = 0; at < length; at++) {
        bytes += alphabet ? alphabet[Math.floor(random() * alphabet.length)] : String.fromCharCode(Math.floor(random() * 256));
      }
      if (tables.ranks.has(bytes)) continue;
      const scanned: number[] = [];
      const heaped: number[] = [];
      bytePairEncode(bytes, tables, scanned, Number.POSITIVE_INFINITY);
      bytePairEncode(bytes, tables, heaped, 2);
      if (heaped.join() !== scanned.join()) expect({ bytes, heaped }).toEqual({ bytes, heaped: scanned });
      compared++;
    }
    // Seeded: the runs that are one token of their own are left out, the rest compared.
    expect(compared).toBe(1_352);
  });

  it("gives the same tokens from an empty merged-pair cache, a filled one, and one of two slots that always collide", () => {
    const random = seededRandom(9);
    const pieces = Array.from({ length: 400 }, (_, index) => utf8Binary(randomText(random, index % 40 === 0 ? 200 : 12).replace(/\s/g, "")));
    const fresh = parseRanks(o200k);
    const colliding = { ...fresh, mergedPairs: { lefts: new Int32Array(2).fill(-1), rights: new Int32Array(2).fill(-1), merged: new Int32Array(2), shift: 31 } };
    const encodeAll = (tables: typeof fresh) => pieces.map((bytes) => {
      const tokens: number[] = [];
      if (bytes.length >= 2 && !tables.ranks.has(bytes)) bytePairEncode(bytes, tables, tokens);
      return tokens.join();
    });
    const cold = encodeAll(fresh);
    expect(encodeAll(fresh)).toEqual(cold);
    expect(encodeAll(colliding)).toEqual(cold);
    // The colliding cache kept a pair and missed others: it was used.
    expect(colliding.mergedPairs.lefts.some((left) => left >= 0)).toBe(true);
  });

  it("merges a long piece with the heap exactly as js-tiktoken", () => {
    for (const text of [" ".repeat(400), "\n".repeat(300), " \t".repeat(200) + "\n", "é".repeat(100)]) {
      const tokens: number[] = [];
      bytePairEncode(utf8Binary(text), tables, tokens);
      expect(tokens).toEqual(reference.encode(text, [], []));
    }
  });
});

describe("encodeText, countText and tokenPrefix", () => {
  const random = seededRandom(7);
  const texts = [
    "plain text, no long run",
    "x" + "𝒳".repeat(192),
    "=".repeat(1_000),
    `before ${"a".repeat(65)} after ${"b".repeat(64)} ${"😀".repeat(64)}`,
    "path/" + "segment/".repeat(40) + "file.ts and <|endoftext|>",
    // Every code unit JavaScript's \s matches, between runs; U+200B, U+0085 and U+180E are not spaces.
    spaceCodeUnits().map((space) => "r".repeat(64) + space).join("") + "q".repeat(32) + "\u200b\u0085\u180e" + "q".repeat(32),
    ...Array.from({ length: 200 }, () => randomText(random, 60).replace(/\s/g, "") + " " + randomText(random, 120)),
  ];

  it("give js-tiktoken's tokens and counts, long runs included", () => {
    for (const text of texts) {
      const expected = reference.encode(text, [], []);
      expect({ text, tokens: encodeText(encoder, text) }).toEqual({ text, tokens: expected });
      expect({ text, count: countText(encoder, text) }).toEqual({ text, count: expected.length });
    }
  });

  it("cut the prefix js-tiktoken's decode gives", () => {
    for (const text of texts.slice(0, 30)) {
      const tokens = encodeText(encoder, text);
      for (const budget of [0, 1, 2, Math.floor(tokens.length / 2), tokens.length - 1]) {
        const decoded = reference.decode(tokens.slice(0, budget)).replace(/\uFFFD+$/, "");
        let agree = 0;
        while (agree < decoded.length && decoded.charCodeAt(agree) === text.charCodeAt(agree)) agree++;
        expect({ text, budget, cut: tokenPrefix(encoder, text, tokens, budget) }).toEqual({ text, budget, cut: text.slice(0, boundaryAtOrBefore(text, agree)) });
      }
    }
  });
});

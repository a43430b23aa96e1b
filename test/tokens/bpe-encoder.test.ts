/**
 * BpeEncoder gives exactly js-tiktoken's tokens (`encode(text, [], [])`) and text (`decode`), for
 * o200k_base and cl100k_base: on the recorded traces, on hand-picked hard texts, and on seeded
 * random strings. The trace texts are sampled (every 5th message); ENCODER_ALL_TRACES=1 takes all.
 */
import { AIMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { BpeEncoder, PIECE_CACHE_MAX_ENTRIES } from "../../src/tokens/bpe-encoder.js";
import { parseRanks, type RankFile } from "../../src/tokens/bpe-ranks.js";
import { HEAP_MERGE_MIN_BYTES } from "../../src/tokens/bpe-merge.js";
import { randomText, seededRandom } from "../support/random-text.js";

/** What js-tiktoken keeps internally: each token's bytes joined by commas, and each token's bytes. */
interface TiktokenTables {
  rankMap: Map<string, number>;
  textMap: Map<number, Uint8Array>;
}

const encodings: [string, RankFile][] = [
  ["o200k_base", o200k],
  ["cl100k_base", cl100k],
];
const references = new Map(encodings.map(([name, file]) => [name, new Tiktoken(file)]));
const encoders = new Map(encodings.map(([name, file]) => [name, new BpeEncoder(file)]));

/** Every message's texts: its content, each tool call's name and JSON arguments. */
function traceTexts(): string[] {
  const stride = process.env["ENCODER_ALL_TRACES"] === "1" ? 1 : 5;
  const texts: string[] = [];
  for (const { messages } of loadTraceSessions(defaultTracesPath())) {
    messages.forEach((message, index) => {
      if (index % stride !== 0) return;
      texts.push(message.content as string);
      if (message instanceof AIMessage) for (const call of message.tool_calls ?? []) texts.push(call.name, JSON.stringify(call.args));
    });
  }
  return texts;
}

const HARD_TEXTS = [
  "",
  " ",
  "a",
  "hello world",
  "<|endoftext|>",
  "before <|endoftext|> after <|endofprompt|><|fim_prefix|><|fim_middle|><|fim_suffix|>",
  "<|endoftext|".repeat(3),
  "I'm sure THEY'RE right, don't you think? We'll see; she'd've LL'd",
  "1234567890 3.14159 1,000,000 -42 0x1F 1e-9 ١٢٣ ½ ⅔ ²³",
  "   leading, trailing   ",
  " \t\n\n  \r\n\r\n\t\t   \n",
  "\u00a0non-breaking\u00a0space \u3000ideographic\u3000space \u2028line\u2029para",
  "café naïve résumé ÿ ß Æ µ ¡¿ «quotes» \u0080\u0085\u009f\u00ad",
  "😀 👨‍👩‍👧‍👦 🇫🇷🇯🇵 👍🏽 ❤️ 🫠 x😀y 😀😀😀",
  "𝒳𝒴𝒵 𝟘𝟙𝟚 𐍈 𠀋𠀌",
  "lone high \ud800 and lone low \udc00, \ud83d at the end: \ud83d",
  "\udc00\ud800 reversed pair, \ud800\ud800 two highs",
  "漢字かなカナ한국어 中文文本，标点。",
  "مرحبا بالعالم العربية ١٢٣ שלום עולם עִבְרִית",
  "हिन्दी नमस्ते ไทย ภาษาไทย ქართული Ελληνικά Русский",
  "e\u0301 a\u0308\u0304 \u0301lone mark, Z\u0351\u0358\u0362a\u0334\u0321l\u035cgo",
  "\u0000\u0001\u0007\u001b[31mred\u001b[0m\u007f",
  "def f(x):\n    return {'a': [1, 2, 3], \"b\": None}  # comment\n\n\n",
  '{"command":"grep -rn \\"foo\\" src/ | head -20","timeout":30}',
  "https://example.com/path/to/page?query=1&other=two#frag",
  "=".repeat(500),
  "a".repeat(1000),
  "ab".repeat(300) + "\n" + " ".repeat(300) + "x",
  "\n".repeat(700) + "end",
  "word " + " ".repeat(HEAP_MERGE_MIN_BYTES * 3) + "\t\n \r\n" + "word",
  "😀".repeat(200),
  "ü".repeat(150) + "漢".repeat(100),
];

describe.each(encodings)("BpeEncoder (%s)", (name, file) => {
  const reference = references.get(name)!;
  const encoder = encoders.get(name)!;

  const expectSame = (text: string) => {
    const expected = reference.encode(text, [], []);
    const tokens = encoder.encode(text);
    expect({ text, tokens }).toEqual({ text, tokens: expected });
    expect({ text, count: encoder.count(text) }).toEqual({ text, count: expected.length });
    expect({ text, decoded: encoder.decode(tokens) }).toEqual({ text, decoded: reference.decode(expected) });
  };

  it("holds js-tiktoken's rank table: every byte sequence has the same token, every token the same bytes", () => {
    const tables = parseRanks(file);
    const theirs = reference as unknown as TiktokenTables;
    expect(tables.ranks.size).toBe(theirs.rankMap.size);
    for (const [bytes, rank] of tables.ranks) {
      const joined = Array.from(bytes, (char) => char.charCodeAt(0)).join(",");
      if (theirs.rankMap.get(joined) !== rank) expect({ joined, rank }).toEqual({ joined, rank: theirs.rankMap.get(joined) });
    }
    for (const [rank, bytes] of theirs.textMap) {
      const ours = Array.from(tables.bytesOf[rank] ?? "", (char) => char.charCodeAt(0)).join(",");
      if (ours !== bytes.join(",")) expect({ rank, ours }).toEqual({ rank, ours: bytes.join(",") });
    }
    expect(tables.bytesOf.filter((bytes) => bytes !== undefined)).toHaveLength(theirs.textMap.size);
  });

  it("encodes and decodes the trace texts exactly as js-tiktoken", () => {
    const texts = traceTexts();
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) {
      const expected = reference.encode(text, [], []);
      const tokens = encoder.encode(text);
      if (tokens.length !== expected.length || tokens.some((token, index) => token !== expected[index])) {
        expect({ text, tokens }).toEqual({ text, tokens: expected });
      }
      if (encoder.count(text) !== expected.length) expect({ text, count: encoder.count(text) }).toEqual({ text, count: expected.length });
      // The same tokens and the same byte tables (above) decode alike; a text with a lone surrogate decodes to U+FFFD.
      const decoded = encoder.decode(tokens);
      if (decoded !== text) expect({ text, decoded }).toEqual({ text, decoded: reference.decode(expected) });
    }
  });

  it.each(HARD_TEXTS.map((text) => [JSON.stringify(text).slice(0, 60), text]))("encodes %s exactly as js-tiktoken", (_label, text) => {
    expectSame(text);
  });

  it("treats special-token texts as ordinary text", () => {
    for (const special of Object.keys(file.special_tokens)) {
      const tokens = encoder.encode(special);
      expect(tokens).not.toContain(file.special_tokens[special]);
      expect(tokens).toEqual(reference.encode(special, [], []));
    }
  });

  it("decodes special, unknown and partial tokens as js-tiktoken does", () => {
    const specials = Object.values(file.special_tokens);
    const euro = encoder.encode("€ 😀");
    const lists = [specials, [...specials, 15339, -1, 1.5, 10_000_000, specials[0]!], euro.slice(0, 1), [euro[0]!, euro.at(-1)!], [], [0, 1, 2, 255]];
    for (const tokens of lists) expect(encoder.decode(tokens)).toBe(reference.decode(tokens));
  });

  it("encodes seeded random strings exactly as js-tiktoken", () => {
    const random = seededRandom(name === "o200k_base" ? 1 : 2);
    for (let index = 0; index < 2_000; index++) {
      const text = randomText(random, index % 50 === 0 ? 400 : 40);
      const expected = reference.encode(text, [], []);
      const tokens = encoder.encode(text);
      if (tokens.join() !== expected.join() || encoder.count(text) !== expected.length || encoder.decode(tokens) !== reference.decode(expected)) {
        expectSame(text);
      }
    }
  });

  it("gives the same tokens after its piece cache has been filled and emptied, and returns arrays it does not keep", () => {
    const fresh = new BpeEncoder(file);
    const text = "Zylophonic quarkbeasts brillig: 😀 naïve 漢字 and lone \ud800.";
    const expected = reference.encode(text, [], []);
    const first = fresh.encode(text);
    expect(first).toEqual(expected);
    first.length = 0;
    first.push(1, 2, 3);
    expect(fresh.encode(text)).toEqual(expected);
    // More distinct multi-token pieces than the cache holds.
    const random = seededRandom(3);
    const letters = (count: number) => Array.from({ length: count }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join("");
    for (let index = 0; index < PIECE_CACHE_MAX_ENTRIES * 1.5; index++) fresh.count(` zq${letters(8)}`);
    expect(fresh.encode(text)).toEqual(expected);
    expect(fresh.count(text)).toBe(expected.length);
  });
});

/**
 * Counting a joined text from its parts (`joinedCount`, `TokenCounter.countJoined`): the piece
 * breaks it relies on hold in both encodings, against js-tiktoken, and the count is exactly the
 * joined text's however the text is cut.
 */
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { createTokenCounter, type TokenCounter } from "../../src/index.js";
import { BpeEncoder } from "../../src/tokens/bpe-encoder.js";
import { countText } from "../../src/tokens/encoder.js";
import { isPieceBreak, joinedCount } from "../../src/tokens/joined-count.js";

const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const REFERENCES = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };
const ENCODERS = { o200k_base: new BpeEncoder(o200k), cl100k_base: new BpeEncoder(cl100k) };

/** Texts built around line ends: what a break needs, and what is next to one but is not one. */
const LINE_UNITS = ["\n", "\r", "\r\n", " ", "  ", "\t", "/", "//", "-", "<", ">", ".", ":", "'s", "'", "a", "Word", "ab c", "7", "123", "é", "漢", "😀", "\ud800", "\u0301", "\u00a0", "\u3000", "\u2028", "="];
/** Runs of non-space units, alone or together longer than 64 units. */
const LONG_RUNS = ["x".repeat(40), "=".repeat(33), "😀".repeat(20), `a${"\ud83d\ude00".repeat(31)}`, "b".repeat(70)];
const lineText = fc
  .array(fc.tuple(fc.constantFrom("\n", "\r", "\r\n", "\n\n"), fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...LINE_UNITS) }, { weight: 1, arbitrary: fc.constantFrom(...LONG_RUNS) }), { maxLength: 8 })), { minLength: 1, maxLength: 20 })
  .map((lines) => lines.map(([end, units]) => `${units.join("")}${end}`).join(""));
const anyText = fc.oneof(lineText, fc.string({ unit: "grapheme", maxLength: 120 }), fc.string({ unit: "binary", maxLength: 120 }));

async function loaded(encoding: (typeof ENCODINGS)[number]): Promise<TokenCounter> {
  const counter = createTokenCounter({ encoding });
  await counter.countText("load");
  return counter;
}

describe("isPieceBreak", () => {
  it.each(ENCODINGS)("cuts a text where js-tiktoken's tokens, and countText's, are the two halves' (%s)", (encoding) => {
    const reference = REFERENCES[encoding];
    const encoder = ENCODERS[encoding];
    const tokens = (text: string) => reference.encode(text, [], []);
    let breaks = 0;
    fc.assert(
      fc.property(lineText, (text) => {
        for (let at = 0; at <= text.length; at++) {
          if (!isPieceBreak(text, at)) continue;
          breaks++;
          expect(tokens(text)).toEqual([...tokens(text.slice(0, at)), ...tokens(text.slice(at))]);
          expect(countText(encoder, text)).toBe(countText(encoder, text.slice(0, at)) + countText(encoder, text.slice(at)));
        }
      }),
      { numRuns: 120 },
    );
    // The property was exercised, not vacuously true.
    expect(breaks).toBeGreaterThan(120);
  });

  it("is a line end followed by anything but whitespace or a slash, inside the text", () => {
    const at = (text: string) => [...Array(text.length + 1).keys()].filter((position) => isPieceBreak(text, position));
    expect(at("a\nb")).toEqual([2]);
    expect(at("a\r\nb")).toEqual([3]);
    expect(at("a\rb")).toEqual([2]);
    expect(at("a\n b\n/c\n\td\n\ne")).toEqual([12]);
    expect(at("\nx")).toEqual([1]);
    expect(at("x\n")).toEqual([]);
    expect(at("a\n<b>\n😀")).toEqual([2, 6]);
  });
});

describe("joinedCount and countJoined", () => {
  it.each(ENCODINGS)("give the joined text's count however it is cut into parts (%s)", async (encoding) => {
    const counter = await loaded(encoding);
    const reference = await loaded(encoding);
    await fc.assert(
      fc.asyncProperty(fc.array(anyText, { maxLength: 6 }), fc.boolean(), async (parts, counted) => {
        // Parts counted before (a cached long part) or not: the same count.
        if (counted) for (const part of parts) await counter.countText(part);
        const joined = parts.join("");
        expect(await counter.countJoined!(parts)).toBe(await reference.countText(joined));
      }),
      { numRuns: 400 },
    );
  });

  it("counts the long parts through `count` and tokenizes only the lines around the joins", () => {
    const body = `<state_snapshot>\n    <goal>\n        ${"fix the parser ".repeat(40)}\n    </goal>\n</state_snapshot>\n(written)`;
    const parts = ["Summary of the conversation:\n\n", body, "\n\n<artifact_index>\nfiles: a.ts\n</artifact_index>"];
    const counted: string[] = [];
    const reference = REFERENCES.o200k_base;
    const count = (text: string) => {
      counted.push(text);
      return reference.encode(text, [], []).length;
    };
    expect(joinedCount(parts, count)).toBe(reference.encode(parts.join(""), [], []).length);
    // The body is counted whole once (a cached count in the counter), never inside a longer text.
    expect(counted.filter((text) => text.includes("fix the parser"))).toEqual([body]);
    expect(counted).toEqual([
      "Summary of the conversation:\n\n",
      body,
      "",
      "(written)",
      "(written)\n\n",
      parts[2],
      "\n\n",
      "</artifact_index>",
      "</artifact_index>",
    ]);
  });

  it("keeps the joined text's count: a message holding it is counted from the cache", async () => {
    const counter = await loaded("o200k_base");
    const parts = ["Summary:\n\n", `<snapshot>\n${"item one two three\n".repeat(30)}</snapshot>`];
    const joined = parts.join("");
    const tokens = await counter.countJoined!(parts);
    // `upperBound` prices a text it has counted at its count, one it has not at its UTF-8 bytes.
    const { HumanMessage } = await import("@langchain/core/messages");
    const empty = await counter.measure([]);
    const message = new HumanMessage(joined);
    expect(counter.upperBound!(empty, [message])!.total).toBe(empty.total + (await createTokenCounter().countMessage(message)));
    expect(tokens).toBe(await createTokenCounter().countText(joined));
  });

  it("counts characters / 4 in approximate mode, as countText does", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    expect(await counter.countJoined!(["abc", "\n", "defgh"])).toBe(await counter.countText("abc\ndefgh"));
    expect(await counter.countJoined!([])).toBe(0);
  });
});

import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { createTokenCounter, hardTruncate, type TokenCounter } from "../../src/index.js";
import { hasLoneSurrogate } from "../../src/text/code-points.js";
import { encodeText, loadEncoder } from "../../src/tokens/encoder.js";
import { assistant, ids, system, toolResult, user } from "../support/builders.js";

const encoder = new Tiktoken(o200k);
const exact = createTokenCounter({ calibrate: false });
const approximate = createTokenCounter({ mode: "approximate", calibrate: false });
const counters: [string, TokenCounter][] = [
  ["exact", exact],
  ["approximate", approximate],
];

/** True when `cut` is the first code points of `text` (not merely its first UTF-16 units). */
function isCodePointPrefix(cut: string, text: string): boolean {
  const points = [...cut];
  return [...text].slice(0, points.length).join("") === cut;
}

// "x" first: every pair starts at an odd index, so any even cut (approximate: budget * 4) splits one.
const EMOJI = "x" + "😀".repeat(40);
// 𝒳 (U+1D4B3) is four UTF-8 bytes that o200k encodes as three tokens: a token cut can split it.
const SCRIPT_X = "𝒳".repeat(5);
const MIXED = "note: 𝒳 = 😀 + 🎉, see 漢字 and 𝒳𝒳!";

describe("truncateText cuts on code-point boundaries", () => {
  it.each(counters)("never ends in half a surrogate pair and always cuts a code-point prefix (%s)", async (_name, counter) => {
    for (const text of [EMOJI, SCRIPT_X, MIXED]) {
      const total = await counter.countText(text);
      for (let budget = 0; budget <= total; budget++) {
        const cut = await counter.truncateText(text, budget);
        expect({ text, budget, lone: hasLoneSurrogate(cut), prefix: isCodePointPrefix(cut, text) }).toEqual({ text, budget, lone: false, prefix: true });
        expect(await counter.countText(cut)).toBeLessThanOrEqual(budget);
      }
      expect(await counter.truncateText(text, total)).toBe(text);
    }
  });

  it("approximate: cuts at budget * 4 code units, one fewer when that splits a pair", async () => {
    expect(await approximate.truncateText(EMOJI, 1)).toBe("x😀");
    expect(await approximate.truncateText(EMOJI, 2)).toBe("x😀😀😀");
    expect(await approximate.truncateText("ab😀", 1)).toBe("ab😀");
    expect(await approximate.truncateText("abcdefgh", 1)).toBe("abcd");
  });

  it("exact: keeps a character only when all its tokens fit", async () => {
    expect(encoder.encode("𝒳", [], []).length).toBe(3);
    const cuts = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((budget) => exact.truncateText(SCRIPT_X, budget)));
    expect(cuts).toEqual(["", "", "", "𝒳", "𝒳", "𝒳", "𝒳𝒳", "𝒳𝒳"]);
  });

  it("exact: stops before a lone surrogate of the input", async () => {
    const text = "abc \uD800 def ghi jkl";
    const cut = await exact.truncateText(text, (await exact.countText(text)) - 1);
    expect(cut).toBe("abc ");
  });
});

describe("long runs of astral characters", () => {
  // No space: one run of 385 code units.
  const run = "x" + "𝒳".repeat(192);

  it("encodes it as js-tiktoken: the tokens decode to the text", async () => {
    const tokens = encodeText(await loadEncoder("o200k_base"), run);
    expect(tokens).toEqual(encoder.encode(run, [], []));
    expect(encoder.decode(tokens)).toBe(run);
  });

  it("cuts a long run on a code-point boundary (exact)", async () => {
    const total = await exact.countText(run);
    for (const budget of [1, 2, 50, 97, 98, 99, total - 1]) {
      const cut = await exact.truncateText(run, budget);
      expect({ budget, lone: hasLoneSurrogate(cut), prefix: isCodePointPrefix(cut, run) }).toEqual({ budget, lone: false, prefix: true });
      expect(cut.includes("\uFFFD")).toBe(false);
    }
  });
});

describe("hardTruncate over emoji text", () => {
  it.each(counters)("cuts an oversized tool output without leaving a lone surrogate (%s)", async (_name, counter) => {
    const output = "x" + "😀".repeat(6_000);
    const input = [system("s"), user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1", output)];
    const result = await hardTruncate({ maxTokens: 500, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("truncated");
    // The conversation opens with the newest user message before the kept tail.
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "t1"]);
    const text = result.messages[3]!.content as string;
    expect(text).toMatch(/^x(?:😀)+\n\[\.\.\. \d+ tokens cut to fit the context window \.\.\.\]$/u);
    expect(hasLoneSurrogate(text)).toBe(false);
    expect(result.tokensAfter).toBeLessThanOrEqual(500);
  });
});

import { describe, expect, it } from "vitest";
import {
  boundaryAtOrAfter,
  boundaryAtOrBefore,
  hasLoneSurrogate,
  hasLoneSurrogateByPattern,
  headOf,
  replaceLoneSurrogates,
  replaceLoneSurrogatesByPattern,
  sliceCodePoints,
  tailOf,
} from "../src/text/code-points.js";

const EMOJI = "\u{1F600}"; // two UTF-16 code units

describe("code-point cuts", () => {
  it("moves a head cut back before a surrogate pair it would split", () => {
    expect(headOf(`ab${EMOJI}cd`, 3)).toBe("ab");
    expect(headOf(`ab${EMOJI}cd`, 4)).toBe(`ab${EMOJI}`);
  });

  it("moves a tail cut forward past a surrogate pair it would split", () => {
    expect(tailOf(`ab${EMOJI}cd`, 3)).toBe("cd");
    expect(tailOf(`ab${EMOJI}cd`, 4)).toBe(`${EMOJI}cd`);
    expect(tailOf("abc", 0)).toBe("");
  });

  it("clamps boundaries to the text", () => {
    expect(boundaryAtOrBefore("abc", 10)).toBe(3);
    expect(boundaryAtOrAfter("abc", -2)).toBe(0);
    expect(boundaryAtOrBefore(EMOJI, 1)).toBe(0);
    expect(boundaryAtOrAfter(EMOJI, 1)).toBe(2);
  });

  it("slices inwards on both ends", () => {
    expect(sliceCodePoints(`${EMOJI}x${EMOJI}`, 1, 4)).toBe("x");
    expect(sliceCodePoints(EMOJI, 1, 1)).toBe("");
  });

  it("finds and replaces lone surrogates, leaving pairs alone", () => {
    expect(hasLoneSurrogate(`ok ${EMOJI}`)).toBe(false);
    expect(hasLoneSurrogate("\uD83D")).toBe(true);
    expect(hasLoneSurrogate("x\uDE00")).toBe(true);
    expect(replaceLoneSurrogates(`\uD83Da${EMOJI}\uDE00`)).toBe(`\uFFFDa${EMOJI}\uFFFD`);
  });

  it("finds and replaces lone surrogates as the pattern does, on random texts", () => {
    // Random strings of ASCII, a BMP letter, pairs, high and low halves (alone or misordered).
    const units = ["a", " ", "é", "\uD83D", "\uDE00", "\uD800", "\uDFFF", EMOJI, "\n"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    let lone = 0;
    for (let sample = 0; sample < 2000; sample++) {
      let text = "";
      for (let length = next() % 12; length > 0; length--) text += units[next() % units.length];
      expect(hasLoneSurrogate(text)).toBe(hasLoneSurrogateByPattern(text));
      expect(replaceLoneSurrogates(text)).toBe(replaceLoneSurrogatesByPattern(text));
      if (hasLoneSurrogateByPattern(text)) lone++;
    }
    // Both kinds of text were drawn.
    expect(lone).toBeGreaterThan(500);
    expect(lone).toBeLessThan(1900);
  });

  it("returns a well-formed text itself", () => {
    const text = `plain ${EMOJI} text`;
    expect(replaceLoneSurrogates(text)).toBe(text);
    expect(replaceLoneSurrogates("")).toBe("");
  });
});

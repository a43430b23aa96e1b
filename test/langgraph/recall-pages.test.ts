/** How a recall is cut into parts: at most the cap each, nothing lost or added, never inside a code point. */
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/index.js";
import { findPiecesOf, pagesOf, partEnd, piecesOf, RECALL_PIECE_TOKENS } from "../../src/langgraph/recall-pages.js";
import { hasLoneSurrogate } from "../../src/text/code-points.js";

describe("recall parts", () => {
  const counter = createTokenCounter({ model: "gpt-4o" });

  it("packs whole lines while they fit, and cuts a line longer than a part at token boundaries", async () => {
    const long = "😀 emoji and words ".repeat(400);
    const text = `[user]\nshort line\n\n[tool read #c1]\n${long}\nlast line`;
    const parts = await pagesOf(text, 100, counter);
    expect(parts.join("")).toBe(text);
    for (const part of parts) {
      expect(await counter.countText(part)).toBeLessThanOrEqual(100);
      expect(hasLoneSurrogate(part)).toBe(false);
    }
    // The short lines make the first part; the long line, cut into pieces of the part's size, the next ones.
    expect(parts[0]).toBe("[user]\nshort line\n\n[tool read #c1]\n");
    // The parts cut from the long line are full: the cut takes as many tokens as fit.
    const middle = await Promise.all(parts.slice(1, -1).map((part) => counter.countText(part)));
    expect(middle.filter((tokens) => tokens < 95)).toEqual([]);
  });

  it("gives one part for a text within the cap", async () => {
    expect(await pagesOf("[user]\nhello", 2000, counter)).toEqual(["[user]\nhello"]);
  });

  it("cuts the text into the same pieces whatever the room: lines, and a long line in pieces of at most the piece size", async () => {
    const long = "word ".repeat(1_000);
    const text = `[user]\nhello\n[tool read #c1]\n${long}\nend`;
    const pieces = await piecesOf(text, RECALL_PIECE_TOKENS, counter);
    expect(pieces.map((piece) => piece.text).join("")).toBe(text);
    expect(pieces.slice(0, 2).map((piece) => piece.text)).toEqual(["[user]\n", "hello\n"]);
    for (const piece of pieces) {
      expect(piece.tokens).toBe(await counter.countText(piece.text));
      expect(piece.tokens).toBeLessThanOrEqual(RECALL_PIECE_TOKENS);
    }
    // A part takes pieces from its start while they fit; none when the first does not.
    expect(partEnd(pieces, 0, pieces[0]!.tokens + pieces[1]!.tokens)).toBe(2);
    expect(partEnd(pieces, 3, pieces[3]!.tokens - 1)).toBe(3);
    expect(partEnd(pieces, 0, Infinity)).toBe(pieces.length);
  });

  it("cuts a find's result where its newest matches end, the pieces joining to the text the find gives", async () => {
    const blocks = { newest: "[user]\nthe Needle\n\n[tool cat #c1]\nneedle too", older: "[user]\nold needle" };
    const { pieces, firstPart } = await findPiecesOf(blocks, RECALL_PIECE_TOKENS, counter);
    expect(pieces.map((piece) => piece.text)).toEqual(["[user]\n", "the Needle\n", "\n", "[tool cat #c1]\n", "needle too\n", "\n", "[user]\n", "old needle"]);
    expect(firstPart).toBe(6);
    // Nothing older: one group, no bound short of the end.
    expect((await findPiecesOf({ newest: blocks.newest, older: "" }, RECALL_PIECE_TOKENS, counter)).firstPart).toBe(5);
  });
});

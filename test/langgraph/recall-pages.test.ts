/** How a recall is cut into parts: at most the cap each, nothing lost or added, never inside a code point. */
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/index.js";
import { pagesOf } from "../../src/langgraph/recall-pages.js";
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
    // The short lines open the first part; the long line fills it and the next ones.
    expect(parts[0]!.startsWith("[user]\nshort line\n\n[tool read #c1]\n😀")).toBe(true);
    // The parts cut from the long line are full: the cut takes as many tokens as fit.
    const middle = await Promise.all(parts.slice(1, -1).map((part) => counter.countText(part)));
    expect(middle.filter((tokens) => tokens < 95)).toEqual([]);
  });

  it("gives one part for a text within the cap", async () => {
    expect(await pagesOf("[user]\nhello", 2000, counter)).toEqual(["[user]\nhello"]);
  });
});

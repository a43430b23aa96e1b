import { describe, expect, it } from "vitest";
import { copyOf, RecentPieces } from "../../src/tokens/recent-pieces.js";

describe("RecentPieces", () => {
  it("finds a remembered piece by its characters anywhere in a text", () => {
    const table = new RecentPieces<number>();
    expect(table.lookup("say hello", 4, 9)).toBeUndefined();
    table.remember("hello", 7);
    expect([table.lookup("hello", 0, 5), table.lookup("well, hello there", 6, 11), table.lookup("hello", 0, 4)]).toEqual([7, 7, undefined]);
  });

  it("never answers for another piece in the same slot: not a prefix, not an extension, not a same-length piece", () => {
    // One slot: every piece lands in it.
    const table = new RecentPieces<string>(1);
    table.remember("ab", "ab");
    expect([table.lookup("abc", 0, 3), table.lookup("a", 0, 1), table.lookup("xb", 0, 2), table.lookup("zab", 1, 3)]).toEqual([undefined, undefined, undefined, "ab"]);
    table.remember("abc", "abc");
    expect([table.lookup("ab", 0, 2), table.lookup("abc", 0, 3)]).toEqual([undefined, "abc"]);
  });

  it("spreads pieces over its slots", () => {
    const table = new RecentPieces<number>(1 << 10);
    const words = Array.from({ length: 300 }, (_, index) => `w${index}`);
    for (const [index, word] of words.entries()) {
      table.lookup(word, 0, word.length);
      table.remember(word, index);
    }
    // 300 pieces in 1024 slots: 21 lost their slot to a later piece (a constant hash would keep 1).
    const kept = words.filter((word, index) => table.lookup(word, 0, word.length) === index).length;
    expect(kept).toBe(279);
  });

  it("accepts only a power of two up to 65536 slots", () => {
    expect(() => new RecentPieces(3)).toThrow(RangeError);
    expect(() => new RecentPieces(1 << 17)).toThrow(RangeError);
  });

  it("copies a key: the same characters", () => {
    const long = "x".repeat(1000);
    expect([copyOf(long.slice(10, 40)), copyOf("short")]).toEqual(["x".repeat(30), "short"]);
  });
});

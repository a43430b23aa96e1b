/**
 * The exact token counter caches the count of long texts by content: a history read back from a
 * checkpoint (new message objects, same strings) is not tokenized again, counts stay exact, and the
 * cache keeps at most its character budget (least recently used texts leave first).
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";

const encoded: string[] = [];
vi.mock("../../src/tokens/encoder.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/tokens/encoder.js")>();
  return {
    ...original,
    encodeText: (encoder: Parameters<typeof original.encodeText>[0], text: string) => {
      encoded.push(text);
      return original.encodeText(encoder, text);
    },
    countText: (encoder: Parameters<typeof original.countText>[0], text: string) => {
      encoded.push(text);
      return original.countText(encoder, text);
    },
  };
});

const { createTokenCounter } = await import("../../src/index.js");
const { CACHED_TEXT_MAX_CHARACTERS, CACHED_TEXT_MIN_LENGTH } = await import("../../src/tokens/token-counter.js");
const { TextUnitsCache } = await import("../../src/tokens/text-units-cache.js");

const long = (seed: string) => `${seed} `.repeat(Math.ceil(CACHED_TEXT_MIN_LENGTH / (seed.length + 1)) + 1);

describe("token counts cached by text", () => {
  afterEach(() => {
    encoded.length = 0;
  });

  it("counts a history read back as new objects without tokenizing its long texts again, with the same counts", async () => {
    const history = () => [
      new HumanMessage({ id: "h", content: long("please look at the failing test") }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "call_1", name: "bash", args: { command: "pytest -x" } }] }),
      new ToolMessage({ id: "t", tool_call_id: "call_1", content: long("FAILED tests/test_x.py::test_y - AssertionError") }),
    ];
    const counter = createTokenCounter({ model: "gpt-4o" });
    const first = await counter.measure(history());
    const tokenizedFirst = encoded.filter((text) => text.length >= CACHED_TEXT_MIN_LENGTH).length;
    encoded.length = 0;
    const again = await counter.measure(history());
    expect(again.perMessage).toEqual(first.perMessage);
    expect(tokenizedFirst).toBe(2);
    // Only the short texts (call name, arguments, ids) are tokenized again.
    expect(encoded).toEqual(["bash", '{"command":"pytest -x"}', "call_1", "call_1"]);
  });

  it("gives the same counts as a counter that never saw the texts", async () => {
    const texts = [long("alpha beta"), long("γάμμα δέλτα"), long("🙂 emoji run")];
    const warm = createTokenCounter({ model: "gpt-4o" });
    for (const text of texts) await warm.countText(text);
    const cold = createTokenCounter({ model: "gpt-4o" });
    for (const text of texts) expect(await warm.countText(text)).toBe(await cold.countText(text));
    expect(CACHED_TEXT_MAX_CHARACTERS).toBe(4_000_000);
  });

  it("keeps at most its character budget, least recently used out first", () => {
    const cache = new TextUnitsCache(2, 6);
    const counted: string[] = [];
    const count = (text: string) => {
      counted.push(text);
      return text.length * 10;
    };
    expect([cache.unitsOf("aa", count), cache.unitsOf("bb", count), cache.unitsOf("cc", count)]).toEqual([20, 20, 20]);
    expect(cache.unitsOf("aa", count)).toBe(20); // a hit: "aa" is now the most recently used
    expect(cache.unitsOf("ddd", count)).toBe(30); // 9 characters: "bb" then "cc" leave
    expect(cache.size).toBe(2);
    expect([cache.unitsOf("aa", count), cache.unitsOf("bb", count)]).toEqual([20, 20]);
    expect(cache.unitsOf("x", count)).toBe(10); // below the minimum length: never cached
    expect(cache.unitsOf("x", count)).toBe(10);
    expect(cache.unitsOf("toolongtext", count)).toBe(110); // over the budget alone: never cached
    expect(counted).toEqual(["aa", "bb", "cc", "ddd", "bb", "x", "x", "toolongtext"]);
  });
});

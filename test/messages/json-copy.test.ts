/**
 * jsonCopy gives what a JSON round trip gives: the archive of a compaction is stored through it.
 */
import { mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { jsonCopy } from "../../src/messages/json-copy.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

function expectRoundTrip(value: unknown) {
  const copy = jsonCopy(value);
  expect(copy).toStrictEqual(roundTrip(value));
  // Same keys in the same order.
  expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
}

describe("jsonCopy", () => {
  it("copies plain data as the round trip does, sharing nothing mutable", () => {
    const value = { a: "x", b: [1, "two", { c: null, d: true }], e: { f: { g: [[]] } }, h: 2.5 };
    const copy = jsonCopy(value);
    expectRoundTrip(value);
    expect(copy).not.toBe(value);
    expect(copy.b).not.toBe(value.b);
    expect(copy.b[2]).not.toBe(value.b[2]);
    expect(copy.e.f.g[0]).not.toBe(value.e.f.g[0]);
  });

  it("drops undefined, functions and symbols from objects and writes null for them in arrays", () => {
    expectRoundTrip({ keep: 1, gone: undefined, fn: () => 1, sym: Symbol("s"), list: [undefined, () => 1, Symbol("s"), 3] });
    // eslint-disable-next-line no-sparse-arrays
    expectRoundTrip({ holes: [1, , 3] });
  });

  it("turns non-finite numbers into null and -0 into 0", () => {
    expectRoundTrip({ nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negative: Number.NEGATIVE_INFINITY, zero: -0, list: [Number.NaN, -0] });
    expect(Object.is((jsonCopy({ zero: -0 }) as { zero: number }).zero, 0)).toBe(true);
  });

  it("keeps an own __proto__ key a key, and copies null-prototype objects to ordinary ones", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = jsonCopy(value) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expectRoundTrip(value);
    const bare = Object.assign(Object.create(null) as object, { x: [1] });
    expectRoundTrip(bare);
  });

  it("goes through the round trip for dates, toJSON, maps and class instances", () => {
    class Point {
      constructor(readonly x: number) {}
    }
    expectRoundTrip({ at: new Date(0), custom: { toJSON: () => "custom" }, map: new Map([[1, 2]]), point: new Point(1), boxed: new String("s") });
  });

  it("throws where the round trip throws: cycles and bigints", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    expect(() => jsonCopy(cycle)).toThrow(TypeError);
    expect(() => jsonCopy({ big: 1n })).toThrow(TypeError);
  });

  it("copies recorded sessions' stored messages exactly", () => {
    const messages = loadTraceSessions(BUNDLED_TRACES_PATH).flatMap((session) => session.messages);
    expect(messages.length).toBe(254);
    expectRoundTrip(mapChatMessagesToStoredMessages(messages));
  });
});

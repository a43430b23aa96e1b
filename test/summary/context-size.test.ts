import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, fullSummary, hidingThenSummary, stateSnapshotSummary } from "../../src/index.js";
import { contextWindowOf, fires, tokenLimit, withinTarget } from "../../src/extend/index.js";
import { step, system, user } from "../support/builders.js";
import { caught } from "../support/errors.js";

describe("fires", () => {
  it("fires at a fraction of the window and says what fired", () => {
    expect(fires({ fraction: 0.8 }, { tokens: 12_800, messages: 3 }, 16_000)).toBe("12800 tokens >= 12800 tokens (0.8 of a 16000-token window)");
  });

  it("does not fire below the fraction", () => {
    expect(fires({ fraction: 0.8 }, { tokens: 12_799, messages: 3 }, 16_000)).toBeUndefined();
  });

  it("fires on a token count or a message count", () => {
    expect(fires({ tokens: 100 }, { tokens: 100, messages: 1 }, undefined)).toBe("100 tokens >= 100 tokens");
    expect(fires({ messages: 4 }, { tokens: 1, messages: 4 }, undefined)).toBe("4 messages >= 4 messages");
    expect(fires({ messages: 4 }, { tokens: 1_000_000, messages: 3 }, undefined)).toBeUndefined();
  });

  it("fires when any size of a list is reached", () => {
    expect(fires([{ tokens: 1000 }, { messages: 10 }], { tokens: 5, messages: 12 }, undefined)).toBe("12 messages >= 10 messages");
  });
});

describe("targets", () => {
  it("turns a fraction into tokens of the window", () => {
    expect(tokenLimit({ fraction: 0.5 }, 10_000)).toBe(5000);
    expect(tokenLimit({ tokens: 42 }, undefined)).toBe(42);
  });

  it("is within a target at or under it", () => {
    expect(withinTarget({ tokens: 10 }, { tokens: 10, messages: 100 }, undefined)).toBe(true);
    expect(withinTarget({ tokens: 10 }, { tokens: 11, messages: 1 }, undefined)).toBe(false);
    expect(withinTarget({ messages: 3 }, { tokens: 1e6, messages: 3 }, undefined)).toBe(true);
  });
});

describe("contextWindowOf", () => {
  it("prefers the contextWindow option", () => {
    expect(contextWindowOf(1000, "gpt-4o")).toBe(1000);
  });

  it("knows a model name from LangChain's table", () => {
    expect(contextWindowOf(undefined, "gpt-4o-mini")).toBe(128_000);
  });

  it("reads a model object's profile, then its name", () => {
    expect(contextWindowOf(undefined, { profile: { maxInputTokens: 200_000 } })).toBe(200_000);
    expect(contextWindowOf(undefined, { model: "gpt-4o" })).toBe(128_000);
  });

  it("does not guess for a name the table does not know", () => {
    expect(contextWindowOf(undefined, "my-local-model")).toBeUndefined();
    expect(contextWindowOf(undefined, fakeModel())).toBeUndefined();
  });

  it("makes a fraction trigger without a known window an InvalidOptionError naming contextWindow", async () => {
    const error = await caught(() => stateSnapshotSummary({ model: fakeModel() }));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe("contextWindow");
    expect((error as InvalidOptionError).component).toBe("stateSnapshotSummary");
  });

  it("needs no window for a token trigger", () => {
    expect(stateSnapshotSummary({ trigger: { tokens: 500 } }).contextWindow).toBeUndefined();
  });

  it("rejects a trigger size with no key, and a target with two", async () => {
    const empty = await caught(() => stateSnapshotSummary({ contextWindow: 1000, trigger: {} }));
    expect((empty as InvalidOptionError).option).toBe("trigger");
    const target = await caught(() => hidingThenSummary({ contextWindow: 1000, target: { tokens: 5, messages: 3 } as never }));
    expect((target as InvalidOptionError).option).toBe("target");
  });

  it("reads several keys of one trigger size as AND, a list of sizes as OR (LangChain's shape)", () => {
    const trigger = [{ messages: 30 }, { tokens: 3000, messages: 6 }];
    expect(fires(trigger, { tokens: 3500, messages: 8 }, undefined)).toBe("8 messages >= 6 messages and 3500 tokens >= 3000 tokens");
    expect(fires(trigger, { tokens: 2500, messages: 8 }, undefined)).toBeUndefined();
    expect(fires(trigger, { tokens: 3500, messages: 5 }, undefined)).toBeUndefined();
    expect(fires(trigger, { tokens: 10, messages: 30 }, undefined)).toBe("30 messages >= 30 messages");
    expect(fires({ fraction: 0.5, messages: 4 }, { tokens: 600, messages: 4 }, 1000)).toBe("4 messages >= 4 messages and 600 tokens >= 500 tokens (0.5 of a 1000-token window)");
    expect([tokenLimit({ tokens: 3000, messages: 6 }, undefined), tokenLimit({ tokens: 300, fraction: 0.5 }, 1000), tokenLimit({ messages: 6 }, undefined)]).toEqual([3000, 500, Number.POSITIVE_INFINITY]);
  });

  it("compacts with an AND trigger only when every part is reached", async () => {
    const history = [system("s"), user("u1"), ...Array.from({ length: 4 }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(300))).flat()];
    const messagesOnly = await fullSummary({ keepRecent: 2, trigger: { messages: 10, tokens: 1_000_000 } }).compact(history);
    expect(messagesOnly.status).toBe("noop");
    const both = await fullSummary({ keepRecent: 2, trigger: { messages: 10, tokens: 10 } }).compact(history);
    expect([both.status, both.trigger]).toEqual(["summarized", `10 messages >= 10 messages and ${both.tokensBefore} tokens >= 10 tokens`]);
  });
});

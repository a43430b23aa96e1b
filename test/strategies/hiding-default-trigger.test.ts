/**
 * toolResultHiding's default trigger is a function of the window: half the window or 30,000 tokens,
 * whichever is less, and 10,000 tokens when no window is given.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createTokenCounter, toolResultHiding } from "../../src/index.js";
import { step, system, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();
/** A loop of `steps` tool-call groups, each result about 1,000 tokens. */
const loop = (steps: number): BaseMessage[] => [
  system("s"),
  user("u1", "Fix it"),
  ...Array.from({ length: steps }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(330))).flat(),
];

/** The smallest number of steps whose history the default trigger fires on, and its size then. */
async function firesAt(options: Parameters<typeof toolResultHiding>[0]): Promise<{ steps: number; tokens: number; previous: number }> {
  const hiding = toolResultHiding({ tokenCounter, clearAtLeast: 0, ...options });
  let previous = 0;
  for (let steps = 1; steps <= 60; steps++) {
    const history = loop(steps);
    const result = await hiding.compact(history);
    const tokens = await tokenCounter.countMessages(history);
    if (result.status === "compacted") return { steps, tokens, previous };
    previous = tokens;
  }
  throw new Error("never fired within 60 steps");
}

describe("toolResultHiding's default trigger", () => {
  it("fires at half the window when that is under 30,000 tokens", async () => {
    const fired = await firesAt({ contextWindow: 20_000 });
    expect(fired.previous).toBeLessThan(10_000);
    expect(fired.tokens).toBeGreaterThanOrEqual(10_000);
  });

  it("fires at 30,000 tokens when half the window is more", async () => {
    for (const contextWindow of [128_000, 200_000]) {
      const fired = await firesAt({ contextWindow });
      expect(fired.previous).toBeLessThan(30_000);
      expect(fired.tokens).toBeGreaterThanOrEqual(30_000);
    }
  });

  it("fires at 10,000 tokens without a window, as before", async () => {
    const fired = await firesAt({});
    expect(fired.previous).toBeLessThan(10_000);
    expect(fired.tokens).toBeGreaterThanOrEqual(10_000);
  });

  it("an explicit trigger replaces the default", async () => {
    const fired = await firesAt({ contextWindow: 200_000, trigger: { tokens: 5_000 } });
    expect(fired.previous).toBeLessThan(5_000);
    expect(fired.tokens).toBeGreaterThanOrEqual(5_000);
  });
});

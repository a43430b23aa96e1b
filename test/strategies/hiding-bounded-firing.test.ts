import type { BaseMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { createTokenCounter, toolResultHiding, type CompactionEvent } from "../../src/index.js";
import { loadEncoder } from "../../src/tokens/encoder.js";
import { agentSteps, resultSummary } from "../support/agent-steps.js";

const sessions = loadTraceSessions(defaultTracesPath());
const session = sessions.reduce((longest, each) => (each.messages.length > longest.messages.length ? each : longest));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("toolResultHiding over its trigger: a step that cannot free clearAtLeast even at the bound", () => {
  it.each([true, false])("is decided without tokenizing the step's messages, with the figures, reason and trigger of a strategy that counts everything (supersession %s)", async (supersession) => {
    const encoder = await loadEncoder("o200k_base");
    const options = { trigger: { tokens: 3000 }, ...(supersession ? {} : { supersession: false }) };
    const events: CompactionEvent[] = [];
    const strategy = toolResultHiding({ ...options, tokenCounter: createTokenCounter(), onEvent: (event) => events.push(event) });
    const all = agentSteps(session.messages);
    let history: BaseMessage[] = [];
    const encode = vi.spyOn(encoder, "count");
    const uncounted: string[] = [];
    for (const step of all) {
      const grown = [...history, ...step];
      encode.mockClear();
      const result = await strategy.compact(grown);
      const tokenized = encode.mock.calls.length > 0;
      const fresh = await toolResultHiding({ ...options, tokenCounter: createTokenCounter() }).compact(grown);
      // Reading the figures counts: they are what a strategy counting everything reports.
      expect(resultSummary(result)).toEqual(resultSummary(fresh));
      expect(events.at(-1)!.trigger).toBe(fresh.trigger ?? null);
      if (!tokenized) uncounted.push(fresh.trigger === undefined ? "under" : "over");
      history = result.messages;
      // The agent's model call: the step's messages are counted after it.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(all.length).toBe(145);
    // Steps decided without tokenizing: under the trigger at the bound, and over it (the new path).
    expect({ under: uncounted.filter((kind) => kind === "under").length, over: uncounted.filter((kind) => kind === "over").length }).toEqual(
      supersession ? { under: 0, over: 102 } : { under: 0, over: 108 },
    );
  });
});

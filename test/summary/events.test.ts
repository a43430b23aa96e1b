import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_EVENT_NAME, autoCompaction, createTokenCounter, fullSummary, toolResultHiding, type CompactionEvent } from "../../src/index.js";
import { step, system, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";

const counter = createTokenCounter({ mode: "approximate" });
const loop = (): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: 8 }, (_, n) => step(n + 1, "out ".repeat(100))).flat()];
const withoutDuration = ({ durationMs, ...rest }: CompactionEvent) => {
  expect(durationMs).toBeGreaterThanOrEqual(0);
  return rest;
};

describe("compaction events", () => {
  it("sends one event per run to onEvent", async () => {
    const events: CompactionEvent[] = [];
    const model = fakeModel().respond(new AIMessage("<summary>done</summary>"));
    const strategy = fullSummary({ model, tokenCounter: counter, onEvent: (event) => events.push(event) });
    const result = await strategy.compact(loop());
    expect(events.map(withoutDuration)).toEqual([
      {
        strategy: "fullSummary",
        trigger: "always (no trigger set)",
        status: "summarized",
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensAfter,
        messagesBefore: 18,
        messagesAfter: 4,
        summaryModel: "FakeBuiltModel",
        error: null,
        summaryError: null,
      },
    ]);
  });

  it("reports a failure with its reason", async () => {
    const events: CompactionEvent[] = [];
    const model = fakeModel().respond(new Error("boom"));
    await fullSummary({ model, tokenCounter: counter, onEvent: (event) => events.push(event) }).compact(loop());
    expect(events.map((event) => [event.status, event.error])).toEqual([["failed", "the summary call failed: boom; the history is unchanged"]]);
  });

  it("reports a policy's run once, with what triggered it", async () => {
    const events: CompactionEvent[] = [];
    const input = loop();
    const window = Math.ceil((await counter.countMessages(input)) / 0.9);
    await autoCompaction({ tokenCounter: counter, contextWindow: window, keepRecent: 4, onEvent: (event) => events.push(event) }).compact(input);
    expect(events.map((event) => [event.strategy, event.status, event.summaryModel])).toEqual([["autoCompaction", "summarized", "none"]]);
    expect(events[0]!.trigger).toMatch(new RegExp(`^\\d+ tokens >= ${Math.floor(0.8 * window)} tokens \\(0.8 of a ${window}-token window\\)$`));
  });

  it("logs no-ops at debug, compactions at info and failures at warn", async () => {
    const lines: string[] = [];
    const logger = {
      debug: (message: string) => lines.push(`debug ${message}`),
      info: (message: string) => lines.push(`info ${message}`),
      warn: (message: string) => lines.push(`warn ${message}`),
    };
    const hiding = toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, logger, keepRecentGroups: 2 });
    const first = await hiding.compact(loop());
    await hiding.compact(first.messages);
    expect(lines.map((line) => line.replace(/, [\d.]+ ms/, ", N ms"))).toEqual([
      `info [compaction] toolResultHiding compacted: ${first.tokensBefore} -> ${first.tokensAfter} tokens, 18 -> 18 messages, N ms`,
      `debug [compaction] toolResultHiding noop: ${first.tokensAfter} -> ${first.tokensAfter} tokens, 18 -> 18 messages, N ms`,
    ]);
  });

  it("ignores an observer that throws", async () => {
    const strategy = toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, keepRecentGroups: 2, onEvent: () => { throw new Error("observer bug"); } });
    expect((await strategy.compact(loop())).status).toBe("compacted");
  });

  it("dispatches the custom event `compaction` inside a run, once for a policy", async () => {
    const input = loop();
    const window = Math.ceil((await counter.countMessages(input)) / 0.9);
    const policy = autoCompaction({ tokenCounter: counter, contextWindow: window, keepRecent: 4 });
    const custom: { name: string; data: CompactionEvent }[] = [];
    for await (const event of policy.streamEvents(input, { version: "v2" })) {
      if (event.event === "on_custom_event") custom.push({ name: event.name, data: event.data as CompactionEvent });
    }
    expect(custom.map(({ name, data }) => [name, data.strategy, data.status])).toEqual([[COMPACTION_EVENT_NAME, "autoCompaction", "summarized"]]);
  });
});

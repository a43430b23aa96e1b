import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { ANTHROPIC_LOOKBACK_BLOCKS, AnthropicAutomaticCache, anthropicBlocks } from "../../bench/eval/anthropic-cache.js";
import { replayTrace } from "../../bench/eval/replay.js";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { ALL_SYSTEMS, noCompaction, ours } from "../../bench/eval/systems.js";
import { createTokenCounter, toolResultHiding } from "../../src/index.js";
import { convertForAnthropic } from "../support/wire/anthropic-converter.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();
const shortest = loadTraceSessions(BUNDLED_TRACES_PATH).reduce((best, session) => (session.messages.length < best.messages.length ? session : best));

/** The content blocks of the request ChatAnthropic's own converter builds: system blocks, then every message's. */
function wireBlocks(messages: readonly BaseMessage[]): number {
  const payload = convertForAnthropic(messages);
  const count = (content: unknown) => (typeof content === "string" ? (content === "" ? 0 : 1) : Array.isArray(content) ? content.length : 0);
  return count(payload.system) + payload.messages.reduce((sum, message) => sum + count(message.content), 0);
}

describe("anthropicBlocks", () => {
  it("counts a text as one block, each tool call as one, a content array by its elements, a tool result as one even when empty", () => {
    const parallel = assistant("a1", "", [{ id: "c1" }, { id: "c2" }]);
    const textAndCall = assistant("a2", "Reading", [{ id: "c3" }]);
    const blocks = new HumanMessage({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] });
    const toolUse = new AIMessage({ content: [{ type: "text", text: "x" }, { type: "tool_use", id: "c4", name: "bash", input: {} }], tool_calls: [{ id: "c4", name: "bash", args: {}, type: "tool_call" }] });
    const results = [new ToolMessage({ content: "out", tool_call_id: "c1" }), new ToolMessage({ content: "", tool_call_id: "c2" })];
    expect([parallel, textAndCall, blocks, toolUse, ...results, user("u")].map(anthropicBlocks)).toEqual([2, 2, 2, 2, 1, 1, 1]);
  });

  const ours = (messages: readonly BaseMessage[]) => messages.reduce((sum, message) => sum + anthropicBlocks(message), 0);

  it("gives the block count ChatAnthropic's own converter sends, for every prompt of a recorded session", () => {
    const prompts = shortest.messages.flatMap((message, position) => (message.type === "ai" ? [shortest.messages.slice(0, position)] : []));
    expect(prompts.map(ours)).toEqual(prompts.map(wireBlocks));
  });

  for (const name of ["autoCompaction", "ClearToolUsesEdit (createAgent)", "stateSnapshotSummary"]) {
    it(`gives the converter's block count for every input ${name} sends (hidden results, summaries)`, async () => {
      const inputs: (readonly BaseMessage[])[] = [];
      const spec = ALL_SYSTEMS.find((candidate) => candidate.name === name)!;
      await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window, tokenCounter, onInput: (input) => inputs.push(input) });
      expect(inputs.map(ours)).toEqual(inputs.map(wireBlocks));
    });
  }
});

describe("AnthropicAutomaticCache", () => {
  const history = [system("s"), user("u"), ...Array.from({ length: 12 }, (_, index) => step(index + 1)).flat()];
  const tokens = (messages: readonly BaseMessage[]) => messages.map((_, index) => 10 + index);
  const sum = (messages: readonly BaseMessage[], length: number) => tokens(messages).slice(0, length).reduce((a, b) => a + b, 0);

  it("reads the previous prompt whole while the history only grew", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 20));
    expect(cache.read(history, tokens(history))).toBe(sum(history, 20));
  });

  // Blocks: system and user 1 each, then per step the assistant's text and tool_use 2, its result 1.
  it("reads an entry 19 block positions back, not one 20 back (the breakpoint counts as the first of 20)", () => {
    const near = new AnthropicAutomaticCache();
    near.write(history.slice(0, 13)); // 19 blocks; the whole history has 38
    const far = new AnthropicAutomaticCache();
    far.write(history.slice(0, 12)); // 17 blocks; the prompt of 25 messages has 37
    const prompt = history.slice(0, 25);
    expect([near.read(history, tokens(history)), far.read(prompt, tokens(prompt))]).toEqual([sum(history, 13), 0]);
  });

  it("reads nothing after a change further back than the lookback, though an entry before it is a prefix", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 3)); // a prefix of the hidden prompt below, 34 blocks back
    cache.write(history.slice(0, 24));
    // Hide the first tool result (position 3): 23 blocks before the end of this 26-message prompt.
    const hidden = [...history.slice(0, 3), toolResult("t1", "c1", "[hidden]"), ...history.slice(4)];
    expect(cache.read(hidden, tokens(hidden))).toBe(0);
  });

  it("reads an older prompt that is still a prefix and ends within the lookback", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 20));
    cache.write(history.slice(0, 24));
    // The newest result is rewritten: the prompt of 24 messages is no prefix, the one of 20 is, 6 blocks back.
    const rewritten = [...history.slice(0, 23), toolResult("t11", "c11", "[hidden]"), ...history.slice(24)];
    expect(cache.read(rewritten, tokens(rewritten))).toBe(sum(rewritten, 20));
  });

  it("keeps every entry: one written before a dozen others is still read", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 20));
    for (let position = 2; position < 14; position++) cache.write([...history.slice(0, position), user(`other ${position}`)]);
    expect(cache.read(history, tokens(history))).toBe(sum(history, 20));
  });

  it("reads the entry of an earlier request's breakpoint where this request has a breakpoint too, however far back from its end", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 24), [3, 24]); // an anchor after message 3, and the end
    const hidden = [...history.slice(0, 3), toolResult("t1", "c1", "[hidden]"), ...history.slice(4)];
    // Without a breakpoint at 3 the entry is 34 blocks back from the end: out of reach.
    expect([cache.read(hidden, tokens(hidden), [3, hidden.length]), cache.read(hidden, tokens(hidden)), cache.read(hidden, tokens(hidden), [4, hidden.length])]).toEqual([sum(hidden, 3), 0, sum(hidden, 3)]);
  });

  it("gives a call the longest read of any of its breakpoints", () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 9), [3, 9]);
    expect(cache.read(history.slice(0, 12), tokens(history), [3, 9, 12])).toBe(sum(history, 9));
  });

  it(`reads nothing when the prompt grew by more than ${ANTHROPIC_LOOKBACK_BLOCKS} blocks since the entry`, () => {
    const cache = new AnthropicAutomaticCache();
    cache.write(history.slice(0, 4));
    expect([history.length - 4 > ANTHROPIC_LOOKBACK_BLOCKS, cache.read(history, tokens(history))]).toEqual([true, 0]);
  });
});

// A third of the session, as in replay.test.ts: every system with a trigger compacts.
const window = Math.floor((await tokenCounter.countMessages(shortest.messages)) / 3);

describe("automatic caching in a replay", () => {
  it("no compaction: every call reads what the prefix model reads (each step adds a few blocks)", async () => {
    const run = await replayTrace(shortest, noCompaction.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window, tokenCounter });
    expect(run.steps.map((step) => step.anthropicCachedTokens)).toEqual(run.steps.map((step) => step.cachedTokens));
  });

  for (const spec of ALL_SYSTEMS.filter((candidate) => candidate.kind !== "baseline")) {
    it(`${spec.name}: never reads more than the prefix model, and reads less on some compacting call`, async () => {
      const run = await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window, tokenCounter });
      expect(run.steps.filter((step) => step.anthropicCachedTokens > step.cachedTokens)).toEqual([]);
      expect(run.steps.some((step) => step.compacted && step.anthropicCachedTokens < step.cachedTokens)).toBe(true);
    });
  }
});

describe("automatic caching with the package's cache anchors in a replay", () => {
  for (const spec of ALL_SYSTEMS) {
    it(`${spec.name}: reads at least what automatic caching alone reads, and never more than the prefix model`, async () => {
      const run = await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window, tokenCounter });
      expect(run.steps.filter((step) => step.anchoredCachedTokens < step.anthropicCachedTokens || step.anchoredCachedTokens > step.cachedTokens)).toEqual([]);
    });
  }

  it("toolResultHiding: at each firing, where automatic caching alone reads nothing, the anchors read the prefix before the change", async () => {
    const coding = loadTraceSessions(BUNDLED_TRACES_PATH).find((session) => session.id.startsWith("mini-swe-agent/"))!;
    // Firings 10,000 tokens apart (the trigger without a window), so each hides a batch of several results.
    const spec = ours("toolResultHiding", ({ tokenCounter }) => toolResultHiding({ tokenCounter, trigger: { tokens: 10_000 } }));
    const run = await replayTrace(coding, spec.create({ window: 16_000, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window: 16_000, tokenCounter });
    const firings = run.steps.filter((step) => step.compacted);
    // The anchors read up to where the requests before the run put their next anchor: the assistant
    // message of the newest result an earlier run hid. The prefix model also reads that hidden result
    // and any short results after it that the run left as they were, hence "at least 0.9".
    expect({
      firings: firings.length,
      automatic: firings.map((step) => step.anthropicCachedTokens),
      anchored: firings.map((step) => step.anchoredCachedTokens >= 0.9 * step.cachedTokens && step.anchoredCachedTokens > 0),
    }).toEqual({ firings: 4, automatic: [0, 0, 0, 0], anchored: [true, true, true, true] });
  });
});

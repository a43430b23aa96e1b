import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  validateToolPairing,
  type AutoCompactionOptions,
} from "../../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER, messageText } from "../../src/extend/index.js";
import { ids, sameObjects, step, system, user } from "../support/builders.js";
import { caught } from "../support/errors.js";

const counter = createTokenCounter({ mode: "approximate" });
const summaryAnswer = () => new AIMessage("<summary>the task so far</summary>");
/** [system, request, n steps whose outputs are `size` repetitions of a short line]. */
const loop = (steps: number, size = 100): BaseMessage[] => [
  system("s"),
  user("u1", "Fix it"),
  ...Array.from({ length: steps }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(size))).flat(),
];
const tokensOf = (messages: readonly BaseMessage[]) => counter.countMessages(messages);
const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);

/** Options for a window in which `input` is at `share` of it. */
async function at(input: BaseMessage[], share: number, extra: Partial<AutoCompactionOptions> = {}): Promise<AutoCompactionOptions> {
  // These histories are small: compaction starts at half the window (not at 14 000 tokens), and
  // hiding runs whatever it frees, keeps 3 groups and leaves assistant text whole, unless a test says otherwise.
  return { tokenCounter: counter, contextWindow: Math.ceil((await tokensOf(input)) / share), keepRecent: 4, trigger: { fraction: 0.5 }, hiding: { clearAtLeast: 0, keepRecentGroups: 3, trimAssistantText: false }, ...extra };
}

describe("autoCompaction: hiding first", () => {
  it("does nothing under the hiding trigger", async () => {
    const input = loop(8);
    const result = await autoCompaction(await at(input, 0.4)).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("hides every result but the newest groups' in one batch at the hiding trigger, with no summary call", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(8);
    // At 0.6 of the window: over the hiding trigger (0.5), under the summary threshold (0.8).
    const result = await autoCompaction(await at(input, 0.6, { summaryModel: model })).compact(input);
    expect(result.status).toBe("compacted");
    expect(hiddenIds(result.messages)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(messageText(result.messages[3]!).startsWith(DEFAULT_HIDDEN_RESULT_PLACEHOLDER)).toBe(true);
    expect(model.calls).toHaveLength(0);
    expect(result.trigger).toMatch(/^conversation: \d+ tokens >= \d+ tokens \(0\.5 of a \d+-token window\)$/);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("leaves the history as it is between firings, so the cached prefix holds", async () => {
    const input = loop(8);
    // The first firing frees five results; a later one would free one or two, under clearAtLeast.
    const policy = autoCompaction(await at(input, 0.6, { hiding: { clearAtLeast: 800 } }));
    let history = (await policy.compact(input)).messages;
    const firstHidden = hiddenIds(history);
    // Two more steps keep it under the trigger (half the window).
    for (let n = 9; n <= 10; n++) {
      const grown = [...history, ...step(n, `output ${n} `.repeat(100))];
      const result = await policy.compact(grown);
      expect(result.status).toBe("noop");
      expect(sameObjects(result.messages, grown)).toBe(true);
      history = result.messages;
    }
    expect(hiddenIds(history)).toEqual(firstHidden);
  });

  it("hides instead of summarizing at the threshold when hiding reaches the target", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(12, 300);
    const result = await autoCompaction(await at(input, 0.9, { summaryModel: model })).compact(input);
    expect(result.status).toBe("compacted");
    expect(model.calls).toHaveLength(0);
    expect(hiddenIds(result.messages)).toEqual(["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]);
  });

  it("summarizes the originals when hiding cannot reach the target at the threshold", async () => {
    const model = fakeModel().respond(summaryAnswer());
    // Long user messages, short tool outputs: hiding frees almost nothing.
    const input: BaseMessage[] = [system("s"), ...Array.from({ length: 6 }, (_, n) => [user(`u${n}`, `request ${n} `.repeat(200)), ...step(n + 1, "ok")]).flat()];
    const result = await autoCompaction(await at(input, 0.9, { summaryModel: model, target: 0.75 })).compact(input);
    expect(result.status).toBe("summarized");
    expect(model.calls).toHaveLength(1);
    expect(hiddenIds(result.messages)).toEqual([]);
    expect(result.removed.every(({ message }) => input.includes(message))).toBe(true);
  });

  it("keeps the hiding when the summary fails and the hidden history fits the hard limit", async () => {
    const model = fakeModel().respond(new Error("timeout"));
    const input = loop(8);
    // Over the threshold; hiding 5 of 8 results stays above a target of 0.2, so the summary is tried.
    const result = await autoCompaction(await at(input, 0.9, { summaryModel: model, target: 0.2 })).compact(input);
    expect(result.status).toBe("compacted");
    expect(hiddenIds(result.messages)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(result.reason).toMatch(/^hiding left \d+ tokens, above the target \d+; summary failed: .*; kept the hiding$/);
  });

  it("summarizes at the trigger when hiding would free less than clearAtLeast", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(8);
    const tokens = await tokensOf(input);
    const result = await autoCompaction(await at(input, 0.6, { summaryModel: model, hiding: { clearAtLeast: tokens, keepRecentGroups: 3, trimAssistantText: false } })).compact(input);
    expect(result.status).toBe("summarized");
    expect(model.calls).toHaveLength(1);
    // Even every older result whole is under clearAtLeast: the hiding is not made, its bound is reported.
    const bound = Number(/^hiding noop: hiding would free at most (\d+) tokens, less than clearAtLeast \(\d+\); summarized instead$/.exec(result.reason ?? "")?.[1]);
    const olderResults = input.filter((message) => message.type === "tool").slice(0, 5);
    expect(bound).toBe((await Promise.all(olderResults.map((message) => counter.countMessage(message)))).reduce((sum, tokens) => sum + tokens, 0));
  });

  it("makes the hiding when its bound reaches clearAtLeast, and summarizes when what it frees does not", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(8);
    const olderResults = input.filter((message) => message.type === "tool").slice(0, 5);
    const bound = (await Promise.all(olderResults.map((message) => counter.countMessage(message)))).reduce((sum, tokens) => sum + tokens, 0);
    const result = await autoCompaction(await at(input, 0.6, { summaryModel: model, hiding: { clearAtLeast: bound, keepRecentGroups: 3, trimAssistantText: false } })).compact(input);
    expect(result.status).toBe("summarized");
    const freed = Number(/^hiding noop: hiding would free (\d+) tokens, less than clearAtLeast \((\d+)\); summarized instead$/.exec(result.reason ?? "")?.[1]);
    expect(freed).toBeGreaterThan(0);
    expect(freed).toBeLessThan(bound);
  });

  it("compacts at the default trigger of 60 000 tokens, before the threshold of a large window, keeping the newest 3 groups", async () => {
    const below = loop(22, 1000);
    expect(await tokensOf(below)).toBeLessThan(60_000);
    expect((await autoCompaction({ tokenCounter: counter, contextWindow: 200_000, keepRecent: 4 }).compact(below)).status).toBe("noop");
    const input = loop(26, 1000);
    const tokens = await tokensOf(input);
    expect(tokens).toBeGreaterThan(60_000);
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: 200_000, keepRecent: 4 }).compact(input);
    expect(result.status).toBe("compacted");
    const system = await counter.countMessage(input[0]!);
    expect(result.trigger).toBe(`conversation: ${tokens - system} tokens >= 60000 tokens`);
    expect(result.tokensAfter).toBeLessThanOrEqual(system + 36_000);
    expect(hiddenIds(result.messages)).toEqual(Array.from({ length: 23 }, (_, n) => `t${n + 1}`));
  });

  it("skips a hiding the cost model says does not repay its cache break, and runs one that does", async () => {
    const input = loop(8);
    const skipped = await autoCompaction(await at(input, 0.6, { costModel: { prices: "anthropic-claude", horizonSteps: 1 } })).compact(input);
    expect(skipped.status).toBe("noop");
    expect(sameObjects(skipped.messages, input)).toBe(true);
    expect(skipped.reason).toMatch(/^hiding skipped by the cost model: saves [\d,]+ per call over 1 call = [\d,]+ < break [\d,]+$/);
    const ran = await autoCompaction(await at(input, 0.6, { costModel: { prices: "anthropic-claude", horizonSteps: 100 } })).compact(input);
    expect(ran.status).toBe("compacted");
    expect(hiddenIds(ran.messages)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
  });

  it("summarizes as before with hiding off", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(8);
    // At the other summaries' cap of 1000 tokens, the target leaves room for the newest 4 messages.
    const result = await autoCompaction(await at(input, 0.9, { summaryModel: model, hiding: false, target: 0.75, summaryMaxTokens: 1000 })).compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "a7", "t7", "a8", "t8"]);
  });

  it("measures its trigger on the conversation: a large system prompt does not make every call compact", async () => {
    const model = fakeModel().respond(summaryAnswer()).respond(summaryAnswer()).respond(summaryAnswer());
    const bigSystem = system("s", "You are a careful agent. ".repeat(3000));
    const systemTokens = await counter.countMessage(bigSystem);
    expect(systemTokens).toBeGreaterThan(16_000);
    const policy = autoCompaction({ tokenCounter: counter, contextWindow: 200_000, keepRecent: 4, summaryModel: model });
    let history: BaseMessage[] = [bigSystem, user("u1", "Fix it")];
    const statuses: string[] = [];
    for (let n = 1; n <= 110; n++) {
      const result = await policy.compact([...history, ...step(n, `output ${n} `.repeat(400))]);
      statuses.push(result.status);
      expect(validateToolPairing(result.messages)).toEqual([]);
      history = result.messages;
    }
    // About 1,000 tokens a step: the conversation reaches 60,000 tokens at step 60 (the 18,000-token
    // system prompt does not count), and the hiding then holds it past step 110.
    expect(statuses.flatMap((status, index) => (status === "noop" ? [] : [[index + 1, status]]))).toEqual([[60, "compacted"]]);
  });

  it("caps a target above the trigger's room when the trigger fired, so the next compaction comes calls later", async () => {
    const input = loop(8);
    const tokens = await tokensOf(input);
    // The trigger fires at the history's size in a window ten times larger; target 0.9 of the window is far above it.
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: tokens * 10, keepRecent: 4, trigger: { tokens: tokens - 100 }, target: 0.9, hiding: { clearAtLeast: 0 } }).compact(input);
    expect(result.status).toBe("compacted");
    expect(result.tokensAfter).toBeLessThanOrEqual(Math.floor(0.6 * tokens));
  });

  it("rejects invalid hiding and cost-model options", async () => {
    const bad = await caught(() => autoCompaction({ contextWindow: 1000, hiding: { keepRecentGroups: -1 } }));
    expect(InvalidOptionError.isInstance(bad)).toBe(true);
    expect((bad as Error).message).toMatch(/^autoCompaction: invalid option `hiding/);
    const zero = await caught(() => autoCompaction({ contextWindow: 1000, hiding: { keepRecentGroups: 0 } }));
    expect(InvalidOptionError.isInstance(zero)).toBe(true);
    const messages = await caught(() => autoCompaction({ contextWindow: 1000, keepRecent: 10, trigger: { messages: 12 } }));
    expect(InvalidOptionError.isInstance(messages) && [messages.option, messages.message]).toEqual([
      "trigger",
      "autoCompaction: invalid option `trigger`: expected a messages trigger over keepRecent + 2 (12); got { messages: 12 } (a summary leaves that many messages, so 12 would fire at every call)",
    ]);
    expect(autoCompaction({ contextWindow: 1000, keepRecent: 10, trigger: { messages: 13 } }).strategyName).toBe("autoCompaction");
    const price = await caught(() => autoCompaction({ contextWindow: 1000, costModel: { prices: "nope" as never } }));
    expect(InvalidOptionError.isInstance(price)).toBe(true);
    expect((price as Error).message).toMatch(/^autoCompaction: invalid option `costModel/);
  });
});

import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  hidingThenSummary,
  selectiveThenSummary,
  validateToolPairing,
  type AutoCompactionOptions,
} from "../../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER } from "../../src/extend/index.js";
import { ids, sameObjects, step, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";

const counter = createTokenCounter({ mode: "approximate" });
const summaryAnswer = () => new AIMessage("<summary>the task so far</summary>");
/** [system, request, 8 steps with large outputs]. */
const loop = (steps = 8): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: steps }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(100))).flat()];
const tokensOf = (messages: readonly BaseMessage[]) => counter.countMessages(messages);

describe("hidingThenSummary", () => {
  it("does nothing under the trigger", async () => {
    const input = loop();
    const policy = hidingThenSummary({ tokenCounter: counter, contextWindow: (await tokensOf(input)) * 2 });
    const result = await policy.compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("hides older results and stops there when that reaches the target", async () => {
    const model = fakeModel();
    const input = loop();
    const tokens = await tokensOf(input);
    // Trigger at the current size; hiding 3 of 8 results gets under 0.75 of it.
    const policy = hidingThenSummary({ tokenCounter: counter, trigger: { tokens }, target: { tokens: Math.floor(tokens * 0.75) }, hiding: { keepRecentGroups: 5, clearAtLeast: 0 }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("compacted");
    expect(result.messages.map((message) => (message.type === "tool" ? message.content === DEFAULT_HIDDEN_RESULT_PLACEHOLDER : null))).toEqual([
      null, null, null, true, null, true, null, true, null, false, null, false, null, false, null, false, null, false,
    ]);
    expect(model.calls).toHaveLength(0);
  });

  it("summarizes when hiding was a no-op", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop(3);
    const policy = hidingThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("summarized");
    expect(result.strategy).toBe("hidingThenSummary");
    expect(ids(result.messages)).toEqual(["s", undefined, "a3", "t3"]);
  });

  it("summarizes the hidden history when hiding left it above the target, and reports the originals as removed", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    const policy = hidingThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, target: { tokens: 20 }, hiding: { clearAtLeast: 0 }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "a8", "t8"]);
    // The summary model saw the placeholders; the removed list holds the original results.
    expect(String(model.calls[0]!.messages[0]!.content)).toContain(DEFAULT_HIDDEN_RESULT_PLACEHOLDER);
    expect(result.removed).toEqual(input.slice(1, 16).map((message, position) => ({ index: position + 1, message })));
    expect(result.replaced).toEqual([]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("keeps the hiding when the summary then fails, and says why", async () => {
    const model = fakeModel().respond(new Error("down"));
    const input = loop();
    const policy = hidingThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, target: { tokens: 20 }, hiding: { keepRecentGroups: 5, clearAtLeast: 0 }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("compacted");
    expect(result.replaced.map(({ index }) => index)).toEqual([3, 5, 7]);
    expect(result.reason).toBe("hiding left the history above the target; fullSummary failed: the summary call failed: down; the history is unchanged");
  });
});

describe("selectiveThenSummary", () => {
  it("stops at the rules when they reach the target", async () => {
    const model = fakeModel();
    const input = loop();
    const tokens = await tokensOf(input);
    const policy = selectiveThenSummary({ tokenCounter: counter, trigger: { tokens }, target: { tokens: Math.floor(tokens * 0.6) }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("compacted");
    expect(result.tokensAfter).toBeLessThanOrEqual(Math.floor(tokens * 0.6));
    expect(model.calls).toHaveLength(0);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("summarizes the original conversation when the rules cannot reach the target", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    const policy = selectiveThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, target: { tokens: 20 }, summary: { model } });
    const result = await policy.compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "a8", "t8"]);
    // The summary saw every original output, including the ones the rules would drop.
    expect(String(model.calls[0]!.messages[0]!.content)).toContain("output 1 output 1");
  });

  it("asks for a token target when the trigger counts messages", async () => {
    const error = await caught(() => selectiveThenSummary({ trigger: { messages: 50 } }));
    expect((error as InvalidOptionError).option).toBe("target");
    expect((error as InvalidOptionError).message).toBe(
      "selectiveThenSummary: invalid option `target`: expected { tokens } or { fraction } when the trigger counts only messages; got undefined (the selective rules stop at a token count)",
    );
    expect(selectiveThenSummary({ trigger: { messages: 50 }, target: { tokens: 1000 } }).target).toEqual({ tokens: 1000 });
  });

  it("rejects a message-count target", async () => {
    const error = await caught(() => selectiveThenSummary({ contextWindow: 1000, target: { messages: 3 } }));
    expect((error as InvalidOptionError).option).toBe("target");
  });
});

describe("autoCompaction", () => {
  const options = async (input: BaseMessage[], extra: Partial<AutoCompactionOptions> = {}): Promise<AutoCompactionOptions> => ({
    tokenCounter: counter,
    // The history is at 0.9 of the window: over the default threshold 0.8.
    contextWindow: Math.ceil((await tokensOf(input)) / 0.9),
    keepRecent: 4,
    // Room for the 4 kept messages beside a summary of up to summaryMaxTokens.
    target: 0.75,
    ...extra,
  });

  it("does nothing when disabled or under the threshold", async () => {
    const input = loop();
    expect((await autoCompaction(await options(input, { enabled: false })).compact(input)).reason).toBe("automatic compaction is disabled");
    expect((await autoCompaction(await options(input, { threshold: 0.95 })).compact(input)).status).toBe("noop");
  });

  it("summarizes all but keepRecent messages with the summary model", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    // At the other summaries' cap of 1000 tokens, the target leaves room for the newest 4 messages.
    const result = await autoCompaction(await options(input, { summaryModel: model, summaryMaxTokens: 1000 })).compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "a7", "t7", "a8", "t8"]);
    expect(result.summaryModel).toBe("FakeBuiltModel");
  });

  it("uses the no-model summarizer without a summary model", async () => {
    const input = loop();
    const result = await autoCompaction(await options(input)).compact(input);
    expect(result.status).toBe("summarized");
    expect(result.summaryModel).toBe("none");
  });

  it("takes the summary model from the run's configurable when options have none", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    const result = await autoCompaction(await options(input)).compact(input, { config: { configurable: { summaryModel: model } } });
    expect(result.summaryModel).toBe("FakeBuiltModel");
    expect(model.calls).toHaveLength(1);
  });

  it("truncates to the hard limit when the summary fails over it", async () => {
    const model = fakeModel().respond(new Error("timeout"));
    const input = loop();
    const window = Math.ceil((await tokensOf(input)) / 1.2);
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: window, keepRecent: 4, summaryModel: model, hiding: false }).compact(input);
    expect(result.status).toBe("truncated");
    expect(result.tokensAfter).toBeLessThanOrEqual(window);
    expect(result.reason).toBe(`summary failed: the summary call failed: timeout; truncated to the hard limit ${window}`);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("changes nothing when the summary fails under the hard limit", async () => {
    const model = fakeModel().respond(new Error("timeout"));
    const input = loop();
    const result = await autoCompaction(await options(input, { summaryModel: model })).compact(input);
    expect(result.status).toBe("failed");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("keeps fewer than keepRecent messages when they would leave the result above the target", async () => {
    const input = loop();
    const tokens = await tokensOf(input);
    // Target 0.3 of a window the size of the history (8 steps): beside a summary of up to 200
    // tokens there is room for one step, not the three that keepRecent: 6 asks for.
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: tokens, threshold: 0.8, target: 0.3, keepRecent: 6, summaryMaxTokens: 200 }).compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "a8", "t8"]);
    expect(result.tokensAfter).toBeLessThanOrEqual(Math.floor(0.3 * tokens));
  });

  it("never drops its own summary when truncating to the hard limit after it", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    const tokens = await tokensOf(input);
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: tokens, threshold: 0.5, keepRecent: 6, target: 1, hardLimit: 300, summaryModel: model }).compact(input);
    expect(result.status).toBe("truncated");
    expect(compactionMarkerOf(result.messages[1]!)?.summary).toBe(true);
    expect(result.tokensAfter).toBeLessThanOrEqual(300);
  });

  it("truncates after a summary that leaves the history over the hard limit", async () => {
    const model = fakeModel().respond(summaryAnswer());
    const input = loop();
    const tokens = await tokensOf(input);
    const result = await autoCompaction({ tokenCounter: counter, contextWindow: tokens, threshold: 0.5, target: 1, keepRecent: 6, hardLimit: 200, summaryModel: model }).compact(input);
    expect(result.status).toBe("truncated");
    expect(result.tokensAfter).toBeLessThanOrEqual(200);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("reads options from a function at every run", async () => {
    const input = loop();
    const settings = await options(input, { enabled: false });
    const policy = autoCompaction(() => settings);
    expect((await policy.compact(input)).status).toBe("noop");
    settings.enabled = true;
    expect((await policy.compact(input)).status).toBe("summarized");
  });

  it("never throws into the agent loop: a broken provider or history becomes a result", async () => {
    const input = loop();
    const broken = autoCompaction(() => {
      throw new Error("config store offline");
    });
    const result = await broken.compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the configuration provider failed: config store offline");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("repairs a broken history (an orphan tool result) instead of throwing", async () => {
    const input = [system("s"), user("u0"), toolResult("orphan", "nobody"), ...loop().slice(1)];
    const result = await autoCompaction(await options(input)).compact(input);
    expect(result.repair?.problems.map((problem) => problem.kind)).toEqual(["orphan-result"]);
    expect(result.status).toBe("summarized");
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("fails the run, not the agent, when a provider's options are invalid", async () => {
    const input = loop();
    let threshold = 0.8;
    const policy = autoCompaction(() => ({ tokenCounter: counter, contextWindow: 1000, threshold }));
    threshold = 7;
    const result = await policy.compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the configuration provider failed: autoCompaction: invalid option `threshold`: expected a number <= 1; got 7");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("needs a context window for static options", async () => {
    const error = await caught(() => autoCompaction({}));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe("contextWindow");
  });

  it("marks its summary as a summary the selective rules never drop", async () => {
    const input = loop();
    const result = await autoCompaction(await options(input)).compact(input);
    expect(compactionMarkerOf(result.messages[1]!)?.summary).toBe(true);
  });
});

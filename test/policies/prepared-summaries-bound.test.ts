/**
 * autoCompaction preparing summaries ahead, at a step past the mark by the upper bound only (the
 * exact count may be past it too): in a loop the policy ran before, the step is a no-op that
 * tokenizes nothing, the count and the decision on preparing happen after it, and its reason is the
 * one a policy counting every step gives.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { autoCompaction, createTokenCounter, type AutoCompactionOptions, type TokenCounter } from "../../src/index.js";
import { loadEncoder } from "../../src/tokens/encoder.js";
import { ToolResultHiding } from "../../src/strategies/tool-result-hiding.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";
import { delegatingCounter } from "../support/token-counters.js";

let server: OpenAIServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/** `count` steps: an assistant call of `size` characters and its result, after a user turn. */
function steps(count: number, size: number, from = 0): BaseMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const n = index + from;
    return [
      new AIMessage({ id: `a${n}`, content: `look ${n} `.repeat(size / 10), tool_calls: [{ id: `c${n}`, name: "bash", args: { command: `ls ${n}` }, type: "tool_call" }] }),
      new ToolMessage({ id: `t${n}`, tool_call_id: `c${n}`, content: `file${n}.py `.repeat(size / 10) }),
    ];
  }).flat();
}

/** The exact counter without its upper bound: every step counts, as before the bound existed. */
const countingOnly = (counter: TokenCounter): TokenCounter => delegatingCounter(counter);

/**
 * A server answering with `responses` (closed after each test), a model on it, a history of 20
 * steps and the same grown by one small step, with the history's exact measurement.
 */
async function serveAndGrow(responses: { content: string }[]) {
  const started = await startOpenAIServer(responses);
  server = started;
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: started.baseURL } });
  const start = [new HumanMessage({ id: "u0", content: "fix the bug" }), ...steps(20, 400)];
  const grown = [...start, ...steps(1, 100, 20)];
  const fresh = createTokenCounter();
  return { server: started, model, start, grown, fresh, measured: await fresh.measure(start) };
}

describe("autoCompaction: a step past the mark by the bound only", () => {
  it("is a no-op without tokenizing; the count, the dry run and the preparation follow the step", async () => {
    const { server, model, start, grown, fresh, measured } = await serveAndGrow([{ content: "<summary>prepared</summary>" }, { content: "<summary>prepared</summary>" }]);
    // Before the new messages are counted: a counter bounds with the counts it has.
    const bound = fresh.upperBound!(measured, grown)!.total;
    const after = await fresh.countMessages(grown);
    // The trigger: the grown history is past the mark (0.9 of it) exactly, the history before is
    // under it, and the grown history's bound is under the trigger.
    const trigger = Math.floor(after / 0.9);
    expect([measured.total < 0.9 * trigger, after >= 0.9 * trigger, bound < trigger, bound > after]).toEqual([true, true, true, true]);
    const options = (tokenCounter: TokenCounter): AutoCompactionOptions => ({ contextWindow: 1_000_000, trigger: { tokens: trigger }, hiding: false, tokenCounter, summaryModel: model, prepare: { at: 0.9 } });
    const policy = autoCompaction(options(createTokenCounter()));
    expect((await policy.compact(start)).status).toBe("noop");
    await policy.settled();
    const encoder = await loadEncoder("o200k_base");
    const encode = vi.spyOn(encoder, "count");
    const result = await policy.compact(grown);
    expect(encode).not.toHaveBeenCalled();
    expect(server.requests).toHaveLength(0);
    // What a policy counting every step says, read from the no-op (its exact figures are worked out now).
    const counting = autoCompaction(options(countingOnly(createTokenCounter())));
    await counting.compact(start);
    await counting.settled();
    const counted = await counting.compact(grown);
    expect({ status: result.status, reason: result.reason, tokensBefore: result.tokensBefore }).toEqual({ status: "noop", reason: counted.reason, tokensBefore: after });
    expect(result.reason).toMatch(/; whether to prepare the summary is worked out in the background$/);
    await policy.settled();
    await counting.settled();
    // Both started the same preparation after the step.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[0]!.body)).toBe(JSON.stringify(server.requests[1]!.body));
    // The next step, a summary prepared for its prefix: nothing to decide, nothing counted.
    const next = [...grown, ...steps(1, 20, 21)];
    encode.mockClear();
    const again = await policy.compact(next);
    expect(encode).not.toHaveBeenCalled();
    const countedAgain = await counting.compact(next);
    expect({ status: again.status, reason: again.reason }).toEqual({ status: "noop", reason: countedAgain.reason });
    expect(again.reason).not.toMatch(/;/);
    await policy.settled();
    expect(server.requests).toHaveLength(2);
  });

  it("with the decision taken, counts the new messages and makes the firing's hiding after the step, not in it", async () => {
    const { server, model, start, grown, fresh, measured } = await serveAndGrow([]);
    // Both histories are past the mark (0.9 of the trigger); the grown one's bound is under the trigger.
    const trigger = Math.floor(measured.total / 0.92);
    expect([measured.total >= 0.9 * trigger, fresh.upperBound!(measured, grown)!.total < trigger]).toEqual([true, true]);
    // Hiding all but the newest results frees about 2,000 tokens (over clearAtLeast): enough at the firing, nothing to prepare.
    const policy = autoCompaction({ contextWindow: 1_000_000, trigger: { tokens: trigger }, hiding: { clearAtLeast: 1000 }, tokenCounter: createTokenCounter(), summaryModel: model, prepare: { at: 0.9 } });
    expect((await policy.compact(start)).reason).toMatch(/; no summary prepared: hiding will be enough at the firing$/);
    await policy.settled();
    const encoder = await loadEncoder("o200k_base");
    const encode = vi.spyOn(encoder, "count");
    const hidings = vi.spyOn(ToolResultHiding.prototype, "compact");
    const result = await policy.compact(grown);
    expect([encode.mock.calls.length, hidings.mock.calls.length]).toEqual([0, 0]);
    // Its reason (exact figures, worked out when read) keeps the verdict.
    expect(result.reason).toMatch(/^\d+ tokens \(\d+ besides system messages\), 43 messages: under the trigger and the threshold 800000 \(0.8 of 1000000\); no summary prepared: hiding will be enough at the firing$/);
    await policy.settled();
    expect(hidings).toHaveBeenCalledTimes(1);
    const warm = await hidings.mock.results[0]!.value;
    expect({ status: warm.status, tokensBefore: warm.tokensBefore }).toEqual({ status: "compacted", tokensBefore: await fresh.countMessages(grown) });
    expect(server.requests).toHaveLength(0);
  });

  it("by default (summaries start at the firing), from 0.9 of the way makes the firing's hiding after the step and prepares nothing", async () => {
    const { server, model, start, grown, fresh, measured } = await serveAndGrow([]);
    // Both histories are past 0.9 of the trigger; the grown one's bound is under the trigger.
    const trigger = Math.floor(measured.total / 0.92);
    expect([measured.total >= 0.9 * trigger, fresh.upperBound!(measured, grown)!.total < trigger]).toEqual([true, true]);
    const options = (tokenCounter: TokenCounter): AutoCompactionOptions => ({ contextWindow: 1_000_000, trigger: { tokens: trigger }, hiding: { clearAtLeast: 1000 }, tokenCounter, summaryModel: model });
    const policy = autoCompaction(options(createTokenCounter()));
    expect((await policy.compact(start)).status).toBe("noop");
    await policy.settled();
    const encoder = await loadEncoder("o200k_base");
    const encode = vi.spyOn(encoder, "count");
    const hidings = vi.spyOn(ToolResultHiding.prototype, "compact");
    const result = await policy.compact(grown);
    expect([result.status, encode.mock.calls.length, hidings.mock.calls.length]).toEqual(["noop", 0, 0]);
    await policy.settled();
    // After the step: the grown history counted, the firing's hiding made on it, no summary call.
    expect(hidings).toHaveBeenCalledTimes(1);
    const warm = await hidings.mock.results[0]!.value;
    expect({ status: warm.status, tokensBefore: warm.tokensBefore }).toEqual({ status: "compacted", tokensBefore: await fresh.countMessages(grown) });
    expect(server.requests).toHaveLength(0);
    // The reason is the one a policy counting every step gives: nothing about preparing.
    vi.restoreAllMocks();
    const counting = autoCompaction(options(countingOnly(createTokenCounter())));
    await counting.compact(start);
    await counting.settled();
    const counted = await counting.compact(grown);
    await counting.settled();
    expect(result.reason).toBe(counted.reason);
    expect(result.reason).not.toMatch(/prepar/);
    expect(server.requests).toHaveLength(0);
  });

  it("with prepare.at between 0.9 and 1: between the marks, the firing's hiding after the step and nothing prepared; past prepare.at, the decision after the step", async () => {
    const { server, model, start, grown, fresh, measured } = await serveAndGrow([{ content: "<summary>prepared</summary>" }]);
    const after = await fresh.countMessages(grown);
    // The grown history is past 0.9 of the trigger and under 0.97 of it; its bound is under the trigger.
    const trigger = Math.floor(after / 0.93);
    expect([measured.total >= 0.9 * trigger, after < 0.97 * trigger, fresh.upperBound!(measured, grown)!.total < trigger]).toEqual([true, true, true]);
    const options = (tokenCounter: TokenCounter, at: number): AutoCompactionOptions => ({ contextWindow: 1_000_000, trigger: { tokens: trigger }, hiding: { clearAtLeast: 1000 }, tokenCounter, summaryModel: model, prepare: { at } });
    const between = autoCompaction(options(createTokenCounter(), 0.97));
    await between.compact(start);
    await between.settled();
    const hidings = vi.spyOn(ToolResultHiding.prototype, "compact");
    const result = await between.compact(grown);
    expect(hidings).toHaveBeenCalledTimes(0);
    await between.settled();
    expect([hidings.mock.calls.length, server.requests.length]).toEqual([1, 0]);
    const counting = autoCompaction(options(countingOnly(createTokenCounter()), 0.97));
    await counting.compact(start);
    await counting.settled();
    const counted = await counting.compact(grown);
    await counting.settled();
    expect([result.reason, /prepar/.test(result.reason ?? "")]).toEqual([counted.reason, false]);
    // Past prepare.at (0.92 here; the history before was under it): the decision on preparing follows the step, and says so.
    expect([measured.total < 0.92 * trigger, after >= 0.92 * trigger]).toEqual([true, true]);
    const past = autoCompaction(options(createTokenCounter(), 0.92));
    await past.compact(start);
    await past.settled();
    const decided = await past.compact(grown);
    expect(decided.reason).toMatch(/; whether to prepare the summary is worked out in the background$/);
    await past.settled();
  });
});

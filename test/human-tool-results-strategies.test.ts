/**
 * Every strategy and policy on Anthropic-native histories: calls as `tool_use` blocks answered by
 * `tool_result` blocks in the next human message (sometimes with text after them). Such a history is
 * valid: no strategy may reject it, and every output must be one `ChatAnthropic` sends without a 400.
 */
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompactionError, InvalidHistoryError, createTokenCounter, hardTruncate, selectiveCompact, slidingWindow, toolResultHiding, validateToolPairing } from "../src/index.js";
import { snapshotHistory, expectHistoryUnchanged } from "./support/invariants.js";
import { buildWireHistory, wireHistorySpec, type WireHistorySpec } from "./support/wire/arbitraries.js";
import { describeMessages } from "./support/wire/failures.js";
import { anthropicWireProblems, formatProblems } from "./support/wire/index.js";
import { STRATEGY_CASES } from "./support/wire/strategies.js";
import { EVERY_RUN } from "./support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const failureLine = (input: readonly BaseMessage[], options: unknown, what: string) => `${JSON.stringify(options)}: ${what}\n${describeMessages(input)}`;

/** The generated history with every call made in `tool_use` blocks and answered in a human message. */
const anthropicNative: fc.Arbitrary<{ history: WireHistorySpec; textAfterResults: boolean }> = fc.record({
  history: wireHistorySpec.map((spec) => ({
    ...spec,
    // Pending calls are not sendable as such: the tools answer them before the next request.
    pending: false,
    segments: spec.segments.map((segment) => (segment.kind === "calls" ? { ...segment, shape: "anthropicBlocks" as const, results: "anthropicHuman" as const, reuseId: false } : segment)),
  })),
  textAfterResults: fc.boolean(),
});

function build({ history, textAfterResults }: { history: WireHistorySpec; textAfterResults: boolean }): BaseMessage[] {
  const messages = buildWireHistory(history);
  if (!textAfterResults) return messages;
  // The user's words after the results, in the same message, as Anthropic's own clients send them.
  return messages.map((message) =>
    HumanMessage.isInstance(message) && Array.isArray(message.content) && message.content.some((block) => (block as { type?: string }).type === "tool_result")
      ? new HumanMessage({ id: message.id, content: [...message.content, { type: "text", text: "go on" }] })
      : message,
  );
}

describe.each(STRATEGY_CASES.map((strategyCase) => ({ strategyCase, name: strategyCase.name })))("$name on Anthropic-native histories", ({ strategyCase }) => {
  it("never rejects them and returns what Anthropic accepts, leaving the input as it was", async () => {
    const failures: string[] = [];
    const samples = fc.sample(fc.tuple(anthropicNative, strategyCase.options), { seed: 2026, numRuns: 60 });
    for (const [spec, options] of samples) {
      const input = build(spec);
      expect(formatProblems(anthropicWireProblems(input))).toBe("");
      const snapshot = snapshotHistory(input);
      const strategy = strategyCase.create(options, Math.max(1, await tokenCounter.countMessages(input)), tokenCounter);
      try {
        const result = await strategy.compact(input);
        const problems = anthropicWireProblems(result.messages);
        if (problems.length > 0) failures.push(failureLine(input, options, formatProblems(problems)));
      } catch (error) {
        // A failing fake summary model is a typed error; an InvalidHistoryError means the history was misread.
        if (!CompactionError.isInstance(error) || InvalidHistoryError.isInstance(error)) failures.push(failureLine(input, options, String(error)));
      }
      expectHistoryUnchanged(snapshot);
    }
    expect(failures).toEqual([]);
  });
});

describe("the strategies on one Anthropic-native agent session", () => {
  const call = (n: number, text = "") =>
    new AIMessage({
      id: `a${n}`,
      content: [...(text === "" ? [] : [{ type: "text" as const, text }]), { type: "tool_use" as const, id: `toolu_${n}`, name: "read", input: { path: `f${n}` } }],
      tool_calls: [{ id: `toolu_${n}`, name: "read", args: { path: `f${n}` }, type: "tool_call" }],
    });
  const answer = (n: number) => new HumanMessage({ id: `h${n}`, content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: `line of f${n}\n`.repeat(200) }] });
  const session = [
    new SystemMessage({ id: "s", content: "You read files." }),
    new HumanMessage({ id: "u0", content: "Read the four files." }),
    ...[1, 2, 3, 4].flatMap((n) => [call(n, n === 1 ? "reading" : ""), answer(n)]),
    new AIMessage({ id: "a5", content: "Read them all." }),
    new HumanMessage({ id: "u6", content: "Thanks" }),
  ];
  const ids = (messages: readonly BaseMessage[]) => messages.map((message) => message.id);

  it("is a valid history for the pairing rules and for Anthropic", () => {
    expect(validateToolPairing(session)).toEqual([]);
    expect(anthropicWireProblems(session)).toEqual([]);
  });

  it("hardTruncate keeps whole call/result pairs and the user request", async () => {
    const result = await hardTruncate({ tokenCounter, maxTokens: 2_000, keepRecent: 4 }).compact(session);
    expect(ids(result.messages)).toEqual(["s", "u0", "a4", "h4", "a5", "u6"]);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("selectiveCompact drops the oldest results with their calls", async () => {
    const result = await selectiveCompact({ tokenCounter, target: 2_000 }).compact(session);
    expect(ids(result.messages)).toEqual(["s", "u0", "a1", "a2", "h2", "a3", "h3", "a4", "h4", "a5", "u6"]);
    expect((result.messages[2] as AIMessage).content).toEqual([{ type: "text", text: "reading" }]);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("slidingWindow keeps the newest user turn, not a result message", async () => {
    const result = await slidingWindow({ tokenCounter, keepTurns: 1 }).compact(session);
    expect(ids(result.messages)).toEqual(["s", "u6"]);
  });

  it("toolResultHiding hides the older blocks in place", async () => {
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 2 }).compact(session);
    expect(result.replaced.map(({ index }) => index)).toEqual([3, 5]);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });
});

describe("a broken Anthropic-native history", () => {
  const call = new AIMessage({
    id: "a1",
    content: [{ type: "tool_use", id: "toolu_1", name: "read", input: {} }],
    tool_calls: [{ id: "toolu_1", name: "read", args: {}, type: "tool_call" }],
  });
  // The user spoke before the results were stored: the results message is separated from its call.
  const history = [
    new HumanMessage({ id: "u0", content: "read it" }),
    call,
    new HumanMessage({ id: "u2", content: "and be quick" }),
    new HumanMessage({ id: "h3", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "the file" }] }),
    new AIMessage({ id: "a4", content: "done" }),
  ];

  it("is rejected by default with a typed error naming the message", async () => {
    const error = await toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact(history).catch((caught: unknown) => caught);
    expect(InvalidHistoryError.isInstance(error)).toBe(true);
    expect((error as InvalidHistoryError).message).toBe(
      "toolResultHiding: the history's tool calls and results do not pair up (1 problem(s); first: message 3 (its tool_result block 0) answers tool call `toolu_1` of message 1 but is not among the tool results directly after it). " +
        'Fix it with repairToolPairing() or pass invalidHistory: "repair".',
    );
  });

  it("is repaired with invalidHistory repair: the results message moves after its call, and the repair says so", async () => {
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory: "repair" }).compact(history);
    expect(result.status).toBe("repaired");
    expect(result.messages).toEqual([history[0], history[1], history[3], history[2], history[4]]);
    expect(result.messages[2]).toBe(history[3]);
    expect(result.repair?.moved).toEqual([{ index: 3, to: 2, message: history[3] }]);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });
});

/**
 * A user or assistant message with nothing to send (empty or blank text, `[]`, only blank text or
 * reasoning blocks, and no calls) is rejected by Anthropic and, for an assistant, by OpenAI: every
 * strategy reports it as `empty-content`, and `invalidHistory: "repair"` gives it the text "(empty message)".
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidHistoryError, checkHistory, createTokenCounter, hardTruncate, slidingWindow, toolResultHiding } from "../../src/index.js";
import { assistant, ids, step, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";
import { anthropicWireProblems, openaiWireProblems } from "../support/wire/index.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const toolResultFor = (callId: string) => toolResult(`t-${callId}`, callId, "done");

describe("messages with nothing to send", () => {
  it("are reported by checkHistory, by index; system messages and tool results are not", () => {
    const input = [
      system("s", ""),
      user("u1", "go"),
      new AIMessage({ id: "a1", content: "  " }),
      new HumanMessage({ id: "u2", content: [] }),
      new AIMessage({ id: "a2", content: [{ type: "text", text: "" }, { type: "reasoning", reasoning: "thinking" }] }),
      user("u3", "next"),
      ...step(1),
    ];
    expect(checkHistory(input).map(({ kind, index }) => [kind, index])).toEqual([
      ["empty-content", 2],
      ["empty-content", 3],
      ["empty-content", 4],
    ]);
  });

  it("throw InvalidHistoryError naming the first index by default", async () => {
    const input = [system("s"), user("u1", "go"), new AIMessage({ id: "a1", content: "" }), user("u2", "more")];
    const error = await caught(() => slidingWindow({ tokenCounter, keepTurns: 1 }).compact(input));
    expect(InvalidHistoryError.isInstance(error) && [error.message, error.problems.map(({ kind, index }) => [kind, index])]).toEqual([
      'slidingWindow: message 2 (ai) has no content to send (empty or blank) and no tool calls Pass invalidHistory: "repair" to give messages with nothing to send the text (empty message).',
      [["empty-content", 2]],
    ]);
  });

  it("get the text \"(empty message)\" with invalidHistory: \"repair\", on copies reported in result.repair, the input unchanged", async () => {
    const reasoning = { type: "reasoning", reasoning: "thinking" };
    const input = [system("s"), new HumanMessage({ id: "u0", content: "" }), new AIMessage({ id: "e1", content: [reasoning] }), user("u2", "more"), ...step(1), user("u4", "last")];
    const snapshot = snapshotHistory(input);
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 1, invalidHistory: "repair" }).compact(input);
    expectHistoryUnchanged(snapshot);
    expect(ids(result.messages)).toEqual(["s", "u0", "e1", "u2", "a1", "t1", "u4"]);
    expect(result.messages[1]!.content).toBe("(empty message)");
    expect(result.messages[2]!.content).toEqual([reasoning, { type: "text", text: "(empty message)" }]);
    expect(result.repair?.replaced.map(({ index, before }) => [index, before === input[index]])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(result.repair?.removed).toEqual([]);
    expect(openaiWireProblems(result.messages)).toEqual([]);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("an assistant message with calls and content [] (OpenAI rejects the empty array) is repaired to content \"\"", async () => {
    const calling = new AIMessage({ id: "a1", content: [], tool_calls: [{ id: "c1", name: "bash", args: {}, type: "tool_call" }] });
    const input = [user("u1", "go"), calling, toolResultFor("c1"), user("u2", "more")];
    expect(checkHistory(input).map(({ kind, index }) => [kind, index])).toEqual([["empty-content", 1]]);
    const result = await slidingWindow({ tokenCounter, keepTurns: 5, invalidHistory: "repair" }).compact(input);
    expect(result.messages[1]!.content).toBe("");
    expect(openaiWireProblems(result.messages)).toEqual([]);
  });

  it("keep pairing repairs reported against input positions when both run", async () => {
    const input = [user("u1", "go"), new AIMessage({ id: "e1", content: "" }), assistant("a1", "", [{ id: "c1" }]), user("u2", "more")];
    const result = await hardTruncate({ tokenCounter, maxTokens: 100_000, invalidHistory: "repair" }).compact(input);
    // The empty message (input 1) gets a text; the unanswered call's message (input 2), empty without it, is dropped.
    expect(result.repair?.removed.map(({ index, message }) => [index, message.id])).toEqual([[2, "a1"]]);
    expect(result.repair?.replaced.map(({ index }) => index)).toEqual([1]);
    expect(result.repair?.problems.map(({ kind, index }) => [kind, index])).toEqual([
      ["empty-content", 1],
      ["unanswered-call", 2],
    ]);
    expect(ids(result.messages)).toEqual(["u1", "e1", "u2"]);
  });
});

/**
 * The wire validator itself: each rule on a minimal history, with the exact problems expected, so
 * the property and trace suites can trust an empty list.
 */
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { anthropicWireProblems, convertForAnthropic, openaiWireProblems, wireProblems } from "../support/wire/index.js";
import { snapshotHistory, expectHistoryUnchanged } from "../support/invariants.js";

const call = (id: string, args: Record<string, unknown> = {}) => ({ id, name: "bash", args, type: "tool_call" as const });
const calling = (...ids: string[]) => new AIMessage({ content: "", tool_calls: ids.map((id) => call(id)) });
const result = (id: string, content = `out ${id}`) => new ToolMessage({ content, tool_call_id: id });

/** Rule names (and history indices) only, for compact expectations. */
const rules = (problems: readonly { index: number; rule: string }[]) => problems.map((problem) => `${problem.index}:${problem.rule}`);

describe("a history both providers accept", () => {
  it("has no problem: parallel calls answered in another order, text, images, a streamed chunk's calls", () => {
    const history: BaseMessage[] = [
      new SystemMessage("You are terse."),
      new HumanMessage({ content: [{ type: "text", text: "Look 😀" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] }),
      calling("c1", "c2"),
      result("c2"),
      result("c1"),
      new AIMessage("Done 𝒜."),
      new HumanMessage("Thanks"),
    ];
    expect(wireProblems(history)).toEqual([]);
  });
});

describe("openaiWireProblems", () => {
  it("reports a message between a call and its result, at both messages, with wire indices", () => {
    const history = [new SystemMessage("s"), new HumanMessage("go"), calling("c1"), new HumanMessage("between"), result("c1")];
    expect(openaiWireProblems(history)).toEqual([
      { provider: "openai", index: 2, wireIndex: 2, rule: "unanswered-tool-call", detail: 'call "c1" has no tool message right after its assistant message' },
      {
        provider: "openai",
        index: 4,
        wireIndex: 4,
        rule: "orphan-tool-message",
        detail: 'tool message for call "c1", which the assistant message before the tool messages did not make',
      },
    ]);
  });

  it("reports stale raw additional_kwargs.tool_calls, which the client sends when tool_calls is empty", () => {
    const stale = new AIMessage({
      content: "I ran it.",
      tool_calls: [],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] },
    });
    expect(rules(openaiWireProblems([new HumanMessage("go"), stale, new HumanMessage("next")]))).toEqual(["1:unanswered-tool-call"]);
    expect(anthropicWireProblems([new HumanMessage("go"), stale, new HumanMessage("next")])).toEqual([]);
  });

  it("reports an empty tool_calls list and an empty assistant message", () => {
    const emptyCalls = new AIMessage({ content: "", additional_kwargs: { tool_calls: [] } });
    expect(rules(openaiWireProblems([new HumanMessage("go"), emptyCalls]))).toEqual(["1:empty-tool-calls"]);
    expect(rules(openaiWireProblems([new HumanMessage("go"), new AIMessage("")]))).toEqual(["1:empty-assistant"]);
    expect(rules(openaiWireProblems([new HumanMessage("go"), new AIMessage({ content: [{ type: "text", text: "" }] })]))).toEqual(["1:empty-assistant"]);
  });

  it("reports empty user and system content and an empty content list", () => {
    expect(rules(openaiWireProblems([new SystemMessage(""), new HumanMessage(""), new HumanMessage({ content: [] })]))).toEqual([
      "0:empty-content",
      "1:empty-content",
      "2:empty-content-array",
    ]);
  });

  it("reports content parts a role does not accept (a tool_result block in a user message)", () => {
    const anthropicResult = new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "c1", content: "x" }] });
    expect(openaiWireProblems([anthropicResult])).toEqual([
      {
        provider: "openai",
        index: 0,
        wireIndex: 0,
        rule: "content-part-type",
        detail: 'user content[0] has type "tool_result"; a user message accepts text, image_url, input_audio, file',
      },
    ]);
  });

  it("reports a repeated call id in one message, a repeated result, and a call without an id (the client throws)", () => {
    expect(rules(openaiWireProblems([new HumanMessage("go"), calling("c1", "c1"), result("c1")]))).toEqual(["1:duplicate-tool-call-id"]);
    expect(rules(openaiWireProblems([new HumanMessage("go"), calling("c1"), result("c1"), result("c1")]))).toEqual(["3:duplicate-tool-result"]);
    const noId = new AIMessage({ content: "", tool_calls: [{ name: "bash", args: {}, type: "tool_call" }] });
    expect(rules(openaiWireProblems([new HumanMessage("go"), noId]))).toEqual(["1:client-conversion-error"]);
  });

  it("accepts a call id reused by a later, separately answered call", () => {
    expect(openaiWireProblems([new HumanMessage("go"), calling("c1"), result("c1"), calling("c1"), result("c1")])).toEqual([]);
  });

  it("reports a lone surrogate in content, but not in arguments (JSON.stringify escapes it there)", () => {
    const history = [new HumanMessage("half \ud83d"), new AIMessage({ content: "", tool_calls: [call("c1", { text: "\ud83d" })] }), result("c1")];
    expect(openaiWireProblems(history)).toEqual([{ provider: "openai", index: 0, wireIndex: 0, rule: "lone-surrogate", detail: "lone surrogate in content" }]);
  });

  it("reports a message the client cannot convert (RemoveMessage) as a conversion error", () => {
    expect(openaiWireProblems([new HumanMessage("go"), new RemoveMessage({ id: "x" })])).toEqual([
      { provider: "openai", index: 1, wireIndex: -1, rule: "client-conversion-error", detail: "Unknown message type: remove" },
    ]);
  });
});

describe("anthropicWireProblems", () => {
  it("maps problems in merged tool-result messages to the history message", () => {
    // Two tool results become one user message of two tool_result blocks; the orphan is the second.
    const history = [new SystemMessage("s"), new HumanMessage("go"), calling("c1"), result("c1"), result("zz")];
    expect(anthropicWireProblems(history)).toEqual([
      { provider: "anthropic", index: 4, wireIndex: 2, rule: "orphan-tool-result", detail: 'tool_result for "zz", which the message before did not use' },
    ]);
  });

  it("reports a message between a call and its result as a tool_result that is not first", () => {
    const history = [new HumanMessage("go"), calling("c1"), new HumanMessage("between"), result("c1")];
    expect(anthropicWireProblems(history)).toEqual([
      {
        provider: "anthropic",
        index: 1,
        wireIndex: 1,
        rule: "unanswered-tool-use",
        detail: 'tool_use "c1" has no tool_result in the next message (user message)',
      },
      { provider: "anthropic", index: 3, wireIndex: 3, rule: "orphan-tool-result", detail: 'tool_result for "c1", which the message before did not use' },
    ]);
  });

  it("reports tool results after other content in the next message", () => {
    const mixed = new HumanMessage({ content: [{ type: "text", text: "here" }, { type: "tool_result", tool_use_id: "c1", content: "x" }] });
    expect(rules(anthropicWireProblems([new HumanMessage("go"), calling("c1"), mixed]))).toEqual(["1:tool-result-not-first"]);
  });

  it("accepts Anthropic-native tool_use blocks answered by tool_result blocks in a human message", () => {
    const use = new AIMessage({ content: [{ type: "text", text: "Running." }, { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }], tool_calls: [call("toolu_1", { command: "ls" })] });
    const answer = new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] });
    expect(anthropicWireProblems([new HumanMessage("go"), use, answer, new AIMessage("One file.")])).toEqual([]);
  });

  it("reports empty content, empty text blocks and content of only white space", () => {
    expect(rules(anthropicWireProblems([new HumanMessage("go"), new AIMessage("")]))).toEqual(["1:empty-content"]);
    expect(rules(anthropicWireProblems([new HumanMessage({ content: [] })]))).toEqual(["0:empty-content"]);
    expect(rules(anthropicWireProblems([new HumanMessage({ content: [{ type: "text", text: "" }, { type: "text", text: "x" }] })]))).toEqual(["0:empty-text-block"]);
    expect(rules(anthropicWireProblems([new HumanMessage(" \n ")]))).toEqual(["0:whitespace-only-text"]);
    expect(anthropicWireProblems([new HumanMessage({ content: [{ type: "text", text: " " }, { type: "text", text: "x" }] })])).toEqual([]);
  });

  it("reports the tool_use strip that leaves an assistant message with no content", () => {
    const stripped = new AIMessage({ content: [] });
    expect(rules(anthropicWireProblems([new HumanMessage("go"), stripped, new HumanMessage("next")]))).toEqual(["1:empty-content"]);
  });

  it("reports a history that does not start with a user message, and one with no message at all", () => {
    expect(rules(anthropicWireProblems([new SystemMessage("s"), new AIMessage("hello"), new HumanMessage("hi")]))).toEqual(["1:first-not-user"]);
    expect(rules(anthropicWireProblems([new SystemMessage("s")]))).toEqual(["-1:no-messages"]);
  });

  it("reports a tool-use id reused anywhere in the request, and ids with other characters", () => {
    expect(rules(anthropicWireProblems([new HumanMessage("go"), calling("c1"), result("c1"), calling("c1"), result("c1")]))).toEqual(["3:duplicate-tool-use-id"]);
    expect(rules(anthropicWireProblems([new HumanMessage("go"), calling("call.1"), result("call.1")]))).toEqual(["1:tool-use-id-pattern"]);
  });

  it("reports a lone surrogate in tool input, and in the hoisted system field at its message", () => {
    const history = [new SystemMessage("a"), new SystemMessage("b \udc00"), new HumanMessage("go"), new AIMessage({ content: "", tool_calls: [call("c1", { text: "\ud83d" })] }), result("c1")];
    expect(anthropicWireProblems(history)).toEqual([
      { provider: "anthropic", index: 1, wireIndex: -1, rule: "lone-surrogate", detail: "lone surrogate in system.[1].text" },
      { provider: "anthropic", index: 3, wireIndex: 1, rule: "lone-surrogate", detail: "lone surrogate in content[0].input.text" },
    ]);
  });

  it("reports a tool call without an id as a conversion error (the client throws)", () => {
    const noId = new AIMessage({ content: "", tool_calls: [{ name: "bash", args: {}, type: "tool_call" }] });
    expect(anthropicWireProblems([new HumanMessage("go"), noId])).toEqual([
      { provider: "anthropic", index: -1, wireIndex: -1, rule: "client-conversion-error", detail: 'Anthropic requires all tool calls to have an "id".' },
    ]);
  });

  it("accepts two user messages in a row unless asked for strict alternation", () => {
    const history = [new HumanMessage("one"), new HumanMessage("two"), new AIMessage("ok")];
    expect(anthropicWireProblems(history)).toEqual([]);
    expect(rules(anthropicWireProblems(history, { strictAlternation: true }))).toEqual(["1:consecutive-same-role"]);
  });

  it("never changes the history it checks, though the client's converter writes into human messages", () => {
    const history = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [call("t1"), call("t2")] }),
      new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "t1", content: "one" }] }),
      result("t2"),
    ];
    const snapshot = snapshotHistory(history);
    expect(anthropicWireProblems(history)).toEqual([]);
    expect(convertForAnthropic(history).messages).toHaveLength(3);
    expectHistoryUnchanged(snapshot);
  });
});

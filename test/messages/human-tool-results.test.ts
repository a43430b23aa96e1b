/**
 * Anthropic's native tool results: `tool_result` blocks in a human message directly after the
 * assistant message whose `tool_use` they answer. The pairing index, validation and repair treat
 * them as results, exactly as `ChatAnthropic` sends them (checked with the wire validator).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { indexToolCallGroups, safeCutPoints, userTurnStarts, validateToolPairing } from "../../src/index.js";
import { anthropicWireProblems } from "../support/wire/index.js";

/** A ChatAnthropic reply: its calls as `tool_use` blocks and as `tool_calls`. */
const ai = (id: string, ...callIds: string[]) =>
  new AIMessage({
    id,
    content: callIds.map((callId) => ({ type: "tool_use", id: callId, name: "read", input: { path: callId } })),
    tool_calls: callIds.map((callId) => ({ id: callId, name: "read", args: { path: callId }, type: "tool_call" as const })),
  });
const result = (toolUseId: string, content = `output of ${toolUseId}`) => ({ type: "tool_result", tool_use_id: toolUseId, content });
const text = (value: string) => ({ type: "text", text: value });
const human = (id: string, content: BaseMessage["content"]) => new HumanMessage({ id, content });
const tool = (id: string, callId: string) => new ToolMessage({ id, content: `output of ${callId}`, tool_call_id: callId });
const rules = (messages: readonly BaseMessage[]) => anthropicWireProblems(messages).map((problem) => `${problem.index} ${problem.rule}`);
const kinds = (messages: readonly BaseMessage[]) =>
  validateToolPairing(messages).map((problem) => ({ kind: problem.kind, index: problem.index, ...("blockPosition" in problem ? { blockPosition: problem.blockPosition } : {}) }));

describe("validateToolPairing on tool_result blocks in human messages", () => {
  it("accepts a call answered by a tool_result block in the next human message", () => {
    const messages = [human("h0", "read it"), ai("a1", "toolu_1"), human("h2", [result("toolu_1")])];
    expect(validateToolPairing(messages)).toEqual([]);
    expect(rules(messages)).toEqual([]);
  });

  it("reports a block that answers no call as an orphan, naming the message and the block", () => {
    const messages = [human("h0", "read it"), ai("a1", "toolu_1"), human("h2", [result("toolu_1"), result("toolu_9")])];
    expect(validateToolPairing(messages)).toEqual([
      {
        kind: "orphan-result",
        index: 2,
        toolCallId: "toolu_9",
        blockPosition: 1,
        message: "message 2 (its tool_result block 1) is a tool result for `toolu_9`, but no earlier message calls it",
      },
    ]);
    expect(rules(messages)).toEqual(["2 orphan-tool-result"]);
  });

  it("accepts parallel calls answered by a tool message and a block, in either order", () => {
    const toolFirst = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), tool("t2", "toolu_1"), human("h3", [result("toolu_2")])];
    const blockFirst = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1")]), tool("t3", "toolu_2")];
    const twoMessages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1")]), human("h3", [result("toolu_2")])];
    for (const messages of [toolFirst, blockFirst, twoMessages]) {
      expect(validateToolPairing(messages)).toEqual([]);
      expect(rules(messages)).toEqual([]);
    }
  });

  it("accepts text after the tool_result blocks of the only result message", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1"), result("toolu_2"), text("now fix it")])];
    expect(validateToolPairing(messages)).toEqual([]);
    expect(rules(messages)).toEqual([]);
  });

  it("reports a block after other content, or in a message with text after other results, as misplaced", () => {
    const textFirst = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", [text("here"), result("toolu_1")])];
    expect(kinds(textFirst)).toEqual([{ kind: "misplaced-result", index: 2, blockPosition: 1 }]);
    expect(rules(textFirst)).toEqual(["1 tool-result-not-first"]);
    // ChatAnthropic joins only messages made of tool_result blocks: this one is sent on its own.
    const afterTool = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), tool("t2", "toolu_1"), human("h3", [result("toolu_2"), text("and?")])];
    expect(validateToolPairing(afterTool)).toEqual([
      {
        kind: "misplaced-result",
        index: 3,
        toolCallId: "toolu_2",
        assistantIndex: 1,
        blockPosition: 0,
        message: "message 3 (its tool_result block 0) answers tool call `toolu_2` of message 1 but is not among the tool results directly after it",
      },
    ]);
    expect(rules(afterTool)).toEqual(["1 unanswered-tool-use", "3 orphan-tool-result"]);
  });

  it("reports a result message after a user message as misplaced, and a second answer as a duplicate", () => {
    const separated = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", "wait"), human("h3", [result("toolu_1")])];
    expect(kinds(separated)).toEqual([{ kind: "misplaced-result", index: 3, blockPosition: 0 }]);
    const twice = [human("h0", "read"), ai("a1", "toolu_1"), tool("t2", "toolu_1"), human("h3", [result("toolu_1")])];
    expect(validateToolPairing(twice)).toEqual([
      {
        kind: "duplicate-result",
        index: 3,
        toolCallId: "toolu_1",
        firstIndex: 2,
        blockPosition: 0,
        message: "message 3 (its tool_result block 0) answers tool call `toolu_1` again (first answered at message 2)",
      },
    ]);
    expect(rules(twice)).toEqual(["3 duplicate-tool-result"]);
  });

  it("ends the results at a message with text after its tool_result blocks: a later tool message is misplaced", () => {
    // The mixed message ends the results: a tool message after it is misplaced, not in the run.
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1"), text("so far")]), tool("t3", "toolu_2")];
    expect(kinds(messages)).toEqual([{ kind: "misplaced-result", index: 3 }]);
    expect(rules(messages)).toEqual(["1 tool-result-not-first"]);
  });
});

describe("the index, cut points and user turns with tool_result blocks", () => {
  const messages = [
    human("h0", "read both"),
    ai("a1", "toolu_1", "toolu_2"),
    tool("t2", "toolu_1"),
    human("h3", [result("toolu_2")]),
    new AIMessage({ id: "a4", content: "read them" }),
    human("h5", "thanks"),
  ];

  it("puts the human message in its call's group", () => {
    const index = indexToolCallGroups(messages);
    expect(index.groups).toEqual([{ assistantIndex: 1, callIds: ["toolu_1", "toolu_2"], resultIndices: [2, 3], end: 3 }]);
    expect([...index.groupOf]).toEqual([-1, 0, 0, 0, -1, -1]);
  });

  it("lists a human message once in resultIndices, however many blocks it holds", () => {
    const index = indexToolCallGroups([human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1"), result("toolu_2")])]);
    expect(index.groups).toEqual([{ assistantIndex: 1, callIds: ["toolu_1", "toolu_2"], resultIndices: [2], end: 2 }]);
  });

  it("never cuts between the call and the human message answering it, nor starts a user turn there", () => {
    expect([...safeCutPoints(messages)]).toEqual([1, 1, 0, 0, 1, 1, 1]);
    expect(userTurnStarts(messages)).toEqual([0, 5]);
  });

  it("does not count an orphan tool_result message as a user turn", () => {
    expect(userTurnStarts([human("h0", "hi"), human("h1", [result("toolu_9")]), human("h2", "again")])).toEqual([0, 2]);
  });
});

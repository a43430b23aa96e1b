/**
 * Anthropic's native tool results: `tool_result` blocks in a human message directly after the
 * assistant message whose `tool_use` they answer. The pairing index, validation and repair treat
 * them as results, exactly as `ChatAnthropic` sends them (checked with the wire validator).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { indexToolCallGroups, repairToolPairing, safeCutPoints, userTurnStarts, validateToolPairing } from "../../src/index.js";
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

const snapshot = (messages: readonly BaseMessage[]) => JSON.stringify(messages.map((message) => [message.type, message.id, message.content, message.additional_kwargs]));
const contents = (messages: readonly BaseMessage[]) => messages.map((message) => [message.id, message.content]);

/** Repair `messages` and check what every repair must give: a valid history ChatAnthropic sends as it is, input unchanged. */
function repaired(messages: BaseMessage[]) {
  const before = snapshot(messages);
  const repair = repairToolPairing(messages);
  expect(validateToolPairing(repair.messages)).toEqual([]);
  expect(rules(repair.messages)).toEqual([]);
  expect(snapshot(messages)).toBe(before);
  return repair;
}

describe("repairToolPairing on tool_result blocks in human messages", () => {
  it("takes an orphan block out of a copy of its message", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", [result("toolu_1"), result("toolu_9")])];
    const repair = repaired(messages);
    expect(contents(repair.messages)).toEqual([
      ["h0", "read"],
      ["a1", messages[1]!.content],
      ["h2", [result("toolu_1")]],
    ]);
    expect(repair.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(repair.messages[0]).toBe(messages[0]);
    expect(repair.messages[1]).toBe(messages[1]);
    expect(repair.replaced).toEqual([{ index: 2, before: messages[2], after: repair.messages[2] }]);
    expect(repair.removed).toEqual([]);
    expect(repair.moved).toEqual([]);
  });

  it("drops a message left with nothing to send (a second answer, an orphan) and keeps the call answered first", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1"), tool("t2", "toolu_1"), human("h3", [result("toolu_1")]), human("h4", [result("toolu_9")])];
    const repair = repaired(messages);
    expect(repair.messages).toEqual(messages.slice(0, 3));
    expect(repair.messages.every((message, position) => message === messages[position])).toBe(true);
    expect(repair.removed).toEqual([
      { index: 3, message: messages[3] },
      { index: 4, message: messages[4] },
    ]);
    expect(repair.replaced).toEqual([]);
  });

  it("moves a separated message of tool_result blocks whole to directly after its call", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", "wait"), human("h3", [result("toolu_1")])];
    const repair = repaired(messages);
    expect(repair.messages).toEqual([messages[0], messages[1], messages[3], messages[2]]);
    expect(repair.messages[2]).toBe(messages[3]);
    expect(repair.moved).toEqual([{ index: 3, to: 2, message: messages[3] }]);
    expect(repair.replaced).toEqual([]);
  });

  it("moves a misplaced block in a new message of its own, and leaves the text where it was", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), tool("t2", "toolu_1"), human("h3", [result("toolu_2"), text("and?")])];
    const repair = repaired(messages);
    expect(contents(repair.messages)).toEqual([
      ["h0", "read"],
      ["a1", messages[1]!.content],
      ["t2", "output of toolu_1"],
      [undefined, [result("toolu_2")]],
      ["h3", [text("and?")]],
    ]);
    expect(repair.messages[3]).toBeInstanceOf(HumanMessage);
    expect(repair.moved).toEqual([{ index: 3, to: 3, message: repair.messages[3], blockPositions: [0] }]);
    expect(repair.replaced).toEqual([{ index: 3, before: messages[3], after: repair.messages[4] }]);
  });

  it("moves a block that follows text in its message to before that text", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", [text("here:"), result("toolu_1")])];
    const repair = repaired(messages);
    expect(contents(repair.messages)).toEqual([
      ["h0", "read"],
      ["a1", messages[1]!.content],
      [undefined, [result("toolu_1")]],
      ["h2", [text("here:")]],
    ]);
    expect(repair.moved).toEqual([{ index: 2, to: 2, message: repair.messages[2], blockPositions: [1] }]);
  });

  it("moves the text of a result message after the results that move in behind it", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1"), text("so far")]), tool("t3", "toolu_2")];
    const repair = repaired(messages);
    expect(contents(repair.messages)).toEqual([
      ["h0", "read"],
      ["a1", messages[1]!.content],
      ["h2", [result("toolu_1")]],
      ["t3", "output of toolu_2"],
      [undefined, [text("so far")]],
    ]);
    expect(repair.messages[3]).toBe(messages[3]);
    expect(repair.replaced).toEqual([{ index: 2, before: messages[2], after: repair.messages[2] }]);
    expect(repair.moved).toEqual([
      { index: 2, to: 4, message: repair.messages[4], blockPositions: [1] },
      { index: 3, to: 3, message: messages[3] },
    ]);
  });

  it("removes a call no block answers from every form of its message", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_1")])];
    const repair = repaired(messages);
    const after = repair.messages[1] as AIMessage;
    expect(after.tool_calls?.map((call) => call.id)).toEqual(["toolu_1"]);
    expect(after.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "toolu_1" } }]);
    expect(repair.messages[2]).toBe(messages[2]);
  });

  it("renames a repeated call id in the tool_result block that answers the later call", () => {
    const messages = [human("h0", "read"), ai("a1", "toolu_1"), human("h2", [result("toolu_1")]), ai("a3", "toolu_1"), human("h4", [result("toolu_1", "second")])];
    const repair = repaired(messages);
    expect(repair.messages[2]).toBe(messages[2]);
    expect((repair.messages[3] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["toolu_1__dup1"]);
    expect(repair.messages[4]!.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_1__dup1", content: "second" }]);
    expect(repair.replaced.map((entry) => entry.index)).toEqual([3, 4]);
  });

  it("keeps the blocks of one message that answer two assistant messages each with its own call", () => {
    // h4 answers toolu_1 (misplaced: a1's results ended at h2) and toolu_3 (a3's run).
    const messages = [human("h0", "read"), ai("a1", "toolu_1", "toolu_2"), human("h2", [result("toolu_2")]), ai("a3", "toolu_3"), human("h4", [result("toolu_3"), result("toolu_1")])];
    const repair = repaired(messages);
    expect(contents(repair.messages)).toEqual([
      ["h0", "read"],
      ["a1", messages[1]!.content],
      ["h2", [result("toolu_2")]],
      [undefined, [result("toolu_1")]],
      ["a3", messages[3]!.content],
      ["h4", [result("toolu_3")]],
    ]);
    expect(repair.moved).toEqual([{ index: 4, to: 3, message: repair.messages[3], blockPositions: [1] }]);
    expect(repair.replaced).toEqual([{ index: 4, before: messages[4], after: repair.messages[5] }]);
  });
});

import { AIMessage, AIMessageChunk, type ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { repairToolPairing, validateToolPairing } from "../src/index.js";
import { assistant, ids, sameObjects, toolResult, user } from "./support/builders.js";

describe("validateToolPairing", () => {
  it("returns no problem for a valid history", () => {
    expect(validateToolPairing([user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1")])).toEqual([]);
  });

  it("reports a tool result with no earlier call", () => {
    expect(validateToolPairing([user("u1"), toolResult("t1", "c9")])).toEqual([
      { kind: "orphan-result", index: 1, toolCallId: "c9", message: "message 1 is a tool result for `c9`, but no earlier message calls it" },
    ]);
  });

  it("reports a result that comes before its call as an orphan, and the call as unanswered", () => {
    const problems = validateToolPairing([toolResult("t1", "c1"), assistant("a1", "", [{ id: "c1" }])]);
    expect(problems.map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: "orphan-result", index: 0 },
      { kind: "unanswered-call", index: 1 },
    ]);
  });

  it("reports a call with no result", () => {
    expect(validateToolPairing([assistant("a1", "", [{ id: "c1" }, { id: "c2" }]), toolResult("t1", "c1")])).toEqual([
      { kind: "unanswered-call", index: 0, toolCallId: "c2", message: "message 0 calls tool `c2`, which no later tool result answers" },
    ]);
  });

  it("reports a repeated call id and a second result for one call", () => {
    const problems = validateToolPairing([
      assistant("a1", "", [{ id: "c1" }]),
      toolResult("t1", "c1"),
      toolResult("t1b", "c1"),
      assistant("a2", "", [{ id: "c1" }]),
      toolResult("t2", "c1"),
    ]);
    expect(problems.map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: "duplicate-result", index: 2 },
      { kind: "duplicate-call-id", index: 3 },
    ]);
  });

  it("reports a tool call without an id", () => {
    const message = new AIMessage({ id: "a1", content: "", tool_calls: [{ name: "bash", args: {}, type: "tool_call" }] });
    expect(validateToolPairing([message]).map(({ kind, index }) => ({ kind, index }))).toEqual([{ kind: "missing-call-id", index: 0 }]);
  });
});

describe("repairToolPairing", () => {
  it("returns the same objects when nothing is broken", () => {
    const messages = [user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1")];
    const repair = repairToolPairing(messages);
    expect(sameObjects(repair.messages, messages)).toBe(true);
    expect(repair.problems).toEqual([]);
  });

  it("drops an orphan result and reports it as removed", () => {
    const orphan = toolResult("t9", "c9");
    const repair = repairToolPairing([user("u1"), orphan, assistant("a1", "hi")]);
    expect(ids(repair.messages)).toEqual(["u1", "a1"]);
    expect(repair.removed).toEqual([{ index: 1, message: orphan }]);
  });

  it("removes an unanswered call from its assistant message and keeps the answered one", () => {
    const original = assistant("a1", "running two", [{ id: "c1" }, { id: "c2" }]);
    const repair = repairToolPairing([original, toolResult("t1", "c1")]);
    const repaired = repair.messages[0] as AIMessage;
    expect(repaired.tool_calls?.map((call) => call.id)).toEqual(["c1"]);
    expect(repaired.id).toBe("a1");
    expect(repaired.content).toBe("running two");
    expect(original.tool_calls?.map((call) => call.id)).toEqual(["c1", "c2"]);
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("drops an assistant message left with neither content nor calls", () => {
    const repair = repairToolPairing([user("u1"), assistant("a1", "", [{ id: "c1" }])]);
    expect(ids(repair.messages)).toEqual(["u1"]);
    expect(repair.removed.map((entry) => entry.index)).toEqual([1]);
  });

  it("renames a repeated call id on the later call and its result, keeping both exchanges", () => {
    const repair = repairToolPairing([
      assistant("a1", "", [{ id: "c1" }]),
      toolResult("t1", "c1"),
      assistant("a2", "", [{ id: "c1" }]),
      toolResult("t2", "c1"),
    ]);
    expect(ids(repair.messages)).toEqual(["a1", "t1", "a2", "t2"]);
    expect((repair.messages[2] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c1__dup1"]);
    expect((repair.messages[3] as ToolMessage).tool_call_id).toBe("c1__dup1");
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("keeps raw OpenAI tool calls in additional_kwargs consistent with tool_calls", () => {
    const original = new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [
        { id: "c1", name: "bash", args: {}, type: "tool_call" },
        { id: "c2", name: "bash", args: {}, type: "tool_call" },
      ],
      additional_kwargs: {
        tool_calls: [
          { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "bash", arguments: "{}" } },
        ],
      },
    });
    const repair = repairToolPairing([original, toolResult("t1", "c1")]);
    const repaired = repair.messages[0] as AIMessage;
    expect(repaired.additional_kwargs.tool_calls?.map((call) => call.id)).toEqual(["c1"]);
  });

  it("repairs a streamed assistant chunk, whose tool_calls come from its tool_call_chunks", () => {
    const chunk = new AIMessageChunk({
      id: "a1",
      content: "",
      tool_call_chunks: [
        { id: "c1", name: "bash", args: '{"command":"ls"}', index: 0, type: "tool_call_chunk" },
        { id: "c2", name: "bash", args: "{}", index: 1, type: "tool_call_chunk" },
      ],
    });
    const repair = repairToolPairing([user("u1"), chunk, toolResult("t2", "c2")]);
    expect((repair.messages[1] as AIMessageChunk).tool_calls?.map((call) => call.id)).toEqual(["c2"]);
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("renames a repeated id inside Anthropic-style tool_use content blocks too", () => {
    const withBlocks = (id: string) =>
      new AIMessage({
        id,
        content: [
          { type: "text", text: "running" },
          { type: "tool_use", id: "c1", name: "bash", input: { command: "ls" } },
        ],
        tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      });
    const repair = repairToolPairing([withBlocks("a1"), toolResult("t1", "c1"), withBlocks("a2"), toolResult("t2", "c1")]);
    expect((repair.messages[2] as AIMessage).content).toEqual([
      { type: "text", text: "running" },
      { type: "tool_use", id: "c1__dup1", name: "bash", input: { command: "ls" } },
    ]);
    expect((repair.messages[0] as AIMessage).content).toEqual((withBlocks("a1")).content);
  });
});

describe("pairing as providers enforce it: results directly after their call", () => {
  it("reports a result with a user message between it and its call as misplaced", () => {
    const messages = [user("u1"), assistant("a1", "", [{ id: "c1" }]), user("u2", "hurry"), toolResult("t1", "c1")];
    expect(validateToolPairing(messages)).toEqual([
      {
        kind: "misplaced-result",
        index: 3,
        toolCallId: "c1",
        assistantIndex: 1,
        message: "message 3 answers tool call `c1` of message 1 but is not among the tool results directly after it",
      },
    ]);
  });

  it("moves the misplaced result to directly after its call, and says so", () => {
    const messages = [user("u1"), assistant("a1", "", [{ id: "c1" }]), user("u2", "hurry"), toolResult("t1", "c1")];
    const repair = repairToolPairing(messages);
    expect(sameObjects(repair.messages, [messages[0], messages[1], messages[3], messages[2]])).toBe(true);
    expect(repair.moved).toEqual([{ index: 3, to: 2, message: messages[3] }]);
    expect(repair.removed).toEqual([]);
    expect(repair.replaced).toEqual([]);
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("reports a parallel call's result that arrives after another assistant turn", () => {
    const messages = [
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t1", "c1"),
      assistant("a2", "", [{ id: "c3" }]),
      toolResult("t3", "c3"),
      toolResult("t2", "c2"),
      assistant("a3", "done"),
    ];
    expect(validateToolPairing(messages).map(({ kind, index }) => ({ kind, index }))).toEqual([{ kind: "misplaced-result", index: 5 }]);
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["u1", "a1", "t1", "t2", "a2", "t3", "a3"]);
    expect(repair.moved).toEqual([{ index: 5, to: 3, message: messages[5] }]);
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("moves results after the last one of their call's run, in input order", () => {
    const messages = [
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }, { id: "c3" }]),
      toolResult("t2", "c2"),
      user("u1"),
      toolResult("t3", "c3"),
      toolResult("t1", "c1"),
    ];
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["a1", "t2", "t3", "t1", "u1"]);
    expect(repair.moved.map(({ index, to }) => [index, to])).toEqual([
      [3, 2],
      [4, 3],
    ]);
  });

  it("still drops a result that arrives before its call, and removes the call", () => {
    const messages = [user("u1"), toolResult("t1", "c1"), assistant("a1", "calling", [{ id: "c1" }]), user("u2")];
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["u1", "a1", "u2"]);
    expect((repair.messages[1] as AIMessage).tool_calls).toEqual([]);
    expect(repair.moved).toEqual([]);
  });
});

describe("repeated call ids: each call keeps its own result", () => {
  it("answers two calls with one id in one message in order, renaming the second", () => {
    const original = assistant("a1", "", [
      { id: "c1", args: { path: "first" } },
      { id: "c1", args: { path: "second" } },
    ]);
    const messages = [user("u1"), original, toolResult("t1", "c1", "first output"), toolResult("t2", "c1", "second output")];
    expect(validateToolPairing(messages)).toEqual([
      { kind: "duplicate-call-id", index: 1, toolCallId: "c1", firstIndex: 1, message: "message 1 repeats tool call id `c1` first used at message 1" },
    ]);
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["u1", "a1", "t1", "t2"]);
    expect((repair.messages[1] as AIMessage).tool_calls?.map((call) => [call.id, call.args])).toEqual([
      ["c1", { path: "first" }],
      ["c1__dup1", { path: "second" }],
    ]);
    expect(repair.messages[2]).toBe(messages[2]);
    expect(repair.messages.slice(2).map((message) => [(message as ToolMessage).tool_call_id, message.content])).toEqual([
      ["c1", "first output"],
      ["c1__dup1", "second output"],
    ]);
    expect(repair.removed).toEqual([]);
    expect(repair.replaced.map(({ index }) => index)).toEqual([1, 3]);
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("gives a result in a later message's run to that message's call, not to an earlier unanswered one", () => {
    const messages = [assistant("a1", "first try", [{ id: "c1" }]), user("u1"), assistant("a2", "", [{ id: "c1" }]), toolResult("t2", "c1")];
    expect(validateToolPairing(messages).map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: "unanswered-call", index: 0 },
      { kind: "duplicate-call-id", index: 2 },
    ]);
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["a1", "u1", "a2", "t2"]);
    expect((repair.messages[0] as AIMessage).tool_calls).toEqual([]);
    expect((repair.messages[2] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c1__dup1"]);
    expect((repair.messages[3] as ToolMessage).tool_call_id).toBe("c1__dup1");
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });

  it("gives a misplaced result to the earliest unanswered call with its id", () => {
    const messages = [
      assistant("a1", "", [{ id: "c1" }]),
      user("u1"),
      assistant("a2", "", [{ id: "c1" }]),
      toolResult("t2", "c1", "second"),
      user("u2"),
      toolResult("t1", "c1", "first"),
    ];
    expect(validateToolPairing(messages).map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: "duplicate-call-id", index: 2 },
      { kind: "misplaced-result", index: 5 },
    ]);
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["a1", "t1", "u1", "a2", "t2", "u2"]);
    expect(repair.messages.map((message) => (message as ToolMessage).tool_call_id)).toEqual([undefined, "c1", undefined, undefined, "c1__dup1", undefined]);
    expect(repair.moved).toEqual([{ index: 5, to: 1, message: messages[5] }]);
  });
});

describe("an empty raw tool_calls array (what older edits left behind)", () => {
  it("is reported, and deleted by the repair; a message left with nothing is dropped", () => {
    const withText = new AIMessage({ id: "a1", content: "reading", additional_kwargs: { tool_calls: [] } });
    const withoutText = new AIMessage({ id: "a2", content: "", additional_kwargs: { tool_calls: [] } });
    const messages = [user("u1"), withText, user("u2"), withoutText];
    expect(validateToolPairing(messages)).toEqual([
      { kind: "empty-tool-calls", index: 1, message: "message 1 has an empty `additional_kwargs.tool_calls`, which ChatOpenAI sends as an empty `tool_calls` array" },
      { kind: "empty-tool-calls", index: 3, message: "message 3 has an empty `additional_kwargs.tool_calls`, which ChatOpenAI sends as an empty `tool_calls` array" },
    ]);
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["u1", "a1", "u2"]);
    expect(repair.messages[1]!.additional_kwargs).toEqual({});
    expect(repair.replaced.map(({ index }) => index)).toEqual([1]);
    expect(repair.removed).toEqual([{ index: 3, message: withoutText }]);
  });
});

describe("repairToolPairing's report", () => {
  it("lists moved and replaced messages by input index when results move across each other", () => {
    const messages = [
      assistant("a1", "", [{ id: "c1" }]),
      user("u1"),
      assistant("a2", "", [{ id: "c1" }]),
      user("u2"),
      toolResult("t2", "c1", "answers a1"),
      toolResult("t1", "c1", "answers a2"),
    ];
    const repair = repairToolPairing(messages);
    expect(ids(repair.messages)).toEqual(["a1", "t2", "u1", "a2", "t1", "u2"]);
    expect(repair.moved.map(({ index, to }) => [index, to])).toEqual([
      [4, 1],
      [5, 4],
    ]);
    expect(repair.replaced.map(({ index }) => index)).toEqual([2, 5]);
    expect((repair.messages[4] as ToolMessage).tool_call_id).toBe("c1__dup1");
    expect(validateToolPairing(repair.messages)).toEqual([]);
  });
});

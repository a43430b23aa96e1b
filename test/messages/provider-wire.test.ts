/**
 * Issue 11's examples, checked on what ChatOpenAI and ChatAnthropic really send (their own
 * converters), before and after the package's edits.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { repairToolPairing, selectiveCompact, toolResultHiding, validateToolPairing } from "../../src/index.js";
import { anthropicWire, openAIWire, wireRejections } from "./wire.js";
import { EVERY_RUN } from "../support/hiding.js";

const openAIReading = () =>
  new AIMessage({
    id: "a1",
    content: "reading",
    tool_calls: [{ id: "c1", name: "read", args: {} }],
    additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] },
  });

const anthropicReading = () =>
  new AIMessage({
    id: "a1",
    content: [{ type: "tool_use", id: "c1", name: "read", input: {} }],
    tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }],
  });

/** A first call with a long result, then three short exchanges: the default rules drop the first result. */
const agentHistory = (first: AIMessage): BaseMessage[] => [
  new HumanMessage({ id: "u1", content: "read the files" }),
  first,
  new ToolMessage({ id: "t1", content: "file one ".repeat(60), tool_call_id: "c1" }),
  ...[2, 3, 4].flatMap((n) => [
    new AIMessage({ id: `a${n}`, content: "", tool_calls: [{ id: `c${n}`, name: "read", args: {}, type: "tool_call" }] }),
    new ToolMessage({ id: `t${n}`, content: `file ${n}`, tool_call_id: `c${n}` }),
  ]),
  new AIMessage({ id: "a5", content: "done" }),
];

describe("selectiveCompact on what the providers send", () => {
  it("removes a ChatOpenAI call from every form: the message is sent without a tool_calls key", async () => {
    const history = agentHistory(openAIReading());
    expect(wireRejections(history)).toEqual({ openai: [], anthropic: [] });
    const result = await selectiveCompact({ target: 100 }).compact(history);
    expect(result.messages.map((message) => message.id)).toEqual(["u1", "a1", "a2", "t2", "a3", "t3", "a4", "t4", "a5"]);
    expect(openAIWire(result.messages)[1]).toEqual({ role: "assistant", content: "reading" });
    expect((result.messages[1] as AIMessage).additional_kwargs).toEqual({});
    expect(wireRejections(result.messages)).toEqual({ openai: [], anthropic: [] });
  });

  it("drops a ChatAnthropic message whose only content was the stripped tool_use block", async () => {
    const history = agentHistory(anthropicReading());
    expect(anthropicWire(history).messages[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "c1", name: "read", input: {} }] });
    const result = await selectiveCompact({ target: 100 }).compact(history);
    expect(result.messages.map((message) => message.id)).toEqual(["u1", "a2", "t2", "a3", "t3", "a4", "t4", "a5"]);
    expect(result.removed.map(({ index, message }) => [index, message.id])).toEqual([
      [1, "a1"],
      [2, "t1"],
    ]);
    expect(wireRejections(result.messages)).toEqual({ openai: [], anthropic: [] });
  });

  it("keeps the text of a ChatAnthropic message and removes its tool_use block", async () => {
    const first = new AIMessage({
      id: "a1",
      content: [
        { type: "text", text: "reading" },
        { type: "tool_use", id: "c1", name: "read", input: {} },
      ],
      tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }],
    });
    const result = await selectiveCompact({ target: 100 }).compact(agentHistory(first));
    expect(anthropicWire(result.messages).messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "reading" }] });
    expect(wireRejections(result.messages)).toEqual({ openai: [], anthropic: [] });
  });
});

describe("repairToolPairing on what the providers send", () => {
  it("keeps a result whose call only a tool_use block holds, and lists the call in tool_calls", () => {
    const unlisted = new AIMessage({
      id: "a1",
      content: [
        { type: "text", text: "reading" },
        { type: "tool_use", id: "c1", name: "read", input: { path: "a.txt" } },
      ],
      tool_calls: [],
    });
    const history = [new HumanMessage({ id: "u1", content: "go" }), unlisted, new ToolMessage({ id: "t1", content: "text of a", tool_call_id: "c1" })];
    // ChatOpenAI does not send the call, so its tool message follows nothing.
    expect(wireRejections(history)).toEqual({ openai: ["2: tool message for c1 does not follow its call"], anthropic: [] });
    expect(validateToolPairing(history)).toEqual([
      {
        kind: "unlisted-call",
        index: 1,
        callPosition: 0,
        toolCallId: "c1",
        message: "message 1: tool call `c1` is in its content blocks but not in `tool_calls`, so ChatOpenAI and ChatAnthropic would send different calls",
      },
    ]);
    const repair = repairToolPairing(history);
    expect(repair.messages.map((message) => message.id)).toEqual(["u1", "a1", "t1"]);
    expect(repair.messages[2]).toBe(history[2]);
    expect((repair.messages[1] as AIMessage).tool_calls).toEqual([{ id: "c1", name: "read", args: { path: "a.txt" }, type: "tool_call" }]);
    expect(repair.removed).toEqual([]);
    expect(wireRejections(repair.messages)).toEqual({ openai: [], anthropic: [] });
  });

  it("removes an unanswered ChatOpenAI call whose arguments did not parse (sent raw while tool_calls is empty)", () => {
    const invalidOnly = new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [],
      invalid_tool_calls: [{ id: "c1", name: "read", args: "{bad", error: "Malformed args.", type: "invalid_tool_call" }],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{bad" } }] },
    });
    const history = [new HumanMessage({ id: "u1", content: "go" }), invalidOnly, new HumanMessage({ id: "u2", content: "well?" })];
    expect(openAIWire(history)[1]).toEqual({ role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{bad" } }] });
    expect(validateToolPairing(history).map(({ kind, index }) => [kind, index])).toEqual([
      ["unlisted-call", 1],
      ["unanswered-call", 1],
    ]);
    const repair = repairToolPairing(history);
    expect(repair.messages.map((message) => message.id)).toEqual(["u1", "u2"]);
    expect(repair.removed).toEqual([{ index: 1, message: invalidOnly }]);
  });

  it("moves a result that a user message separated from its call", () => {
    const history = [
      new HumanMessage({ id: "u1", content: "go" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }] }),
      new HumanMessage({ id: "u2", content: "hurry" }),
      new ToolMessage({ id: "t1", content: "done", tool_call_id: "c1" }),
    ];
    expect(wireRejections(history)).toEqual({
      openai: ["1: tool call c1 has no tool message directly after it", "3: tool message for c1 does not follow its call"],
      anthropic: ["1: tool_use c1 has no tool_result in the next message", "3: tool_result for c1 does not follow its tool_use"],
    });
    const repair = repairToolPairing(history);
    expect(repair.messages.map((message) => message.id)).toEqual(["u1", "a1", "t1", "u2"]);
    expect(wireRejections(repair.messages)).toEqual({ openai: [], anthropic: [] });
  });
});

describe("invalidHistory: \"repair\" on what the providers send", () => {
  it("moves a separated result before the strategy runs, and reports the move", async () => {
    const history = [
      new HumanMessage({ id: "u1", content: "go" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }] }),
      new HumanMessage({ id: "u2", content: "hurry" }),
      new ToolMessage({ id: "t1", content: "done", tool_call_id: "c1" }),
    ];
    const result = await toolResultHiding({ ...EVERY_RUN, invalidHistory: "repair" }).compact(history);
    expect(result.status).toBe("repaired");
    expect(result.messages.map((message) => message.id)).toEqual(["u1", "a1", "t1", "u2"]);
    expect(result.repair?.moved).toEqual([{ index: 3, to: 2, message: history[3] }]);
    expect(wireRejections(result.messages)).toEqual({ openai: [], anthropic: [] });
  });
});

/**
 * fromPlainMessages: every plain form a message takes on the wire (the LangGraph API server's JSON,
 * `toDict()`'s StoredMessage, LangChain's serialized constructor, OpenAI-style roles) comes back as
 * the same real message, field for field.
 */
import {
  AIMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidHistoryError, fromPlainMessages, type MessageInput } from "../../src/index.js";
import { caught } from "../support/errors.js";

/** What LangGraph's API server sends for a message: `toDict()`'s data with its type beside it. */
const asServerJson = (message: BaseMessage) => {
  const { type, data } = message.toDict();
  return JSON.parse(JSON.stringify({ ...data, type }));
};
const stored = (message: BaseMessage) => JSON.parse(JSON.stringify(message.toDict()));

const messages: BaseMessage[] = [
  new SystemMessage({ id: "s1", content: "You are a coding agent." }),
  new HumanMessage({
    id: "h1",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
    ],
    additional_kwargs: { origin: "ui" },
  }),
  new AIMessage({
    id: "a1",
    name: "coder",
    content: "Reading it.",
    tool_calls: [{ id: "c1", name: "read_file", args: { path: "src/a.ts" }, type: "tool_call" }],
    invalid_tool_calls: [{ id: "c2", name: "bash", args: "{not json", error: "bad JSON", type: "invalid_tool_call" }],
    additional_kwargs: { reasoning: "short" },
    response_metadata: { model_name: "gpt-4o-mini", finish_reason: "tool_calls" },
    usage_metadata: { input_tokens: 120, output_tokens: 8, total_tokens: 128 },
  }),
  new ToolMessage({ id: "t1", tool_call_id: "c1", name: "read_file", content: "export const a = 1;", artifact: { bytes: 19 }, status: "success" }),
  new ToolMessage({
    id: "t2",
    tool_call_id: "c2",
    content: "[tool result hidden to save context; call the tool again if you need it]",
    response_metadata: { compaction: { hidden: true, strategy: "toolResultHiding" } },
  }),
  new HumanMessage({
    id: "h2",
    content: "Earlier conversation, compacted into a record (reference, not instructions):\n<summary>...</summary>",
    response_metadata: { compaction: { summary: true, strategy: "fullSummary", replacedIds: ["h0"] } },
  }),
  new FunctionMessage({ id: "f1", name: "lookup", content: "42" }),
  new ChatMessage({ id: "g1", role: "critic", content: "Looks fine." }),
];

describe("fromPlainMessages", () => {
  it("turns the LangGraph API server's JSON back into the same messages, classes and every field", () => {
    const restored = fromPlainMessages(messages.map(asServerJson));
    expect(restored.map((message) => message.constructor.name)).toEqual([
      "SystemMessage",
      "HumanMessage",
      "AIMessage",
      "ToolMessage",
      "ToolMessage",
      "HumanMessage",
      "FunctionMessage",
      "ChatMessage",
    ]);
    expect(restored.map(stored)).toEqual(messages.map(stored));
  });

  it("takes StoredMessages (toDict) and LangChain's serialized constructors alike", () => {
    expect(fromPlainMessages(messages.map(stored)).map(stored)).toEqual(messages.map(stored));
    const serialized = messages.slice(0, 6).map((message) => JSON.parse(JSON.stringify(message)));
    expect(serialized[2]).toMatchObject({ lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"] });
    expect(fromPlainMessages(serialized).map(stored)).toEqual(messages.slice(0, 6).map(stored));
  });

  it("takes OpenAI-style roles, as LangChain's coercion does", () => {
    const restored = fromPlainMessages([
      { role: "user", content: "hi", id: "u1" },
      { role: "assistant", content: "hello", id: "a1" },
    ] as MessageInput[]);
    expect(restored.map(stored)).toEqual([new HumanMessage({ id: "u1", content: "hi" }), new AIMessage({ id: "a1", content: "hello" })].map(stored));
  });

  it("returns BaseMessages as they are and never mutates its input", () => {
    const plain = messages.map(asServerJson);
    const before = structuredClone(plain);
    const restored = fromPlainMessages([messages[0]!, ...plain]);
    expect(restored[0]).toBe(messages[0]);
    expect(plain).toEqual(before);
  });

  it("names the index of what is not a message", async () => {
    const cases: [unknown, string][] = [
      [[messages[0], { type: "tool", id: "t9", content: "no call id" }], "message 1 is not a message LangChain can read: Unable to coerce message from array: only human, AI, system, developer, or tool message coercion is currently supported."],
      [[{ type: "remove", id: "x" }], "message 0 is not a message LangChain can read: a RemoveMessage is an instruction to the reducer, not a message of the history"],
      [[{ type: "function", data: { content: "42" } }], "message 0 is not a message LangChain can read: Name must be defined for function messages"],
      [[{ type: "human", content: "hi" }, null], "message 1 is not a message LangChain can read: expected a message, got null"],
      [[42], "message 0 is not a message LangChain can read: expected a message, got number"],
      [{ messages: [] }, "messages is not an array"],
    ];
    for (const [input, reason] of cases) {
      const error = await caught(() => fromPlainMessages(input as MessageInput[]));
      expect(InvalidHistoryError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(`fromPlainMessages: ${reason}`);
    }
  });
});

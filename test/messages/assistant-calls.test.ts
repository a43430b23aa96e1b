import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assistantCalls, isEmptyAssistantMessage } from "../../src/index.js";
import { hasSendableContent } from "../../src/messages/assistant-calls.js";

const raw = (id: string, name = "read", args = "{}") => ({ id, type: "function" as const, function: { name, arguments: args } });

describe("assistantCalls", () => {
  it("lists tool_calls in order", () => {
    const message = new AIMessage({
      content: "reading",
      tool_calls: [
        { id: "c1", name: "read", args: { path: "a" }, type: "tool_call" },
        { id: "c2", name: "bash", args: {}, type: "tool_call" },
      ],
      additional_kwargs: { tool_calls: [raw("c1"), raw("c2", "bash")] },
    });
    expect(assistantCalls(message)).toEqual([
      { id: "c1", name: "read", args: { path: "a" }, source: "tool_calls" },
      { id: "c2", name: "bash", args: {}, source: "tool_calls" },
    ]);
  });

  it("counts raw OpenAI calls only when tool_calls is empty, as ChatOpenAI sends them then", () => {
    const invalidBesideValid = new AIMessage({
      content: "",
      tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }],
      invalid_tool_calls: [{ id: "c2", name: "read", args: "{bad", error: "Malformed args.", type: "invalid_tool_call" }],
      additional_kwargs: { tool_calls: [raw("c1"), raw("c2", "read", "{bad")] },
    });
    expect(assistantCalls(invalidBesideValid).map((call) => call.id)).toEqual(["c1"]);
    const invalidOnly = new AIMessage({
      content: "",
      tool_calls: [],
      invalid_tool_calls: [{ id: "c2", name: "read", args: "{bad", error: "Malformed args.", type: "invalid_tool_call" }],
      additional_kwargs: { tool_calls: [raw("c2", "read", "{bad"), raw("c3", "bash", '{"command":"ls"}')] },
    });
    expect(assistantCalls(invalidOnly)).toEqual([
      { id: "c2", name: "read", args: {}, source: "additional_kwargs" },
      { id: "c3", name: "bash", args: { command: "ls" }, source: "additional_kwargs" },
    ]);
  });

  it("adds tool_use blocks that tool_calls does not list, and ignores server tool blocks", () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "searching" },
        { type: "server_tool_use", id: "srv1", name: "web_search", input: { query: "x" } },
        { type: "web_search_tool_result", tool_use_id: "srv1", content: [] },
        { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
        { type: "tool_use", id: "c2", name: "bash", input: { command: "ls" } },
      ],
      tool_calls: [{ id: "c1", name: "read", args: { path: "a" }, type: "tool_call" }],
    });
    expect(assistantCalls(message)).toEqual([
      { id: "c1", name: "read", args: { path: "a" }, source: "tool_calls" },
      { id: "c2", name: "bash", args: { command: "ls" }, source: "content" },
    ]);
  });

  it("keeps calls with a repeated id distinct, matching each form's k-th entry to the k-th call", () => {
    const message = new AIMessage({
      content: [
        { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
        { type: "tool_use", id: "c1", name: "read", input: { path: "b" } },
        { type: "tool_use", id: "c1", name: "read", input: { path: "c" } },
      ],
      tool_calls: [
        { id: "c1", name: "read", args: { path: "a" }, type: "tool_call" },
        { id: "c1", name: "read", args: { path: "b" }, type: "tool_call" },
      ],
    });
    expect(assistantCalls(message).map((call) => [call.id, call.args, call.source])).toEqual([
      ["c1", { path: "a" }, "tool_calls"],
      ["c1", { path: "b" }, "tool_calls"],
      ["c1", { path: "c" }, "content"],
    ]);
  });

  it("reads a streamed chunk's calls from its tool_call_chunks, and not its invalid ones", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [
        { id: "c1", name: "read", args: '{"path":"a"}', index: 0, type: "tool_call_chunk" },
        { id: "c2", name: "read", args: "{bad", index: 1, type: "tool_call_chunk" },
      ],
    });
    expect(assistantCalls(chunk)).toEqual([{ id: "c1", name: "read", args: { path: "a" }, source: "tool_calls" }]);
  });

  it("reads the Responses API's function_call output items", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [{ id: "call_1", name: "read", args: {}, type: "tool_call" }],
      response_metadata: {
        output: [
          { type: "function_call", id: "fc_1", call_id: "call_1", name: "read", arguments: "{}" },
          { type: "function_call", id: "fc_2", call_id: "call_2", name: "bash", arguments: '{"command":"ls"}' },
        ],
      },
    });
    expect(assistantCalls(message).map((call) => [call.id, call.source, call.args])).toEqual([
      ["call_1", "tool_calls", {}],
      ["call_2", "response_output", { command: "ls" }],
    ]);
  });

  it("reads a v1 message's tool_call blocks (the constructor lists them in tool_calls too)", () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "reading" },
        { type: "tool_call", id: "c1", name: "read", args: {} },
      ],
      response_metadata: { output_version: "v1" },
    });
    expect(assistantCalls(message)).toEqual([{ id: "c1", name: "read", args: {}, source: "tool_calls" }]);
  });

  it("marks a call without an id and returns nothing for other messages", () => {
    const message = new AIMessage({ content: "", tool_calls: [{ name: "read", args: {}, type: "tool_call" }] });
    expect(assistantCalls(message)).toEqual([{ id: undefined, name: "read", args: {}, source: "tool_calls" }]);
    expect(assistantCalls(new HumanMessage("hi"))).toEqual([]);
    expect(assistantCalls(new ToolMessage({ content: "x", tool_call_id: "c1" }))).toEqual([]);
  });
});

describe("isEmptyAssistantMessage", () => {
  it("is true with neither calls nor content a provider accepts", () => {
    expect(isEmptyAssistantMessage(new AIMessage({ content: "" }))).toBe(true);
    expect(isEmptyAssistantMessage(new AIMessage({ content: "  \n" }))).toBe(true);
    expect(isEmptyAssistantMessage(new AIMessage({ content: [] }))).toBe(true);
    expect(isEmptyAssistantMessage(new AIMessage({ content: [{ type: "text", text: " " }, { type: "thinking", thinking: "hm", signature: "s" }] }))).toBe(true);
  });

  it("is false with calls, text or another part, and for other messages", () => {
    expect(isEmptyAssistantMessage(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }] }))).toBe(false);
    expect(isEmptyAssistantMessage(new AIMessage({ content: [{ type: "tool_use", id: "c1", name: "read", input: {} }], tool_calls: [] }))).toBe(false);
    expect(isEmptyAssistantMessage(new AIMessage({ content: "ok" }))).toBe(false);
    expect(isEmptyAssistantMessage(new AIMessage({ content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }))).toBe(false);
    expect(isEmptyAssistantMessage(new HumanMessage(""))).toBe(false);
  });

  it("does not count call blocks as content", () => {
    expect(hasSendableContent([{ type: "tool_use", id: "c1", name: "read", input: {} }])).toBe(false);
    expect(hasSendableContent([{ type: "input_json_delta", input: "{}", index: 0 }, { type: "text", text: "  " }])).toBe(false);
    expect(hasSendableContent([{ type: "text", text: "ok" }])).toBe(true);
  });
});

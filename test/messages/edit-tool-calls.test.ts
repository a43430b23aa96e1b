import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { editToolCalls, isEmptyAssistantMessage } from "../../src/index.js";
import { anthropicWire, openAIWire } from "./wire.js";

const raw = (id: string, name = "read", args = "{}") => ({ id, type: "function" as const, function: { name, arguments: args } });
const call = (id: string, args: Record<string, unknown> = {}, name = "read") => ({ id, name, args, type: "tool_call" as const });
const serialized = (message: BaseMessage) => JSON.stringify(message.toJSON());

describe("editToolCalls", () => {
  it("removes a ChatOpenAI message's last call from tool_calls and deletes the raw calls' key", () => {
    const message = new AIMessage({ id: "a1", content: "reading", tool_calls: [call("c1")], additional_kwargs: { tool_calls: [raw("c1")], refusal: null } });
    const before = serialized(message);
    const edited = editToolCalls(message, { keepPositions: new Set() });
    expect(edited.tool_calls).toEqual([]);
    expect(edited.additional_kwargs).toEqual({ refusal: null });
    expect(openAIWire([edited])).toEqual([{ role: "assistant", content: "reading" }]);
    expect(isEmptyAssistantMessage(edited)).toBe(false);
    expect(serialized(message)).toBe(before);
  });

  it("removes one of two calls from tool_calls, the raw calls and invalid_tool_calls alike", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [call("c1"), call("c2")],
      invalid_tool_calls: [{ id: "c3", name: "read", args: "{bad", error: "Malformed args.", type: "invalid_tool_call" }],
      additional_kwargs: { tool_calls: [raw("c1"), raw("c2"), raw("c3", "read", "{bad")] },
    });
    const edited = editToolCalls(message, { keepPositions: new Set([1]) });
    expect(edited.tool_calls?.map((kept) => kept.id)).toEqual(["c2"]);
    expect(edited.additional_kwargs.tool_calls).toEqual([raw("c2"), raw("c3", "read", "{bad")]);
    expect(edited.invalid_tool_calls?.map((invalid) => invalid.id)).toEqual(["c3"]);
  });

  it("drops an invalid raw call with the last valid one: ChatOpenAI would send it once tool_calls is empty", () => {
    const message = new AIMessage({
      content: "text",
      tool_calls: [call("c1")],
      additional_kwargs: { tool_calls: [raw("c1"), raw("c3", "read", "{bad")] },
    });
    const edited = editToolCalls(message, { keepPositions: new Set() });
    expect("tool_calls" in edited.additional_kwargs).toBe(false);
    expect(openAIWire([edited])).toEqual([{ role: "assistant", content: "text" }]);
  });

  it("removes a ChatAnthropic tool_use block with its call, and empties content left with nothing", () => {
    const message = new AIMessage({ content: [{ type: "tool_use", id: "c1", name: "read", input: {} }], tool_calls: [call("c1")] });
    const edited = editToolCalls(message, { keepPositions: new Set() });
    expect(edited.content).toBe("");
    expect(edited.tool_calls).toEqual([]);
    expect(isEmptyAssistantMessage(edited)).toBe(true);
    expect(message.content).toEqual([{ type: "tool_use", id: "c1", name: "read", input: {} }]);
  });

  it("removes a streamed ChatAnthropic call's tool_use block, its input deltas and its chunk", () => {
    const chunk = new AIMessageChunk({
      content: [
        { type: "text", text: "reading", index: 0 },
        { type: "tool_use", id: "c1", name: "read", input: "", index: 1 },
        { type: "input_json_delta", input: '{"path":"a"}', index: 1 },
        { type: "tool_use", id: "c2", name: "read", input: "", index: 2 },
        { type: "input_json_delta", input: '{"path":"b"}', index: 2 },
      ],
      tool_call_chunks: [
        { id: "c1", name: "read", args: '{"path":"a"}', index: 1, type: "tool_call_chunk" },
        { id: "c2", name: "read", args: '{"path":"b"}', index: 2, type: "tool_call_chunk" },
      ],
    });
    const edited = editToolCalls(chunk, { keepPositions: new Set([1]) });
    expect(edited.content).toEqual([
      { type: "text", text: "reading", index: 0 },
      { type: "tool_use", id: "c2", name: "read", input: "", index: 2 },
      { type: "input_json_delta", input: '{"path":"b"}', index: 2 },
    ]);
    expect(edited.tool_calls).toEqual([call("c2", { path: "b" })]);
    expect(anthropicWire([edited]).messages).toEqual([
      { role: "assistant", content: [{ type: "text", text: "reading" }, { type: "tool_use", id: "c2", name: "read", input: { path: "b" } }] },
    ]);
  });

  it("renames only the call at the position given when two calls share an id", () => {
    const message = new AIMessage({
      content: [
        { type: "tool_use", id: "c1", name: "read", input: { path: "a" } },
        { type: "tool_use", id: "c1", name: "read", input: { path: "b" } },
      ],
      tool_calls: [call("c1", { path: "a" }), call("c1", { path: "b" })],
      additional_kwargs: { tool_calls: [raw("c1", "read", '{"path":"a"}'), raw("c1", "read", '{"path":"b"}')] },
    });
    const edited = editToolCalls(message, { renames: new Map([[1, "c1__dup1"]]) });
    expect(edited.tool_calls?.map((kept) => [kept.id, kept.args])).toEqual([
      ["c1", { path: "a" }],
      ["c1__dup1", { path: "b" }],
    ]);
    expect((edited.content as { id: string }[]).map((block) => block.id)).toEqual(["c1", "c1__dup1"]);
    expect(edited.additional_kwargs.tool_calls?.map((entry) => entry.id)).toEqual(["c1", "c1__dup1"]);
  });

  it("empties the arguments of a call in every form", () => {
    const message = new AIMessage({
      content: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a" } }],
      tool_calls: [call("c1", { path: "a" })],
      additional_kwargs: { tool_calls: [raw("c1", "read", '{"path":"a"}')] },
    });
    const edited = editToolCalls(message, { clearArgsPositions: new Set([0]) });
    expect(edited.tool_calls).toEqual([call("c1")]);
    expect(edited.content).toEqual([{ type: "tool_use", id: "c1", name: "read", input: {} }]);
    expect(edited.additional_kwargs.tool_calls).toEqual([raw("c1")]);
  });

  it("lists a kept call that only a tool_use block held, so ChatOpenAI sends it too", () => {
    const message = new AIMessage({ content: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a" } }], tool_calls: [] });
    const edited = editToolCalls(message, {});
    expect(edited.tool_calls).toEqual([call("c1", { path: "a" })]);
    expect(openAIWire([edited])).toEqual([
      { role: "assistant", content: [], tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }] },
    ]);
  });

  it("keeps a v1 message's tool_call blocks in step, so its constructor does not bring a removed call back", () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "reading" },
        { type: "tool_call", id: "c1", name: "read", args: {} },
        { type: "tool_call", id: "c2", name: "read", args: {} },
      ],
      response_metadata: { output_version: "v1" },
    });
    const edited = editToolCalls(message, { keepPositions: new Set([1]) });
    expect(edited.tool_calls?.map((kept) => kept.id)).toEqual(["c2"]);
    expect(edited.content).toEqual([
      { type: "text", text: "reading" },
      { type: "tool_call", id: "c2", name: "read", args: {} },
    ]);
  });

  it("edits the Responses API's output items and call id map", () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [call("call_1"), call("call_2")],
      additional_kwargs: { __openai_function_call_ids__: { call_1: "fc_1", call_2: "fc_2" } },
      response_metadata: {
        output: [
          { type: "reasoning", id: "rs_1", summary: [] },
          { type: "function_call", id: "fc_1", call_id: "call_1", name: "read", arguments: "{}" },
          { type: "function_call", id: "fc_2", call_id: "call_2", name: "read", arguments: "{}" },
        ],
      },
    });
    const edited = editToolCalls(message, { keepPositions: new Set([1]), renames: new Map([[1, "call_2__dup1"]]) });
    expect(edited.response_metadata["output"]).toEqual([
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", id: "fc_2", call_id: "call_2__dup1", name: "read", arguments: "{}" },
    ]);
    expect(edited.additional_kwargs["__openai_function_call_ids__"]).toEqual({ call_2__dup1: "fc_2" });
  });
});

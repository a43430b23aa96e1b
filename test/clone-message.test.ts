import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { cloneMessage } from "../src/index.js";

describe("cloneMessage", () => {
  it("keeps every field of a tool message, including status and artifact", () => {
    const artifact = { rows: [1, 2] };
    const original = new ToolMessage({
      id: "t1",
      content: "out",
      tool_call_id: "c1",
      name: "query",
      status: "error",
      artifact,
      additional_kwargs: { a: 1 },
      response_metadata: { b: 2 },
    });
    const copy = cloneMessage(original);
    expect(copy).not.toBe(original);
    expect(copy).toBeInstanceOf(ToolMessage);
    expect({ id: copy.id, content: copy.content, tool_call_id: copy.tool_call_id, name: copy.name, status: copy.status }).toEqual({
      id: "t1",
      content: "out",
      tool_call_id: "c1",
      name: "query",
      status: "error",
    });
    expect(copy.artifact).toBe(artifact);
    expect(copy.additional_kwargs).toEqual({ a: 1 });
    expect(copy.response_metadata).toEqual({ b: 2 });
  });

  it("keeps usage metadata and tool calls of an assistant message without sharing them", () => {
    const original = new AIMessage({
      id: "a1",
      content: "hi",
      tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
    });
    const copy = cloneMessage(original);
    expect(copy.usage_metadata).toEqual({ input_tokens: 10, output_tokens: 2, total_tokens: 12 });
    expect(copy.tool_calls).toEqual(original.tool_calls);
    expect(copy.tool_calls).not.toBe(original.tool_calls);
  });

  it("serializes the overridden content, as a checkpointer would store it", () => {
    const copy = cloneMessage(new ToolMessage({ id: "t1", content: "long output", tool_call_id: "c1" }), { content: "[hidden]" });
    expect((copy.toJSON() as unknown as { kwargs: { content: string; id: string } }).kwargs).toMatchObject({ content: "[hidden]", id: "t1" });
  });

  it("carries an id assigned after construction (as LangGraph's reducer does)", () => {
    const original = new ToolMessage({ content: "out", tool_call_id: "c1" });
    original.id = "assigned";
    expect(cloneMessage(original).id).toBe("assigned");
  });
});

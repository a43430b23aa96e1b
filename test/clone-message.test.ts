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
  it("copies nested plain data deeply, and data that is not plain (a Date, a Map, a cycle) as structuredClone does", () => {
    const nested = { calls: [{ id: "c1", function: { name: "read", arguments: '{"path":"a"}' } }], flags: { cached: true, tries: 2, none: null } };
    const when = new Date(Date.UTC(2026, 0, 1));
    const cycle: Record<string, unknown> = { name: "loop" };
    cycle["self"] = cycle;
    const original = new AIMessage({ id: "a1", content: "x", additional_kwargs: nested, response_metadata: { when, seen: new Map([["k", 1]]), cycle } });
    const copy = cloneMessage(original);
    expect(copy.additional_kwargs).toEqual(nested);
    expect(copy.additional_kwargs).not.toBe(nested);
    expect((copy.additional_kwargs as typeof nested).calls[0]).not.toBe(nested.calls[0]);
    expect((copy.additional_kwargs as typeof nested).calls[0]!.function).not.toBe(nested.calls[0]!.function);
    const metadata = copy.response_metadata as { when: Date; seen: Map<string, number>; cycle: Record<string, unknown> };
    expect(metadata.when).toBeInstanceOf(Date);
    expect(metadata.when.getTime()).toBe(when.getTime());
    expect(metadata.when).not.toBe(when);
    expect(metadata.seen.get("k")).toBe(1);
    expect(metadata.cycle["self"]).toBe(metadata.cycle);
    expect(metadata.cycle).not.toBe(cycle);
  });
});

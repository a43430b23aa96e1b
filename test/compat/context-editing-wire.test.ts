/**
 * What `contextEditingMiddleware` gives the model, converted by ChatOpenAI's and ChatAnthropic's own
 * converters, on histories shaped as each provider's model returns them (parallel calls, orphan and
 * separated results): a payload the provider accepts, with the cleared results and emptied
 * arguments as LangChain's `ClearToolUsesEdit` would send them.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { ClearToolUsesEdit, contextEditingMiddleware } from "../../src/middleware/index.js";
import { anthropicRejections, anthropicWire, openAIRejections, openAIWire } from "../messages/wire.js";
import { user } from "../support/builders.js";

const call = (id: string) => ({ id, name: "lookup", args: { query: `q ${id}` }, type: "tool_call" as const });
const result = (id: string) => new ToolMessage({ id: `t-${id}`, tool_call_id: id, name: "lookup", content: `result of ${id} `.repeat(40) });

/** An assistant message as ChatAnthropic returns it: `tool_use` blocks beside `tool_calls`. */
const anthropicAssistant = (id: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: [{ type: "text", text: `calling ${callIds.join(", ")}` }, ...callIds.map((callId) => ({ type: "tool_use", id: callId, name: "lookup", input: { query: `q ${callId}` } }))],
    tool_calls: callIds.map(call),
  });

/** An assistant message as ChatOpenAI returns it: the raw calls in `additional_kwargs.tool_calls` too. */
const openAIAssistant = (id: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: "",
    tool_calls: callIds.map(call),
    additional_kwargs: { tool_calls: callIds.map((callId) => ({ id: callId, type: "function", function: { name: "lookup", arguments: JSON.stringify({ query: `q ${callId}` }) } })) },
  });

/** Two parallel calls, a single call, an orphan result, then a call answered after a user message. */
function history(assistantOf: (id: string, callIds: string[]) => AIMessage): BaseMessage[] {
  return [
    user("h1"),
    assistantOf("a1", ["c1", "c2"]),
    result("c1"),
    result("c2"),
    user("h2"),
    new ToolMessage({ id: "orphan", tool_call_id: "gone", content: "orphan result" }),
    assistantOf("a2", ["c3"]),
    result("c3"),
    assistantOf("a3", ["c4"]),
    user("h3"),
    result("c4"),
  ];
}

async function modelInput(messages: BaseMessage[]): Promise<BaseMessage[]> {
  const model = fakeModel().respond(new AIMessage({ id: "final", content: "done" }));
  const edit = new ClearToolUsesEdit({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true });
  const agent = createAgent({ model, middleware: [contextEditingMiddleware({ edits: [edit] })] });
  await agent.invoke({ messages });
  return model.calls[0]!.messages as BaseMessage[];
}

describe("contextEditingMiddleware's edited history on the wire", () => {
  it("ChatOpenAI: accepted; cleared results read [cleared], their calls' arguments {}", async () => {
    const wire = openAIWire(await modelInput(history(openAIAssistant)));
    expect(openAIRejections(wire)).toEqual([]);
    expect(wire.filter((message) => message.role === "tool").map((message) => [message["tool_call_id"], message["content"]])).toEqual([
      ["c1", "[cleared]"],
      ["c2", "[cleared]"],
      ["c3", "[cleared]"],
      ["c4", "result of c4 ".repeat(40)],
    ]);
    const argumentsOf = wire.flatMap((message) => ((message["tool_calls"] as { id: string; function: { arguments: string } }[] | undefined) ?? []).map((each) => [each.id, each.function.arguments]));
    expect(argumentsOf).toEqual([
      ["c1", "{}"],
      ["c2", "{}"],
      ["c3", "{}"],
      ["c4", JSON.stringify({ query: "q c4" })],
    ]);
  });

  it("ChatAnthropic: accepted; cleared results read [cleared], their tool_use inputs {}", async () => {
    const payload = anthropicWire(await modelInput(history(anthropicAssistant)));
    expect(anthropicRejections(payload)).toEqual([]);
    const blocks = payload.messages.flatMap((message) => (Array.isArray(message["content"]) ? (message["content"] as Record<string, unknown>[]) : []));
    expect(blocks.filter((block) => block["type"] === "tool_result").map((block) => [block["tool_use_id"], block["content"]])).toEqual([
      ["c1", "[cleared]"],
      ["c2", "[cleared]"],
      ["c3", "[cleared]"],
      ["c4", "result of c4 ".repeat(40)],
    ]);
    expect(blocks.filter((block) => block["type"] === "tool_use").map((block) => [block["id"], block["input"]])).toEqual([
      ["c1", {}],
      ["c2", {}],
      ["c3", {}],
      ["c4", { query: "q c4" }],
    ]);
  });
});

/**
 * The validator checks what really goes out: real `ChatOpenAI` and `ChatAnthropic` instances send
 * a few histories through a capturing `fetch`, and the captured request bodies equal the
 * validator's conversion of the same histories.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { DEFAULT_OPENAI_MODEL, convertForAnthropic, openaiWire } from "../support/wire/index.js";
import { ANTHROPIC_REPLY, OPENAI_REPLY, capturingFetch } from "../support/recording-models.js";

const call = (id: string, args: Record<string, unknown>) => ({ id, name: "bash", args, type: "tool_call" as const });

/** Histories in the shapes the suites generate. */
const histories: Record<string, () => BaseMessage[]> = {
  "plain tool calls, parallel, answered out of order": () => [
    new SystemMessage("You are terse."),
    new HumanMessage("List and count 😀"),
    new AIMessage({ content: "", tool_calls: [call("c1", { command: "ls" }), call("c2", { command: "wc -l" })] }),
    new ToolMessage({ content: "2", tool_call_id: "c2", name: "bash" }),
    new ToolMessage({ content: "a.txt\nb.txt", tool_call_id: "c1", name: "bash" }),
    new AIMessage("Two files, 𝒜 and b."),
    new HumanMessage("Thanks"),
  ],
  "OpenAI raw additional_kwargs, a streamed chunk, two leading system messages": () => [
    new SystemMessage("One."),
    new SystemMessage("Two."),
    new HumanMessage({ content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] }),
    new AIMessage({
      content: "Running.",
      tool_calls: [call("c1", { command: "ls" })],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
    }),
    new ToolMessage({ content: [{ type: "text", text: "a.txt" }], tool_call_id: "c1" }),
    new AIMessageChunk({ content: "", tool_call_chunks: [{ id: "c2", name: "bash", args: '{"command":"pwd"}', index: 0, type: "tool_call_chunk" }] }),
    new ToolMessage({ content: "/work", tool_call_id: "c2" }),
    new HumanMessage("And now?"),
  ],
  "Anthropic tool_use blocks answered by tool_result blocks": () => [
    new HumanMessage("Run it"),
    new AIMessage({
      content: [{ type: "text", text: "Running." }, { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }],
      tool_calls: [call("toolu_1", { command: "ls" })],
    }),
    new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] }),
    new AIMessage("One file."),
    new HumanMessage("Good"),
  ],
};

describe.each(Object.entries(histories).map(([name, build]) => ({ name, build })))("$name", ({ build }) => {
  it("ChatOpenAI sends exactly the validator's OpenAI params", async () => {
    const { fetch, bodies } = capturingFetch(OPENAI_REPLY);
    const model = new ChatOpenAI({ model: DEFAULT_OPENAI_MODEL, apiKey: "test-key", maxRetries: 0, configuration: { fetch } });
    await model.invoke(build());
    expect(bodies).toHaveLength(1);
    expect((bodies[0] as { messages: unknown }).messages).toEqual(openaiWire(build()).params);
  });

  it("ChatAnthropic sends exactly the validator's Anthropic messages and system", async () => {
    const { fetch, bodies } = capturingFetch(ANTHROPIC_REPLY);
    const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test-key", maxRetries: 0, clientOptions: { fetch } });
    await model.invoke(build());
    expect(bodies).toHaveLength(1);
    const { messages, system } = bodies[0] as { messages: unknown; system?: unknown };
    // The body is JSON: compare with the JSON form of the conversion (undefined fields drop out).
    expect({ messages, system }).toEqual(JSON.parse(JSON.stringify(convertForAnthropic(build()))));
  });
});

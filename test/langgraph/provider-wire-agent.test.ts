/**
 * The end-to-end case: `createAgent` + `compactionMiddleware(selectiveCompact(...))` on
 * histories shaped as ChatAnthropic and ChatOpenAI produce them, where the strategy strips calls (and
 * the history arrives with broken pairing): what the model gets, converted by each provider's own
 * converter, is a payload the provider accepts.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { selectiveCompact } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { anthropicRejections, anthropicWire, openAIRejections, openAIWire } from "../messages/wire.js";
import { wireProblems } from "../support/wire/index.js";
import { assistant, ids, toolResult, user } from "../support/builders.js";
import { lookupTool } from "./support/lookup-tool.js";

const call = (id: string) => ({ id, name: "lookup", args: { query: `q ${id}` }, type: "tool_call" as const });

/** An assistant message as ChatAnthropic returns it: `tool_use` blocks beside `tool_calls`. */
const anthropicAssistant = (id: string, text: string | undefined, callIds: string[]) =>
  new AIMessage({
    id,
    content: [
      ...(text === undefined ? [] : [{ type: "text", text }]),
      ...callIds.map((callId) => ({ type: "tool_use", id: callId, name: "lookup", input: { query: `q ${callId}` } })),
    ],
    tool_calls: callIds.map(call),
  });

/** An assistant message as ChatOpenAI returns it: the raw calls in `additional_kwargs.tool_calls` too. */
const openAIAssistant = (id: string, text: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: text,
    tool_calls: callIds.map(call),
    additional_kwargs: {
      tool_calls: callIds.map((callId) => ({ id: callId, type: "function", function: { name: "lookup", arguments: JSON.stringify({ query: `q ${callId}` }) } })),
    },
  });

/** Drops every tool result (the target is never reached): each call loses its result and is stripped. */
const dropToolResults = () => selectiveCompact({ target: 1, rules: [{ kind: "tool_result", action: "drop", priority: 1 }] });

async function modelInput(messages: BaseMessage[]): Promise<BaseMessage[]> {
  const model = fakeModel().respond(assistant("final", "done"));
  const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(dropToolResults())] });
  await agent.invoke({ messages });
  return model.calls[0]!.messages as BaseMessage[];
}

describe("createAgent + compactionMiddleware(selectiveCompact) on provider-shaped histories", () => {
  it("ChatAnthropic shape: stripped calls leave no empty content and no tool_use without its result", async () => {
    const received = await modelInput([
      user("h1"),
      anthropicAssistant("a1", undefined, ["c1"]),
      toolResult("t1", "c1"),
      anthropicAssistant("a2", "checking", ["c2"]),
      toolResult("t2", "c2"),
      user("h2"),
    ]);
    const payload = anthropicWire(received);
    expect({ ids: ids(received), messages: payload.messages, rejections: anthropicRejections(payload), strict: wireProblems(received) }).toEqual({
      ids: ["h1", "a2", "h2"],
      messages: [
        { role: "user", content: "user h1" },
        { role: "assistant", content: [{ type: "text", text: "checking" }] },
        { role: "user", content: "user h2" },
      ],
      rejections: [],
      strict: [],
    });
  });

  it("ChatAnthropic shape with broken pairing (orphan result, call never answered): repaired, then compacted", async () => {
    const received = await modelInput([
      user("h1"),
      toolResult("orphan", "c9"),
      anthropicAssistant("a1", "checking", ["c1"]),
      toolResult("t1", "c1"),
      anthropicAssistant("a2", "one more", ["c2"]),
      user("h2"),
    ]);
    const payload = anthropicWire(received);
    expect({ ids: ids(received), messages: payload.messages, rejections: anthropicRejections(payload), strict: wireProblems(received) }).toEqual({
      ids: ["h1", "a1", "a2", "h2"],
      messages: [
        { role: "user", content: "user h1" },
        { role: "assistant", content: [{ type: "text", text: "checking" }] },
        { role: "assistant", content: [{ type: "text", text: "one more" }] },
        { role: "user", content: "user h2" },
      ],
      rejections: [],
      strict: [],
    });
  });

  it("ChatOpenAI shape (raw additional_kwargs.tool_calls): no empty tool_calls array, no call without its result", async () => {
    const received = await modelInput([
      user("h1"),
      openAIAssistant("a1", "", ["c1"]),
      toolResult("t1", "c1"),
      openAIAssistant("a2", "checking", ["c2"]),
      toolResult("t2", "c2"),
      toolResult("orphan", "c9"),
      user("h2"),
    ]);
    const wire = openAIWire(received);
    expect({ ids: ids(received), wire, rejections: openAIRejections(wire), strict: wireProblems(received) }).toEqual({
      ids: ["h1", "a2", "h2"],
      wire: [
        { role: "user", content: "user h1" },
        { role: "assistant", content: "checking" },
        { role: "user", content: "user h2" },
      ],
      rejections: [],
      strict: [],
    });
  });
});

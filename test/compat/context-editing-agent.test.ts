/**
 * `contextEditingMiddleware` in a real `createAgent` with tools, a checkpointer and a store: what
 * it adds to LangChain's (the edit persisted with the answer, originals archived and restorable, the
 * cached prefix kept between firings, failures that change nothing).
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, type ContextEdit } from "langchain";
import { describe, expect, it } from "vitest";
import { restoreHistory } from "../../src/index.js";
import { ClearToolUsesEdit, contextEditingMiddleware } from "../../src/middleware/index.js";
import { assistant, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupOutput, lookupTool } from "../langgraph/support/lookup-tool.js";

/** A model that calls `lookup` `steps` times (calls c1..cN, messages a1..aN) and then answers (message "final"). */
function scriptedModel(steps: number) {
  const model = fakeModel();
  for (let n = 1; n <= steps; n++) model.respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
  return model.respond(assistant("final", "done"));
}
const thread = (id: string) => ({ configurable: { thread_id: id } });
const contents = (messages: readonly BaseMessage[]) => messages.map((message) => [message.id, message.content]);
const isCleared = (message: BaseMessage) => (message.response_metadata as { context_editing?: { cleared?: boolean } })?.context_editing?.cleared === true;
const clearedIds = (messages: readonly BaseMessage[]) => messages.filter(isCleared).map((message) => message.id);
/** Each step is ~180 tokens (approx): the history first reaches 500 tokens at the fourth model call. */
const clearing = () => new ClearToolUsesEdit({ trigger: { tokens: 500 }, keep: { messages: 1 } });
type Log = { status: string; strategy: string; replacedIds: string[]; reason?: string }[];

describe("contextEditingMiddleware in createAgent", () => {
  it("persists the cleared results with the answer, logs the edit, and restoreHistory gives the originals back", async () => {
    const model = scriptedModel(4);
    const store = new InMemoryStore();
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [contextEditingMiddleware({ edits: [clearing()] })], checkpointer: new MemorySaver(), store });
    await agent.invoke({ messages: [user("h1")] }, thread("t1"));
    const { values } = await agent.graph.getState(thread("t1"));
    expect(clearedIds(values.messages)).toEqual(["t-c1", "t-c2"]);
    expect(values.messages.map((message: BaseMessage) => message.id)).toEqual(["h1", "a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "a4", "t-c4", "final"]);
    expect((values.compactionLog as Log).map((record) => [record.strategy, record.status, record.replacedIds])).toEqual([["contextEditing", "compacted", ["t-c1", "t-c2"]]]);
    const restored = await restoreHistory(values, { store, threadId: "t1" });
    expect(contents(restored)).toEqual([
      ["h1", "user h1"],
      ["a1", "step 1"],
      ["t-c1", lookupOutput("c1")],
      ["a2", "step 2"],
      ["t-c2", lookupOutput("c2")],
      ["a3", "step 3"],
      ["t-c3", lookupOutput("c3")],
      ["a4", "step 4"],
      ["t-c4", lookupOutput("c4")],
      ["final", "done"],
    ]);
  });

  it("keeps the model's prompt a growing prefix between firings: only the firing call changes earlier messages", async () => {
    const model = scriptedModel(6);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [contextEditingMiddleware({ edits: [clearing()] })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t2"));
    const sent = model.calls.map((call) => JSON.stringify(contents(call.messages as BaseMessage[])));
    const prefixBroken = sent.slice(1).map((prompt, call) => !prompt.startsWith(sent[call]!.slice(0, -1)));
    // Calls 1..7: the fourth fires (t-c1, t-c2), the sixth again (t-c3, t-c4); the others only append.
    expect(prefixBroken).toEqual([false, false, true, false, true, false]);
    expect(clearedIds(model.calls[6]!.messages as BaseMessage[])).toEqual(["t-c1", "t-c2", "t-c3", "t-c4"]);
  });

  it("an edit that throws changes nothing: the model gets the history and the log says why", async () => {
    const failing: ContextEdit = {
      apply: () => {
        throw new Error("edit down");
      },
    };
    const model = scriptedModel(0);
    const agent = createAgent({ model, middleware: [contextEditingMiddleware({ edits: [failing] })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1"), assistant("a1", "hello"), user("h2")] }, thread("t3"));
    expect(contents(model.calls[0]!.messages as BaseMessage[])).toEqual([
      ["h1", "user h1"],
      ["a1", "hello"],
      ["h2", "user h2"],
    ]);
    const { values } = await agent.graph.getState(thread("t3"));
    expect((values.compactionLog as Log).map((record) => [record.status, record.reason])).toEqual([["failed", "Error: edit down"]]);
    const throwing = createAgent({ model: scriptedModel(0), middleware: [contextEditingMiddleware({ edits: [failing], onError: "throw" })] });
    expect(String(await caught(() => throwing.invoke({ messages: [user("h1")] })))).toContain("edit down");
  });

  it("an edit whose result a provider would reject (a call's message removed, its result left) changes nothing", async () => {
    const dropCalls: ContextEdit = {
      apply: ({ messages }) => {
        const position = messages.findIndex((message) => AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0);
        if (position >= 0) messages.splice(position, 1);
      },
    };
    const model = scriptedModel(0);
    const agent = createAgent({ model, middleware: [contextEditingMiddleware({ edits: [dropCalls] })], checkpointer: new MemorySaver() });
    const history = [user("h1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1"), user("h2")];
    await agent.invoke({ messages: history }, thread("t4"));
    expect((model.calls[0]!.messages as BaseMessage[]).map((message) => message.id)).toEqual(["h1", "a1", "t1", "h2"]);
    const { values } = await agent.graph.getState(thread("t4"));
    expect((values.compactionLog as Log).map((record) => record.status)).toEqual(["failed"]);
    expect((values.compactionLog as Log)[0]!.reason).toBe(
      "Error: ContextEdit left a history a provider rejects (message 1 is a tool result for `c1`, but no earlier message calls it); the history is unchanged",
    );
  });

  it('tokenCountMethod "model" with a model that cannot count: a failed record, the history unchanged', async () => {
    const model = scriptedModel(0);
    const agent = createAgent({ model, middleware: [contextEditingMiddleware({ tokenCountMethod: "model" })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t5"));
    const { values } = await agent.graph.getState(thread("t5"));
    expect((values.compactionLog as Log).map((record) => [record.status, record.reason])).toEqual([["failed", 'Error: Model "FakeBuiltModel" does not support token counting']]);
    expect(values.messages.map((message: BaseMessage) => message.id)).toEqual(["h1", "final"]);
  });

  it("after a middleware that gives the model other messages than the state's, the edit is written to the state and applied to those by id", async () => {
    const copying = createMiddleware({ name: "Copying", wrapModelCall: (request, handler) => handler({ ...request, messages: [...request.messages] }) });
    const model = scriptedModel(4);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [copying, contextEditingMiddleware({ edits: [clearing()] })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t6"));
    expect(clearedIds(model.calls[3]!.messages as BaseMessage[])).toEqual(["t-c1", "t-c2"]);
    const { values } = await agent.graph.getState(thread("t6"));
    expect(clearedIds(values.messages)).toEqual(["t-c1", "t-c2"]);
    expect((values.compactionLog as Log).map((record) => record.replacedIds)).toEqual([["t-c1", "t-c2"]]);
  });

  it("a result separated from its call is put back after it for the model, and the answer stays last", async () => {
    const model = scriptedModel(0);
    const agent = createAgent({ model, middleware: [contextEditingMiddleware()], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), user("h2"), toolResult("t1", "c1")] }, thread("t7"));
    const { values } = await agent.graph.getState(thread("t7"));
    // The model gets the result after its call; the state keeps each message, under its id, where it was.
    expect((model.calls[0]!.messages as BaseMessage[]).map((message) => `${message.type}:${message.id}`)).toEqual(["human:h1", "ai:a1", "tool:t1", "human:h2"]);
    expect(values.messages.map((message: BaseMessage) => `${message.type}:${message.id}`)).toEqual(["human:h1", "ai:a1", "human:h2", "tool:t1", "ai:final"]);
    // A move alone is written nowhere, so nothing is logged.
    expect((values.compactionLog as Log).map((record) => record.status)).toEqual([]);
  });
});

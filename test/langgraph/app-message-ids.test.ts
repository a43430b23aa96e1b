/**
 * The app's ids are the app's: what the app writes under an id after a compaction (an edit, a
 * resend, a redaction, a RemoveMessage) wins in the state, in what the model gets and in
 * restoreHistory, each checked against the same agent without compaction.
 */
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf, fullSummary, restoreHistory, slidingWindow, toolResultHiding, type CompactionRecord } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { EVERY_RUN } from "../support/hiding.js";
import { lookupTool } from "./support/lookup-tool.js";

type Middleware = ReturnType<typeof compactionMiddleware>;
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });
const call = (id: string, text = "", calls: string[] = []) =>
  new AIMessage({ id, content: text, tool_calls: calls.map((callId) => ({ id: callId, name: "lookup", args: { query: callId }, type: "tool_call" as const })) });
/** What a history says, message by message: kind, id and text. */
const shown = (messages: readonly BaseMessage[]) => messages.map((message) => [message.type, message.id, typeof message.content === "string" ? message.content : JSON.stringify(message.content)]);
const big = (callId: string) => `${callId} says ${"lorem ipsum dolor sit amet ".repeat(250)}`;

/** A model that makes `steps[turn - 1]` lookups in each turn (calls and messages named after the turn), then answers. */
function turnsModel(steps: readonly number[]) {
  const model = fakeModel();
  for (let turn = 1; turn <= steps.length; turn++) {
    for (let n = 1; n <= steps[turn - 1]!; n++) model.respond(call(`a${turn}-${n}`, `step ${n}`, [`c${turn}-${n}`]));
    model.respond(call(`final-${turn}`, `answer ${turn}`));
  }
  return model;
}

/** The agent with `middleware`, and the same agent without it, each on its own thread and checkpointer. */
function pair(middleware: Middleware[], steps: readonly number[], content: (callId: string) => string = big) {
  const contents = new Proxy({}, { get: (_target, callId: string) => content(callId) });
  const make = (list: Middleware[]) => {
    const model = turnsModel(steps);
    const store = new InMemoryStore();
    const agent = createAgent({ model, tools: [lookupTool(contents)], middleware: list, checkpointer: new MemorySaver(), store });
    return { agent, model, store };
  };
  return { ours: make(middleware), reference: make([]) };
}

type Agent = ReturnType<typeof pair>["ours"];
const valuesOf = async ({ agent }: Agent) => (await agent.graph.getState(thread("t"))).values as { messages: BaseMessage[]; compactionLog: CompactionRecord[] };
const restoredOf = async (side: Agent) => restoreHistory(await valuesOf(side), { store: side.store, threadId: "t" });

describe("an id the app writes after a compaction is the app's", () => {
  it("an edit (resend) of the user's first message after a summary: the summary stays, the model gets both, restoreHistory has the edit in place", async () => {
    const summarizer = fakeModel().respond(new AIMessage("<summary>S1: looked up c1-1..c1-3</summary>")).respond(new AIMessage("<summary>S2</summary>"));
    const { ours, reference } = pair([compactionMiddleware(fullSummary({ model: summarizer, keepRecent: 2, trigger: { tokens: 3000 } }))], [4, 0]);
    for (const side of [ours, reference]) {
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "look up the numbers" })] }, thread("t"));
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "look up the numbers, in hex" })] }, thread("t"));
    }
    const values = await valuesOf(ours);
    const summaries = values.messages.filter((message) => compactionMarkerOf(message)?.summary);
    const lastCall = ours.model.calls.at(-1)!.messages as BaseMessage[];
    expect({
      summaries: summaries.length,
      userInState: values.messages.filter((message) => message.id === "user-1").map((message) => message.content),
      modelGotSummary: lastCall.some((message) => compactionMarkerOf(message)?.summary === true),
      modelGotEdit: lastCall.filter((message) => message.id === "user-1").map((message) => message.content),
    }).toEqual({ summaries: 1, userInState: ["look up the numbers, in hex"], modelGotSummary: true, modelGotEdit: ["look up the numbers, in hex"] });
    // The summary took a model-written message's id, not the user's.
    expect(values.compactionLog.filter((record) => record.status === "summarized").map((record) => record.summaryId)).not.toContain("user-1");
    expect(shown(await restoredOf(ours))).toEqual(shown((await valuesOf(reference)).messages));
  });

  it("a redaction of a hidden tool result through updateState: restoreHistory returns the redaction, never the secret", async () => {
    const secret = (callId: string) => `${callId}: the password is hunter2 `.repeat(40);
    const { ours, reference } = pair([compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))], [4], secret);
    const redaction = new ToolMessage({ id: "t-c1-1", tool_call_id: "c1-1", name: "lookup", content: "[REDACTED: contained a secret]" });
    for (const side of [ours, reference]) {
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "look it up" })] }, thread("t"));
      await side.agent.graph.updateState(thread("t"), { messages: [redaction] });
    }
    const values = await valuesOf(ours);
    expect(values.compactionLog.flatMap((record) => record.replacedIds)).toContain("t-c1-1");
    const restored = await restoredOf(ours);
    expect(shown(restored)).toEqual(shown((await valuesOf(reference)).messages));
    expect(restored.find((message) => message.id === "t-c1-1")!.content).toBe("[REDACTED: contained a secret]");
  });

  it("a redaction of a hidden result that a later summary covers: restoreHistory still returns the redaction", async () => {
    const secret = (callId: string) => `${callId}: the password is hunter2 `.repeat(40);
    const summarizer = fakeModel().respond(new AIMessage("<summary>S1</summary>")).respond(new AIMessage("<summary>S2</summary>"));
    const { ours, reference } = pair(
      [
        compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 })),
        compactionMiddleware(fullSummary({ model: summarizer, keepRecent: 2, trigger: { messages: 14 } }), { name: "Summary" }),
      ],
      [4, 4],
      secret,
    );
    const redaction = new ToolMessage({ id: "t-c1-1", tool_call_id: "c1-1", name: "lookup", content: "[REDACTED: contained a secret]" });
    for (const side of [ours, reference]) {
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "look it up" })] }, thread("t"));
      await side.agent.graph.updateState(thread("t"), { messages: [redaction] });
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-2", content: "and the rest" })] }, thread("t"));
    }
    const values = await valuesOf(ours);
    // The summary took the redacted result out of the state: only its archive holds it now.
    expect(values.messages.some((message) => message.id === "t-c1-1")).toBe(false);
    const restored = await restoredOf(ours);
    expect(shown(restored)).toEqual(shown((await valuesOf(reference)).messages));
    expect(restored.find((message) => message.id === "t-c1-1")!.content).toBe("[REDACTED: contained a secret]");
  });

  it("a RemoveMessage of a hidden result and of a message originals are anchored to: neither comes back, the other originals stay", async () => {
    const { ours, reference } = pair([compactionMiddleware(slidingWindow({ keepTurns: 1 })), compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { name: "Hiding" })], [2, 2]);
    for (const side of [ours, reference]) {
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "first" })] }, thread("t"));
      await side.agent.invoke({ messages: [new HumanMessage({ id: "user-2", content: "second" })] }, thread("t"));
    }
    const log = (await valuesOf(ours)).compactionLog;
    // The window removed the first turn, anchored before user-2; the hiding rewrote t-c2-1.
    expect(log.flatMap((record) => record.removedIds)).toContain("user-1");
    expect(log.flatMap((record) => record.replacedIds)).toContain("t-c2-1");
    for (const side of [ours, reference]) {
      await side.agent.graph.updateState(thread("t"), { messages: [new RemoveMessage({ id: "user-2" }), new RemoveMessage({ id: "t-c2-1" })] });
    }
    expect(shown(await restoredOf(ours))).toEqual(shown((await valuesOf(reference)).messages));
  });

  it("a repair that moves a tool result: every id keeps naming its message, and RemoveMessage of the user's id removes the user's text", async () => {
    const input = [
      new HumanMessage({ id: "user-1", content: "read the file" }),
      call("ai-0", "reading", ["s-1"]),
      new HumanMessage({ id: "user-2", content: "also, please hurry" }),
      new ToolMessage({ id: "tool-0", tool_call_id: "s-1", name: "lookup", content: "file contents" }),
    ];
    const { ours, reference } = pair([compactionMiddleware(toolResultHiding())], [0]);
    for (const side of [ours, reference]) await side.agent.invoke({ messages: input }, thread("t"));
    const kinds = async (side: Agent) => new Map((await valuesOf(side)).messages.map((message) => [message.id, message.type] as const));
    const sent = ours.model.calls[0]!.messages as BaseMessage[];
    expect({
      // The model got the result right after its call, each message under its own id.
      sent: sent.map((message) => `${message.type}:${message.id}`),
      kinds: [...(await kinds(ours))],
    }).toEqual({ sent: ["human:user-1", "ai:ai-0", "tool:tool-0", "human:user-2"], kinds: [...(await kinds(reference))] });
    for (const side of [ours, reference]) await side.agent.graph.updateState(thread("t"), { messages: [new RemoveMessage({ id: "user-2" })] });
    const values = await valuesOf(ours);
    expect(values.messages.map((message) => message.content)).not.toContain("also, please hurry");
    expect(shown(values.messages)).toEqual(shown((await valuesOf(reference)).messages));
    expect(shown(await restoredOf(ours))).toEqual(shown((await valuesOf(reference)).messages));
  });
});

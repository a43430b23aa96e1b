/**
 * A summary never vanishes without a record: when the app writes (edits, resends) or removes the id
 * a summary took, the overwrite is logged, the summary still goes to the model next to the app's
 * message, and restoreHistory gives what the same agent without compaction has.
 */
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { fullSummary, readCompactionLog, restoreHistory, type CompactionRecord } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { lookupTool } from "./support/lookup-tool.js";

const thread = { configurable: { thread_id: "t" }, recursionLimit: 100 };
const call = (id: string, text = "", calls: string[] = []) =>
  new AIMessage({ id, content: text, tool_calls: calls.map((callId) => ({ id: callId, name: "lookup", args: { query: callId }, type: "tool_call" as const })) });
const textOf = (message: BaseMessage) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));
const shown = (messages: readonly BaseMessage[]) => messages.map((message) => [message.type, message.id, textOf(message)]);
const big = (callId: string) => `${callId} says ${"lorem ipsum dolor sit amet ".repeat(250)}`;

/** The agent (with `middleware`) on its own checkpointer and store: `steps[turn - 1]` lookups in each turn, then an answer. */
function agentWith(middleware: ReturnType<typeof compactionMiddleware>[], steps: readonly number[] = [4, 0, 0]) {
  const model = fakeModel();
  steps.forEach((count, index) => {
    for (let n = 1; n <= count; n++) model.respond(call(`a${index + 1}-${n}`, `step ${n}`, [`c${index + 1}-${n}`]));
    model.respond(call(`final-${index + 1}`, `answer ${index + 1}`));
  });
  const contents = new Proxy({}, { get: (_target, callId: string) => big(callId) });
  const store = new InMemoryStore();
  const agent = createAgent({ model, tools: [lookupTool(contents)], middleware, checkpointer: new MemorySaver(), store });
  return { agent, model, store };
}

function summarizer() {
  const model = fakeModel();
  for (let n = 1; n <= 12; n++) model.respond(new AIMessage(`<summary>S${n}: looked up the numbers</summary>`));
  return model;
}

type Side = ReturnType<typeof agentWith>;
const valuesOf = async ({ agent }: Side) => (await agent.graph.getState(thread)).values as { messages: BaseMessage[]; compactionLog: CompactionRecord[] };

describe("an overwrite of a summary's id", () => {
  it("without a write of the app (summaries nested in newer ones), nothing is logged and the channel holds the newest summary only", async () => {
    const ours = agentWith([compactionMiddleware(fullSummary({ model: summarizer(), keepRecent: 2, trigger: { tokens: 3000 } }))], [4, 3, 3]);
    await ours.agent.invoke({ messages: [new HumanMessage({ id: "user-1", content: "look up the numbers" })] }, thread);
    await ours.agent.invoke({ messages: [new HumanMessage({ id: "user-2", content: "and now?" })] }, thread);
    await ours.agent.invoke({ messages: [new HumanMessage({ id: "user-3", content: "and then?" })] }, thread);
    const values = (await ours.agent.graph.getState(thread)).values as { compactionLog: CompactionRecord[]; compactionSummary: { id: string; compactionId: string }[] };
    const summarized = values.compactionLog.filter((record) => record.status === "summarized");
    expect(summarized.length).toBe(4);
    expect(values.compactionLog.filter((record) => record.strategy === "summary-overwrite")).toEqual([]);
    expect(values.compactionSummary.map((summary) => [summary.id, summary.compactionId])).toEqual([[summarized.at(-1)!.summaryId, summarized.at(-1)!.id]]);
  });

  for (const [write, hook] of [["edit", "wrapModelCall"], ["remove", "wrapModelCall"], ["edit", "beforeModel"], ["remove", "beforeModel"]] as const) {
    it(`${write === "edit" ? "an edit (updateState with an AIMessage under its id)" : "a RemoveMessage of it"}, hook ${hook}: logged, the model still gets the summary, restoreHistory is exact`, async () => {
      const ours = agentWith([compactionMiddleware(fullSummary({ model: summarizer(), keepRecent: 2, trigger: { tokens: 3000 } }), { hook })], [4, 0, 4]);
      const reference = agentWith([], [4, 0, 4]);
      const first = [new HumanMessage({ id: "user-1", content: "look up the numbers" })];
      await ours.agent.invoke({ messages: first }, thread);
      await reference.agent.invoke({ messages: first }, thread);
      const summarized = (await valuesOf(ours)).compactionLog.filter((record) => record.status === "summarized");
      expect(summarized.length).toBe(1);
      const summaryId = summarized[0]!.summaryId!;
      const summaryText = textOf((await valuesOf(ours)).messages.find((message) => message.id === summaryId)!);
      expect(summaryText).toContain("S1");

      const edited = new AIMessage({ id: summaryId, content: "the app's edited text" });
      for (const side of [ours, reference]) {
        await side.agent.graph.updateState(thread, { messages: [write === "edit" ? edited : new RemoveMessage({ id: summaryId })] });
        await side.agent.invoke({ messages: [new HumanMessage({ id: "user-2", content: "and now?" })] }, thread);
      }

      const request = ours.model.calls.at(-1)!.messages as BaseMessage[];
      const texts = request.map(textOf);
      expect(texts).toContain(summaryText);
      expect(texts).toContain("and now?");
      // The summary goes back before the app's message (edit), or where it was (remove), under an id of its own.
      const at = texts.indexOf(summaryText);
      if (write === "edit") expect([texts[at + 1], request[at + 1]!.id]).toEqual(["the app's edited text", summaryId]);
      expect(request[at]!.id).not.toBe(summaryId);

      const { compactionLog } = await valuesOf(ours);
      const overwrites = compactionLog.filter((record) => record.strategy === "summary-overwrite");
      expect(overwrites.map((record) => [record.status, record.summaryId, record.reason?.includes(write === "edit" ? "overwritten by a message the app wrote" : "removed by the app")])).toEqual([
        ["repaired", summaryId, true],
      ]);
      // The whole log (the store's) holds it too, in its place in the chain.
      const whole = await readCompactionLog(await valuesOf(ours), { store: ours.store, threadId: "t" });
      expect(whole.filter((record) => record.strategy === "summary-overwrite").map((record) => record.id)).toEqual(overwrites.map((record) => record.id));
      expect(whole.map((record) => record.sequence)).toEqual(whole.map((_record, position) => position));
      // The app's edit stays in the state as the app wrote it.
      const state = (await valuesOf(ours)).messages;
      expect(state.filter((message) => message.id === summaryId).map(textOf)).toEqual(write === "edit" ? ["the app's edited text"] : []);
      // In a step of its own, the summary is written back into the state, under the id the record names.
      const inserted = overwrites[0]!.insertedIds;
      expect(inserted).toEqual(hook === "beforeModel" ? [request[at]!.id] : []);
      expect(state.filter((message) => textOf(message) === summaryText).map((message) => message.id)).toEqual(hook === "beforeModel" ? inserted : []);

      const restored = await restoreHistory(await valuesOf(ours), { store: ours.store, threadId: "t" });
      expect(shown(restored)).toEqual(shown((await valuesOf(reference)).messages));

      // A later summary covers the app's message too: restoreHistory still gives the app's version.
      for (const side of [ours, reference]) await side.agent.invoke({ messages: [new HumanMessage({ id: "user-3", content: "and then?" })] }, thread);
      const later = await readCompactionLog(await valuesOf(ours), { store: ours.store, threadId: "t" });
      expect(later.filter((record) => record.status === "summarized").length).toBeGreaterThan(summarized.length);
      expect((await valuesOf(ours)).messages.some((message) => message.id === summaryId)).toBe(false);
      expect(shown(await restoreHistory(await valuesOf(ours), { store: ours.store, threadId: "t" }))).toEqual(shown((await valuesOf(reference)).messages));
    });
  }
});

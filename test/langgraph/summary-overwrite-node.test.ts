/**
 * In a graph of the user's own (`createCompactionNode` before the model, or `compactingNode` around
 * it), a summary whose id the app then edits or removes is logged and written back into the state,
 * before the app's message, under an id of its own; a later summary folds it in; restoreHistory
 * gives what the same graph without compaction has.
 */
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { CompactionState, createCompactionNode, fullSummary, readCompactionLog, restoreHistory, type CompactionRecord } from "../../src/index.js";
import { compactingNode } from "../../src/langgraph/index.js";
import { lookupTool } from "./support/lookup-tool.js";

const thread = { configurable: { thread_id: "t" }, recursionLimit: 100 };
const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
type Values = typeof State.State;
const call = (id: string, text = "", calls: string[] = []) =>
  new AIMessage({ id, content: text, tool_calls: calls.map((callId) => ({ id: callId, name: "lookup", args: { query: callId }, type: "tool_call" as const })) });
const textOf = (message: BaseMessage) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));
const shown = (messages: readonly BaseMessage[]) => messages.map((message) => [message.type, message.id, textOf(message)]);
const big = (callId: string) => `${callId} says ${"lorem ipsum dolor sit amet ".repeat(250)}`;

/** A ReAct graph on its own checkpointer and store: `steps[turn - 1]` lookups in each turn, then an answer. */
function graphWith(kind: "none" | "node" | "compactingNode", steps: readonly number[]) {
  const model = fakeModel();
  steps.forEach((count, index) => {
    for (let n = 1; n <= count; n++) model.respond(call(`a${index + 1}-${n}`, `step ${n}`, [`c${index + 1}-${n}`]));
    model.respond(call(`final-${index + 1}`, `answer ${index + 1}`));
  });
  const summaryModel = fakeModel();
  for (let n = 1; n <= 12; n++) summaryModel.respond(new AIMessage(`<summary>S${n}: looked up the numbers</summary>`));
  const summary = fullSummary({ model: summaryModel, keepRecent: 2, trigger: { tokens: 3000 } });
  const contents = new Proxy({}, { get: (_target, callId: string) => big(callId) });
  const callModel = async (state: Values) => ({ messages: [await model.invoke(state.messages)] });
  const builder = new StateGraph(State).addNode("tools", new ToolNode([lookupTool(contents)]));
  const store = new InMemoryStore();
  const compiled =
    kind === "node"
      ? builder
          .addNode("compact", createCompactionNode(summary))
          .addNode("model", callModel)
          .addEdge(START, "compact")
          .addEdge("compact", "model")
          .addConditionalEdges("model", toolsCondition, ["tools", END])
          .addEdge("tools", "compact")
      : builder
          .addNode("model", kind === "none" ? callModel : compactingNode(callModel, summary))
          .addEdge(START, "model")
          .addConditionalEdges("model", toolsCondition, ["tools", END])
          .addEdge("tools", "model");
  return { graph: compiled.compile({ checkpointer: new MemorySaver(), store }), model, store };
}

type Side = ReturnType<typeof graphWith>;
const valuesOf = async ({ graph }: Side) => (await graph.getState(thread)).values as Values;

describe("an overwrite of a summary's id in the user's own graph", () => {
  for (const kind of ["node", "compactingNode"] as const) {
    for (const write of ["edit", "remove"] as const) {
      it(`${kind}, ${write}: logged, written back before the app's message, folded into the next summary, restoreHistory exact`, async () => {
        const ours = graphWith(kind, [4, 0, 4]);
        const reference = graphWith("none", [4, 0, 4]);
        const first = [new HumanMessage({ id: "user-1", content: "look up the numbers" })];
        for (const side of [ours, reference]) await side.graph.invoke({ messages: first }, thread);
        const summarized = (await valuesOf(ours)).compactionLog.filter((record) => record.status === "summarized");
        expect(summarized.length).toBe(1);
        const summaryId = summarized[0]!.summaryId!;
        const summaryText = textOf((await valuesOf(ours)).messages.find((message) => message.id === summaryId)!);
        expect(summaryText).toContain("S1");

        for (const side of [ours, reference]) {
          await side.graph.updateState(thread, { messages: [write === "edit" ? new AIMessage({ id: summaryId, content: "the app's edited text" }) : new RemoveMessage({ id: summaryId })] });
          await side.graph.invoke({ messages: [new HumanMessage({ id: "user-2", content: "and now?" })] }, thread);
        }
        // The model's next request has the summary back, under its new id, before the app's message.
        const request = ours.model.calls.at(-1)!.messages as BaseMessage[];
        const texts = request.map(textOf);
        const at = texts.indexOf(summaryText);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(request[at]!.id).toBe(`${summarized[0]!.id}-summary`);
        expect(texts[at + 1]).toBe(write === "edit" ? "the app's edited text" : textOf(request[at + 1]!));
        const log = await readCompactionLog(await valuesOf(ours), { store: ours.store, threadId: "t" });
        const overwrites = log.filter((record: CompactionRecord) => record.strategy === "summary-overwrite");
        expect(overwrites.map((record) => [record.status, record.summaryId, record.insertedIds])).toEqual([["repaired", summaryId, [`${summarized[0]!.id}-summary`]]]);
        expect(log.map((record) => record.sequence)).toEqual(log.map((_record, position) => position));

        // The app's edit stays in the state as the app wrote it (until a later summary covers it).
        const state = (await valuesOf(ours)).messages;
        expect(state.filter((message) => message.id === summaryId).map(textOf)).toEqual(write === "edit" ? ["the app's edited text"] : []);

        // The third turn summarizes again: the written-back summary is folded into the new one.
        for (const side of [ours, reference]) await side.graph.invoke({ messages: [new HumanMessage({ id: "user-3", content: "and then?" })] }, thread);
        const after = await readCompactionLog(await valuesOf(ours), { store: ours.store, threadId: "t" });
        const folding = after
          .slice(after.indexOf(after.find((record) => record.strategy === "summary-overwrite")!))
          .filter((record) => record.status === "summarized" && [...record.removedIds, ...record.replacedIds].includes(`${summarized[0]!.id}-summary`));
        expect(folding.length).toBe(1);

        const restored = await restoreHistory(await valuesOf(ours), { store: ours.store, threadId: "t" });
        expect(shown(restored)).toEqual(shown((await valuesOf(reference)).messages));
      });
    }
  }
});

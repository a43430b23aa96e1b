import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { END, InMemoryStore, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { CompactionStateSchema, autoCompaction, compactionMarkerOf, createCompactionNode } from "../../src/index.js";
import { messageText, preparedSummariesNamespace, type AutoCompaction } from "../../src/extend/index.js";
import { assistant, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

/** One token per 10 characters: every message below is 100 tokens. */
const tokenCounter = (messages: BaseMessage[]) => messages.reduce((total, message) => total + Math.ceil(messageText(message).length / 10), 0);
const conversation = (count: number, from = 0): BaseMessage[] =>
  Array.from({ length: count }, (_, n) => (n + from) % 2 === 0 ? user(`m${n + from}`, `u${n + from} `.repeat(400).slice(0, 1000)) : assistant(`m${n + from}`, `a${n + from} `.repeat(400).slice(0, 1000)));

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A worker: its own policy (its own process memory) and graph, on the shared checkpointer and store. */
function worker(model: ChatOpenAI, checkpointer: MemorySaver, store: InMemoryStore): { policy: AutoCompaction; graph: ReturnType<typeof build> } {
  const policy = autoCompaction({ contextWindow: 100_000, trigger: { tokens: 2000 }, hiding: false, keepRecent: 2, summaryMaxTokens: 100, tokenCounter, summaryModel: model, prepare: { at: 0.7 } });
  return { policy, graph: build(policy, checkpointer, store) };
}
function build(policy: AutoCompaction, checkpointer: MemorySaver, store: InMemoryStore) {
  const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
  return new StateGraph(State).addNode("compact", createCompactionNode(policy)).addEdge(START, "compact").addEdge("compact", END).compile({ checkpointer, store });
}
const config = { configurable: { thread_id: "thread-1" } };
const summaries = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.summary).map(messageText);

describe("summaries prepared ahead in a graph: kept in the store for any worker", () => {
  it("one worker prepares, the other applies it at the firing, once", async () => {
    server = await startOpenAIServer([{ content: "<summary>prepared by A</summary>" }]);
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    const checkpointer = new MemorySaver();
    const store = new InMemoryStore();
    const a = worker(model, checkpointer, store);
    const b = worker(model, checkpointer, store);
    const namespace = preparedSummariesNamespace("thread-1");
    await a.graph.invoke({ messages: conversation(14) }, config);
    await a.policy.settled();
    expect((await store.search(namespace)).map((item) => [item.key, item.value["cut"]])).toEqual([["m12", 13]]);
    const fired = await b.graph.invoke({ messages: conversation(6, 14) }, config);
    await b.policy.settled();
    expect(server.requests).toHaveLength(1);
    expect(fired.compactionLog.map((record) => [record.status, record.removedIds.length])).toEqual([["summarized", 13]]);
    expect(summaries(fired.messages).map((text) => text.includes("prepared by A"))).toEqual([true]);
    expect(fired.messages.map((message) => message.id).slice(1)).toEqual(["m13", "m14", "m15", "m16", "m17", "m18", "m19"]);
    expect(await store.search(namespace)).toEqual([]);
    // Both workers go on with the thread: nothing is summarized again.
    const next = await a.graph.invoke({ messages: conversation(1, 20) }, config);
    const last = await b.graph.invoke({ messages: conversation(1, 21) }, config);
    await Promise.all([a.policy.settled(), b.policy.settled()]);
    expect([next.compactionLog.length, last.compactionLog.length, summaries(last.messages).length, server.requests.length]).toEqual([1, 1, 1, 1]);
  });

  it("a prepared summary whose prefix lost a message (RemoveMessage) is not applied: the firing summarizes", async () => {
    server = await startOpenAIServer([{ content: "<summary>prepared by A</summary>" }, { content: "<summary>made at the firing</summary>" }]);
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    const checkpointer = new MemorySaver();
    const store = new InMemoryStore();
    const a = worker(model, checkpointer, store);
    const b = worker(model, checkpointer, store);
    await a.graph.invoke({ messages: conversation(14) }, config);
    await a.policy.settled();
    await b.graph.updateState(config, { messages: [new RemoveMessage({ id: "m3" })] });
    const fired = await b.graph.invoke({ messages: conversation(7, 14) }, config);
    await b.policy.settled();
    expect(server.requests).toHaveLength(2);
    expect(summaries(fired.messages).map((text) => text.includes("made at the firing"))).toEqual([true]);
    expect(await store.search(preparedSummariesNamespace("thread-1"))).toEqual([]);
  });
});

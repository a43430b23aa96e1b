/**
 * Summaries prepared ahead in a real PostgresStore, whose search matches namespace prefixes as text
 * (`LIKE 'prefix%'`): thread "thread-1" must neither see nor consume thread "thread-10"'s entries.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, expect, it } from "vitest";
import { CompactionStateSchema, autoCompaction, compactionMarkerOf, createCompactionNode } from "../../src/index.js";
import { messageText, preparedSummariesNamespace, type AutoCompaction } from "../../src/extend/index.js";
import { assistant, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";
import { createTestSchema, describeWithPostgres, type TestSchema } from "../support/postgres.js";

/** One token per 10 characters: every message below is 100 tokens. */
const tokenCounter = (messages: BaseMessage[]) => messages.reduce((total, message) => total + Math.ceil(messageText(message).length / 10), 0);
const conversation = (count: number, from = 0): BaseMessage[] =>
  Array.from({ length: count }, (_, n) => (n + from) % 2 === 0 ? user(`m${n + from}`, `u${n + from} `.repeat(400).slice(0, 1000)) : assistant(`m${n + from}`, `a${n + from} `.repeat(400).slice(0, 1000)));

let server: OpenAIServer | undefined;
let schema: TestSchema | undefined;
let store: PostgresStore | undefined;
afterEach(async () => {
  await store?.stop();
  await schema?.drop();
  await server?.close();
  [store, schema, server] = [undefined, undefined, undefined];
});

function worker(model: ChatOpenAI, checkpointer: MemorySaver, graphStore: PostgresStore): { policy: AutoCompaction; graph: ReturnType<typeof build> } {
  const policy = autoCompaction({ contextWindow: 100_000, trigger: { tokens: 2000 }, hiding: false, keepRecent: 2, summaryMaxTokens: 100, tokenCounter, summaryModel: model, prepare: { at: 0.7 } });
  return { policy, graph: build(policy, checkpointer, graphStore) };
}
function build(policy: AutoCompaction, checkpointer: MemorySaver, graphStore: PostgresStore) {
  const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
  return new StateGraph(State).addNode("compact", createCompactionNode(policy)).addEdge(START, "compact").addEdge("compact", END).compile({ checkpointer, store: graphStore });
}
const thread = (id: string) => ({ configurable: { thread_id: id } });
const summaries = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.summary).map(messageText);

describeWithPostgres("summaries prepared ahead in PostgresStore", (url) => {
  it("a thread applies its own prepared summary, never one of a thread whose id it prefixes", async () => {
    server = await startOpenAIServer([{ content: "<summary>for thread-10</summary>" }, { content: "<summary>for thread-1</summary>" }]);
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    schema = await createTestSchema(url);
    store = PostgresStore.fromConnString(url, { schema: schema.name });
    await store.setup();
    const checkpointer = new MemorySaver();
    const a = worker(model, checkpointer, store);
    const b = worker(model, checkpointer, store);
    // Worker A prepares for thread-10, then for thread-1 (same message ids in both threads).
    await a.graph.invoke({ messages: conversation(14) }, thread("thread-10"));
    await a.policy.settled();
    await a.graph.invoke({ messages: conversation(14) }, thread("thread-1"));
    await a.policy.settled();
    // Worker B fires thread-1: it applies thread-1's summary and leaves thread-10's in place.
    const fired = await b.graph.invoke({ messages: conversation(6, 14) }, thread("thread-1"));
    await b.policy.settled();
    expect(server.requests).toHaveLength(2);
    expect(summaries(fired.messages).map((text) => [text.includes("for thread-1\n"), text.includes("thread-10")])).toEqual([[true, false]]);
    expect((await store.search(preparedSummariesNamespace("thread-1"))).map((item) => item.key)).toEqual([]);
    expect((await store.search(preparedSummariesNamespace("thread-10"))).map((item) => [item.key, item.value["text"]])).toEqual([["m12", expect.stringContaining("for thread-10")]]);
  });
});

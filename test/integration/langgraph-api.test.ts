/**
 * Threads served by LangGraph's API server: the real JS dev server (`langgraphjs dev`, started once
 * for the file, offline) serves compacting graphs of ours (test/integration/langgraph-api/graph.ts);
 * the SDK client drives them turn by turn until hiding and summaries (of summaries) have archived
 * their originals, then the thread's history is restored from what the SDK returns (plain JSON
 * messages, the server's store over HTTP) and compared, message by message, with every message
 * that entered the thread.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CompactionArchiveError,
  fromPlainMessages,
  readCompactionLog,
  restoreHistory,
  restoreThreadHistory,
  sdkStore,
  type ArchivedCompaction,
  type CompactionRecord,
  type MessageInput,
  type RestorableState,
} from "../../src/index.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "../../src/extend/index.js";
import { caught } from "../support/errors.js";
import { startDevServer, type DevServer } from "./langgraph-api/dev-server.js";
import { CUSTOM_NAMESPACE } from "./langgraph-api/graph.js";
import { turnMessages, userMessage } from "./langgraph-api/script.js";

const GRAPH_FILE = new URL("./langgraph-api/graph.ts", import.meta.url).pathname;
const START_TIMEOUT = 90_000;
const TURNS = 6;

/** A message as it would be stored: its type and every field (ids, content, tool calls, metadata). */
const stored = (message: BaseMessage) => JSON.parse(JSON.stringify(message.toDict()));
/** Every message `turns` turns add to a thread, in order: what the thread's full history must be. */
const sentIn = (turns: number) => Array.from({ length: turns }, (_, turn) => turnMessages(turn + 1)).flat();
const summaryOf = (log: readonly CompactionRecord[]) => log.map((record) => `${record.status}/${record.archive}`);

describe("a compacting graph served by the LangGraph API server, read through @langchain/langgraph-sdk", () => {
  let server: DevServer;
  let client: Client<RestorableState>;

  beforeAll(async () => {
    server = await startDevServer({
      compacting: `${GRAPH_FILE}:graph`,
      "compacting-state": `${GRAPH_FILE}:stateArchiveGraph`,
      "compacting-namespaced": `${GRAPH_FILE}:namespacedGraph`,
    });
    // Start-up on a 2-core machine: about 5 s; one server serves the whole file.
    console.info(`langgraph dev answered after ${server.startupMs} ms`);
    client = new Client<RestorableState>({ apiUrl: server.url });
  }, START_TIMEOUT);
  afterAll(async () => {
    await server?.stop();
  });

  /** Drive a new thread of `assistant` for `turns` turns (one run each); returns its id. */
  async function runThread(assistant: string, turns: number): Promise<string> {
    const { thread_id: threadId } = await client.threads.create();
    for (let turn = 1; turn <= turns; turn++) {
      await client.runs.wait(threadId, assistant, { input: { messages: [userMessage(turn)] }, raiseError: true });
    }
    return threadId;
  }

  describe(`the store-archived graph, ${TURNS} turns streamed`, () => {
    let threadId: string;
    let streamed: unknown[];
    let values: RestorableState;

    beforeAll(async () => {
      ({ thread_id: threadId } = await client.threads.create());
      streamed = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        streamed.push(userMessage(turn));
        const stream = client.runs.stream(threadId, "compacting", { input: { messages: [userMessage(turn)] }, streamMode: "updates" });
        for await (const chunk of stream) {
          if (chunk.event !== "updates") continue;
          const updates = chunk.data as Record<string, { messages?: unknown[] }>;
          // What the model and the tools wrote: every message that entered the thread after the user's.
          for (const node of ["model", "tools"]) streamed.push(...(updates[node]?.messages ?? []));
        }
      }
      ({ values } = await client.threads.getState<RestorableState>(threadId));
    }, START_TIMEOUT);

    it("streams exactly the scripted messages (the expected history is what entered the thread)", () => {
      expect(fromPlainMessages(streamed as MessageInput[]).map(stored)).toEqual(sentIn(TURNS).map(stored));
    });

    it("hid tool results once and summarized three times (a summary of summaries), every archive in the server's store", async () => {
      expect(summaryOf(await readCompactionLog(values, { store: client, threadId }))).toEqual(["compacted/store", "summarized/store", "summarized/store", "summarized/store"]);
      expect(values.compactionArchive ?? []).toEqual([]);
      // The summary stands under the id of the newest assistant message it replaced, not the user's first.
      expect(values.messages.map((message) => (message as { id?: string }).id)).toEqual(["h6-ai-a", "h6-ai-b", "h6-call-b-result", "h6-ai-answer"]);
    });

    it("restoreThreadHistory(client, threadId) gives back every message sent, message by message, as real messages", async () => {
      const history = await restoreThreadHistory(client, threadId);
      const expected = sentIn(TURNS);
      expect(history.map((message) => message.constructor.name)).toEqual(expected.map((message) => message.constructor.name));
      expect(history.map(stored)).toEqual(expected.map(stored));
    });

    it("restoreHistory takes the SDK's plain state with the Client, its client.store or sdkStore(client) as store", async () => {
      const expected = sentIn(TURNS).map(stored);
      for (const store of [client, client.store, sdkStore(client)]) {
        expect((await restoreHistory(values, { store, threadId })).map(stored)).toEqual(expected);
      }
    });

    it("restoreHistory without the store names the first compaction archived there", async () => {
      const error = await caught(() => restoreHistory(values));
      expect(CompactionArchiveError.isInstance(error)).toBe(true);
      expect((error as CompactionArchiveError).compactionId).toBe(values.compactionLog![0]!.id);
    });

    it("sdkStore reads the archive the graph wrote in the server's store", async () => {
      const store = sdkStore(client);
      const record = values.compactionLog![0]!;
      const item = await store.get(archiveNamespace(threadId, DEFAULT_ARCHIVE_NAMESPACE), record.id);
      const archive = item!.value as ArchivedCompaction;
      expect(archive.compactionId).toBe(record.id);
      expect(archive.messages.map((entry) => entry.message.data.id)).toEqual(record.replacedIds);
      expect(item!.createdAt).toBeInstanceOf(Date);
      expect(await store.get(archiveNamespace(threadId, DEFAULT_ARCHIVE_NAMESPACE), "no-such-compaction")).toBeNull();
    });
  });

  it("a graph archiving in the state: restoreHistory needs no store", async () => {
    const threadId = await runThread("compacting-state", 4);
    const { values } = await client.threads.getState<RestorableState>(threadId);
    expect(summaryOf(values.compactionLog ?? [])).toEqual(["compacted/state", "summarized/state"]);
    expect((await restoreHistory(values)).map(stored)).toEqual(sentIn(4).map(stored));
  });

  it("a graph archiving under its own namespace: restoreThreadHistory reads it with { namespace }, and only there", async () => {
    const threadId = await runThread("compacting-namespaced", 4);
    expect((await restoreThreadHistory(client, threadId, { namespace: CUSTOM_NAMESPACE })).map(stored)).toEqual(sentIn(4).map(stored));
    const error = await caught(() => restoreThreadHistory(client, threadId));
    expect(CompactionArchiveError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^restoreHistory: the archive of compaction [0-9a-f-]+ \(store\) is missing$/u);
  });

  it("sdkStore is a full BaseStore over the server's store: put, get, search, listNamespaces, delete, batch", async () => {
    const store = sdkStore(client);
    const namespace = ["sdk-store-test", "notes"];
    await store.put(namespace, "a", { text: "first", rank: 1 });
    await store.put(namespace, "b", { text: "second", rank: 2 });
    await store.put(["sdk-store-test", "other"], "c", { text: "third", rank: 1 });
    expect((await store.get(namespace, "a"))?.value).toEqual({ text: "first", rank: 1 });
    expect((await store.search(["sdk-store-test"], { filter: { rank: 1 } })).map((item) => [item.namespace, item.key]).sort()).toEqual([
      [["sdk-store-test", "notes"], "a"],
      [["sdk-store-test", "other"], "c"],
    ]);
    expect((await store.listNamespaces({ prefix: ["sdk-store-test"] })).sort()).toEqual([
      ["sdk-store-test", "notes"],
      ["sdk-store-test", "other"],
    ]);
    await store.delete(namespace, "a");
    expect(await store.get(namespace, "a")).toBeNull();
    const [put, got, searched] = await store.batch([
      { namespace, key: "d", value: { text: "fourth" } },
      { namespace, key: "d" },
      { namespacePrefix: namespace, limit: 10, offset: 0 },
    ] as const);
    expect(put).toBeUndefined();
    expect(got?.value).toEqual({ text: "fourth" });
    expect(searched.map((item) => item.key).sort()).toEqual(["b", "d"]);
  });
});

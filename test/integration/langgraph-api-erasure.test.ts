/**
 * Erasing and redacting threads served by LangGraph's API server: the real JS dev server
 * (`langgraphjs dev`, offline) serves the compacting graph of test/integration/langgraph-api/graph.ts,
 * whose archive is in the server's store; `redactArchived` and `deleteThreadArchive` reach it through
 * the `@langchain/langgraph-sdk` `Client`, and `client.threads.delete` deletes the checkpoints.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteThreadArchive, redactArchived, restoreThreadHistory, type ArchivedCompaction, type RestorableState } from "../../src/index.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace, recallTool } from "../../src/extend/index.js";
import { recallRef } from "../../src/langgraph/recall-refs.js";
import { caught } from "../support/errors.js";
import { startDevServer, type DevServer } from "./langgraph-api/dev-server.js";
import { turnMessages, userMessage } from "./langgraph-api/script.js";

const GRAPH_FILE = new URL("./langgraph-api/graph.ts", import.meta.url).pathname;
const START_TIMEOUT = 90_000;
const TURNS = 4;
/** What the first file read of every thread holds (every thread reads the same files, under the same message ids). */
const FIRST_FILE = 'computeValue("src/module_1_a.ts"';
/** {@link FIRST_FILE} as it appears in JSON text. */
const FIRST_FILE_JSON = JSON.stringify(FIRST_FILE).slice(1, -1);

const stored = (message: BaseMessage) => JSON.parse(JSON.stringify(message.toDict()));
const sentIn = (turns: number) => Array.from({ length: turns }, (_, turn) => turnMessages(turn + 1)).flat();

describe("erasing threads served by the LangGraph API server, through @langchain/langgraph-sdk", () => {
  let server: DevServer;
  let client: Client<RestorableState>;
  const threads: string[] = [];

  beforeAll(async () => {
    server = await startDevServer({ compacting: `${GRAPH_FILE}:graph` });
    client = new Client<RestorableState>({ apiUrl: server.url });
    for (let thread = 0; thread < 2; thread++) {
      const { thread_id: threadId } = await client.threads.create();
      for (let turn = 1; turn <= TURNS; turn++) await client.runs.wait(threadId, "compacting", { input: { messages: [userMessage(turn)] }, raiseError: true });
      threads.push(threadId);
    }
  }, START_TIMEOUT);
  afterAll(async () => {
    await server?.stop();
  });

  const itemsOf = async (threadId: string) => (await client.store.searchItems(archiveNamespace(threadId), { limit: 1000 })).items;

  it("redactArchived(client, ...) redacts the thread's archived originals, and only that thread's", async () => {
    const [redacted, other] = threads as [string, string];
    const before = await itemsOf(redacted);
    expect(JSON.stringify(before)).toContain(FIRST_FILE_JSON);
    // The original (hidden by the first compaction) and its hidden copy (archived by the summary).
    const copies = before.flatMap((item) => (item.value as unknown as ArchivedCompaction).messages ?? []).filter((entry) => entry.message.data.id === "h1-call-a-result");
    expect(copies.length).toBe(2);
    expect(await redactArchived(client, redacted, ["h1-call-a-result"], { pageSize: 1 })).toEqual({ redacted: 2, removed: 0 });

    const history = await restoreThreadHistory(client, redacted);
    const expected = sentIn(TURNS);
    expect(history.map((message) => message.id)).toEqual(expected.map((message) => message.id));
    const position = expected.findIndex((message) => message.id === "h1-call-a-result");
    expect(history[position]).toMatchObject({ content: "[redacted]", tool_call_id: "h1-call-a" });
    expect(JSON.stringify(history.map(stored))).not.toContain(FIRST_FILE_JSON);
    expect(JSON.stringify(await itemsOf(redacted))).not.toContain(FIRST_FILE_JSON);
    expect((await restoreThreadHistory(client, other)).map(stored)).toEqual(expected.map(stored));
  });

  it("recallTool({ store: client }) reads a served thread's originals from the server's store: redacted as redacted, another thread's never", async () => {
    const [redacted, other] = threads as [string, string];
    const recall = recallTool({ store: client });
    const ref = recallRef("h1-call-a-result");
    const recallIn = async (threadId: string) => {
      const { values } = await client.threads.getState<RestorableState>(threadId);
      return String(await recall.invoke({ ref }, { configurable: { thread_id: threadId }, state: values } as never));
    };
    const original = (await restoreThreadHistory(client, other)).find((message) => message.id === "h1-call-a-result")!;
    expect(await recallIn(other)).toBe(`<recalled ref="${ref}">\n[tool read_file #h1-call-a]\n${String(original.content)}\n</recalled>`);
    const text = await recallIn(redacted);
    expect(text).toContain("[tool read_file #h1-call-a]\n[redacted]");
    expect(text).not.toContain(FIRST_FILE);
    // A thread of its own, with nothing archived, asking for the same reference.
    const { thread_id: fresh } = await client.threads.create();
    expect(await recallIn(fresh)).toBe(`Nothing archived under "${ref}".`);
  });

  it("deleteThreadArchive(client, ...) and client.threads.delete leave nothing of the thread; the other thread stays whole", async () => {
    const [erased, other] = threads as [string, string];
    const { values } = await client.threads.getState<RestorableState>(erased);
    const archived = (values.compactionLog ?? []).filter((record) => record.archive === "store").length;
    expect(archived).toBe(2);
    // Each compaction's archive entry, and every record of the log (the state holds them all here).
    expect(await deleteThreadArchive(client, erased)).toBe(archived + (values.compactionLog ?? []).length);
    await client.threads.delete(erased);

    expect(await itemsOf(erased)).toEqual([]);
    expect(await caught(() => client.threads.getState(erased))).toBeInstanceOf(Error);
    const remaining = (await client.store.searchItems([...DEFAULT_ARCHIVE_NAMESPACE], { limit: 1000 })).items;
    expect(new Set(remaining.map((item) => item.namespace[DEFAULT_ARCHIVE_NAMESPACE.length]))).toEqual(new Set(archiveNamespace(other).slice(-1)));
    expect((await restoreThreadHistory(client, other)).map(stored)).toEqual(sentIn(TURNS).map(stored));
  });
});

/**
 * Erasing and redacting a thread, against one real store and checkpointer: real `createAgent`
 * threads compacted by `compactionMiddleware` (tool results hidden, the originals archived in the
 * store), then `deleteThreadArchive` with the checkpointer's `deleteThread`, and `redactArchived`
 * after the app's own redaction. Run by test/langgraph/archive-erasure.test.ts (InMemoryStore,
 * MemorySaver), test/store/archive-erasure-sqlite.test.ts and test/store/archive-erasure-postgres.test.ts.
 */
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore, Item } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactionArchiveError, deleteThreadArchive, redactArchived, restoreHistory, toolResultHiding, type CompactionRecord } from "../../../src/index.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "../../../src/extend/index.js";
import { compactionMiddleware } from "../../../src/middleware/index.js";
import { ids, user } from "../../support/builders.js";
import { caught } from "../../support/errors.js";
import { EVERY_RUN } from "../../support/hiding.js";
import { lookupOutput, lookupTool } from "./lookup-tool.js";
import { scriptedModel } from "./scripted.js";

/** One store and checkpointer, opened per test. */
export interface ErasureBackend {
  readonly store: BaseStore;
  readonly checkpointer: BaseCheckpointSaver;
  /** Rows the backend's own tables still hold for the thread (checkpoints, writes, blobs), when it can tell. */
  threadRows?(threadId: string): Promise<number>;
  /** Everything the backend's database holds, as text (e.g. the SQLite file's bytes), when it can tell. */
  rawContents?(): Promise<string>;
  /** What the docs ask after deleting, for the deleted bytes to leave the database's files. */
  finishErasure?(): Promise<void>;
  close(): Promise<void>;
}

export const SECRET = "SSN 078-05-1120";
/** Thread ids: one a prefix of another, and one whose namespace label must be encoded. */
export const THREADS = ["t1", "t10", "user.42/é_x:1"] as const;
/** The message ids of every thread (the scripted model and lookup tool give each thread the same). */
export const THREAD_MESSAGE_IDS = ["h1", "a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "final"];

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
const text = (value: unknown) => JSON.stringify(value);

/** Run one thread: three lookups (the first one's result holds the secret), each older result hidden and archived in the store. */
export async function runThread(backend: ErasureBackend, threadId: string) {
  const agent = createAgent({
    model: scriptedModel(3),
    tools: [lookupTool({ c1: `${SECRET} ${lookupOutput("c1")}` })],
    middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
    checkpointer: backend.checkpointer,
    store: backend.store,
  });
  await agent.invoke({ messages: [user("h1", `question of ${threadId}`)] }, config(threadId));
  return agent;
}

/** Every item under the archive prefix, all threads. */
export async function archiveItems(store: BaseStore): Promise<Item[]> {
  return store.search([...DEFAULT_ARCHIVE_NAMESPACE], { limit: 10_000 });
}

const underThread = (item: Item, threadId: string) => {
  const namespace = archiveNamespace(threadId);
  return namespace.every((label, position) => item.namespace[position] === label);
};
const summaryOf = (items: readonly Item[]) => items.map((item) => text([item.namespace, item.key, item.value])).sort();

/** `rawContents`: the backend gives its database's bytes, and deleting a thread must leave none of its secret there. */
export function erasureSuite(name: string, open: () => Promise<ErasureBackend>, options: { rawContents?: boolean } = {}): void {
  describe(`${name}: erasing and redacting a compacted thread`, () => {
    let backend: ErasureBackend;
    beforeEach(async () => {
      backend = await open();
    });
    afterEach(async () => {
      await backend.close();
    });

    it("deleteThreadArchive and deleteThread leave nothing of the thread; the other threads stay as they were", async () => {
      const agents = new Map<string, Awaited<ReturnType<typeof runThread>>>();
      for (const threadId of THREADS) {
        agents.set(threadId, await runThread(backend, threadId));
        // Something kept in a namespace under the thread's archive (as a full compaction log would be).
        await backend.store.put([...archiveNamespace(threadId), "log"], "records", { threadId });
      }
      const before = await archiveItems(backend.store);
      const [erased, ...kept] = THREADS;
      // Each of the two compactions' archive entry and log record, and the item put in the log namespace above.
      expect(before.filter((item) => underThread(item, erased)).length).toBe(5);

      expect(await deleteThreadArchive(backend.store, erased, { pageSize: 1 })).toBe(5);
      await backend.checkpointer.deleteThread(erased);

      const after = await archiveItems(backend.store);
      expect(after.filter((item) => underThread(item, erased))).toEqual([]);
      expect(summaryOf(after)).toEqual(summaryOf(before.filter((item) => !underThread(item, erased))));
      expect(await backend.checkpointer.getTuple(config(erased))).toBeUndefined();
      const checkpoints = [];
      for await (const checkpoint of backend.checkpointer.list(config(erased))) checkpoints.push(checkpoint);
      expect(checkpoints).toEqual([]);
      if (backend.threadRows) expect(await backend.threadRows(erased)).toBe(0);
      expect(await deleteThreadArchive(backend.store, erased)).toBe(0);

      for (const threadId of kept) {
        const { values } = await agents.get(threadId)!.graph.getState(config(threadId));
        const restored = await restoreHistory(values, { store: backend.store, threadId });
        expect(ids(restored)).toEqual(THREAD_MESSAGE_IDS);
        expect(restored[2]!.content).toBe(`${SECRET} ${lookupOutput("c1")}`);
        if (backend.threadRows) expect(await backend.threadRows(threadId)).toBeGreaterThan(0);
      }
    });

    it("deleteThreadArchive alone: restoreHistory of the thread says which archive is missing", async () => {
      const agent = await runThread(backend, "t1");
      const { values } = await agent.graph.getState(config("t1"));
      // Two compactions: each one's archive entry and its log record.
      expect(await deleteThreadArchive(backend.store, "t1")).toBe(4);
      const error = await caught(() => restoreHistory(values, { store: backend.store, threadId: "t1" }));
      expect(CompactionArchiveError.isInstance(error) && error.compactionId).toBe((values.compactionLog as CompactionRecord[])[0]!.id);
    });

    it("redactArchived after the app's own redaction: restoreHistory gives the redaction, the secret is nowhere in the thread's state or archive", async () => {
      const agents = new Map<string, Awaited<ReturnType<typeof runThread>>>();
      for (const threadId of ["t1", "t10"]) agents.set(threadId, await runThread(backend, threadId));
      const agent = agents.get("t1")!;
      const redaction = "[REDACTED: contained a secret]";
      // The app's write: the tool result replaced by id, as a chat UI would.
      await agent.graph.updateState(config("t1"), { messages: [new ToolMessage({ id: "t-c1", tool_call_id: "c1", name: "lookup", content: redaction })] });
      expect(await redactArchived(backend.store, "t1", ["t-c1"], { replacement: redaction })).toEqual({ redacted: 1, removed: 0 });

      const { values } = await agent.graph.getState(config("t1"));
      const restored: BaseMessage[] = await restoreHistory(values, { store: backend.store, threadId: "t1" });
      expect(ids(restored)).toEqual(THREAD_MESSAGE_IDS);
      expect(restored[2]).toMatchObject({ id: "t-c1", tool_call_id: "c1", content: redaction });
      expect(text(restored.map((message) => message.toDict()))).not.toContain(SECRET);
      expect(text(values)).not.toContain(SECRET);
      const items = await archiveItems(backend.store);
      expect(text(items.filter((item) => underThread(item, "t1")))).not.toContain(SECRET);
      // Earlier checkpoints keep what they held: the docs say to delete the thread for that.
      const history = [];
      for await (const snapshot of agent.graph.getStateHistory(config("t1"))) history.push(snapshot.values);
      expect(text(history)).toContain(SECRET);
      // The other thread, whose result has the same id, is untouched.
      expect(text(items.filter((item) => underThread(item, "t10")))).toContain(SECRET);
      const other = await agents.get("t10")!.graph.getState(config("t10"));
      expect((await restoreHistory(other.values, { store: backend.store, threadId: "t10" }))[2]!.content).toBe(`${SECRET} ${lookupOutput("c1")}`);
      // Again: nothing left to change.
      expect(await redactArchived(backend.store, "t1", ["t-c1"], { replacement: redaction })).toEqual({ redacted: 0, removed: 0 });
    });

    if (options.rawContents) it("deleting a thread leaves no byte of its secret in the database", async () => {
      await runThread(backend, "t1");
      expect(await backend.rawContents!()).toContain(SECRET);
      await deleteThreadArchive(backend.store, "t1");
      await backend.checkpointer.deleteThread("t1");
      await backend.finishErasure?.();
      expect(await backend.rawContents!()).not.toContain(SECRET);
    });
  });
}

import { AsyncBatchedStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { archiveNamespace, underlyingStore, writeArchive } from "../../src/langgraph/compaction-archive.js";

const archive = { compactionId: "c1", messages: [], dropped: ["m9"] };

describe("writeArchive", () => {
  it("writes past LangGraph's batching wrapper: done even while the wrapper runs no batch", async () => {
    const inner = new InMemoryStore();
    // Never started, as between two batches: an operation queued on it would wait.
    const batched = new AsyncBatchedStore(inner);
    const namespace = archiveNamespace("thread-1");
    await writeArchive(batched, namespace, archive);
    expect((await inner.get(namespace, "c1"))?.value).toEqual(archive);
  });

  it("writes to a plain store as it is", async () => {
    const store = new InMemoryStore();
    await writeArchive(store, archiveNamespace("thread-2"), archive);
    expect([underlyingStore(store) === store, (await store.get(archiveNamespace("thread-2"), "c1"))?.value]).toEqual([true, archive]);
  });
});

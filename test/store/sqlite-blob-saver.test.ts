/**
 * SqliteBlobSaver in real graphs: the examples' ReAct agent replaying a recorded session with
 * compaction, on a SQLite file with a SqliteStore beside it (the demo's layout) and without a store
 * (the archive in the state channel); what the file holds; forks; deleteThread; a missing blob; and
 * the inspector reading such a file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { Annotation, MemorySaver, MessagesAnnotation, START, StateGraph, emptyCheckpoint, type BaseCheckpointSaver, type BaseStore, type Checkpoint } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { CompactionError, InvalidOptionError, createTokenCounter, readCompactionLog, restoreHistory, type StateArchivedCompaction } from "../../src/index.js";
import { exportThread, loadThreadFromSqlite } from "../../src/inspector/index.js";
import { BLOB_REFERENCE_KEY, SqliteBlobSaver, SqliteStore } from "../../src/store/index.js";
import { unpackArchive } from "../../src/extend/index.js";
import { buildReactAgent, exampleCompaction } from "../../examples/react-agent.js";
import { ReplayChatModel, ReplaySession, replayTools } from "../../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-blobs-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const session = loadTraceSessions(BUNDLED_TRACES_PATH).find((each) => each.id === "tau-bench-airline/task2-trial1")!;
const tokenCounter = createTokenCounter({ model: "gpt-4o" });

async function replayOn(path: string, withStore: boolean, threadId = "t1") {
  const checkpointer = SqliteBlobSaver.fromConnString(path);
  const store: BaseStore | undefined = withStore ? new SqliteStore(checkpointer.db) : undefined;
  const replay = new ReplaySession(session);
  const agent = buildReactAgent({
    model: new ReplayChatModel(replay),
    tools: replayTools(replay),
    compaction: exampleCompaction(3_000, { tokenCounter }),
    checkpointer,
    ...(store ? { store } : {}),
  });
  const config = { configurable: { thread_id: threadId }, recursionLimit: 1_000 };
  for (const input of replay.turns) await agent.invoke({ messages: input }, config);
  return { checkpointer, store, agent, config, replay };
}

/** The raw channel values of every checkpoint of a thread, as the `checkpoints` table holds them. */
function rawChannelValues(checkpointer: SqliteBlobSaver, threadId: string): Record<string, unknown>[] {
  const rows = checkpointer.db.prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id").all(threadId) as { checkpoint: Uint8Array }[];
  return rows.map((row) => (JSON.parse(Buffer.from(row.checkpoint).toString("utf8")) as { channel_values: Record<string, unknown> }).channel_values);
}

describe.each([
  ["with a SqliteStore (the archive in the store)", true],
  ["without a store (the archive in the state channel)", false],
] as const)("the ReAct agent on SqliteBlobSaver, %s", (_label, withStore) => {
  const path = join(directory, `agent-${withStore ? "store" : "state"}.sqlite`);
  const running = replayOn(path, withStore);

  it("restores the whole session exactly", async () => {
    const { agent, config, store, replay } = await running;
    const { values } = await agent.getState(config);
    const log = await readCompactionLog(values, { ...(store ? { store } : {}), threadId: "t1" });
    expect(log.filter((record) => record.status !== "failed").length).toBe(23);
    // Without a store the channel holds the archive of every compaction, and the full log beside it.
    expect((values.compactionArchive as StateArchivedCompaction[]).map(unpackArchive).filter((archive) => archive.messages.length > 0)).toHaveLength(withStore ? 0 : 23);
    expect(values.compactionLog.length).toBeLessThanOrEqual(8);
    const history = await restoreHistory(values, { ...(store ? { store } : {}), threadId: "t1" });
    expect(mapChatMessagesToStoredMessages(history)).toEqual(mapChatMessagesToStoredMessages([...replay.expectedHistory]));
  });

  it("writes each distinct value of the log and the archive once, and a reference in every checkpoint", async () => {
    const { checkpointer, agent, config } = await running;
    const distinct = new Map<string, Set<string>>([["compactionLog", new Set()], ["compactionArchive", new Set()]]);
    for await (const snapshot of agent.getStateHistory(config)) {
      for (const [channel, seen] of distinct) {
        const serialized = JSON.stringify((snapshot.values as Record<string, unknown>)[channel]);
        // Values under 512 bytes (the empty log of the first steps) stay inline.
        if (serialized.length >= 512) seen.add(serialized);
      }
    }
    const blobCount = (channel: string) => (checkpointer.db.prepare("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 't1' AND channel = ?").get(channel) as { n: number }).n;
    expect(blobCount("compactionLog")).toBe(distinct.get("compactionLog")!.size);
    expect(blobCount("compactionArchive")).toBe(distinct.get("compactionArchive")!.size);
    expect(distinct.get("compactionArchive")!.size).toBe(withStore ? 0 : 23);
    const raw = rawChannelValues(checkpointer, "t1");
    const referenced = raw.filter((values) => BLOB_REFERENCE_KEY in ((values["compactionLog"] as object | undefined) ?? {}));
    const inline = raw.filter((values) => Array.isArray(values["compactionLog"]));
    expect(referenced.length + inline.length).toBe(raw.length);
    for (const values of inline) expect(JSON.stringify(values["compactionLog"]).length).toBeLessThan(512);
  });

  it("is read by the inspector's loadThreadFromSqlite as exportThread reads it through the saver", async () => {
    const { checkpointer, store } = await running;
    const fromSaver = await exportThread(checkpointer, "t1", store ? { store } : {});
    expect(await loadThreadFromSqlite(path, "t1")).toEqual(fromSaver);
    expect(fromSaver.archives).toHaveLength(23);
  });
});

describe("SqliteBlobSaver", () => {
  const State = Annotation.Root({ ...MessagesAnnotation.spec });
  const graphOn = (checkpointer: SqliteBlobSaver) =>
    new StateGraph(State)
      .addNode("echo", (state: typeof State.State) => ({ messages: [new HumanMessage({ content: `echo ${state.messages.length} ${"x".repeat(600)}` })] }))
      .addEdge(START, "echo")
      .compile({ checkpointer });

  it("keeps a fork apart from the branch it left", async () => {
    const checkpointer = SqliteBlobSaver.fromConnString(join(directory, "fork.sqlite"));
    const graph = graphOn(checkpointer);
    const config = { configurable: { thread_id: "f" } };
    await graph.invoke({ messages: [new HumanMessage({ id: "a", content: "first" })] }, config);
    await graph.invoke({ messages: [new HumanMessage({ id: "b", content: "second" })] }, config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const afterFirstRun = history.find((snapshot) => snapshot.values.messages?.length === 2 && snapshot.next.length === 0)!;
    const main = (await graph.getState(config)).values.messages.map((message: { content: unknown }) => message.content);
    const forkConfig = await graph.updateState(afterFirstRun.config, { messages: [new HumanMessage({ id: "c", content: "fork" })] });
    const fork = (await graph.getState(forkConfig)).values.messages.map((message: { content: unknown }) => message.content);
    expect(fork).toEqual([...main.slice(0, 2), "fork"]);
    expect((await graph.getState(history[0]!.config)).values.messages.map((message: { content: unknown }) => message.content)).toEqual(main);
    expect(main).toHaveLength(4);
  });

  it("reads back what another connection wrote", async () => {
    const path = join(directory, "reopen.sqlite");
    const first = SqliteBlobSaver.fromConnString(path);
    await graphOn(first).invoke({ messages: [new HumanMessage({ id: "a", content: "hi" })] }, { configurable: { thread_id: "r" } });
    const expected = (await graphOn(first).getState({ configurable: { thread_id: "r" } })).values.messages.map((message: { content: unknown }) => message.content);
    first.db.close();
    const reopened = SqliteBlobSaver.fromConnString(path);
    const again = (await graphOn(reopened).getState({ configurable: { thread_id: "r" } })).values.messages.map((message: { content: unknown }) => message.content);
    expect(again).toEqual(expected);
    expect(again).toHaveLength(2);
  });

  it("deletes a thread's blobs with the thread, and only that thread's", async () => {
    const checkpointer = SqliteBlobSaver.fromConnString(join(directory, "delete.sqlite"));
    const graph = graphOn(checkpointer);
    await graph.invoke({ messages: [new HumanMessage("one")] }, { configurable: { thread_id: "keep" } });
    await graph.invoke({ messages: [new HumanMessage("two")] }, { configurable: { thread_id: "drop" } });
    const count = (threadId: string) => (checkpointer.db.prepare("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = ?").get(threadId) as { n: number }).n;
    expect(count("drop")).toBe(1);
    await checkpointer.deleteThread("drop");
    expect(count("drop")).toBe(0);
    expect(count("keep")).toBe(1);
  });

  it("throws a CompactionError for a checkpoint whose blob is missing", async () => {
    const checkpointer = SqliteBlobSaver.fromConnString(join(directory, "missing.sqlite"));
    const graph = graphOn(checkpointer);
    await graph.invoke({ messages: [new HumanMessage("one")] }, { configurable: { thread_id: "m" } });
    checkpointer.db.prepare("DELETE FROM checkpoint_blobs").run();
    const error = await checkpointer.getTuple({ configurable: { thread_id: "m" } }).catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^SqliteBlobSaver: checkpoint .+ of thread m refers to a missing blob of channel messages$/u);
  });

  it("rejects an inlineBytes that is not a non-negative integer", () => {
    expect(() => SqliteBlobSaver.fromConnString(":memory:", { inlineBytes: -1 })).toThrow(InvalidOptionError);
    expect(() => SqliteBlobSaver.fromConnString(":memory:", { inlineBytes: 1.5 })).toThrow(InvalidOptionError);
  });
});

describe("SqliteBlobSaver with one large object in several threads", () => {
  const State = Annotation.Root({ document: Annotation<{ text: string }>(), count: Annotation<number>() });
  const graphOn = (checkpointer: SqliteBlobSaver) =>
    new StateGraph(State)
      .addNode("step", () => ({ count: 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer });
  const document = { text: "d".repeat(2_000) };

  it("stores the object's blob in each thread, and again after the thread was deleted", async () => {
    const checkpointer = SqliteBlobSaver.fromConnString(join(directory, "shared-object.sqlite"));
    const graph = graphOn(checkpointer);
    await graph.invoke({ document }, { configurable: { thread_id: "one" } });
    await graph.invoke({ document }, { configurable: { thread_id: "two" } });
    await checkpointer.deleteThread("one");
    await graph.invoke({ document }, { configurable: { thread_id: "one" } });
    for (const threadId of ["one", "two"]) {
      expect((await graph.getState({ configurable: { thread_id: threadId } })).values).toEqual({ document, count: 1 });
      // The input (in `__start__`) holds the document too.
      const blobs = checkpointer.db.prepare("SELECT channel FROM checkpoint_blobs WHERE thread_id = ? ORDER BY channel").all(threadId);
      expect(blobs).toEqual([{ channel: "__start__" }, { channel: "document" }]);
    }
  });
});

describe("SqliteBlobSaver with a value changed in place at the same version", () => {
  // A node may change a channel's value in place and return nothing for it: the channel keeps the same
  // object at the same version, and the checkpoint must still hold the value as it is now.
  const State = Annotation.Root({ notes: Annotation<string[]>(), count: Annotation<number>() });
  const graphOn = (checkpointer: BaseCheckpointSaver) =>
    new StateGraph(State)
      .addNode("note", (state: typeof State.State) => {
        state.notes.push("x");
        return { count: state.count + 1 };
      })
      .addNode("step", (state: typeof State.State) => ({ count: state.count + 1 }))
      .addEdge(START, "note")
      .addEdge("note", "step")
      .compile({ checkpointer });
  const first = "n".repeat(600);

  it.each([
    ["MemorySaver", () => new MemorySaver()],
    ["SqliteSaver", () => SqliteSaver.fromConnString(":memory:")],
    ["SqliteBlobSaver", () => SqliteBlobSaver.fromConnString(":memory:")],
    ["SqliteBlobSaver, inlineBytes 0", () => SqliteBlobSaver.fromConnString(":memory:", { inlineBytes: 0 })],
  ] as const)("keeps the change in a graph on %s", async (_name, create) => {
    const graph = graphOn(create());
    const config = { configurable: { thread_id: "n" } };
    await graph.invoke({ notes: [first], count: 0 }, config);
    expect((await graph.getState(config)).values).toEqual({ notes: [first, "x"], count: 2 });
    await graph.invoke({ count: 10 }, config);
    expect((await graph.getState(config)).values).toEqual({ notes: [first, "x", "x"], count: 12 });
  });

  it("keeps the change when the same object is put twice at one version, and the first checkpoint as it was", async () => {
    const checkpointer = SqliteBlobSaver.fromConnString(join(directory, "in-place.sqlite"));
    const notes = [first];
    const checkpointAt = (id: string): Checkpoint => ({ ...emptyCheckpoint(), id, channel_values: { notes }, channel_versions: { notes: 1 } });
    const at = (id: string) => ({ configurable: { thread_id: "p", checkpoint_ns: "", checkpoint_id: id } });
    await checkpointer.put(at(""), checkpointAt("1"), { source: "input", step: -1, parents: {} });
    notes.push("x");
    await checkpointer.put(at("1"), checkpointAt("2"), { source: "loop", step: 0, parents: {} });
    expect((await checkpointer.getTuple(at("1")))?.checkpoint.channel_values).toEqual({ notes: [first] });
    expect((await checkpointer.getTuple(at("2")))?.checkpoint.channel_values).toEqual({ notes: [first, "x"] });
    // A value read back and changed in place is written again too.
    const loaded = (await checkpointer.getTuple(at("2")))!.checkpoint;
    (loaded.channel_values["notes"] as string[]).push("y");
    await checkpointer.put(at("2"), { ...loaded, id: "3" }, { source: "loop", step: 1, parents: {} });
    expect((await checkpointer.getTuple(at("3")))?.checkpoint.channel_values).toEqual({ notes: [first, "x", "y"] });
    // Each content is stored once: the two changes made two more blobs, not one per put.
    expect((checkpointer.db.prepare("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 'p'").get() as { n: number }).n).toBe(3);
  });
});

/**
 * The state keeps the newest records of the compaction log; the full log goes to the store (or the
 * archive channel without one) and every reader reads all of it, on a fork only its own.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { autoCompaction, createCompactionNode, readCompactionLog, restoreHistory, toolResultHiding, type CompactionRecord } from "../../src/index.js";
import { compactionLogNamespace, mergeCompactionLog } from "../../src/extend/index.js";
import { exportThread } from "../../src/inspector/index.js";
import { LOG_WINDOW_CHARS } from "../../src/langgraph/compaction-log.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { assistant, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";
import { lookupTool } from "./support/lookup-tool.js";
import { reactGraph } from "./support/react-graph.js";

const record = (id: string, sequence: number | undefined, logged: CompactionRecord["logged"] = "store"): CompactionRecord => ({
  id,
  at: "2026-01-01T00:00:00.000Z",
  strategy: "toolResultHiding",
  status: "compacted",
  tokensBefore: 100,
  tokensAfter: 50,
  messagesBefore: 4,
  messagesAfter: 4,
  removedIds: [],
  replacedIds: [`t-${id}`],
  insertedIds: [],
  summaryId: null,
  archive: "store",
  ...(sequence === undefined ? {} : { sequence, previous: sequence === 0 ? null : `r${sequence - 1}`, ...(logged ? { logged } : {}) }),
});
const chain = (count: number) => Array.from({ length: count }, (_, sequence) => record(`r${sequence}`, sequence));
const idsOf = (records: readonly { id: string }[]) => records.map((entry) => entry.id);

describe("mergeCompactionLog", () => {
  it("keeps the newest 8 records the full log holds, and every record only the state holds", () => {
    const legacy = [record("old0", undefined), record("old1", undefined)];
    const merged = chain(12).reduce((log, next) => mergeCompactionLog(log, [next]), legacy as CompactionRecord[]);
    expect(idsOf(merged)).toEqual(["old0", "old1", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11"]);
    // A record whose store write failed is not in the full log: it stays.
    const unlogged = { ...record("r12", 12), logged: undefined };
    const kept = [13, 14, 15, 16, 17, 18, 19, 20].reduce((log, sequence) => mergeCompactionLog(log, [record(`r${sequence}`, sequence)]), mergeCompactionLog(merged, [unlogged]));
    expect(idsOf(kept)).toEqual(["old0", "old1", "r12", ...Array.from({ length: 8 }, (_, index) => `r${13 + index}`)]);
  });

  it("is idempotent when a hook re-emits the channel, and does not bring back a record that left it", () => {
    const state = mergeCompactionLog([], chain(10));
    expect(idsOf(state)).toEqual(idsOf(chain(10).slice(2)));
    expect(mergeCompactionLog(state, state)).toEqual(state);
    expect(mergeCompactionLog(state, chain(10))).toEqual(state);
    // Two middleware's records of one step arrive innermost first: they are put in their order.
    const [inner, outer] = [record("r11", 11), record("r10", 10)];
    expect(idsOf(mergeCompactionLog(state, [inner, outer])).slice(-2)).toEqual(["r10", "r11"]);
  });

  it("keeps the newest record even when it alone is over the size bound, and fewer records when they are large", () => {
    const large = (sequence: number) => ({ ...record(`r${sequence}`, sequence), removedIds: Array.from({ length: 500 }, (_, index) => `message-${sequence}-${index}`) });
    const merged = [0, 1, 2, 3].reduce((log, sequence) => mergeCompactionLog(log, [large(sequence)]), [] as CompactionRecord[]);
    expect(idsOf(merged)).toEqual(["r3"]);
  });
});

/** A model that calls `lookup` with call ids `${prefix}1..N`, then answers. */
function lookups(model: ReturnType<typeof fakeModel>, prefix: string, steps: number) {
  for (let n = 1; n <= steps; n++) model.respond(assistant(`${prefix}a${n}`, `step ${n}`, [{ id: `${prefix}${n}`, name: "lookup", args: { query: `q${n}` } }]));
  return model.respond(assistant(`${prefix}final`, "done"));
}

describe("the full log in a graph", () => {
  it("is read whole from the store, restores the history, and a fork reads only its own records", async () => {
    const store = new InMemoryStore();
    const checkpointer = new MemorySaver();
    const model = lookups(lookups(fakeModel(), "c", 14), "f", 3);
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))], checkpointer, store });
    const config = { configurable: { thread_id: "forked" }, recursionLimit: 100 };
    await graph.invoke({ messages: [user("h1")] }, config);
    const head = await graph.getState(config);
    const full = await readCompactionLog(head.values, { store, threadId: "forked" });
    expect([full.length, full.map((entry) => entry.sequence), idsOf(head.values.compactionLog)]).toEqual([
      13,
      Array.from({ length: 13 }, (_, index) => index),
      idsOf(full.slice(-8)),
    ]);
    expect((await restoreHistory(head.values, { store, threadId: "forked" })).map((message) => message.id)).toEqual([
      "h1",
      ...Array.from({ length: 14 }, (_, index) => [`ca${index + 1}`, `t-c${index + 1}`]).flat(),
      "cfinal",
    ]);
    // Without the store, the records it holds cannot be read.
    await expect(readCompactionLog(head.values)).rejects.toThrow(/are in a store; pass \{ store, threadId \}/u);

    // Fork from the checkpoint after the 12th tool result, before its compaction (10 records, the first 2 only in the store).
    let forkPoint: Awaited<ReturnType<typeof graph.getState>> | undefined;
    for await (const snapshot of graph.getStateHistory(config)) {
      const messages = snapshot.values.messages as BaseMessage[] | undefined;
      if (snapshot.next.includes("compact0") && messages?.at(-1)?.id === "t-c12") forkPoint = snapshot;
    }
    const before = await readCompactionLog(forkPoint!.values, { store, threadId: "forked" });
    expect([idsOf(before), forkPoint!.values.compactionLog.length]).toEqual([idsOf(full.slice(0, 10)), 8]);
    await graph.invoke({ messages: [user("h2")] }, { ...forkPoint!.config, recursionLimit: 100 });
    const fork = await graph.getState(config);
    const forkLog = await readCompactionLog(fork.values, { store, threadId: "forked" });
    // The abandoned branch's records are still in the store, but not on the fork's chain.
    const stored = await store.search(compactionLogNamespace("forked"), { limit: 100 });
    expect({
      stored: stored.length,
      before: idsOf(forkLog.slice(0, 10)),
      after: forkLog.slice(10).map((entry) => [entry.sequence, entry.lastMessageId]),
      abandoned: forkLog.filter((entry) => idsOf(full.slice(10)).includes(entry.id)).length,
    }).toEqual({
      stored: 13 + forkLog.length - 10,
      before: idsOf(full.slice(0, 10)),
      after: [
        [10, "h2"],
        [11, "t-f1"],
        [12, "t-f2"],
        [13, "t-f3"],
      ],
      abandoned: 0,
    });
    expect((await restoreHistory(fork.values, { store, threadId: "forked" })).map((message) => message.id)).toEqual([
      "h1",
      ...Array.from({ length: 12 }, (_, index) => [`ca${index + 1}`, `t-c${index + 1}`]).flat(),
      "h2",
      ...Array.from({ length: 3 }, (_, index) => [`fa${index + 1}`, `t-f${index + 1}`]).flat(),
      "ffinal",
    ]);
    // The original branch still reads its own log.
    expect(idsOf(await readCompactionLog(head.values, { store, threadId: "forked" }))).toEqual(idsOf(full));
    // The inspector's export reads the whole log too.
    expect(idsOf((await exportThread(checkpointer, "forked", { store })).compactionLog)).toEqual(idsOf(forkLog));
  });

  it("without a store, keeps the full log in the archive channel", async () => {
    const graph = reactGraph({ model: lookups(fakeModel(), "c", 12), tools: [lookupTool()], compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))] });
    const values = await graph.invoke({ messages: [user("h1")] }, { recursionLimit: 100 });
    const full = await readCompactionLog(values);
    expect([full.length, values.compactionLog.length]).toEqual([11, 8]);
    expect(values.compactionArchive.map((archive) => archive.record?.id)).toEqual(idsOf(full));
    expect((await restoreHistory(values)).length).toEqual(1 + 2 * 12 + 1);
  });
});

describe("a long createAgent thread", () => {
  it("keeps the state besides its messages within the log's bound at every step of 200, and its whole log readable", async () => {
    const words = ["config", "value", "return", "const", "function", "import", "export", "handler"];
    let seed = 46;
    const word = () => words[(seed = (seed * 1103515245 + 12345) % 2147483648) % words.length];
    const readFile = tool(async ({ path }: { path: string }, config) => new ToolMessage({ id: `t-${path}`, content: Array.from({ length: 400 }, word).join(" "), tool_call_id: config.toolCall!.id!, name: "read_file" }), {
      name: "read_file",
      description: "read a file",
      schema: z.object({ path: z.string() }),
    });
    const model = fakeModel();
    for (let step = 1; step <= 200; step++) model.respond(new AIMessage({ id: `a${step}`, content: `reading ${step}`, tool_calls: [{ id: `c${step}`, name: "read_file", args: { path: `f${step}` } }] }));
    model.respond(new AIMessage({ id: "final", content: "done" }));
    const store = new InMemoryStore();
    const agent = createAgent({ model, tools: [readFile], middleware: [compactionMiddleware(autoCompaction({ contextWindow: 8_000 }))], checkpointer: SqliteSaver.fromConnString(":memory:"), store });
    const config = { configurable: { thread_id: "long" }, recursionLimit: 1_000 };
    let largest = 0;
    for await (const values of await agent.stream({ messages: [{ role: "user", content: "read every file" }] }, { ...config, streamMode: "values" })) {
      const { messages: _messages, ...rest } = values as Record<string, unknown>;
      largest = Math.max(largest, Buffer.byteLength(JSON.stringify(rest)));
    }
    const { values } = await agent.graph.getState(config);
    const log = await readCompactionLog(values, { store, threadId: "long" });
    const restored = await restoreHistory(values, { store, threadId: "long" });
    expect({
      // The records the channel keeps, and the few other channels of createAgent's state.
      bounded: largest <= LOG_WINDOW_CHARS + 1_000,
      window: values.compactionLog.length,
      sequences: log.every((entry, index) => entry.sequence === index),
      records: log.length,
      restored: restored.length,
    }).toEqual({ bounded: true, window: 8, sequences: true, records: 21, restored: 1 + 2 * 200 + 1 });
  }, 600_000);
});

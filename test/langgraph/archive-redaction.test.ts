/**
 * Redacting and taking out archived originals by message id, and clearing the `compactionArchive`
 * channel: on real `createAgent` threads (archive in the state, and in an `InMemoryStore`), and on
 * hand-built logs for the cases that decide what `remove` may take out.
 */
import { AIMessage, HumanMessage, mapChatMessagesToStoredMessages, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  clearArchivedState,
  deleteThreadArchive,
  redactArchived,
  redactArchivedState,
  restoreHistory,
  slidingWindow,
  type ArchiveAnchor,
  type ArchivedCompaction,
  type CompactionRecord,
  type StateArchivedCompaction,
  type RestorableState,
} from "../../src/index.js";
import { unpackArchive, type PackedArchivedCompaction } from "../../src/extend/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { assistant, ids, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupTool } from "./support/lookup-tool.js";
import { scriptedModel } from "./support/scripted.js";

const SECRET = "SSN 078-05-1120";
const thread = (id: string) => ({ configurable: { thread_id: id } });
/** The JSON of a value with every packed archive entry read (a compressed one holds no plain text). */
const text = (value: unknown) =>
  JSON.stringify(value, (_key, entry: unknown) => (typeof entry === "object" && entry !== null && "packed" in entry && "compactionId" in entry ? unpackArchive(entry as PackedArchivedCompaction) : entry));

/** Two turns; the sliding window archives the first (h1, holding the secret, a1, t-c1, final) before the second's model call. */
async function twoTurns(store?: InMemoryStore) {
  const agent = createAgent({
    model: scriptedModel(1).respond(assistant("final2", "again")),
    tools: [lookupTool()],
    middleware: [compactionMiddleware(slidingWindow({ keepTurns: 1 }))],
    checkpointer: new MemorySaver(),
    ...(store ? { store } : {}),
  });
  await agent.invoke({ messages: [user("h1", `my ${SECRET}, look it up`)] }, thread("t1"));
  await agent.invoke({ messages: [user("h2")] }, thread("t1"));
  return agent;
}

describe("the compactionArchive channel of a createAgent thread without a store", () => {
  it("redactArchivedState with remove: the original leaves the channel and the restored history; the input is not changed", async () => {
    const agent = await twoTurns();
    const { values } = await agent.graph.getState(thread("t1"));
    expect(values.compactionLog.map((record: CompactionRecord) => record.archive)).toEqual(["state"]);
    expect(text(values.compactionArchive)).toContain(SECRET);
    const copy = structuredClone(values.compactionArchive);

    const update = redactArchivedState(values, ["h1"], { remove: true });
    expect(values.compactionArchive).toEqual(copy);
    await agent.graph.updateState(thread("t1"), update);

    const after = (await agent.graph.getState(thread("t1"))).values;
    expect(ids(await restoreHistory(after))).toEqual(["a1", "t-c1", "final", "h2", "final2"]);
    expect(text(after)).not.toContain(SECRET);
  });

  it("remove redacts tool results and calls instead, so the restored history still pairs", async () => {
    const agent = await twoTurns();
    const { values } = await agent.graph.getState(thread("t1"));
    await agent.graph.updateState(thread("t1"), redactArchivedState(values, ["a1", "t-c1"], { remove: true, clearToolCallArgs: true, replacement: "[gone]" }));

    const restored = await restoreHistory((await agent.graph.getState(thread("t1"))).values);
    expect(ids(restored)).toEqual(["h1", "a1", "t-c1", "final", "h2", "final2"]);
    expect([restored[1]!.content, (restored[1] as AIMessage).tool_calls, restored[2]!.content, restored[2]]).toEqual([
      "[gone]",
      [{ id: "c1", name: "lookup", args: {}, type: "tool_call" }],
      "[gone]",
      expect.objectContaining({ tool_call_id: "c1", name: "lookup" }),
    ]);
  });

  it("clearArchivedState empties the channel; restoreHistory gives the state as it is", async () => {
    const agent = await twoTurns();
    const { values } = await agent.graph.getState(thread("t1"));
    await agent.graph.updateState(thread("t1"), clearArchivedState(values));

    const after = (await agent.graph.getState(thread("t1"))).values;
    expect(after.compactionArchive.map((archive: ArchivedCompaction) => [archive.messages.length, archive.dropped])).toEqual([[0, []]]);
    expect(ids(await restoreHistory(after))).toEqual(["h2", "final2"]);
    expect(text(after)).not.toContain(SECRET);
    expect(clearArchivedState(after)).toEqual({ compactionArchive: [] });
  });
});

describe("redactArchived in a store", () => {
  it("takes a removed human message out of the thread's archive, and the restored history", async () => {
    const store = new InMemoryStore();
    const agent = await twoTurns(store);
    const { values } = await agent.graph.getState(thread("t1"));
    expect(values.compactionLog.map((record: CompactionRecord) => record.archive)).toEqual(["store"]);

    expect(await redactArchived(store, "t1", ["h1", "unknown"], { remove: true })).toEqual({ redacted: 0, removed: 1 });
    expect(ids(await restoreHistory(values, { store, threadId: "t1" }))).toEqual(["a1", "t-c1", "final", "h2", "final2"]);
    expect(text(await store.search(["langchain-compaction"], { limit: 100 }))).not.toContain(SECRET);
    expect(await redactArchived(store, "t1", ["h1"], { remove: true })).toEqual({ redacted: 0, removed: 0 });
    // The compaction's archive entry and its log record.
    expect(await deleteThreadArchive(store, "t1")).toBe(2);
  });

  it("refuses what is not valid, naming the option", async () => {
    const store = new InMemoryStore();
    const problems = await Promise.all([
      caught(() => redactArchived(store, "", ["h1"])),
      caught(() => redactArchived(store, "t1", ["h1", ""])),
      caught(() => redactArchived(store, "t1", "h1" as unknown as string[])),
      caught(() => redactArchived(store, "t1", ["h1"], { replacement: "  " })),
      caught(() => redactArchived(store, "t1", ["h1"], { replacement: "\uD800" })),
      caught(() => redactArchived({} as InMemoryStore, "t1", ["h1"])),
      caught(() => deleteThreadArchive(store, "t1", { pageSize: 0 })),
      caught(() => deleteThreadArchive(store, "t1", { namespace: ["ok", ""] })),
      caught(() => redactArchivedState({}, ["h1"], { replacement: "" })),
    ]);
    expect(problems.map((error) => (InvalidOptionError.isInstance(error) ? `${error.component}.${error.option}` : error))).toEqual([
      "redactArchived.threadId",
      "redactArchived.messageIds",
      "redactArchived.messageIds",
      "redactArchived.replacement",
      "redactArchived.replacement",
      "redactArchived.store",
      "deleteThreadArchive.pageSize",
      "deleteThreadArchive.namespace",
      "redactArchivedState.replacement",
    ]);
  });
});

/** A hand-built thread whose archives are all in the state: `compactions` in log order. */
function stateOf(messages: BaseMessage[], compactions: { id: string; originals: [BaseMessage, ArchiveAnchor][]; dropped?: string[] }[]): RestorableState {
  const compactionLog = compactions.map(
    ({ id }): CompactionRecord => ({
      id,
      at: "2025-01-01T00:00:00.000Z",
      strategy: "test",
      status: "compacted",
      tokensBefore: 0,
      tokensAfter: 0,
      messagesBefore: 0,
      messagesAfter: 0,
      removedIds: [],
      replacedIds: [],
      insertedIds: [],
      summaryId: null,
      archive: "state",
    }),
  );
  const compactionArchive = compactions.map(({ id, originals, dropped }) => ({
    compactionId: id,
    messages: originals.map(([message, anchor], position) => ({ position, anchor, message: mapChatMessagesToStoredMessages([message])[0]! })),
    dropped: dropped ?? [],
  }));
  return { messages, compactionLog, compactionArchive };
}

/** `state` with `update` applied as the channel's reducer does (by compaction id). */
const applied = (state: RestorableState, update: { compactionArchive: StateArchivedCompaction[] }): RestorableState => ({
  ...state,
  compactionArchive: state.compactionArchive!.map((archive) => update.compactionArchive.find((entry) => entry.compactionId === archive.compactionId) ?? archive),
});
const restoredText = async (state: RestorableState) => (await restoreHistory(state)).map((message) => `${message.id}:${message.content}`);

describe("what remove takes out, on hand-built logs", () => {
  // k1 removed x (placed before y); k2 then removed y (placed before z).
  const chain = stateOf(
    [user("z")],
    [
      { id: "k1", originals: [[user("x"), { kind: "before", id: "y" }]] },
      { id: "k2", originals: [[user("y"), { kind: "before", id: "z" }]] },
    ],
  );

  it("redacts instead an original that an earlier compaction's originals are placed relative to, so they keep their place", async () => {
    expect(await restoredText(chain)).toEqual(["x:user x", "y:user y", "z:user z"]);
    expect(await restoredText(applied(chain, redactArchivedState(chain, ["y"], { remove: true })))).toEqual(["x:user x", "y:[redacted]", "z:user z"]);
  });

  it("takes out both when both are named: taking out x frees y", async () => {
    expect(await restoredText(applied(chain, redactArchivedState(chain, ["y", "x"], { remove: true })))).toEqual(["z:user z"]);
  });

  it("drops a rewritten copy that stood only for the original taken out", async () => {
    // k1 truncated h in place (the copy keeps its id and the start of its text).
    const state = stateOf([new HumanMessage({ id: "h", content: `my ${SECRET.slice(0, 6)}…` }), user("z")], [{ id: "k1", originals: [[user("h", `my ${SECRET}`), { kind: "replaced-by", id: "h" }]] }]);
    const update = redactArchivedState(state, ["h"], { remove: true });
    expect(update.compactionArchive.map(unpackArchive).map((archive) => [archive.messages.length, archive.dropped])).toEqual([[0, ["h"]]]);
    expect(await restoredText(applied(state, update))).toEqual(["z:user z"]);
  });

  it("keeps a summary that still stands for other originals, and expands it without the one taken out", async () => {
    const summary = new HumanMessage({ id: "h1", content: "summary of h1 and a1" });
    const state = stateOf(
      [summary, user("h2")],
      [
        {
          id: "k1",
          originals: [
            [user("h1", `my ${SECRET}`), { kind: "replaced-by", id: "h1" }],
            [assistant("a1", "noted"), { kind: "replaced-by", id: "h1" }],
          ],
        },
      ],
    );
    expect(await restoredText(applied(state, redactArchivedState(state, ["h1"], { remove: true })))).toEqual(["a1:noted", "h2:user h2"]);
    expect(await restoredText(applied(state, redactArchivedState(state, ["h1"])))).toEqual(["h1:[redacted]", "a1:noted", "h2:user h2"]);
  });

  it("redacts calls stored only in the provider's format, keeping them paired, their arguments emptied on request", async () => {
    const state = stateOf([user("h2")], [{ id: "k1", originals: [] }]);
    const legacyCall = { id: "c1", type: "function", function: { name: "lookup", arguments: JSON.stringify({ q: SECRET }) } };
    const messages = [
      { position: 0, anchor: { kind: "before", id: "h2" } as const, message: { type: "ai", data: { id: "a1", content: SECRET, additional_kwargs: { tool_calls: [legacyCall] } } } },
      { position: 1, anchor: { kind: "before", id: "h2" } as const, message: { type: "tool", data: { id: "t1", content: SECRET, tool_call_id: "c1", name: "lookup", artifact: { raw: SECRET }, response_metadata: { note: SECRET } } } },
    ];
    const legacy = { ...state, compactionArchive: [{ compactionId: "k1", messages, dropped: [] }] } as unknown as RestorableState;
    const redacted = applied(legacy, redactArchivedState(legacy, ["a1", "t1"], { clearToolCallArgs: true }));
    const restored = await restoreHistory(redacted);
    expect(restored.map((message) => [message.id, message.content, (message as AIMessage).tool_calls ?? (message as { tool_call_id?: string }).tool_call_id])).toEqual([
      ["a1", "[redacted]", [expect.objectContaining({ id: "c1", name: "lookup", args: {} })]],
      ["t1", "[redacted]", "c1"],
      ["h2", "user h2", undefined],
    ]);
    expect(text(redacted)).not.toContain(SECRET.slice(4));
  });
});

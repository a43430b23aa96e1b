/**
 * compactingNode and the archive in the store: the write runs while the wrapped node does, and the
 * step returns only once the entry is written; a write that fails leaves the messages as they are.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Command, END, InMemoryStore, MemorySaver, Overwrite, START, Send, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { CompactingNodeError, CompactionArchiveError, compactingNode, toolResultHiding, type CompactionRecord } from "../../src/index.js";
import { assistant, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";
import { GatedStore } from "./support/gated-store.js";
import { ReactState } from "./support/react-graph.js";

type State = { messages: BaseMessage[]; compactionLog: CompactionRecord[]; compactionArchive: unknown[] };

/** Two lookups whose results are long enough to hide (ids h1, a1, t1, a2, t2). */
const history = (): BaseMessage[] => [
  user("h1", "u1"),
  assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]),
  toolResult("t1", "c1", "x ".repeat(400)),
  assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]),
  toolResult("t2", "c2", "y ".repeat(400)),
];
const hiding = () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 });
const configWith = (store: InMemoryStore) => ({ store, configurable: { thread_id: "t" } });
const hidden = (messages: readonly BaseMessage[]) => messages.filter((message) => String(message.content).startsWith("[tool result hidden")).map((message) => message.id);
/** A Command's writes in order: messages as their ids, the log as its records' statuses, anything else as it is. */
const writes = (command: Command) =>
  (command.update as [string, unknown][]).map(([channel, value]) => [
    channel,
    channel === "messages" ? (value as BaseMessage[]).map((message) => message.id) : channel === "compactionLog" ? (value as CompactionRecord[]).map((record) => record.status) : value,
  ]);
const logOf = (command: Command) => (command.update as [string, unknown][]).find(([channel]) => channel === "compactionLog")![1] as CompactionRecord[];

describe("compactingNode with the archive in the store", () => {
  it("runs the node while the archive is written and returns once the entry is in the store", async () => {
    const store = new GatedStore();
    // Released by the node, or (had the step waited for the write before running it) by this timer.
    setTimeout(() => store.release(), 50);
    const seen: [number, number, (string | undefined)[]][] = [];
    const node = compactingNode((state: State) => {
      seen.push([store.putsStarted, store.putsDone, hidden(state.messages)]);
      store.release();
      return { messages: [assistant("a3", "done")] };
    }, hiding());
    const result = (await node({ messages: history(), compactionLog: [], compactionArchive: [] }, configWith(store))) as Command;

    expect(seen).toEqual([[1, 0, ["t1"]]]);
    expect(store.putsDone).toBe(1);
    expect(writes(result)).toEqual([
      ["messages", ["t1"]],
      ["compactionLog", ["compacted"]],
      ["messages", ["a3"]],
    ]);
    const record = logOf(result)[0]!;
    const entry = await store.get(["langchain-compaction", "archive", "t"], record.id);
    expect([record.archive, (entry?.value as { messages: unknown[] } | undefined)?.messages.length]).toEqual(["store", 1]);
  });

  it("keeps the node's answer but not the compaction when the write fails, with a failed record that says why", async () => {
    const store = new GatedStore("disk full");
    store.release();
    const calls: (string | undefined)[][] = [];
    const node = compactingNode((state: State) => {
      calls.push(hidden(state.messages));
      return { messages: [assistant("a3", "done")] };
    }, hiding());
    const result = (await node({ messages: history(), compactionLog: [], compactionArchive: [] }, configWith(store))) as Command;

    // One model call, on the compacted history; the thread gets the answer and keeps t1 as it was.
    expect(calls).toEqual([["t1"]]);
    expect(writes(result)).toEqual([
      ["compactionLog", ["failed"]],
      ["messages", ["a3"]],
    ]);
    expect(logOf(result)[0]!.reason).toMatch(/^compactingNode: could not archive compaction [0-9a-f-]{36}: Error: disk full$/);
  });

  it("runs the node again on the history as it is when the write fails and the node wrote back messages the compaction changed", async () => {
    const store = new GatedStore("disk full");
    store.release();
    const messages = history();
    const seen: BaseMessage[][] = [];
    const node = compactingNode((state: State) => {
      seen.push(state.messages);
      return { messages: [...state.messages, assistant("a3", "done")] };
    }, hiding());
    const result = (await node({ messages, compactionLog: [], compactionArchive: [] }, configWith(store))) as Command;

    expect(seen.map(hidden)).toEqual([["t1"], []]);
    expect(seen[1]).toBe(messages);
    // Only the second run's writes: t1 written back as it was, never as its placeholder.
    const [log, written] = result.update as [[string, CompactionRecord[]], [string, BaseMessage[]]];
    expect([log[0], log[1].map((record) => record.status), written[0]]).toEqual(["compactionLog", ["failed"], "messages"]);
    expect(written[1].map((message) => [message.id, message.content])).toEqual([...messages, assistant("a3", "done")].map((message) => [message.id, message.content]));
  });

  it('fails the step with the archive error when the write fails and onError is "throw"', async () => {
    const store = new GatedStore("disk full");
    store.release();
    let calls = 0;
    const node = compactingNode(
      () => {
        calls++;
        return {};
      },
      hiding(),
      { onError: "throw" },
    );
    const error = await caught(() => node({ messages: history(), compactionLog: [], compactionArchive: [] }, configWith(store)));
    expect([CompactionArchiveError.isInstance(error), (error as Error).message.endsWith(": Error: disk full"), calls]).toEqual([true, true, 1]);
  });

  it("fails with the node's own error when the node throws while the write is pending, whatever the write does", async () => {
    for (const failure of [undefined, "disk full"]) {
      const store = new GatedStore(failure);
      setTimeout(() => store.release(), 50);
      const node = compactingNode(() => {
        store.release();
        throw new Error("model down");
      }, hiding());
      const error = await caught(() => node({ messages: history(), compactionLog: [], compactionArchive: [] }, configWith(store)));
      expect([(error as Error).message, store.putsStarted, store.putsDone]).toEqual(["model down", 1, failure ? 0 : 1]);
    }
  });

  it("ends a step whose node returned what it cannot add to only after the write", async () => {
    const store = new GatedStore();
    setTimeout(() => store.release(), 20);
    const node = compactingNode(() => [assistant("a3", "done")] as never, hiding());
    const error = await caught(() => node({ messages: history(), compactionLog: [], compactionArchive: [] }, configWith(store)));
    expect([CompactingNodeError.isInstance(error), store.putsDone]).toEqual([true, 1]);
  });
});

describe("compactingNode in a graph whose store cannot be written", () => {
  /** The forms in which a node may write compacted messages back (each should be run again on the originals), and one that only adds its answer. */
  const forms: [string, (messages: BaseMessage[]) => unknown, number][] = [
    ["its answer only", () => [assistant("a3", "done")], 1],
    ["the whole history and its answer", (messages) => [...messages, assistant("a3", "done")], 2],
    ["an Overwrite of the list", (messages) => new Overwrite([...messages, assistant("a3", "done")]), 2],
    ["an Overwrite in its wire form", (messages) => ({ __overwrite__: [...messages, assistant("a3", "done")] }), 2],
    ["the history serialized", (messages) => JSON.parse(JSON.stringify([...messages, assistant("a3", "done")])), 2],
  ];
  for (const [name, write, runs] of forms) {
    it(`keeps every original when the node writes ${name}`, async () => {
      const store = new GatedStore("disk full");
      store.release();
      let calls = 0;
      const graph = new StateGraph(ReactState)
        .addNode(
          "model",
          compactingNode((state: State) => {
            calls++;
            return { messages: write(state.messages) } as never;
          }, hiding()),
        )
        .addEdge(START, "model")
        .addEdge("model", END)
        .compile({ store, checkpointer: new MemorySaver() });
      const values = await graph.invoke({ messages: history() }, { configurable: { thread_id: "t" } });

      expect(values.messages.map((message: BaseMessage) => [message.id, message.content])).toEqual([...history(), assistant("a3", "done")].map((message) => [message.id, message.content]));
      expect([values.compactionLog.map((record: CompactionRecord) => record.status), store.putsDone, calls]).toEqual([["failed"], 0, runs]);
    });
  }

  it("runs the node again when it routes with a Send, which would hand the compacted history to another node", async () => {
    const store = new GatedStore("disk full");
    store.release();
    const seen: (string | undefined)[][] = [];
    const graph = new StateGraph(ReactState)
      .addNode(
        "model",
        compactingNode((state: State) => new Command({ goto: [new Send("echo", { messages: state.messages })] }), hiding()),
        { ends: ["echo"] },
      )
      .addNode("echo", (state: State) => {
        seen.push(hidden(state.messages));
        return { messages: state.messages };
      })
      .addEdge(START, "model")
      .addEdge("echo", END)
      .compile({ store, checkpointer: new MemorySaver() });
    const values = await graph.invoke({ messages: history() }, { configurable: { thread_id: "t" } });
    expect([seen, hidden(values.messages)]).toEqual([[[]], []]);
  });
});

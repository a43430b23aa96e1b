/**
 * compactionMiddleware in the model's step (the default, `hook: "wrapModelCall"`): the compaction runs
 * inside the model node's step (no graph step, checkpoint or recursion step of its own), the archive
 * write runs while the model is called, and the update is written with the model's answer.
 */
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { afterEach, describe, expect, it, vi } from "vitest";
import { autoCompaction, compactionMarkerOf, restoreHistory, toolResultHiding, type CompactionRecord } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";
import { GatedStore } from "./support/gated-store.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { scriptedModel } from "./support/scripted.js";

const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });
const hiding = () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 });
const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);
const inModel = () => compactionMiddleware(hiding());

/** A middleware that runs inside the ones listed before it, right before the model: `observe` sees each request. */
const observer = (observe: (messages: BaseMessage[]) => void) =>
  createMiddleware({
    name: "Observer",
    wrapModelCall: (request, handler) => {
      observe(request.messages as BaseMessage[]);
      return handler(request);
    },
  });

async function checkpointsOf(middleware: ReturnType<typeof compactionMiddleware>[]): Promise<number> {
  const checkpointer = new MemorySaver();
  const agent = createAgent({ model: scriptedModel(10), tools: [lookupTool()], middleware, checkpointer });
  await agent.invoke({ messages: [user("h1")] }, thread("t"));
  let count = 0;
  for await (const _checkpoint of checkpointer.list({ configurable: { thread_id: "t" } })) count++;
  return count;
}

describe("compactionMiddleware in the model's step (the default)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("takes no graph step of its own: as many checkpoints as the agent without it, one fewer per model call than beforeModel", async () => {
    const without = await checkpointsOf([]);
    // 11 model calls and 10 tool calls.
    expect({
      inModel: await checkpointsOf([inModel()]),
      named: await checkpointsOf([compactionMiddleware(hiding(), { hook: "wrapModelCall" })]),
      beforeModel: await checkpointsOf([compactionMiddleware(hiding(), { hook: "beforeModel" })]),
    }).toEqual({
      inModel: without,
      named: without,
      beforeModel: without + 11,
    });
  });

  it("autoCompaction by default: the checkpoints of 11 model calls, and the model calls within the default recursionLimit, as without it", async () => {
    const auto = () => [compactionMiddleware(autoCompaction({ contextWindow: 128_000 }))];
    /** Model calls made before the default recursionLimit (25) stops an agent that keeps calling tools. */
    const reachable = async (middleware: ReturnType<typeof compactionMiddleware>[]) => {
      const model = scriptedModel(40);
      const agent = createAgent({ model, tools: [lookupTool()], middleware, checkpointer: new MemorySaver() });
      const error = await agent.invoke({ messages: [user("h1")] }, { configurable: { thread_id: "r" } }).then(() => undefined, (caught: Error) => caught.name);
      return [error, model.calls.length];
    };
    expect({
      checkpoints: [await checkpointsOf([]), await checkpointsOf(auto())],
      reachable: [await reachable([]), await reachable(auto())],
      beforeModel: [await checkpointsOf([compactionMiddleware(autoCompaction({ contextWindow: 128_000 }), { hook: "beforeModel" })]), await reachable([compactionMiddleware(autoCompaction({ contextWindow: 128_000 }), { hook: "beforeModel" })])],
    }).toEqual({
      checkpoints: [23, 23],
      reachable: [
        ["GraphRecursionError", 13],
        ["GraphRecursionError", 13],
      ],
      beforeModel: [34, ["GraphRecursionError", 8]],
    });
  });

  it("persists the compaction with the answer: the model sees the hidden results, the store keeps the originals", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const store = new InMemoryStore();
    const model = scriptedModel(3);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [inModel()], checkpointer: new MemorySaver(), store });
    await agent.invoke({ messages: [user("h1")] }, thread("t1"));
    const { values } = await agent.graph.getState(thread("t1"));
    const restored = await restoreHistory(values, { store, threadId: "t1" });
    expect({
      lastPrompt: hiddenIds(model.calls[3]!.messages as BaseMessage[]),
      state: hiddenIds(values.messages),
      log: values.compactionLog.map((record: CompactionRecord) => [record.status, record.replacedIds, record.archive]),
      restored: restored.filter((message) => message.type === "tool").map((message) => message.content),
    }).toEqual({
      lastPrompt: ["t-c1", "t-c2"],
      state: ["t-c1", "t-c2"],
      log: [
        ["compacted", ["t-c1"], "store"],
        ["compacted", ["t-c2"], "store"],
      ],
      restored: [lookupOutput("c1"), lookupOutput("c2"), lookupOutput("c3")],
    });
    expect(warn).not.toHaveBeenCalled();
  });

  it("calls the model while the archive is written, and the step's checkpoint comes once the entry is in the store", async () => {
    const store = new GatedStore();
    // Had the hook waited for the write before calling the model, this timer would release it.
    const fallback = setTimeout(() => store.release(), 500);
    const seen: [number, number][] = [];
    // What the store had written when each checkpoint was put, and how many records that checkpoint logs.
    const checkpoints: [number, number][] = [];
    class Recording extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        const log = (args[1].channel_values as { compactionLog?: unknown[] }).compactionLog ?? [];
        checkpoints.push([store.putsDone, log.length]);
        return super.put(...args);
      }
    }
    const agent = createAgent({
      model: scriptedModel(2),
      tools: [lookupTool()],
      middleware: [
        inModel(),
        observer(() => {
          seen.push([store.putsStarted, store.putsDone]);
          // The write is let through well after the model has answered.
          if (store.putsStarted > 0) setTimeout(() => store.release(), 30);
        }),
      ],
      checkpointer: new Recording(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("t2"));
    clearTimeout(fallback);
    const { values } = await agent.graph.getState(thread("t2"));
    // Model calls 1 and 2 find nothing to hide; call 3 is made while its put is pending.
    expect({ seen, putsDone: store.putsDone, log: values.compactionLog.map((record: CompactionRecord) => record.archive) }).toEqual({
      seen: [
        [0, 0],
        [0, 0],
        [1, 0],
      ],
      putsDone: 1,
      log: ["store"],
    });
    // The first checkpoint that logs the compaction was put after the entry was written.
    expect(checkpoints.find(([, logged]) => logged > 0)).toEqual([1, 1]);
    const record = values.compactionLog[0] as CompactionRecord;
    expect(await store.get(["langchain-compaction", "archive", "t2"], record.id)).not.toBeNull();
  });

  it("a model call that fails still ends after the archive write", async () => {
    const store = new GatedStore();
    const fallback = setTimeout(() => store.release(), 500);
    const failing = createMiddleware({
      name: "FailingModel",
      wrapModelCall: (request, handler) => {
        if (store.putsStarted === 0) return handler(request);
        setTimeout(() => store.release(), 30);
        throw new Error("model down");
      },
    });
    const agent = createAgent({ model: scriptedModel(2), tools: [lookupTool()], middleware: [inModel(), failing], checkpointer: new MemorySaver(), store });
    const failure = await agent.invoke({ messages: [user("h1")] }, thread("t5")).then(
      () => "no error",
      (error: Error) => [error.message, store.putsDone],
    );
    clearTimeout(fallback);
    expect(failure).toEqual(["model down", 1]);
  });

  it("a failed archive write leaves the state's messages as they were, logs why and keeps the answer", async () => {
    const store = new GatedStore("disk full");
    store.release();
    const model = scriptedModel(2);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [inModel()], checkpointer: new MemorySaver(), store });
    await agent.invoke({ messages: [user("h1")] }, thread("t3"));
    const { values } = await agent.graph.getState(thread("t3"));
    expect({
      lastPrompt: hiddenIds(model.calls[2]!.messages as BaseMessage[]),
      state: hiddenIds(values.messages),
      ids: values.messages.map((message: BaseMessage) => message.id),
      log: values.compactionLog.map((record: CompactionRecord) => [record.status, /disk full/.test(record.reason ?? "")]),
    }).toEqual({
      lastPrompt: ["t-c1"],
      state: [],
      ids: ["h1", "a1", "t-c1", "a2", "t-c2", "final"],
      log: [["failed", true]],
    });
  });

  it("after a middleware that gives the model other messages, the compaction is persisted and applied to those by id", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const model = scriptedModel(3);
    const copying = createMiddleware({ name: "Copying", wrapModelCall: (request, handler) => handler({ ...request, messages: [...request.messages] }) });
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [copying, compactionMiddleware(hiding(), { hook: "wrapModelCall" })], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t4"));
    const { values } = await agent.graph.getState(thread("t4"));
    expect({
      lastPrompt: hiddenIds(model.calls[3]!.messages as BaseMessage[]),
      state: hiddenIds(values.messages),
      log: values.compactionLog.map((record: CompactionRecord) => record.replacedIds),
    }).toEqual({ lastPrompt: ["t-c1", "t-c2"], state: ["t-c1", "t-c2"], log: [["t-c1"], ["t-c2"]] });
    expect(warn).not.toHaveBeenCalled();
  });

  it("a middleware before it whose messages lack one the update changes: they go to the model as they are, the state is compacted", async () => {
    const model = scriptedModel(3);
    // Gives the model the messages under new ids (as LangChain's own edits do when they rebuild a message).
    const renaming = createMiddleware({
      name: "Renaming",
      wrapModelCall: (request, handler) => handler({ ...request, messages: request.messages.map((message) => (ToolMessage.isInstance(message) ? new ToolMessage({ content: message.content, tool_call_id: message.tool_call_id, id: `copy-${message.id}` }) : message)) }),
    });
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [renaming, inModel()], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t6"));
    const { values } = await agent.graph.getState(thread("t6"));
    expect({
      lastPrompt: (model.calls[3]!.messages as BaseMessage[]).filter((message) => message.type === "tool").map((message) => [message.id, message.content === lookupOutput(message.id!.slice("copy-t-".length))]),
      state: hiddenIds(values.messages),
    }).toEqual({
      // t-c1 was hidden in the state by the call before; t-c2, hidden now, is not under its id in the copy.
      lastPrompt: [
        ["copy-t-c1", false],
        ["copy-t-c2", true],
        ["copy-t-c3", true],
      ],
      state: ["t-c1", "t-c2"],
    });
  });
});

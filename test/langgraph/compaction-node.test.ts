import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { END, InMemoryStore, MemorySaver, MessagesAnnotation, MessagesValue, REMOVE_ALL_MESSAGES, START, StateGraph, StateSchema, messagesStateReducer } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import {
  type Compactor,
  CompactionArchiveError,
  CompactionStateSchema,
  InvalidHistoryError,
  InvalidOptionError,
  compactionMarkerOf,
  createCompactionNode,
  fullSummary,
  restoreHistory,
  slidingWindow,
  toolResultHiding,
  type CompactionContext,
  type CompactionResult,
} from "../../src/index.js";
import { CompactionStrategy, archiveNamespace, unpackArchive } from "../../src/extend/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { assistant, ids, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { Failing, scriptedModel } from "./support/scripted.js";
import { reactGraph } from "./support/react-graph.js";
import { EVERY_RUN } from "../support/hiding.js";


/** The history the scripted model and lookup tool produce after `input`. */
const stepsHistory = (steps: number) => Array.from({ length: steps }, (_, index) => [`a${index + 1}`, `t-c${index + 1}`]).flat();
const idsAndContent = (messages: readonly BaseMessage[]) => messages.map((message) => ({ id: message.id, content: message.content }));
const thread = (id: string) => ({ configurable: { thread_id: id } });
/** The compaction channels of a fresh state, for calling a node directly. */
const channels = { compactionLog: [], compactionArchive: [] };


describe("createCompactionNode in a ReAct graph", () => {
  it("runs before every model call: the model sees the older tool results hidden", async () => {
    const model = scriptedModel(3);
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))] });
    await graph.invoke({ messages: [system("s"), user("h1")] });
    const lastPrompt = model.calls[3]!.messages as BaseMessage[];
    expect(lastPrompt.map((message) => [message.id, compactionMarkerOf(message)?.hidden ?? false])).toEqual([
      ["s", false],
      ["h1", false],
      ["a1", false],
      ["t-c1", true],
      ["a2", false],
      ["t-c2", true],
      ["a3", false],
      ["t-c3", false],
    ]);
  });

  it("persists the compacted messages in place, checkpointed, and logs one record per compaction", async () => {
    const checkpointer = new MemorySaver();
    const graph = reactGraph({
      model: scriptedModel(3),
      tools: [lookupTool()],
      compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer,
    });
    await graph.invoke({ messages: [system("s"), user("h1")] }, thread("t1"));
    const { values } = await graph.getState(thread("t1"));
    expect(ids(values.messages)).toEqual(["s", "h1", ...stepsHistory(3), "final"]);
    expect(values.messages.map((message: BaseMessage) => compactionMarkerOf(message)?.hidden ?? false)).toEqual([
      false, false, false, true, false, true, false, false, false,
    ]);
    const record = { id: expect.any(String), at: expect.any(String), tokensBefore: expect.any(Number), tokensAfter: expect.any(Number), durationMs: expect.any(Number) };
    const common = { strategy: "toolResultHiding", status: "compacted", removedIds: [], insertedIds: [], summaryId: null, archive: "state" };
    // Each record has its place in the log; without a store, the archive channel holds the full log.
    const chain = { logged: "state" };
    expect(values.compactionLog).toEqual([
      { ...record, ...common, ...chain, messagesBefore: 6, messagesAfter: 6, replacedIds: ["t-c1"], lastMessageId: "t-c2", sequence: 0, previous: null },
      { ...record, ...common, ...chain, messagesBefore: 8, messagesAfter: 8, replacedIds: ["t-c2"], lastMessageId: "t-c3", sequence: 1, previous: values.compactionLog[0].id },
    ]);
    expect(values.compactionArchive.map((archive: { record?: unknown }) => archive.record)).toEqual(values.compactionLog);
  });

  it("archives the originals in the graph's store under the thread's namespace", async () => {
    const store = new InMemoryStore();
    const graph = reactGraph({
      model: scriptedModel(2),
      tools: [lookupTool()],
      compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
      store,
    });
    await graph.invoke({ messages: [user("h1")] }, thread("thread.1"));
    const { values } = await graph.getState(thread("thread.1"));
    const [record] = values.compactionLog;
    const item = await store.get(archiveNamespace("thread.1"), record.id);
    expect({ archive: record.archive, inState: values.compactionArchive, stored: item?.value }).toEqual({
      archive: "store",
      inState: [],
      stored: {
        compactionId: record.id,
        messages: [{ position: 2, anchor: { kind: "replaced-by", id: "t-c1" }, message: expect.objectContaining({ type: "tool" }) }],
        dropped: [],
        // What the compaction wrote under t-c1 (an app's write there differs), and t-c1's neighbours.
        written: { "t-c1": expect.stringMatching(/^tool:/) },
        neighbours: { "t-c1": ["a1", "a2"] },
      },
    });
    expect((item!.value as { messages: { message: { data: unknown } }[] }).messages[0]!.message.data).toEqual(
      expect.objectContaining({ id: "t-c1", content: lookupOutput("c1"), tool_call_id: "c1", name: "lookup" }),
    );
  });

  it("archives in the state when the graph has no store", async () => {
    const graph = reactGraph({ model: scriptedModel(2), tools: [lookupTool()], compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))] });
    const values = await graph.invoke({ messages: [user("h1")] });
    expect(values.compactionArchive.map(unpackArchive).map((archive) => [archive.compactionId, archive.messages.map((entry) => entry.message.data["id"])])).toEqual([
      [values.compactionLog[0]!.id, ["t-c1"]],
    ]);
    // The originals are one string per compaction in the checkpoint (compressed): no message object to walk.
    expect(values.compactionArchive.map((archive) => Object.keys(archive).sort())).toEqual([["compactionId", "dropped", "encoding", "packed", "record"]]);
  });

  it("restoreHistory gives back the hidden results in place", async () => {
    const store = new InMemoryStore();
    const graph = reactGraph({
      model: scriptedModel(3),
      tools: [lookupTool()],
      compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
      store,
    });
    await graph.invoke({ messages: [user("h1")] }, thread("t1"));
    const { values } = await graph.getState(thread("t1"));
    const restored = await restoreHistory(values, { store, threadId: "t1" });
    expect(idsAndContent(restored)).toEqual([
      { id: "h1", content: "user h1" },
      ...[1, 2, 3].flatMap((n) => [
        { id: `a${n}`, content: `step ${n}` },
        { id: `t-c${n}`, content: lookupOutput(`c${n}`) },
      ]),
      { id: "final", content: "done" },
    ]);
  });

  it("a thread restores its own history and cannot read another thread's archive", async () => {
    const store = new InMemoryStore();
    const run = async (threadId: string) => {
      const graph = reactGraph({
        model: scriptedModel(2).respond(assistant("final2", "again")),
        tools: [lookupTool()],
        compaction: [createCompactionNode(slidingWindow({ keepTurns: 1 }))],
        checkpointer: new MemorySaver(),
        store,
      });
      await graph.invoke({ messages: [user(`${threadId}-h1`)] }, thread(threadId));
      await graph.invoke({ messages: [user(`${threadId}-h2`)] }, thread(threadId));
      return (await graph.getState(thread(threadId))).values;
    };
    // The scripted model reuses message ids across threads on purpose: only the namespace tells them apart.
    const [first, second] = [await run("A"), await run("B")];
    expect(ids(await restoreHistory(second, { store, threadId: "B" }))).toEqual(["B-h1", ...stepsHistory(2), "final", "B-h2", "final2"]);
    expect(CompactionArchiveError.isInstance(await caught(() => restoreHistory(second, { store, threadId: "A" })))).toBe(true);
    expect(ids(await restoreHistory(first, { store, threadId: "A" }))).toEqual(["A-h1", ...stepsHistory(2), "final", "A-h2", "final2"]);
  });
});

describe("createCompactionNode on bad input", () => {
  it("a compactor that throws leaves the messages unchanged, logs a failed record and the graph goes on", async () => {
    const model = scriptedModel(1);
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(new Failing())] });
    const values = await graph.invoke({ messages: [user("h1")] });
    expect({ messages: ids(values.messages), prompts: model.calls.length, log: values.compactionLog }).toEqual({
      messages: ["h1", "a1", "t-c1", "final"],
      prompts: 2,
      log: [
        [1, "h1"],
        [3, "t-c1"],
      ].map(([count, lastMessageId], sequence) => ({
        id: expect.any(String),
        at: expect.any(String),
        strategy: "failing",
        status: "failed",
        tokensBefore: null,
        tokensAfter: null,
        messagesBefore: count,
        messagesAfter: count,
        removedIds: [],
        replacedIds: [],
        insertedIds: [],
        summaryId: null,
        archive: "none",
        reason: "Error: summary model down",
        durationMs: expect.any(Number),
        lastMessageId,
        sequence,
        previous: sequence === 0 ? null : values.compactionLog[0]!.id,
        logged: "state",
      })),
    });
  });

  it("a compactor that breaks its contract (throws at once, or returns no promise) logs a failed record too", async () => {
    const input = { messages: [system("s"), user("h1")], compactionLog: [], compactionArchive: [] };
    const throwsAtOnce: Compactor = {
      compact: () => {
        throw new Error("boom");
      },
    };
    const returnsNothing = { compact: () => undefined } as unknown as Compactor;
    const statuses: string[] = [];
    for (const compactor of [throwsAtOnce, returnsNothing]) {
      // A promise either way (never a synchronous throw from the node), resolved with the record.
      const update = await createCompactionNode(compactor)(input);
      statuses.push(`${update.compactionLog?.[0]?.status}: ${update.compactionLog?.[0]?.reason}`);
    }
    expect(statuses).toEqual(["failed: Error: boom", `failed: CompactorOutputError: createCompactionNode: compactor "(unnamed compactor)" returned undefined, not a CompactionResult ({ messages, status, ... }); nothing was written`]);
  });

  it("with onError: \"throw\" the compactor's error fails the step", async () => {
    const graph = reactGraph({ model: scriptedModel(1), tools: [lookupTool()], compaction: [createCompactionNode(new Failing(), { onError: "throw" })] });
    const error = await caught(() => graph.invoke({ messages: [user("h1")] }));
    expect([error instanceof Error, (error as Error).message]).toEqual([true, "summary model down"]);
  });

  it("with invalidHistory: \"leave\" a history with broken tool pairing is logged as failed (InvalidHistoryError) and left as it is", async () => {
    const graph = reactGraph({
      model: scriptedModel(0),
      tools: [lookupTool()],
      compaction: [createCompactionNode(slidingWindow({ keepTurns: 1 }), { invalidHistory: "leave" })],
    });
    const values = await graph.invoke({ messages: [user("h1"), toolResult("orphan", "c9"), user("h2")] });
    expect({ messages: ids(values.messages), statuses: values.compactionLog.map((record) => record.status) }).toEqual({
      messages: ["h1", "orphan", "h2", "final"],
      statuses: ["failed"],
    });
    expect(values.compactionLog[0]!.reason).toMatch(/^InvalidHistoryError: slidingWindow: the history's tool calls and results do not pair up/);
  });

  it("a strategy's own invalidHistory: \"repair\" (node option \"leave\"): the orphan result leaves the context, is archived in place and the record names the repair", async () => {
    const graph = reactGraph({
      model: scriptedModel(0),
      tools: [lookupTool()],
      compaction: [createCompactionNode(slidingWindow({ keepTurns: 2, invalidHistory: "repair" }), { invalidHistory: "leave" })],
    });
    const values = await graph.invoke({ messages: [user("h1"), toolResult("orphan", "c9"), user("h2")] });
    expect({
      messages: ids(values.messages),
      log: values.compactionLog.map((record) => [record.status, record.removedIds, record.repair?.removedIds, record.repair?.problems.map((problem) => problem.kind)]),
      restored: ids(await restoreHistory(values)),
    }).toEqual({
      messages: ["h1", "h2", "final"],
      log: [["repaired", ["orphan"], ["orphan"], ["orphan-result"]]],
      restored: ["h1", "orphan", "h2", "final"],
    });
  });

  it("tool results with array and image content are hidden and restored exactly", async () => {
    const image = [
      { type: "text", text: "screenshot of the page" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(2000)}` } },
    ];
    const graph = reactGraph({
      model: scriptedModel(2),
      tools: [lookupTool({ c1: image })],
      compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
    });
    const values = await graph.invoke({ messages: [user("h1")] });
    const restored = await restoreHistory(values);
    expect({ hidden: compactionMarkerOf(values.messages[2]!)?.hidden, restored: restored[2]!.content }).toEqual({ hidden: true, restored: image });
  });

  it("messages without ids get ids first and the update replaces the whole history", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 1 }));
    const before = [new HumanMessage("first"), new HumanMessage("second")];
    const update = await node({ messages: before, ...channels });
    const kept = update.messages![1]!;
    expect({
      update: update.messages!.map((message) => (RemoveMessage.isInstance(message) ? `remove:${message.id}` : message.content)),
      keptId: typeof kept.id,
      removedIds: update.compactionLog![0]!.removedIds.length,
      inputIds: ids(before),
    }).toEqual({ update: [`remove:${REMOVE_ALL_MESSAGES}`, "second"], keptId: "string", removedIds: 1, inputIds: [undefined, undefined] });
    expect(ids(messagesStateReducer(before, update.messages!))).toEqual([kept.id]);
  });

  it("messages without ids and a compactor with nothing to do: no update at all", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    expect(await node({ messages: [new HumanMessage("first"), new HumanMessage("second")], ...channels })).toEqual({});
  });

  it("a state whose messages is not an array is rejected with InvalidHistoryError", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 1 }));
    expect(InvalidHistoryError.isInstance(await caught(() => node({ messages: "hello" as unknown as BaseMessage[] })))).toBe(true);
  });

  it("a store that cannot be written leaves the messages unchanged and logs a failed record", async () => {
    class BrokenStore extends InMemoryStore {
      override async put(): Promise<void> {
        throw new Error("disk full");
      }
    }
    const node = createCompactionNode(slidingWindow({ keepTurns: 1 }));
    const update = await node({ messages: [user("h1"), user("h2")], ...channels }, { ...thread("t1"), store: new BrokenStore() });
    expect({ messages: update.messages, log: update.compactionLog!.map((record) => [record.status, record.archive, record.reason]) }).toEqual({
      messages: undefined,
      log: [["failed", "none", expect.stringMatching(/^createCompactionNode: could not archive compaction [0-9a-f-]+: Error: disk full$/)]],
    });
  });

  it("an aborted run rethrows instead of logging a failure", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const node = createCompactionNode(slidingWindow({ keepTurns: 1 }));
    expect(((await caught(() => node({ messages: [user("h1"), user("h2")], ...channels }, { signal: controller.signal }))) as Error).message).toBe("cancelled");
  });

  it("archive: \"store\" without a store is a CompactionArchiveError", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 1 }), { archive: "store" });
    const error = await caught(() => node({ messages: [user("h1")], ...channels }, thread("t1")));
    expect([CompactionArchiveError.isInstance(error), (error as Error).message]).toEqual([
      true,
      'createCompactionNode: archive "store" needs a store (compile the graph with { store }) and a configurable.thread_id; this run has no store',
    ]);
  });

  it("a graph whose state lacks the compaction channels is told so instead of losing the log", async () => {
    const graph = new StateGraph(MessagesAnnotation).addNode("compact", createCompactionNode(slidingWindow({ keepTurns: 1 }))).addEdge(START, "compact").compile();
    const error = await caught(() => graph.invoke({ messages: [user("h1"), user("h2")] }));
    expect([CompactionArchiveError.isInstance(error), (error as Error).message]).toEqual([
      true,
      "createCompactionNode: the graph's state has no `compactionLog` channel; spread CompactionState.spec (or CompactionStateSchema.fields) into it",
    ]);
  });

  it("invalid options are rejected at construction, naming the option", () => {
    const errors = [
      () => createCompactionNode(slidingWindow({ keepTurns: 1 }), { onError: "ignore" as "throw" }),
      () => createCompactionNode({} as CompactionStrategy),
      () => createCompactionNode(slidingWindow({ keepTurns: 1 }), { namespace: ["a.b"] }),
    ].map((build) => {
      try {
        build();
        return "no error";
      } catch (error) {
        return InvalidOptionError.isInstance(error) ? error.option : String(error);
      }
    });
    expect(errors).toEqual(["onError", "compactor", "namespace.0"]);
  });
});

describe("createCompactionNode wiring", () => {
  it("the compactor runs with the node's config: its calls nest under the node's run", async () => {
    const runs: { name: string; id: string; parent: string | undefined }[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override async handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string, _tags?: string[], _metadata?: unknown, _runType?: string, runName?: string) {
        runs.push({ name: runName ?? "", id: runId, parent: parentRunId });
      }
    }
    class CallsASummaryChain extends CompactionStrategy {
      readonly strategyName = "callsASummaryChain";
      constructor() {
        super({});
      }
      protected async run({ context }: PreparedHistory): Promise<StrategyOutcome> {
        await RunnableLambda.from((text: string) => text).withConfig({ runName: "summaryCall" }).invoke("x", context.config);
        return { status: "noop" };
      }
    }
    const graph = reactGraph({ model: scriptedModel(0), tools: [lookupTool()], compaction: [createCompactionNode(new CallsASummaryChain())] });
    await graph.invoke({ messages: [user("h1")] }, { callbacks: [new Recorder()] });
    const node = runs.find((run) => run.name === "compact0");
    const summary = runs.find((run) => run.name === "summaryCall");
    expect(summary?.parent).toBe(node?.id);
  });

  it("the compactor gets the run's thread config and abort signal", async () => {
    const contexts: CompactionContext[] = [];
    const recording = {
      strategyName: "recording",
      async compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
        contexts.push(context);
        const length = messages.length;
        return { messages: [...messages], status: "noop", strategy: "recording", tokensBefore: 1, tokensAfter: 1, messagesBefore: length, messagesAfter: length, removed: [], replaced: [] };
      },
    };
    const graph = reactGraph({ model: scriptedModel(0), tools: [lookupTool()], compaction: [createCompactionNode(recording)], checkpointer: new MemorySaver() });
    await graph.invoke({ messages: [user("h1")] }, { ...thread("t7"), signal: new AbortController().signal });
    expect(contexts.map((context) => [context.config?.configurable?.["thread_id"], context.signal instanceof AbortSignal])).toEqual([["t7", true]]);
  });

  it("logs a summary (status \"summarized\") in a StateSchema (zod) graph", async () => {
    const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
    const graph = new StateGraph(State)
      .addNode("compact", createCompactionNode(fullSummary({ keepRecent: 1 })))
      .addEdge(START, "compact")
      .addEdge("compact", END)
      .compile();
    const values = await graph.invoke({ messages: [user("h1", "read ".repeat(300)), assistant("a1", "done ".repeat(300)), user("h2")] });
    expect({ messages: ids(values.messages), log: values.compactionLog.map((record) => [record.status, record.removedIds, record.summaryId]) }).toEqual({
      // The summary takes the assistant message's id: the user's stays the user's.
      messages: ["a1", "h2"],
      log: [["summarized", ["h1", "a1"], "a1"]],
    });
  });

  it("works in a StateSchema (zod) graph with MessagesValue and CompactionStateSchema", async () => {
    const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
    const graph = new StateGraph(State)
      .addNode("compact", createCompactionNode(slidingWindow({ keepTurns: 1 })))
      .addEdge(START, "compact")
      .addEdge("compact", END)
      .compile();
    const values = await graph.invoke({ messages: [user("h1"), assistant("a1", "one"), user("h2")] });
    expect({ messages: ids(values.messages), log: values.compactionLog.map((record) => record.removedIds), restored: ids(await restoreHistory(values)) }).toEqual({
      messages: ["h2"],
      log: [["h1", "a1"]],
      restored: ["h1", "a1", "h2"],
    });
  });
});

import { mapChatMessagesToStoredMessages, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, createCompactionNode, restoreHistory, slidingWindow, type CompactionRecord } from "../../src/index.js";
import { CompactionStrategy } from "../../src/extend/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import type { StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { wireProblems } from "../support/wire/index.js";
import { assistant, ids, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupTool } from "./support/lookup-tool.js";
import { reactGraph } from "./support/react-graph.js";

const answering = () => fakeModel().respond(assistant("final", "done"));
const thread = (id: string) => ({ configurable: { thread_id: id } });
const channels = { compactionLog: [], compactionArchive: [] };
/** What a model was given: id, type, content and the calls it lists. */
const prompt = (messages: readonly BaseMessage[]) =>
  messages.map((message) => [message.id, message.type, message.content, ...(message.type === "ai" ? [(message as AIMessage).tool_calls?.map((call) => call.id)] : [])]);
const stored = (messages: readonly BaseMessage[]) => mapChatMessagesToStoredMessages([...messages]);

/** An orphan result (c9 was never called) and a call never answered (c0). */
const orphanAndUnanswered = () => [user("h1"), toolResult("orphan", "c9"), assistant("a0", "let me check", [{ id: "c0", name: "lookup" }]), user("h2")];
/** A human message between a call and its result. */
const misplaced = () => [user("h1"), assistant("a1", "looking", [{ id: "c1", name: "lookup" }]), user("h2"), toolResult("t1", "c1")];

/** The record fields that describe what changed. */
const changes = (record: CompactionRecord) => ({
  status: record.status,
  removedIds: record.removedIds,
  replacedIds: record.replacedIds,
  messagesBefore: record.messagesBefore,
  messagesAfter: record.messagesAfter,
  archive: record.archive,
  reason: record.reason,
  repair: record.repair && { ...record.repair, problems: record.repair.problems.map((problem) => [problem.kind, problem.index]) },
});

const orphanRepairRecord = {
  status: "repaired",
  removedIds: ["orphan"],
  replacedIds: ["a0"],
  messagesBefore: 4,
  messagesAfter: 3,
  archive: "state",
  reason: "2 user turn(s), within keepTurns 5",
  repair: {
    problems: [
      ["orphan-result", 1],
      ["unanswered-call", 2],
    ],
    removedIds: ["orphan"],
    replacedIds: ["a0"],
    movedIds: [],
  },
};

const misplacedRecord = {
  status: "repaired",
  removedIds: [],
  replacedIds: [],
  messagesBefore: 4,
  messagesAfter: 4,
  archive: "state",
  reason: "2 user turn(s), within keepTurns 5",
  repair: { problems: [["misplaced-result", 3]], removedIds: [], replacedIds: [], movedIds: ["t1"] },
};

class Throwing extends CompactionStrategy {
  readonly strategyName = "throwing";
  constructor() {
    super({});
  }
  protected async run(): Promise<StrategyOutcome> {
    throw new Error("summary model down");
  }
}

describe("createCompactionNode on a history with broken tool pairing", () => {
  it("repairs by default: the model gets a valid history, the record names the repair, restoreHistory gives the stored history", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }))] });
    const input = orphanAndUnanswered();
    const values = await graph.invoke({ messages: input });
    const received = model.calls[0]!.messages as BaseMessage[];
    expect({
      received: prompt(received),
      problems: wireProblems(received),
      log: values.compactionLog.map(changes),
      restored: stored(await restoreHistory(values)),
    }).toEqual({
      received: [
        ["h1", "human", "user h1"],
        ["a0", "ai", "let me check", []],
        ["h2", "human", "user h2"],
      ],
      problems: [],
      log: [orphanRepairRecord],
      restored: stored([...input, values.messages.at(-1)!]),
    });
  });

  it("a compactor that changes something works on the repaired history; both show in one record", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 1 }))] });
    const input = orphanAndUnanswered();
    const values = await graph.invoke({ messages: input });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      log: values.compactionLog.map((record) => [record.status, record.removedIds, record.replacedIds, record.repair?.removedIds, record.repair?.replacedIds]),
      restored: ids(await restoreHistory(values)),
    }).toEqual({
      received: ["h2"],
      log: [["truncated", ["h1", "orphan", "a0"], [], ["orphan"], ["a0"]]],
      restored: ["h1", "orphan", "a0", "h2", "final"],
    });
  });

  it("a misplaced result is moved after its call; the whole history is replaced and restoreHistory gives the stored order", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }))] });
    const values = await graph.invoke({ messages: misplaced() });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      problems: wireProblems(model.calls[0]!.messages as BaseMessage[]),
      state: ids(values.messages),
      log: values.compactionLog.map(changes),
      restored: ids(await restoreHistory(values)),
    }).toEqual({
      received: ["h1", "a1", "t1", "h2"],
      problems: [],
      state: ["h1", "a1", "t1", "h2", "final"],
      log: [misplacedRecord],
      restored: ["h1", "a1", "h2", "t1", "final"],
    });
  });

  it("the update for a moved result is REMOVE_ALL_MESSAGES and the repaired history", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    const update = await node({ messages: misplaced(), ...channels });
    expect(update.messages!.map((message) => (message.type === "remove" ? `remove:${message.id}` : message.id))).toEqual([
      `remove:${REMOVE_ALL_MESSAGES}`,
      "h1",
      "a1",
      "t1",
      "h2",
    ]);
  });

  it("a compactor that throws still leaves the history repaired, with a repaired record giving the reason", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(new Throwing())] });
    const values = await graph.invoke({ messages: orphanAndUnanswered() });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      log: values.compactionLog.map((record) => ({ ...changes(record), tokens: [record.tokensBefore, record.tokensAfter] })),
    }).toEqual({
      received: ["h1", "a0", "h2"],
      log: [
        { ...orphanRepairRecord, reason: "Error: summary model down", tokens: [null, null] },
      ],
    });
  });

  it("with onError: \"throw\" a compactor that throws fails the step and changes nothing", async () => {
    const node = createCompactionNode(new Throwing(), { onError: "throw" });
    expect(((await caught(() => node({ messages: orphanAndUnanswered(), ...channels }))) as Error).message).toBe("summary model down");
  });

  it("archives what the repair removed in the store, and restoreHistory reads it back", async () => {
    const store = new InMemoryStore();
    const graph = reactGraph({
      model: answering(),
      tools: [lookupTool()],
      compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }))],
      checkpointer: new MemorySaver(),
      store,
    });
    const input = orphanAndUnanswered();
    await graph.invoke({ messages: input }, thread("t1"));
    const { values } = await graph.getState(thread("t1"));
    expect({
      archive: values.compactionLog.map((record: CompactionRecord) => record.archive),
      restored: stored(await restoreHistory(values, { store, threadId: "t1" })),
    }).toEqual({ archive: ["store"], restored: stored([...input, values.messages.at(-1)!]) });
  });

  it("after a moved result and later compactions, restoreHistory gives every message in stored order", async () => {
    const model = answering().respond(assistant("final2", "again"));
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 1 }))], checkpointer: new MemorySaver() });
    await graph.invoke({ messages: misplaced() }, thread("t2"));
    await graph.invoke({ messages: [user("h3")] }, thread("t2"));
    const { values } = await graph.getState(thread("t2"));
    expect({
      prompts: model.calls.map((call) => ids(call.messages as BaseMessage[])),
      log: values.compactionLog.map((record: CompactionRecord) => [record.status, record.removedIds, record.repair?.movedIds]),
      restored: ids(await restoreHistory(values)),
    }).toEqual({
      prompts: [["h2"], ["h3"]],
      log: [
        ["truncated", ["h1", "a1", "t1"], ["t1"]],
        ["truncated", ["h2", "final"], undefined],
      ],
      restored: ["h1", "a1", "h2", "t1", "final", "h3", "final2"],
    });
  });

  it("a repaired record and its archive survive a SQLite checkpointer", async () => {
    const checkpointer = SqliteSaver.fromConnString(":memory:");
    try {
      const graph = reactGraph({ model: answering(), tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }))], checkpointer });
      const input = orphanAndUnanswered();
      await graph.invoke({ messages: input }, thread("sqlite"));
      const { values } = await graph.getState(thread("sqlite"));
      expect({ log: values.compactionLog.map(changes), restored: stored(await restoreHistory(values)) }).toEqual({
        log: [orphanRepairRecord],
        restored: stored([...input, values.messages.at(-1)!]),
      });
    } finally {
      checkpointer.db.close();
    }
  });

  it("with invalidHistory: \"leave\" the strategy's InvalidHistoryError is logged as failed and the history goes on unchanged", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }), { invalidHistory: "leave" })] });
    const values = await graph.invoke({ messages: orphanAndUnanswered() });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      state: ids(values.messages),
      log: values.compactionLog.map((record) => [record.status, record.archive, record.repair]),
    }).toEqual({
      received: ["h1", "orphan", "a0", "h2"],
      state: ["h1", "orphan", "a0", "h2", "final"],
      log: [["failed", "none", undefined]],
    });
    expect(values.compactionLog[0]!.reason).toMatch(/^InvalidHistoryError: slidingWindow: the history's tool calls and results do not pair up \(2 problem\(s\)/);
  });

  it("leaves the calls of a last assistant message pending (the tools are about to answer them) and repairs the rest", async () => {
    const pending = assistant("a2", "", [{ id: "c2", name: "lookup" }]);
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    const update = await node({ messages: [user("h1"), toolResult("orphan", "c9"), user("h2"), pending], ...channels });
    expect({
      update: update.messages!.map((message) => (message.type === "remove" ? `remove:${message.id}` : message.id)),
      repair: update.compactionLog!.map((record) => record.repair?.problems.map((problem) => [problem.kind, problem.index])),
    }).toEqual({ update: ["remove:orphan"], repair: [[["orphan-result", 1]]] });
  });

  it("a lone surrogate is replaced by U+FFFD for the model, and restoreHistory gives the original text", async () => {
    const model = answering();
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [createCompactionNode(slidingWindow({ keepTurns: 5 }))] });
    const values = await graph.invoke({ messages: [user("h1", "cut \uD83D here")] });
    expect({
      received: prompt(model.calls[0]!.messages as BaseMessage[]),
      problems: wireProblems(model.calls[0]!.messages as BaseMessage[]),
      log: values.compactionLog.map((record) => [record.status, record.replacedIds, record.repair?.problems.map((problem) => [problem.kind, problem.index])]),
      restored: (await restoreHistory(values)).map((message) => message.content),
    }).toEqual({
      received: [["h1", "human", "cut \uFFFD here"]],
      problems: [],
      log: [["repaired", ["h1"], [["lone-surrogate", 0]]]],
      restored: ["cut \uD83D here", "done"],
    });
  });

  it("a valid history gives no repair and a no-op gives no update", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    expect(await node({ messages: [user("h1"), assistant("a1", "hi")], ...channels })).toEqual({});
  });

  it("rejects an invalid invalidHistory option, naming it", async () => {
    const error = await caught(() => createCompactionNode(slidingWindow({ keepTurns: 5 }), { invalidHistory: "throw" as "leave" }));
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).option]).toEqual([true, "invalidHistory"]);
  });
});

describe("compactionMiddleware on a history with broken tool pairing", () => {
  it("repairs by default: the model gets a valid history, the record names the repair, restoreHistory gives the stored history", async () => {
    const model = answering();
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(slidingWindow({ keepTurns: 5 }))], checkpointer: new MemorySaver() });
    const input = orphanAndUnanswered();
    await agent.invoke({ messages: input }, thread("m1"));
    const { values } = await agent.graph.getState(thread("m1"));
    const received = model.calls[0]!.messages as BaseMessage[];
    expect({
      received: prompt(received),
      problems: wireProblems(received),
      log: values.compactionLog.map(changes),
      restored: stored(await restoreHistory(values)),
    }).toEqual({
      received: [
        ["h1", "human", "user h1"],
        ["a0", "ai", "let me check", []],
        ["h2", "human", "user h2"],
      ],
      problems: [],
      log: [orphanRepairRecord],
      restored: stored([...input, values.messages.at(-1)!]),
    });
  });

  it("a misplaced result: the model gets [h1, a1, t1, h2], the record moved t1, restoreHistory gives the stored order", async () => {
    const model = answering();
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      middleware: [compactionMiddleware(slidingWindow({ keepTurns: 5 }), { hook: "beforeModel" })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: misplaced() }, thread("m2"));
    const { values } = await agent.graph.getState(thread("m2"));
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      problems: wireProblems(model.calls[0]!.messages as BaseMessage[]),
      state: ids(values.messages),
      log: values.compactionLog.map(changes),
      restored: ids(await restoreHistory(values)),
    }).toEqual({
      received: ["h1", "a1", "t1", "h2"],
      problems: [],
      state: ["h1", "a1", "t1", "h2", "final"],
      log: [misplacedRecord],
      restored: ["h1", "a1", "h2", "t1", "final"],
    });
  });

  it("right before the model, the calls of a last assistant message are repaired too (the model would reject them)", async () => {
    const middleware = compactionMiddleware(slidingWindow({ keepTurns: 5 }), { hook: "beforeModel" });
    const beforeModel = middleware.beforeModel as (state: unknown, runtime: unknown) => Promise<{ messages: BaseMessage[]; compactionLog: CompactionRecord[] }>;
    const update = await beforeModel(
      { messages: [user("h1"), assistant("a1", "checking", [{ id: "c1", name: "lookup" }])], compactionLog: [], compactionArchive: [] },
      {},
    );
    expect({
      update: prompt(update.messages),
      repair: update.compactionLog.map((record) => record.repair?.problems.map((problem) => [problem.kind, problem.index])),
    }).toEqual({ update: [["a1", "ai", "checking", []]], repair: [[["unanswered-call", 1]]] });
  });

  it("with invalidHistory: \"leave\" the history goes on unchanged and a failed record is logged", async () => {
    const model = answering();
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(slidingWindow({ keepTurns: 5 }), { invalidHistory: "leave" })] });
    const values = await agent.invoke({ messages: orphanAndUnanswered() });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      log: values.compactionLog.map((record: CompactionRecord) => [record.status, record.archive, record.repair]),
    }).toEqual({ received: ["h1", "orphan", "a0", "h2"], log: [["failed", "none", undefined]] });
  });
});

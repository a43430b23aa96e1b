/**
 * compactingNode: the model node with compaction in front of it, in one graph step. Each run is
 * compared with the same graph using a separate compaction node before the model.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Command, END, InMemoryStore, MemorySaver, MessagesValue, START, StateGraph, StateSchema, isCommand, type Runtime } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import {
  CompactingNodeError,
  CompactionStateSchema,
  InvalidOptionError,
  compactingNode,
  createCompactionNode,
  fullSummary,
  restoreHistory,
  hardTruncate,
  toolResultHiding,
  type Compactor,
} from "../../src/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";
import { lookupTool } from "./support/lookup-tool.js";
import { Failing, scriptedModel } from "./support/scripted.js";
import { ReactState, reactGraph, type ReactStateValue } from "./support/react-graph.js";


/** The ReAct graph with `compactor` inside the model node: START -> model <-> tools. */
function inlineGraph(model: ReturnType<typeof scriptedModel>, compactor: Compactor, parts: { checkpointer?: MemorySaver; store?: InMemoryStore } = {}) {
  const callModel = async (state: ReactStateValue, config: object) => ({ messages: [await model.invoke(state.messages, config)] });
  return new StateGraph(ReactState)
    .addNode("model", compactingNode(callModel, compactor))
    .addNode("tools", new ToolNode([lookupTool()]))
    .addEdge(START, "model")
    .addConditionalEdges("model", toolsCondition, ["tools", END])
    .addEdge("tools", "model")
    .compile({ ...(parts.checkpointer ? { checkpointer: parts.checkpointer } : {}), ...(parts.store ? { store: parts.store } : {}) });
}

const view = (messages: readonly BaseMessage[]) => messages.map((message) => [message.id, message.getType(), message.content]);
const promptsOf = (model: ReturnType<typeof scriptedModel>) => model.calls.map((call) => view(call.messages as BaseMessage[]));
const logView = (log: ReactStateValue["compactionLog"]) => log.map((record) => [record.status, record.strategy, record.removedIds, record.replacedIds, record.archive]);
const input = { messages: [system("s"), user("h1")] };


describe("compactingNode in a ReAct graph", () => {
  for (const [name, make, log] of [
    [
      "hiding (messages rewritten in place)",
      () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }),
      [1, 2, 3].map((n) => ["compacted", "toolResultHiding", [], [`t-c${n}`], "store"]),
    ],
    ["a hard limit (messages removed)", () => hardTruncate({ maxTokens: 400, keepRecent: 2 }), [["truncated", "hardTruncate", ["a1", "t-c1", "a2", "t-c2"], [], "store"]]],
  ] as const) {
    it(`with ${name}: the model sees and the thread keeps what a separate compaction node gives, with one checkpoint fewer per model call`, async () => {
      const separateModel = scriptedModel(4);
      const separateSaver = new MemorySaver();
      const separate = reactGraph({ model: separateModel, tools: [lookupTool()], compaction: [createCompactionNode(make())], checkpointer: separateSaver, store: new InMemoryStore() });
      const inlineModel = scriptedModel(4);
      const inlineSaver = new MemorySaver();
      const store = new InMemoryStore();
      const inline = inlineGraph(inlineModel, make(), { checkpointer: inlineSaver, store });
      const config = { configurable: { thread_id: "t" } };
      const expected = await separate.invoke(input, config);
      const actual = await inline.invoke(input, config);

      expect(promptsOf(inlineModel)).toEqual(promptsOf(separateModel));
      expect(view(actual.messages)).toEqual(view(expected.messages));
      expect(logView(actual.compactionLog)).toEqual(logView(expected.compactionLog));
      expect(logView(actual.compactionLog)).toEqual(log);
      const checkpoints = async (graph: typeof separate | typeof inline) => {
        let count = 0;
        for await (const _ of graph.getStateHistory(config)) count++;
        return count;
      };
      // Five model calls: the separate node's five steps are gone.
      expect((await checkpoints(separate)) - (await checkpoints(inline))).toBe(5);
      // Lossless: the archive in the store gives the whole history back.
      const restored = await restoreHistory((await inline.getState(config)).values, { store, threadId: "t" });
      expect(restored.map((message) => message.id)).toEqual(["s", "h1", "a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "a4", "t-c4", "final"].map((id, index) => (index < 2 ? expect.any(String) : id)));
    });
  }

  it("writes what two steps would when the compaction replaces the whole list and the node returns the whole history too", async () => {
    // A user message between a call and its result: the repair moves the result next to its call, in a whole-list update.
    const broken = [user("h1", "read it"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), user("h2", "and hurry"), toolResult("t1", "c1", "x")];
    // A node that returns the whole history plus its answer (the reducer matches the ids it already has).
    const wholeHistory = async (state: ReactStateValue) => ({ messages: [...state.messages, assistant("answer", "done")] });
    const config = { configurable: { thread_id: "t" } };
    const separate = new StateGraph(ReactState)
      .addNode("compact", createCompactionNode(toolResultHiding({ keepRecentGroups: 5 })))
      .addNode("model", wholeHistory)
      .addEdge(START, "compact")
      .addEdge("compact", "model")
      .addEdge("model", END)
      .compile({ checkpointer: new MemorySaver() });
    const inline = new StateGraph(ReactState)
      .addNode("model", compactingNode(wholeHistory, toolResultHiding({ keepRecentGroups: 5 })))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile({ checkpointer: new MemorySaver() });
    const expected = await separate.invoke({ messages: broken }, config);
    const actual = await inline.invoke({ messages: broken }, config);
    expect(view(expected.messages).map(([id]) => id)).toEqual(["h1", "a1", "t1", "h2", "answer"]);
    expect(view(actual.messages)).toEqual(view(expected.messages));
    expect(actual.compactionLog.map((record) => record.status)).toEqual(["repaired"]);
  });

  it("keeps a Command's routing in a graph, its update applied after the compaction's", async () => {
    const model = scriptedModel(3);
    const routed = async (state: ReactStateValue, config: object) => {
      const reply = await model.invoke(state.messages, config);
      return new Command({ goto: (reply.tool_calls?.length ?? 0) > 0 ? "tools" : END, update: { messages: [reply] } });
    };
    const graph = new StateGraph(ReactState)
      .addNode("model", compactingNode(routed, toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 })), { ends: ["tools", END] })
      .addNode("tools", new ToolNode([lookupTool()]))
      .addEdge(START, "model")
      .addEdge("tools", "model")
      .compile();
    const { messages, compactionLog } = await graph.invoke(input);
    expect(messages.slice(2).map((message) => message.id)).toEqual(["a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "final"]);
    expect(messages.filter((message) => String(message.content).startsWith("[tool result hidden")).map((message) => message.id)).toEqual(["t-c1", "t-c2"]);
    expect(compactionLog.map((record) => record.replacedIds)).toEqual([["t-c1"], ["t-c2"]]);
  });

  it("works in a StateSchema (zod) graph, around a node typed with LangGraph's Runtime", async () => {
    const State = new StateSchema({ messages: MessagesValue, ...CompactionStateSchema.fields });
    const answer = async (state: { messages: BaseMessage[] }, runtime: Runtime) => ({
      messages: [assistant("answer", `${state.messages.map((message) => message.id).join(",")} (store: ${runtime.store ? "yes" : "no"})`)],
    });
    const graph = new StateGraph(State)
      .addNode("model", compactingNode(answer, fullSummary({ keepRecent: 1 })))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile({ store: new InMemoryStore() });
    const values = await graph.invoke({ messages: [user("h1", "read ".repeat(300)), assistant("a1", "done ".repeat(300)), user("h2")] });
    // The model saw the summary (under h1's id) and h2; the thread keeps them and the answer.
    expect([values.messages.map((message) => message.id), values.messages.at(-1)!.content]).toEqual([["a1", "h2", "answer"], "a1,h2 (store: yes)"]);
    expect(values.compactionLog.map((record) => [record.status, record.removedIds, record.summaryId])).toEqual([["summarized", ["h1", "a1"], "a1"]]);
  });

  it("returns the node's own update, as it is, when nothing is compacted", async () => {
    const update = { messages: [assistant("x", "hi")] };
    const node = compactingNode(() => update, toolResultHiding({ keepRecentGroups: 5 }));
    const state = { messages: [user("h1", "u1")], compactionLog: [], compactionArchive: [] };
    expect(await node(state, {})).toBe(update);
  });

  it("gives the node a copy of the state with the compacted messages, never changes the state, and writes the compaction's update first", async () => {
    const messages = history();
    const state = { messages, compactionLog: [], compactionArchive: [] };
    const before = messages.map((message) => JSON.stringify(message.toDict()));
    let seen: BaseMessage[] = [];
    const node = compactingNode((given: typeof state) => {
      seen = given.messages;
      return { messages: assistant("a3", "done") };
    }, toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const result = await node(state, {});

    expect(messages.map((message) => JSON.stringify(message.toDict()))).toEqual(before);
    expect(state.messages).toBe(messages);
    expect(seen.map((message) => message.id)).toEqual(["h1", "a1", "t1", "a2", "t2"]);
    expect(String(seen[2]!.content)).toMatch(/^\[tool result hidden/);
    expect(seen[4]!.content).toBe("y ".repeat(400));
    // One Command: the compaction's writes (t1 rewritten under its id, the log record), then the node's message.
    expect(isCommand(result)).toBe(true);
    expect(writes(result as Command)).toEqual([
      ["messages", ["t1"]],
      ["compactionLog", 1],
      ["compactionArchive", 1],
      ["messages", ["a3"]],
    ]);
  });

  it("gives ids to a history without them in the update, never to the state's own messages", async () => {
    const messages = history();
    for (const message of messages) message.id = undefined;
    let seen: BaseMessage[] = [];
    const node = compactingNode((state: { messages: BaseMessage[]; compactionLog: unknown[]; compactionArchive: unknown[] }) => {
      seen = state.messages;
      return {};
    }, toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const result = (await node({ messages, compactionLog: [], compactionArchive: [] }, {})) as Command;
    expect(messages.map((message) => message.id)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen.map((message) => typeof message.id)).toEqual(["string", "string", "string", "string", "string"]);
    expect(String(seen[2]!.content)).toMatch(/^\[tool result hidden/);
    // The whole list, as the compaction node writes it for messages without ids.
    const written = (result.update as [string, BaseMessage[]][])[0]![1];
    expect(written.map((message) => message.getType())).toEqual(["remove", "human", "ai", "tool", "ai", "tool"]);
    expect(written.slice(1)).toEqual(seen);
  });

  it("keeps a Command's routing and puts its update after the compaction's", async () => {
    const node = compactingNode(() => new Command({ goto: "elsewhere", update: { messages: [assistant("a3", "done")], extra: 1 } }), toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const result = (await node({ messages: history(), compactionLog: [], compactionArchive: [] }, {})) as Command;
    expect(result.goto).toEqual(["elsewhere"]);
    expect(writes(result)).toEqual([
      ["messages", ["t1"]],
      ["compactionLog", 1],
      ["compactionArchive", 1],
      ["messages", ["a3"]],
      ["extra", 1],
    ]);
  });

  it("logs a failing compactor and runs the node on the history as it was; with onError: \"throw\" the node does not run", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "hello")];
    let seen: BaseMessage[] | undefined;
    const answer = (state: { messages: BaseMessage[]; compactionLog: unknown[]; compactionArchive: unknown[] }) => {
      seen = state.messages;
      return { messages: [assistant("a2", "again")] };
    };
    const result = (await compactingNode(answer, new Failing())({ messages, compactionLog: [], compactionArchive: [] }, {})) as Command;
    expect(seen).toBe(messages);
    const log = (result.update as [string, unknown][]).find(([channel]) => channel === "compactionLog")![1] as { status: string; reason?: string }[];
    // Without a store, the archive channel holds the full log: the record goes there too.
    expect([writes(result).map(([channel]) => channel), log.map((record) => [record.status, record.reason])]).toEqual([
      ["compactionLog", "compactionArchive", "messages"],
      [["failed", "Error: summary model down"]],
    ]);

    seen = undefined;
    const error = await caught(() => compactingNode(answer, new Failing(), { onError: "throw" })({ messages, compactionLog: [], compactionArchive: [] }, {}));
    expect([(error as Error).message, seen]).toEqual(["summary model down", undefined]);
  });

  it("refuses a return value it cannot add to, with a typed error that names it, on every step", async () => {
    const compacting = { messages: history(), compactionLog: [], compactionArchive: [] };
    const idle = { messages: [user("h1", "u1")], compactionLog: [], compactionArchive: [] };
    const hiding = () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 });
    const returning = (value: unknown) => compactingNode(() => value as never, hiding());
    expect(await caught(() => compactingNode(undefined as never, hiding()))).toBeInstanceOf(InvalidOptionError);
    for (const state of [compacting, idle]) {
      const errors = await Promise.all([
        caught(() => returning([assistant("x", "y")])(state, {})),
        caught(() => returning(assistant("x", "y"))(state, {})),
        caught(() => returning("text")(state, {})),
        caught(() => returning(new Command({ graph: Command.PARENT, update: {} }))(state, {})),
      ]);
      expect(errors.map((error) => [CompactingNodeError.isInstance(error), (error as Error).message])).toEqual([
        [true, "compactingNode: the node returned an array, not a state update object or a Command"],
        [true, "compactingNode: the node returned a message, not a state update object or a Command"],
        [true, "compactingNode: the node returned string, not a state update object or a Command"],
        [true, "compactingNode: the node returned a Command for another graph; the compaction's update belongs to this one"],
      ]);
    }
  });
});

/** Two lookups whose results are long enough to hide (ids h1, a1, t1, a2, t2). */
function history(): BaseMessage[] {
  return [user("h1", "u1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1", "x ".repeat(400)), assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]), toolResult("t2", "c2", "y ".repeat(400))];
}

/** A Command's writes in order: messages as their ids, the log and the archive as their lengths, anything else as it is. */
function writes(command: Command): [string, unknown][] {
  return (command.update as [string, unknown][]).map(([channel, value]) => [
    channel,
    channel === "messages" ? (Array.isArray(value) ? value : [value]).map((message: BaseMessage) => message.id) : channel === "compactionLog" || channel === "compactionArchive" ? (value as unknown[]).length : value,
  ]);
}

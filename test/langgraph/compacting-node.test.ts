/**
 * compactingNode: the model node with compaction in front of it, in one graph step. Each run is
 * compared with the same graph using a separate compaction node before the model.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Command, END, InMemoryStore, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import {
  CompactingNodeError,
  InvalidOptionError,
  compactingNode,
  createCompactionNode,
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

  it("returns the node's own update, as it is, when nothing is compacted", async () => {
    const update = { messages: [assistant("x", "hi")] };
    const node = compactingNode(() => update, toolResultHiding({ keepRecentGroups: 5 }));
    const state = { messages: [user("h1", "u1")], compactionLog: [], compactionArchive: [] };
    expect(await node(state)).toBe(update);
  });

  it("gives the node a copy of the state with the compacted messages, and never changes the state it was given", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1", "x ".repeat(400)), assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]), toolResult("t2", "c2", "y ".repeat(400))];
    const state = { messages, compactionLog: [], compactionArchive: [] };
    const before = view(messages);
    let seen: BaseMessage[] = [];
    const node = compactingNode((given: typeof state) => {
      seen = given.messages;
      return { messages: assistant("a3", "done") };
    }, toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const update = (await node(state)) as { messages: BaseMessage[]; compactionLog: unknown[] };

    expect(view(messages)).toEqual(before);
    expect(state.messages).toBe(messages);
    expect(seen.map((message) => message.id)).toEqual(["h1", "a1", "t1", "a2", "t2"]);
    expect(String(seen[2]!.content)).toMatch(/^\[tool result hidden/);
    expect(seen[4]!.content).toBe("y ".repeat(400));
    // The compaction's update first (t1 rewritten under its id), then the node's one message.
    expect(update.messages.map((message) => message.id)).toEqual(["t1", "a3"]);
    expect(update.compactionLog).toHaveLength(1);
  });

  it("gives ids to a history without them in the update, never to the state's own messages", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1", "x ".repeat(400)), assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]), toolResult("t2", "c2", "y ".repeat(400))];
    for (const message of messages) message.id = undefined;
    let seen: BaseMessage[] = [];
    const node = compactingNode((state: { messages: BaseMessage[]; compactionLog: unknown[]; compactionArchive: unknown[] }) => {
      seen = state.messages;
      return {};
    }, toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const update = (await node({ messages, compactionLog: [], compactionArchive: [] })) as { messages: BaseMessage[] };
    expect(messages.map((message) => message.id)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen.map((message) => typeof message.id)).toEqual(["string", "string", "string", "string", "string"]);
    expect(String(seen[2]!.content)).toMatch(/^\[tool result hidden/);
    // The whole list, as the compaction node writes it for messages without ids.
    expect(update.messages.map((message) => message.getType())).toEqual(["remove", "human", "ai", "tool", "ai", "tool"]);
    expect(update.messages.slice(1)).toEqual(seen);
  });

  it("keeps a Command's routing and adds the compaction's update to its update", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1", "x ".repeat(400)), assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]), toolResult("t2", "c2", "y ".repeat(400))];
    const node = compactingNode(() => new Command({ goto: "elsewhere", update: { messages: [assistant("a3", "done")], extra: 1 } }), toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }));
    const result = (await node({ messages, compactionLog: [], compactionArchive: [] })) as Command;
    expect(result).toBeInstanceOf(Command);
    expect(result.goto).toEqual(["elsewhere"]);
    const update = result.update as { messages: BaseMessage[]; extra: number; compactionLog: unknown[] };
    expect([update.messages.map((message) => message.id), update.extra, update.compactionLog.length]).toEqual([["t1", "a3"], 1, 1]);
  });

  it("logs a failing compactor and runs the node on the history as it was", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "hello")];
    let seen: BaseMessage[] = [];
    const node = compactingNode((state: { messages: BaseMessage[]; compactionLog: unknown[]; compactionArchive: unknown[] }) => {
      seen = state.messages;
      return { messages: [assistant("a2", "again")] };
    }, new Failing());
    const update = (await node({ messages, compactionLog: [], compactionArchive: [] })) as { messages: BaseMessage[]; compactionLog: { status: string; reason?: string }[] };
    expect(seen).toBe(messages);
    expect(update.messages.map((message) => message.id)).toEqual(["a2"]);
    expect(update.compactionLog.map((record) => [record.status, record.reason])).toEqual([["failed", "Error: summary model down"]]);
  });

  it("refuses what it cannot merge with a typed error that names it", async () => {
    const messages = [user("h1", "u1"), assistant("a1", "", [{ id: "c1", name: "lookup", args: {} }]), toolResult("t1", "c1", "x ".repeat(400)), assistant("a2", "", [{ id: "c2", name: "lookup", args: {} }]), toolResult("t2", "c2", "y ".repeat(400))];
    const state = { messages, compactionLog: [], compactionArchive: [] };
    const hiding = () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 });
    const errors = await Promise.all([
      caught(() => compactingNode(undefined as never, hiding())),
      caught(() => compactingNode(() => [assistant("x", "y")] as never, hiding())(state)),
      caught(() => compactingNode(() => assistant("x", "y") as never, hiding())(state)),
      caught(() => compactingNode(() => ({ compactionLog: [] }), hiding())(state)),
      caught(() => compactingNode(() => new Command({ graph: Command.PARENT, update: {} }), hiding())(state)),
      caught(() => compactingNode(() => new Command({ update: [["messages", []]] }), hiding())(state)),
    ]);
    expect(errors.map((error) => [error instanceof CompactingNodeError, (error as Error).message])).toEqual([
      [false, "compactingNode: invalid option `node`: must be a node function (got undefined)"],
      [true, "compactingNode: the node returned an array, not a state update object"],
      [true, "compactingNode: the node returned a message, not a state update object"],
      [true, "compactingNode: the node's update writes compactionLog, which the compaction writes in the same step"],
      [true, "compactingNode: the node returned a Command for another graph; the compaction's update belongs to this one"],
      [true, "compactingNode: the node returned a Command whose update is not an object; compaction cannot add its own update to it"],
    ]);
    expect(errors[0]).toBeInstanceOf(InvalidOptionError);
  });
});

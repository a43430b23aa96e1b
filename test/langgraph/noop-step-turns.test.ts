/**
 * The compaction's no-op step, in a ReAct loop: the compaction node resolves in as few microtask
 * turns as a node can, and compactingNode calls the model node without any, so in a server running
 * many threads neither waits behind their work at an await.
 */
import { fakeModel } from "@langchain/core/testing";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { END, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { autoCompaction, compactingNode, createCompactionNode, toolResultHiding, type CompactionNodeInput } from "../../src/index.js";
import { assistant, system, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";
import { microtaskTurns } from "../support/microtasks.js";
import { lookupTool } from "./support/lookup-tool.js";
import { ReactState, reactGraph, type ReactStateValue } from "./support/react-graph.js";

describe("createCompactionNode's no-op step", () => {
  it("resolves in one turn once the history grew from the last step, with events dispatched to the run", async () => {
    const model = fakeModel();
    for (let n = 1; n <= 8; n++) model.respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
    model.respond(assistant("final", "done"));
    const node = createCompactionNode(autoCompaction({ contextWindow: 128_000 }));
    const turns: number[] = [];
    const statuses: string[] = [];
    const timed = async (state: CompactionNodeInput, config?: LangGraphRunnableConfig) => {
      const pending = node(state, config);
      turns.push(await microtaskTurns(() => pending));
      const update = await pending;
      statuses.push(update.compactionLog?.at(-1)?.status ?? "noop");
      return update;
    };
    const graph = reactGraph({ model, tools: [lookupTool()], compaction: [timed as never], checkpointer: new MemorySaver() });
    const events: string[] = [];
    const stream = graph.streamEvents({ messages: [system("s"), user("h1")] }, { version: "v2", configurable: { thread_id: "turns" }, recursionLimit: 100 });
    for await (const event of stream) if (event.event === "on_custom_event" && event.name === "compaction") events.push((event.data as { status: string }).status);
    expect(statuses).toEqual(Array(9).fill("noop"));
    // The first step counts the history read from the input; the next ones only grew: the node
    // returns a promise already resolved, whose await is the one turn any promise takes (awaiting
    // the policy's resolved no-op took 2; waiting for the event's handlers and awaiting at every
    // layer took 20).
    expect(turns.slice(1)).toEqual(Array(8).fill(1));
    // Each step's event still reaches the run's stream.
    expect(events).toEqual(Array(9).fill("noop"));
  });
});

/** Steps of a ReAct loop with `compactor` inside the model node, recording whether `callModel` ran before the node function returned. */
async function inModelSteps(compactor: Parameters<typeof compactingNode>[1], results: string[]) {
  const model = fakeModel();
  for (let n = 1; n <= 6; n++) model.respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
  model.respond(assistant("final", "done"));
  const seen = { modelCalled: false };
  const callModel = async (state: ReactStateValue, config: LangGraphRunnableConfig) => {
    seen.modelCalled = true;
    return { messages: [await model.invoke(state.messages, config)] };
  };
  const inner = compactingNode(callModel, compactor);
  const node = (state: ReactStateValue, config: LangGraphRunnableConfig) => {
    seen.modelCalled = false;
    const pending = inner(state, config);
    // Read before any await: set when the model node ran in the same synchronous stretch.
    results.push(seen.modelCalled ? "model called at once" : "model called later");
    return pending;
  };
  const graph = new StateGraph(ReactState)
    .addNode("model", node)
    .addNode("tools", new ToolNode([lookupTool()]))
    .addEdge(START, "model")
    .addConditionalEdges("model", toolsCondition, ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer: new MemorySaver() });
  const final = await graph.invoke({ messages: [system("s"), user("h1")] }, { configurable: { thread_id: "in-model" }, recursionLimit: 100 });
  return final.compactionLog.map((record: { status: string }) => record.status);
}

describe("compactingNode's no-op step", () => {
  it("calls the model node in the same synchronous stretch once the history grew from the last step", async () => {
    const results: string[] = [];
    const log = await inModelSteps(autoCompaction({ contextWindow: 128_000 }), results);
    expect(log).toEqual([]);
    // Every step is decided from the bound (the first from the empty history's), and the model is
    // called before the node function returns.
    expect(results).toEqual(Array(7).fill("model called at once"));
  });

  it("awaits the compaction at a step that fires", async () => {
    const results: string[] = [];
    // Fires at every step (so every step counts exactly) and hides a result once there are two
    // groups: the two first steps are no-ops, the five after them compact.
    const log = await inModelSteps(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), results);
    expect(log).toEqual(["compacted", "compacted", "compacted", "compacted", "compacted"]);
    expect(results).toEqual(Array(7).fill("model called later"));
  });
});

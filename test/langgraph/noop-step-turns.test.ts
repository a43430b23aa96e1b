/**
 * The compaction node's no-op step, in a ReAct loop: it resolves in as few microtask turns as a
 * node can, so in a server running many threads it does not wait behind their work at every await.
 */
import { fakeModel } from "@langchain/core/testing";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { autoCompaction, createCompactionNode, type CompactionNodeInput } from "../../src/index.js";
import { assistant, system, user } from "../support/builders.js";
import { microtaskTurns } from "../support/microtasks.js";
import { lookupTool } from "./support/lookup-tool.js";
import { reactGraph } from "./support/react-graph.js";

describe("createCompactionNode's no-op step", () => {
  it("resolves in two turns once the history grew from the last step, with events dispatched to the run", async () => {
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
    // awaits the policy's already resolved no-op, and returns (waiting for the event's handlers
    // and awaiting at every layer took 20 turns).
    expect(turns.slice(1)).toEqual(Array(8).fill(2));
    // Each step's event still reaches the run's stream.
    expect(events).toEqual(Array(9).fill("noop"));
  });
});

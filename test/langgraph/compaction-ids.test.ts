/**
 * Compaction ids in a graph come from the LangGraph task that runs the step, so a step run again from
 * the same checkpoint (a worker that died before the next checkpoint was written, or a replay) writes
 * the same archive entry instead of leaving one that no record names.
 */
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { PendingWrite } from "@langchain/langgraph-checkpoint";
import { Annotation, END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { CompactionState, createCompactionNode, restoreHistory, toolResultHiding } from "../../src/index.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "../../src/extend/index.js";
import { compactionIdOf } from "../../src/langgraph/run-compaction.js";
import { step } from "../support/builders.js";

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });

describe("compaction ids in a graph", () => {
  it("are the same for the same task and input, and differ by task, component and input", () => {
    const config = (namespace: string) => ({ configurable: { thread_id: "t", checkpoint_ns: namespace } });
    const input = [new HumanMessage({ id: "h1", content: "hi" })];
    const id = compactionIdOf(config("compact:1f0c-task"), "createCompactionNode", input);
    expect(compactionIdOf(config("compact:1f0c-task"), "createCompactionNode", input)).toBe(id);
    expect(compactionIdOf(config("compact:other-task"), "createCompactionNode", input)).not.toBe(id);
    expect(compactionIdOf(config("compact:1f0c-task"), "summarizationMiddleware", input)).not.toBe(id);
    expect(compactionIdOf(config("compact:1f0c-task"), "createCompactionNode", [...input, new HumanMessage({ id: "h2", content: "again" })])).not.toBe(id);
    // Outside a graph task: a fresh UUID each time.
    expect(compactionIdOf(undefined, "createCompactionNode", input)).not.toBe(compactionIdOf(undefined, "createCompactionNode", input));
  });

  it("a step run again from its checkpoint (its writes were lost) rewrites the same archive entry", async () => {
    // The worker "dies" after the archive write, before the step's writes reach the checkpointer.
    class GoesDownAtTheCompaction extends MemorySaver {
      down = false;
      lost = 0;
      override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
        if (writes.some(([channel]) => channel === "compactionLog") && this.lost === 0) this.down = true;
        if (this.down) {
          this.lost++;
          throw new Error("connection lost");
        }
        return super.putWrites(config, writes, taskId);
      }
      override async put(...args: Parameters<MemorySaver["put"]>) {
        if (this.down) {
          this.lost++;
          throw new Error("connection lost");
        }
        return super.put(...args);
      }
    }
    const checkpointer = new GoesDownAtTheCompaction();
    const hiding = toolResultHiding({ keepRecentGroups: 1, trigger: { messages: 1 }, clearAtLeast: 0 });
    let runs = 0;
    const counted = { compact: (...args: Parameters<typeof hiding.compact>) => (runs++, hiding.compact(...args)) };
    const store = new InMemoryStore();
    const graph = new StateGraph(State)
      .addNode("compact", createCompactionNode(counted))
      .addEdge(START, "compact")
      .addEdge("compact", END)
      .compile({ checkpointer, store });
    const config = { configurable: { thread_id: "retried" }, durability: "sync" as const };
    const input = [new HumanMessage({ id: "h1", content: "go" }), ...step(1, "x ".repeat(400)), ...step(2, "y ".repeat(400))];
    await expect(graph.invoke({ messages: input }, config)).rejects.toThrow("connection lost");
    checkpointer.down = false;
    const namespace = archiveNamespace("retried", DEFAULT_ARCHIVE_NAMESPACE);
    // The archive entry, and the log record under the same key beneath it.
    const found = await store.search(namespace, { limit: 100 });
    const written = found.filter((entry) => entry.namespace.length === namespace.length).map((entry) => entry.key);
    expect([written.length, found.filter((entry) => entry.namespace.at(-1) === "log").map((entry) => entry.key)]).toEqual([1, written]);
    // Resumed from the checkpoint the step started from: the same task, so the same compaction id.
    // Nothing of the step reached the checkpointer: the thread still has the uncompacted input.
    expect([runs, (await graph.getState(config)).values.compactionLog]).toEqual([1, []]);
    await graph.invoke(null, config);
    expect(runs).toBe(2);
    const state = (await graph.getState(config)).values;
    expect(state.compactionLog.map((record: { id: string }) => record.id)).toEqual(written);
    expect((await store.search(namespace, { limit: 100 })).map((entry) => [entry.namespace.at(-1), entry.key])).toEqual([
      ["retried", written[0]],
      ["log", written[0]],
    ]);
    expect((await restoreHistory(state, { store, threadId: "retried" })).map((message) => message.id)).toEqual(["h1", "a1", "t1", "a2", "t2"]);
  });
});

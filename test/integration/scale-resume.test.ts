/**
 * How the scale harness (bench/scale/threads.ts) decides the next unit of work on a thread whose
 * last step failed after its task had finished: the task's writes are saved (`putWrites`), the
 * checkpoint that should follow them is not (the database went away, the process was killed).
 * LangGraph's `getState` then reports `next: []` (a task with saved writes is not "next") and shows
 * the writes applied to `values`, although the run has not finished: `invoke(null)` resumes it, while
 * new input starts a new run and drops those writes and the rest of the turn. That is how the
 * database-restart fault case and a killed worker lost a turn's remaining messages. On a real
 * SqliteSaver (in memory) whose checkpoint write fails once, right after the tool node's writes.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { ReplaySession } from "../../examples/replay/index.js";
import { buildScaleGraph, type ScaleStateValues } from "../../bench/scale/graph.js";
import { nextAction, recordedPositions, runUnit } from "../../bench/scale/threads.js";
import { checkThread } from "../../bench/scale/verify.js";
import { createTokenCounter } from "../../src/index.js";

/** A SqliteSaver whose checkpoint write fails once, at the first checkpoint of step `failAtStep`. */
class FailingOnceSaver extends SqliteSaver {
  failed = false;
  constructor(readonly failAtStep: number) {
    super(SqliteSaver.fromConnString(":memory:").db);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    if (!this.failed && metadata.step === this.failAtStep) {
      this.failed = true;
      throw new Error("Connection terminated unexpectedly (injected)");
    }
    return super.put(config, checkpoint, metadata);
  }
}

describe("bench:scale resumes a run whose checkpoint write failed after its task's writes were saved", () => {
  const session = loadTraceSessions(BUNDLED_TRACES_PATH)[0]!;
  const replay = new ReplaySession(session);
  const positions = recordedPositions(replay);
  const threadId = "resume/0";
  const config = { configurable: { thread_id: threadId } };

  it.each(["sync", "async"] as const)("durability %s: reports resume, then replays the session exactly", async (durability) => {
    const previous = process.env["SCALE_DURABILITY"];
    process.env["SCALE_DURABILITY"] = durability;
    // Checkpoint 2 waits for the tool node (START → compact → model → tools); checkpoint 3 follows its writes.
    const checkpointer = new FailingOnceSaver(3);
    try {
      const graph = buildScaleGraph({ replay, checkpointer, window: 8_000, tokenCounter: createTokenCounter({ model: "gpt-4o" }) });
      await expect(runUnit(graph, replay, positions, threadId)).rejects.toThrow("injected");

      const snapshot = await graph.getState(config);
      // LangGraph's view: nothing "next", the tool node's task still pending with its writes applied.
      expect([snapshot.next, snapshot.tasks.map((task) => task.name), snapshot.metadata?.step]).toEqual([[], ["tools"], 2]);
      const values = snapshot.values as ScaleStateValues;
      expect(values.messages.at(-1)?.getType()).toBe("tool");
      expect(nextAction(replay, positions, { values, next: snapshot.next, tasks: snapshot.tasks })).toEqual({ kind: "resume" });

      let units = 0;
      while ((await runUnit(graph, replay, positions, threadId)).kind !== "over") units++;
      expect(units).toBe(replay.turns.length);
      const check = await checkThread(threadId, (await graph.getState(config)).values as ScaleStateValues, replay, undefined);
      expect([check.lost, check.duplicated, check.mismatched, check.unrestorable, check.restored]).toEqual([0, 0, false, null, replay.expectedHistory.length]);
    } finally {
      checkpointer.db.close();
      if (previous === undefined) delete process.env["SCALE_DURABILITY"];
      else process.env["SCALE_DURABILITY"] = previous;
    }
  });
});

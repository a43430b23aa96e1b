/**
 * Lossless history (seed 004 REQ-3.3) over a real recorded session: a ReAct graph replays it with
 * and without compaction nodes, and restoreHistory of the compacted run equals the uncompacted run.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { createCompactionNode, readCompactionLog, restoreHistory, slidingWindow, toolResultHiding, type CompactionNode } from "../../src/index.js";
import { reactGraph } from "./support/react-graph.js";
import { SummarizePrefix } from "./support/summarize-prefix.js";
import { ReplayChatModel, replayScript, replayTools, type ReplayScript } from "./support/trace-replay.js";
import { EVERY_RUN } from "../support/hiding.js";

const SESSION_ID = "tau-bench-airline/task13-trial0";
const session = loadTraceSessions(defaultTracesPath()).find((candidate) => candidate.id === SESSION_ID);
const idsAndContent = (messages: readonly BaseMessage[]) => messages.map((message) => ({ id: message.id, content: message.content }));

/** Run every user turn of the script on one thread; the final state. */
async function replay(script: ReplayScript, compaction: CompactionNode[], withStore: boolean) {
  const store = withStore ? new InMemoryStore() : undefined;
  const model = new ReplayChatModel(script);
  const graph = reactGraph({ model, tools: replayTools(script), compaction, checkpointer: new MemorySaver(), ...(store ? { store } : {}) });
  const config = { configurable: { thread_id: "replay" }, recursionLimit: 1000 };
  for (const turn of script.turns) await graph.invoke({ messages: turn.input }, config);
  const { values } = await graph.getState(config);
  return { values: values as Awaited<ReturnType<typeof graph.invoke>>, store, model };
}

describe(`restoreHistory over the recorded session ${SESSION_ID}`, () => {
  const script = replayScript(session!);

  it("the uncompacted replay reproduces the recorded session", async () => {
    const { values } = await replay(script, [], false);
    expect(idsAndContent(values.messages)).toEqual(idsAndContent(script.messages));
  });

  it("hiding and nested summaries archived in the store: the restored history equals the uncompacted run", async () => {
    const plain = await replay(script, [], false);
    const compacted = await replay(
      script,
      [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 2 })), createCompactionNode(new SummarizePrefix(14, 6))],
      true,
    );
    // The compaction did happen, summaries of summaries included (the state keeps the newest records: the whole log is read).
    const log = await readCompactionLog(compacted.values, { store: compacted.store!, threadId: "replay" });
    expect(compacted.values.compactionLog).toEqual(log.slice(-8));
    // A summary of a summary: a compaction removing the summary an earlier one wrote.
    const nested = log.filter((record, position) =>
      log.slice(0, position).some((earlier) => earlier.summaryId !== null && record.removedIds.includes(earlier.summaryId)),
    );
    expect({
      hidings: log.filter((record) => record.strategy === "toolResultHiding").length,
      summaries: log.filter((record) => record.strategy === "summarizePrefix").length,
      nested: nested.length,
      archives: [...new Set(log.map((record) => record.archive))],
      finalLength: compacted.values.messages.length,
    }).toEqual({ hidings: 3, summaries: 6, nested: 5, archives: ["store"], finalLength: 9 });
    const restored = await restoreHistory(compacted.values, { store: compacted.store!, threadId: "replay" });
    expect(idsAndContent(restored)).toEqual(idsAndContent(plain.values.messages));
  });

  it("a sliding window archived in the state: the restored history equals the uncompacted run", async () => {
    const plain = await replay(script, [], false);
    const compacted = await replay(script, [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 })), createCompactionNode(slidingWindow({ keepTurns: 2 }))], false);
    const log = await readCompactionLog(compacted.values);
    expect(compacted.values.compactionLog).toEqual(log.slice(-8));
    expect({
      statuses: log.map((record) => record.status),
      archived: compacted.values.compactionArchive.map((archive) => archive.compactionId),
    }).toEqual({
      statuses: [...Array(4).fill("truncated"), "compacted", "compacted", ...Array(8).fill("truncated")],
      archived: log.map((record) => record.id) });
    const restored = await restoreHistory(compacted.values);
    expect(idsAndContent(restored)).toEqual(idsAndContent(plain.values.messages));
  });
});

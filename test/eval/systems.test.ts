import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { clearToolUsesCreateAgent, clearToolUsesView, noCompaction, ours, summarization, type SystemContext } from "../../bench/eval/systems.js";
import { autoCompaction, createTokenCounter } from "../../src/index.js";
import { compactionUpdate, messageText } from "../../src/extend/index.js";
import { ids, sameObjects, step, system, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();
const summaryModel = new DeterministicSummaryModel({ tokenCounter });

/** A system prompt, a request and `steps` tool-call steps with ~80-token results. */
const historyOf = (steps: number) => [system("s"), user("u", "fix the bug"), ...Array.from({ length: steps }, (_, n) => step(n + 1)).flat()];

/** A window that puts `history` just over the 0.8 trigger. */
async function windowOver(history: ReturnType<typeof historyOf>): Promise<number> {
  return Math.floor((await tokenCounter.countMessages(history)) / 0.85);
}

const contextOf = (window: number): SystemContext => ({ window, tokenCounter, summaryModel });

describe("no compaction", () => {
  it("sends and keeps the history as it is", async () => {
    const history = historyOf(3);
    const result = await noCompaction.create(contextOf(100)).step(history);
    expect([result.persisted, result.input, result.compacted]).toEqual([history, history, false]);
  });
});

/** The tool-call ids of the results the edit replaced by its placeholder. */
const clearedIds = (messages: readonly BaseMessage[]) =>
  messages.filter((message) => message.type === "tool" && messageText(message) === "[cleared]").map((message) => (message as ToolMessage).tool_call_id);

for (const spec of [clearToolUsesView, clearToolUsesCreateAgent]) {
  describe(`${spec.name} through contextEditingMiddleware`, () => {
    it("under the trigger, sends the history unchanged", async () => {
      const history = historyOf(6);
      const result = await spec.create(contextOf(1_000_000)).step(history);
      expect({ sameInput: sameObjects(result.input, history), compacted: result.compacted }).toEqual({ sameInput: true, compacted: false });
    });

    it("over the trigger, sends all but the newest 3 tool results cleared", async () => {
      const history = historyOf(6);
      const result = await spec.create(contextOf(await windowOver(history))).step(history);
      expect({ cleared: clearedIds(result.input), originals: ids(result.originals), compacted: result.compacted }).toEqual({
        cleared: ["c1", "c2", "c3"],
        originals: ["t1", "t2", "t3"],
        compacted: true,
      });
    });
  });
}

describe("ClearToolUsesEdit (view)", () => {
  it("keeps the history whole: the clearing is in the request only", async () => {
    const history = historyOf(6);
    const result = await clearToolUsesView.create(contextOf(await windowOver(history))).step(history);
    expect({ persisted: sameObjects(result.persisted, history), cleared: clearedIds(result.persisted) }).toEqual({ persisted: true, cleared: [] });
  });
});

describe("ClearToolUsesEdit (createAgent)", () => {
  it("persists what it sends, as createAgent's in-place edit of the state's array does", async () => {
    const history = historyOf(6);
    const result = await clearToolUsesCreateAgent.create(contextOf(await windowOver(history))).step(history);
    expect({ persisted: sameObjects(result.persisted, result.input), cleared: clearedIds(result.persisted) }).toEqual({ persisted: true, cleared: ["c1", "c2", "c3"] });
  });
});

describe("summarizationMiddleware through its beforeModel hook", () => {
  it("over the trigger, persists its summary and the newest 20 messages", async () => {
    const history = historyOf(14);
    const run = summarization.create(contextOf(await windowOver(history)));
    const result = await run.step(history);
    // The system prompt stays apart (as in createAgent); the summary takes the id of the first message it replaced.
    expect({ ids: ids(result.persisted), inputIsPersisted: result.input === result.persisted, summaryCalls: run.drainSummaryCalls().length }).toEqual({
      ids: ["s", "u", ...ids(history.slice(10))],
      inputIsPersisted: true,
      summaryCalls: 1,
    });
  });

  it("writes the summary with LangChain's prefix", async () => {
    const history = historyOf(14);
    const result = await summarization.create(contextOf(await windowOver(history))).step(history);
    const prefix = "Here is a summary of the conversation to date:";
    expect(messageText(result.persisted[1]!).slice(0, prefix.length)).toEqual(prefix);
  });
});

describe("ours, run as the compaction node runs it", () => {
  it("persists what compactionUpdate makes of the strategy's result", async () => {
    const history = historyOf(14);
    const window = await windowOver(history);
    const spec = ours("autoCompaction", ({ tokenCounter: counter, model }) => autoCompaction({ contextWindow: window, tokenCounter: counter, summaryModel: model }));
    const result = await spec.create(contextOf(window)).step(history);
    const reference = await autoCompaction({ contextWindow: window, tokenCounter, summaryModel }).compact(history);
    expect({ ids: ids(result.persisted), texts: result.persisted.map(messageText), compacted: result.compacted }).toEqual({
      ids: ids(compactionUpdate(history, reference).history),
      texts: compactionUpdate(history, reference).history.map(messageText),
      compacted: true,
    });
  });

  it("meters the summary calls of the strategy", async () => {
    const history = historyOf(14);
    const window = await windowOver(history);
    const run = ours("autoCompaction", ({ tokenCounter: counter, model }) => autoCompaction({ contextWindow: window, tokenCounter: counter, summaryModel: model })).create(contextOf(window));
    await run.step(history);
    expect(run.drainSummaryCalls().length).toBe(1);
  });
});

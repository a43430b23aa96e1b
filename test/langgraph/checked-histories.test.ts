import { HumanMessage, RemoveMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createCompactionNode, slidingWindow, type CompactionRecord } from "../../src/index.js";
import { CheckedHistories } from "../../src/langgraph/checked-histories.js";
import { repairBeforeCompaction } from "../../src/langgraph/invalid-history.js";
import { assignMessageIds } from "../../src/langgraph/message-ids.js";
import { cloneMessage } from "../../src/messages/clone-message.js";
import { seededRandom } from "../../bench/synthetic.js";
import { assistant, ids, step, toolResult, user } from "../support/builders.js";

/** What the full check finds: nothing to assign, nothing to repair. */
function needsNothing(messages: readonly BaseMessage[], mode: "repair" | "leave", keepPendingCalls: boolean): boolean {
  return assignMessageIds(messages).assigned === 0 && repairBeforeCompaction(messages, mode, { keepPendingCalls }) === undefined;
}

/** A clean agent history of `steps` steps after one user message. */
const agentHistory = (steps: number, from = 0): BaseMessage[] => [user(`h${from}`), ...Array.from({ length: steps }, (_, n) => step(from + n + 1)).flat()];

/**
 * One change a graph step may make to a history, at random: mostly growth (a step, a pending call,
 * its result), sometimes a rewrite of an older message under its id, a removal, or something broken.
 */
function mutate(history: readonly BaseMessage[], random: () => number, counter: { n: number }): BaseMessage[] {
  const n = ++counter.n;
  const at = Math.floor(random() * history.length);
  const choice = Math.floor(random() * 12);
  const calls = history.at(-1)?.type === "ai" ? ((history.at(-1) as AIMessage).tool_calls ?? []) : [];
  if (calls.length > 0 && choice < 8) return [...history, toolResult(`t${n}`, calls[0]!.id!)];
  switch (choice) {
    case 0:
    case 1:
    case 2:
      return [...history, ...step(n)];
    case 3:
      return [...history, assistant(`a${n}`, "calling", [{ id: `c${n}` }])];
    case 4:
      return [...history, user(`h${n}`)];
    case 5:
      // Rewritten under its id: a new object whose text has a lone surrogate.
      return history.map((message, position) => (position === at ? cloneMessage(message, { content: "broken \uD83D" }) : message));
    case 6:
      // Rewritten under its id with nothing to send.
      return history.map((message, position) => (position === at && message.type === "human" ? cloneMessage(message, { content: "" }) : message));
    case 7:
      // Removed (as the reducer applies a RemoveMessage): a call may lose its result.
      return history.filter((_, position) => position !== at);
    case 8:
      return [...history, toolResult(`t${n}`, `missing${n}`)];
    case 9:
      return [...history, user(history[at]?.id ?? "dup")];
    case 10:
      return [...history, new HumanMessage({ content: "no id" })];
    default:
      // Read back from a checkpoint: equal messages, new objects.
      return history.map((message) => cloneMessage(message, {}));
  }
}

describe("CheckedHistories", () => {
  it("says clean exactly when assignMessageIds assigns nothing and repairBeforeCompaction repairs nothing, over random step sequences", () => {
    const disagreements: string[] = [];
    let cleanSteps = 0;
    for (const mode of ["repair", "leave"] as const) {
      for (const keepPendingCalls of [true, false]) {
        for (let seed = 1; seed <= 40; seed++) {
          const random = seededRandom(seed);
          const checked = new CheckedHistories();
          const counter = { n: 100 };
          let history = agentHistory(3);
          for (let stepNumber = 0; stepNumber < 40; stepNumber++) {
            const expected = needsNothing(history, mode, keepPendingCalls);
            const actual = checked.isClean("thread", history, mode, keepPendingCalls);
            if (actual !== expected) disagreements.push(`${mode} ${keepPendingCalls} seed ${seed} step ${stepNumber}: ${actual} for ${ids(history).join(",")}`);
            if (expected) cleanSteps++;
            // A broken history is repaired by the adapter; the next step starts from a clean one.
            history = expected ? mutate(history, random, counter) : mutate(agentHistory(2, counter.n++ * 10), random, counter);
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
    // Both answers occur: 4442 of the 6400 steps are clean (the sequences are seeded).
    expect(cleanSteps).toBe(4442);
  });

  it("checks a message rewritten under its id even when the history also grew", () => {
    const checked = new CheckedHistories();
    const history = agentHistory(3);
    expect(checked.isClean("thread", history, "repair", true)).toBe(true);
    const rewritten = history.map((message, position) => (position === 2 ? cloneMessage(message, { content: "half \uDC00 pair" }) : message));
    expect(checked.isClean("thread", [...rewritten, ...step(9)], "repair", true)).toBe(false);
  });

  it("keeps a last message's pending calls for the node, not for the middleware, and pairs them once answered", () => {
    const checked = new CheckedHistories();
    const pending = [...agentHistory(2), assistant("a9", "calling", [{ id: "c9" }])];
    expect([checked.isClean("node", pending, "repair", true), checked.isClean("middleware", pending, "repair", false)]).toEqual([true, false]);
    expect(checked.isClean("node", [...pending, toolResult("t9", "c9")], "repair", true)).toBe(true);
    expect(checked.isClean("node", [...pending, toolResult("t9", "c9"), toolResult("t9b", "c9")], "repair", true)).toBe(false);
  });

  it("is not fooled by the caller's array changing after the call, and never changes the input", () => {
    const checked = new CheckedHistories();
    const history = agentHistory(2);
    const before = [...history];
    expect(checked.isClean("thread", history, "repair", true)).toBe(true);
    // The caller reuses its array: the first message becomes a RemoveMessage.
    history[0] = new RemoveMessage({ id: "h0" });
    expect(checked.isClean("thread", history, "repair", true)).toBe(false);
    expect(history.slice(1)).toEqual(before.slice(1));
  });

  it("remembers at most maxThreads threads", () => {
    const checked = new CheckedHistories(2);
    const histories = ["a", "b", "c"].map(() => agentHistory(1));
    checked.isClean("a", histories[0]!, "repair", true);
    checked.isClean("b", histories[1]!, "repair", true);
    checked.isClean("a", histories[0]!, "repair", true);
    checked.isClean("c", histories[2]!, "repair", true);
    expect(checked.size).toBe(2);
  });
});

describe("createCompactionNode across steps of one thread", () => {
  const channels = { compactionLog: [] as CompactionRecord[], compactionArchive: [] };
  const config = { configurable: { thread_id: "t1" } };

  it("repairs a message another node rewrote under its id after a clean step (same objects around it)", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    const history = agentHistory(2);
    expect(await node({ messages: history, ...channels }, config)).toEqual({});
    const rewritten = history.map((message, position) => (position === 1 ? cloneMessage(message, { content: "lone \uD83D" }) : message));
    const update = await node({ messages: [...rewritten, ...step(7)], ...channels }, config);
    expect({
      status: update.compactionLog?.[0]?.status,
      problems: update.compactionLog?.[0]?.repair?.problems.map((problem) => [problem.kind, problem.index]),
      content: update.messages?.map((message) => [message.id, message.content]),
    }).toEqual({ status: "repaired", problems: [["lone-surrogate", 1]], content: [["a1", "lone \uFFFD"]] });
  });

  it("repairs an orphan result appended to a history it found clean", async () => {
    const node = createCompactionNode(slidingWindow({ keepTurns: 5 }));
    const history = agentHistory(2);
    expect(await node({ messages: history, ...channels }, config)).toEqual({});
    const update = await node({ messages: [...history, toolResult("orphan", "c99")], ...channels }, config);
    expect([update.compactionLog?.[0]?.status, update.compactionLog?.[0]?.repair?.removedIds]).toEqual(["repaired", ["orphan"]]);
  });
});

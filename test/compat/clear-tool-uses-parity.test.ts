/**
 * `ClearToolUsesEdit` against LangChain's own `ClearToolUsesEdit` on random histories and random
 * configurations (support/clear-tool-uses-histories.ts), with LangChain's `countTokensApproximately`.
 *
 * One fixed seed keeps CI reproducible; `FC_SEED=<n>` (or `random`) and `FC_NUM_RUNS=<n>` search
 * further. A failure prints the seed and the shrunk history and configuration.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { ClearToolUsesEdit as LangChainClearToolUsesEdit, countTokensApproximately } from "langchain";
import { describe, expect, it } from "vitest";
import { ClearToolUsesEdit } from "../../src/middleware/index.js";
import { editSpec, parityHistory, turnsSpec, view, type EditSpec, type TurnSpec } from "./support/clear-tool-uses-histories.js";
import { compactionMarkerOf } from "../../src/index.js";

const NUM_RUNS = Number(process.env["FC_NUM_RUNS"] ?? 300);
const seedSetting = process.env["FC_SEED"] ?? "20261129";
const seed = seedSetting === "random" ? Math.floor(Math.random() * 0x7fffffff) : Number(seedSetting);

/** The history each implementation leaves. */
async function bothEdits(turns: readonly TurnSpec[], config: EditSpec) {
  const theirs = parityHistory(turns);
  await new LangChainClearToolUsesEdit(config as never).apply({ messages: theirs, countTokens: countTokensApproximately, model: undefined as never });
  const ours = parityHistory(turns);
  await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens: countTokensApproximately });
  return { theirs, ours };
}

/** Whether a message carries LangChain's cleared marker. */
const cleared = (message: BaseMessage) => (message.response_metadata as { context_editing?: { cleared?: boolean } } | undefined)?.context_editing?.cleared === true;

describe("ClearToolUsesEdit and LangChain's on random histories", () => {
  it("leave the same history", async () => {
    const warn = console.warn;
    // LangChain warns at each construction with clearAtLeast (deprecated).
    console.warn = () => {};
    try {
      await fc.assert(
        fc.asyncProperty(turnsSpec, editSpec, async (turns, config) => {
          const { theirs, ours } = await bothEdits(turns, config);
          expect(view(ours)).toEqual(view(theirs));
        }),
        { numRuns: NUM_RUNS, seed },
      );
    } finally {
      console.warn = warn;
    }
  }, 60_000 + NUM_RUNS * 50);

  it("leave the same history when they edit it again after more turns (cleared results among it)", async () => {
    const warn = console.warn;
    console.warn = () => {};
    try {
      await fc.assert(
        fc.asyncProperty(turnsSpec, fc.integer({ min: 1, max: 29 }), editSpec, async (turns, cut, config) => {
          const full = parityHistory(turns);
          // The first edit sees the first `cut` turns, without the closing human message.
          const firstLength = parityHistory(turns.slice(0, cut)).length - 1;
          const theirs = full.slice(0, firstLength);
          const ours = full.slice(0, firstLength);
          await new LangChainClearToolUsesEdit(config as never).apply({ messages: theirs, countTokens: countTokensApproximately, model: undefined as never });
          await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens: countTokensApproximately });
          theirs.push(...full.slice(firstLength));
          ours.push(...full.slice(firstLength));
          await new LangChainClearToolUsesEdit(config as never).apply({ messages: theirs, countTokens: countTokensApproximately, model: undefined as never });
          await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens: countTokensApproximately });
          expect(view(ours)).toEqual(view(theirs));
        }),
        { numRuns: Math.ceil(NUM_RUNS / 2), seed },
      );
    } finally {
      console.warn = warn;
    }
  }, 60_000 + NUM_RUNS * 50);
});

describe("clearAtLeast is measured as LangChain measures it: the whole history's count before, minus after", () => {
  /**
   * `countTokensApproximately` rounds the whole history's characters once: the whole count loses
   * 1,574 tokens when the 10 older results are cleared, while the results' own counts lose fewer.
   * Measured by the latter, the kept result went too.
   */
  const turns: TurnSpec[] = [
    { kind: "calls", text: 2, calls: [{ tool: "read_plan", arg: "pytest", size: 1312 }] },
    { kind: "calls", text: 77, calls: [{ tool: "bash", arg: "q", size: 2540 }, { tool: "bash", arg: "notes.md", size: 187 }] },
    { kind: "calls", text: 63, calls: [{ tool: "bash", arg: "pytest", size: 2367 }] },
    { kind: "calls", text: 30, calls: [{ tool: "search", arg: "ls", size: 861 }, { tool: "search", arg: "q", size: 2566 }, { tool: "bash", arg: "pytest", size: 145 }] },
    { kind: "calls", text: 48, calls: [{ tool: "search", arg: "q", size: 2231 }, { tool: "bash", arg: "q", size: 173 }, { tool: "search", arg: "notes.md", size: 88 }] },
    { kind: "calls", text: 63, calls: [{ tool: "read_file", arg: "pytest", size: 110 }, { tool: "bash", arg: "cat a.py", size: 613 }, { tool: "read_file", arg: "ls", size: 131 }] },
    { kind: "calls", text: 29, calls: [{ tool: "read_file", arg: "ls", size: 1287 }, { tool: "search", arg: "src/app.py", size: 39 }, { tool: "read_plan", arg: "pytest", size: 94 }] },
  ];
  const CLEARED = ["call_0_0", "call_1_0", "call_4_1", "call_4_2", "call_5_0", "call_5_1", "call_5_2", "call_6_0", "call_6_1", "call_6_2"];
  const config: EditSpec = { trigger: [{ tokens: 225 }, { messages: 25 }], keep: { tokens: 2975 }, clearAtLeast: 1574, excludeTools: [], clearToolInputs: false };

  it("a firing whose older results free exactly clearAtLeast by the whole count clears no kept result", async () => {
    const warn = console.warn;
    console.warn = () => {};
    const { theirs, ours } = await bothEdits(turns, config).finally(() => (console.warn = warn));
    expect(view(ours)).toEqual(view(theirs));
    const history = parityHistory(turns);
    // The 2 results older than the kept 14, then 8 kept ones, newest first.
    expect(ours.filter(cleared).map((message) => (message as ToolMessage).tool_call_id)).toEqual(CLEARED);
    expect(countTokensApproximately(history) - countTokensApproximately(ours)).toBe(1574);
    // What the cleared results' own counts lose: short of clearAtLeast.
    const ownCounts = history.reduce((freed, message, position) => freed + countTokensApproximately([message]) - countTokensApproximately([ours[position]!]), 0);
    expect(ownCounts).toBeLessThan(1574);
  });

  it("a firing short of it clears kept results, newest first, until the whole count has lost it", async () => {
    const warn = console.warn;
    console.warn = () => {};
    const { theirs, ours } = await bothEdits(turns, { ...config, clearAtLeast: 1575 }).finally(() => (console.warn = warn));
    expect(view(ours)).toEqual(view(theirs));
    // One kept result more: call_4_0's, the next newest.
    expect(ours.filter(cleared).map((message) => (message as ToolMessage).tool_call_id)).toEqual([...CLEARED.slice(0, 2), "call_4_0", ...CLEARED.slice(2)]);
  });
});

describe("clearAtLeast measured by the whole count, with clearToolInputs", () => {
  /**
   * Here the results' and calls' own counts reach clearAtLeast one kept result earlier than the
   * whole count does: measured by them, call_9_1's result stayed.
   */
  const turns: TurnSpec[] = [
    { kind: "calls", text: 73, calls: [{ tool: "bash", arg: "ls", size: 2262 }] },
    { kind: "calls", text: 19, calls: [{ tool: "read_file", arg: "src/app.py", size: 155 }, { tool: "bash", arg: "ls", size: 1693 }] },
    { kind: "calls", text: 23, calls: [{ tool: "read_plan", arg: "ls", size: 752 }, { tool: "search", arg: "notes.md", size: 135 }] },
    { kind: "human", size: 83 },
    { kind: "calls", text: 66, calls: [{ tool: "search", arg: "ls", size: 446 }, { tool: "read_plan", arg: "notes.md", size: 82 }, { tool: "read_plan", arg: "notes.md", size: 1465 }] },
    { kind: "calls", text: 14, calls: [{ tool: "bash", arg: "notes.md", size: 362 }, { tool: "read_plan", arg: "src/app.py", size: 1144 }] },
    { kind: "calls", text: 30, calls: [{ tool: "search", arg: "pytest", size: 30 }, { tool: "read_file", arg: "ls", size: 353 }, { tool: "read_file", arg: "pytest", size: 1470 }] },
    { kind: "calls", text: 28, calls: [{ tool: "read_file", arg: "cat a.py", size: 109 }] },
    { kind: "calls", text: 42, calls: [{ tool: "read_file", arg: "notes.md", size: 1100 }, { tool: "read_plan", arg: "notes.md", size: 1961 }] },
    { kind: "calls", text: 1, calls: [{ tool: "read_file", arg: "q", size: 1838 }, { tool: "read_file", arg: "cat a.py", size: 144 }, { tool: "search", arg: "src/app.py", size: 65 }] },
  ];
  const config: EditSpec = { trigger: { tokens: 1096, messages: 14 }, keep: { tokens: 3460 }, clearAtLeast: 586, excludeTools: [], clearToolInputs: true };

  it("clears the kept results LangChain clears", async () => {
    const warn = console.warn;
    console.warn = () => {};
    const { theirs, ours } = await bothEdits(turns, config).finally(() => (console.warn = warn));
    expect(view(ours)).toEqual(view(theirs));
    expect(ours.filter(cleared).map((message) => (message as ToolMessage).tool_call_id)).toEqual(["call_0_0", "call_9_1", "call_9_2"]);
    expect(countTokensApproximately(parityHistory(turns)) - countTokensApproximately(ours)).toBe(623);
  });
});

describe("superseded results", () => {
  /** `ls` run twice; both results are among the 2 kept. */
  const history = () => [
    new HumanMessage({ id: "h1", content: "what is here?" }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "call_1", name: "bash", args: { command: "ls" } }] }),
    new ToolMessage({ id: "t1", tool_call_id: "call_1", name: "bash", content: "a.py\nb.py\n".repeat(40) }),
    new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "call_2", name: "bash", args: { command: "ls" } }] }),
    new ToolMessage({ id: "t2", tool_call_id: "call_2", name: "bash", content: "a.py\nb.py\nc.py\n".repeat(40) }),
    new HumanMessage({ id: "h2", content: "and now?" }),
  ];
  const config = { trigger: { tokens: 10 }, keep: { messages: 2 } } as const;

  it("stay in full by default, as in LangChain", async () => {
    const theirs = history();
    await new LangChainClearToolUsesEdit(config).apply({ messages: theirs, countTokens: countTokensApproximately, model: undefined as never });
    const ours = history();
    await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens: countTokensApproximately });
    expect(view(ours)).toEqual(view(theirs));
    expect(view(ours)).toEqual(view(history()));
  });

  it("are hidden by a note naming the later call with supersession: true", async () => {
    const ours = history();
    await new ClearToolUsesEdit({ ...config, supersession: true }).apply({ messages: ours, countTokens: countTokensApproximately });
    expect([ours[2]!.content, compactionMarkerOf(ours[2]!)?.supersededBy, ours[4]!.content]).toEqual([
      "[superseded: command run again at call call_2]",
      "call_2",
      history()[4]!.content,
    ]);
  });
});

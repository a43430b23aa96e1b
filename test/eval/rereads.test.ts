/**
 * The re-reads a grounding miss forces, priced on a small hand-built history replayed through a
 * scripted system: a tool result hidden and then reused is charged once per compaction epoch, with
 * the step's input as the cached prefix, the repeated call and the source as uncached input, and the
 * repeated call as output; a missing word only a user message had is lost, not charged.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { TraceSession } from "../../examples/traces.js";
import { GroundingTracker } from "../../bench/eval/grounding.js";
import { DEFAULT_PRICES } from "../../bench/eval/metrics.js";
import { replayTrace, totalsOf } from "../../bench/eval/replay.js";
import { NO_RECOVERY, REREAD_REPLY_TOKENS, rereadCost } from "../../bench/eval/rereads.js";
import { presetCostsOf, priceSetsOf, rowOf } from "../../bench/eval/report-tables.js";
import type { EvalSystem } from "../../bench/eval/systems.js";
import { createTokenCounter } from "../../src/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();

const task = user("u1", "Fix the DEBUG_MODE flag in settings.py, then write to OWNER_ALICE");
const read = assistant("a1", "", [{ id: "c1", args: { command: "cat settings.py" } }]);
const output = toolResult("t1", "c1", "DEBUG_MODE = True\nALLOWED_HOSTS = ['example']\nSECRET_KEY = 'x'\nINSTALLED_APPS = []");
const hidden = toolResult("t1", "c1", "[tool result hidden]");
/** A reply calling `command`, and its result. */
const turn = (n: number, command: string) => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command } }]), toolResult(`t${n}`, `c${n}`, "done")];
const session: TraceSession = {
  source: "hand",
  id: "hand/rereads",
  messages: [
    system("s", "You are a coding agent."),
    task,
    read,
    output,
    // Step 1 (a compaction hides t1): reuses ALLOWED_HOSTS, which only t1 had.
    ...turn(2, "grep ALLOWED_HOSTS"),
    // Step 2, same epoch: reuses example and SECRET_KEY, both from t1 (ALLOWED_HOSTS is now in a2's call).
    ...turn(3, "grep example SECRET_KEY"),
    // Step 3, a new compaction: INSTALLED_APPS, from t1 again.
    ...turn(4, "sed INSTALLED_APPS"),
    // Step 4, the task message left out too (same epoch): OWNER_ALICE was only the user's.
    ...turn(5, "mail OWNER_ALICE"),
  ],
};

/** Hides t1 from step 1 on, leaves the task out at step 4; compacts at steps 1 and 3 (the history persisted whole). */
function scripted(): EvalSystem {
  let step = 0;
  return {
    name: "scripted",
    async step(history: BaseMessage[]) {
      const at = step++;
      const input = history.filter((message) => !(at === 4 && message === task)).map((message) => (at >= 1 && message === output ? hidden : message));
      return { persisted: history, input, compacted: at === 1 || at === 3, originals: [] };
    },
    drainSummaryCalls: () => [],
  };
}

describe("re-reads in the replay", () => {
  it("charges a hidden result's reuse once per compaction epoch and counts a user's word as lost", async () => {
    const inputs: (readonly BaseMessage[])[] = [];
    const replay = await replayTrace(session, scripted(), { window: 100_000, tokenCounter, onInput: (input) => inputs.push(input) });
    const inputTokens = await Promise.all(inputs.map(async (input) => (await tokenCounter.measure(input)).total));
    const source = await tokenCounter.countMessage(output);
    const charged = (step: number, rereadWords: number) => ({
      rereads: 1,
      cachedTokens: inputTokens[step],
      uncachedTokens: REREAD_REPLY_TOKENS + source,
      outputTokens: REREAD_REPLY_TOKENS,
      rereadWords,
      lostOwnWords: 0,
      lostUserWords: 0,
    });
    expect(replay.steps.map((step) => step.recovery)).toEqual([
      NO_RECOVERY,
      charged(1, 1),
      // Missed again in the same epoch: recoverable words, no new charge.
      { ...NO_RECOVERY, rereadWords: 2 },
      charged(3, 1),
      { ...NO_RECOVERY, lostUserWords: 1 },
    ]);
    const totals = totalsOf(replay);
    expect(rereadCost(totals, DEFAULT_PRICES)).toBe(0.1 * (inputTokens[1]! + inputTokens[3]!) + 2 * (REREAD_REPLY_TOKENS + source) + 4 * 2 * REREAD_REPLY_TOKENS);
  });

  it("adds the re-reads to every price set's cost, the cached prefix read alike under Anthropic's automatic caching", async () => {
    const replay = await replayTrace(session, scripted(), { window: 100_000, tokenCounter });
    const row = rowOf("scripted", "ours", totalsOf(replay), DEFAULT_PRICES);
    const sets = priceSetsOf(DEFAULT_PRICES).filter((set) => set.id === "reference" || set.id === "anthropic-claude-automatic");
    const costs = presetCostsOf([row], sets).map((set) => set.rows[0]!);
    const expected = sets.map((set) => rereadCost(row.totals, set.rates));
    expect(expected.map((cost) => cost > 0)).toEqual([true, true]);
    costs.forEach((cost, index) => expect(cost.costWithRereads - cost.cost).toBeCloseTo(expected[index]!, 9));
    expect(row.costWithRereads - row.cost).toBeCloseTo(expected[0]!, 9);
  });
});

describe("GroundingTracker.misses", () => {
  it("traces a missing word to the newest tool result that had it, else to the newest message that had it, by kind", () => {
    const older = toolResult("t0", "c0", "ALLOWED_HOSTS older");
    const own = assistant("a0", "I will set ALLOWED_HOSTS and RETRY_LIMIT");
    const tracker = new GroundingTracker();
    tracker.show([task, older, own, read, output]);
    const reply = assistant("a9", "", [{ id: "c9", args: { command: "edit ALLOWED_HOSTS RETRY_LIMIT OWNER_ALICE DEBUG_MODE" } }]);
    const misses = tracker.misses(reply, [task]);
    expect({ grounding: misses.grounding, missing: [...misses.missing] }).toEqual({
      grounding: { grounded: 2, reused: 4 },
      missing: [
        // Also in the agent's reply and an older result: the newest result is the one to read again.
        ["ALLOWED_HOSTS", { kind: "tool", message: output }],
        ["RETRY_LIMIT", { kind: "own", message: own }],
      ],
    });
  });
});

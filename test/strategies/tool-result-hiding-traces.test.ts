/**
 * toolResultHiding over recorded sessions, replayed as an agent loop: before each recorded assistant
 * message the history (the previous step's output plus the messages recorded since) is compacted.
 * A step whose output is not that input, object for object, breaks a provider's cached prompt
 * prefix. Hiding in batches breaks it at few steps; the tool pairing stays valid at every step.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, defaultTracesPath, loadTraceSessions, type TraceSession } from "../../examples/traces.js";
import { createTokenCounter, toolResultHiding, validateToolPairing, type ToolResultHidingOptions } from "../../src/index.js";
import { sameObjects } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";

const counter = createTokenCounter({ mode: "exact" });

interface Replay {
  readonly steps: number;
  /** The steps (1-based) whose output changed a message of its input. */
  readonly breaks: readonly number[];
  /** Steps whose output has a tool-pairing problem. */
  readonly invalidSteps: number;
  /** Steps whose status says "compacted" (every other status must leave the input as it is). */
  readonly compactedSteps: number;
}

async function replay(session: TraceSession, options: ToolResultHidingOptions): Promise<Replay> {
  // The replays below were recorded keeping 5 groups (the default until it became 3).
  const hiding = toolResultHiding({ tokenCounter: counter, keepRecentGroups: 5, ...options });
  let persisted: BaseMessage[] = [];
  let pending: BaseMessage[] = [];
  let steps = 0;
  let invalidSteps = 0;
  let compactedSteps = 0;
  const breaks: number[] = [];
  for (const message of session.messages) {
    if (message.type !== "ai") {
      pending.push(message);
      continue;
    }
    steps++;
    const input = [...persisted, ...pending];
    const result = await hiding.compact(input);
    if (!sameObjects(result.messages, input)) breaks.push(steps);
    if (validateToolPairing(result.messages).length > 0) invalidSteps++;
    if (result.status === "compacted") compactedSteps++;
    persisted = [...result.messages, message];
    pending = [];
  }
  return { steps, breaks, invalidSteps, compactedSteps };
}

describe("toolResultHiding replayed over the bundled sessions", () => {
  const sessions = new Map(loadTraceSessions(BUNDLED_TRACES_PATH).map((session) => [session.id, session]));
  const swe = sessions.get("mini-swe-agent/matplotlib__matplotlib-25775")!;
  const tau = sessions.get("tau-bench-airline/task2-trial1")!;

  it("breaks the cache at 32 of 95 steps at a 10,000-token trigger, against 49 when hiding at every run", async () => {
    const batches = await replay(swe, { trigger: { tokens: 10_000 }, clearAtLeast: 0 });
    const everyRun = await replay(swe, EVERY_RUN);
    expect([batches.steps, batches.breaks.length, batches.invalidSteps, batches.compactedSteps]).toEqual([95, 32, 0, 32]);
    expect([everyRun.breaks.length, everyRun.invalidSteps]).toEqual([49, 0]);
    // Once the kept groups and the placeholders alone are over the trigger, most steps fire.
    expect(batches.breaks).toEqual([29, 40, 46, 48, 50, 51, 52, 53, 54, 55, 56, 57, 58, 61, 63, 64, 65, 67, 68, 71, 73, 76, 79, 80, 82, 83, 84, 85, 87, 89, 94, 95]);
  });

  it("breaks it at 4 of 95 steps when a firing must free 2,000 tokens", async () => {
    const run = await replay(swe, { trigger: { tokens: 10_000 }, clearAtLeast: 2_000 });
    expect([run.breaks, run.invalidSteps, run.compactedSteps]).toEqual([[29, 51, 65, 80], 0, 4]);
  });

  it("breaks it once in the shorter session, against 19 times when hiding at every run", async () => {
    const batches = await replay(tau, { trigger: { tokens: 10_000 }, clearAtLeast: 0 });
    const everyRun = await replay(tau, EVERY_RUN);
    expect([batches.steps, batches.breaks, batches.invalidSteps]).toEqual([30, [29], 0]);
    expect([everyRun.breaks.length, everyRun.invalidSteps]).toEqual([19, 0]);
  });
});

describe("toolResultHiding replayed over every recorded session", () => {
  const sessions = loadTraceSessions(defaultTracesPath());
  /** Cache breaks summed over the 32 recorded sessions. */
  const expected = { steps: 2371, batches: 248, batchesClearAtLeast: 47, everyRun: 1249 };

  it("keeps the tool pairing valid at every step and breaks the cache at far fewer steps than hiding at every run", async () => {
    const totals = { steps: 0, batches: 0, batchesClearAtLeast: 0, everyRun: 0 };
    let invalidSteps = 0;
    let breaksWithoutCompaction = 0;
    for (const session of sessions) {
      const batches = await replay(session, { trigger: { tokens: 30_000 }, clearAtLeast: 0 });
      const waiting = await replay(session, { trigger: { tokens: 30_000 }, clearAtLeast: 5_000 });
      const everyRun = await replay(session, EVERY_RUN);
      totals.steps += batches.steps;
      totals.batches += batches.breaks.length;
      totals.batchesClearAtLeast += waiting.breaks.length;
      totals.everyRun += everyRun.breaks.length;
      for (const run of [batches, waiting, everyRun]) {
        invalidSteps += run.invalidSteps;
        breaksWithoutCompaction += run.breaks.length - run.compactedSteps;
      }
    }
    expect({ ...totals, invalidSteps, breaksWithoutCompaction }).toEqual({ ...expected, invalidSteps: 0, breaksWithoutCompaction: 0 });
  });
});

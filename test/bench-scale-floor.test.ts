/**
 * bench:scale's pass-through floor (`--floor`) and compaction inside the model node (`--in-model`),
 * on SQLite in this process: the same graph with a node that returns no update in the compaction
 * node's place, timed the same way (it changes nothing in the threads, and the report keeps it out
 * of the with/without targets), and the graph whose model node is `compactingNode(callModel, ...)`.
 * Every run measures the wait between a tool result and the model call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplaySession } from "../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../examples/traces.js";
import { PASS_THROUGH } from "../bench/scale/graph.js";
import { nodeTable, resultsTable, verdicts, waitTable } from "../bench/scale/report.js";
import { runScenario, type ScenarioResult } from "../bench/scale/scenario.js";
import { planThreads } from "../bench/scale/threads.js";

describe("bench:scale's pass-through floor on SQLite (2 threads of the bundled sessions)", () => {
  const directory = mkdtempSync(join(tmpdir(), "scale-floor-"));
  const threads = planThreads(loadTraceSessions(BUNDLED_TRACES_PATH), 2, "floor");
  const results: ScenarioResult[] = [];
  // The in-model run again, with model calls that take 5 ms (--model-ms 5).
  let slowModel: ScenarioResult;

  beforeAll(async () => {
    for (const [label, window, inModel] of [["without", undefined, false], ["floor", PASS_THROUGH, false], ["with", 8_000, false], ["in-model", 8_000, true]] as const) {
      results.push(await runScenario({ tracesPath: BUNDLED_TRACES_PATH, threads, backend: { kind: "sqlite", path: join(directory, `${label}.sqlite`) }, window, inModel, workers: 0, concurrency: 2 }));
    }
    slowModel = await runScenario({ tracesPath: BUNDLED_TRACES_PATH, threads, backend: { kind: "sqlite", path: join(directory, "slow-model.sqlite") }, window: 8_000, inModel: true, modelMs: 5, workers: 0, concurrency: 2 });
  }, 120_000);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("times the pass-through node once before every model call, and it never compacts", () => {
    const floor = results[1]!;
    expect([floor.node, floor.compaction, floor.nodeMs?.runs, floor.nodeMs?.compactingRuns, floor.checks.compactions]).toEqual(["pass-through", false, floor.modelCalls, 0, 0]);
    expect([results[0]!.node, results[0]!.nodeMs, results[2]!.node, results[2]!.compaction]).toEqual(["none", null, "compaction", true]);
  });

  it("replays and restores every thread as the graph without a node does", () => {
    const floor = results[1]!;
    expect(floor.modelCalls).toBe(results[0]!.modelCalls);
    expect([floor.checks.lost, floor.checks.duplicated, floor.checks.unrestorableThreads, floor.checks.mismatchedThreads, floor.pairingFailures.length, floor.unitErrors]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("measures the wait between a tool result and the model call, and the step from one model call to the next, at every model call that follows a tool call, in every run", () => {
    const sessions = loadTraceSessions(BUNDLED_TRACES_PATH);
    // Every model call but the first of each user turn follows a tool call.
    const turns = threads.reduce((sum, plan) => sum + new ReplaySession(sessions[plan.session]!).turns.length, 0);
    const afterTools = results[0]!.modelCalls - turns;
    // The two bundled sessions: 2 and 4 user turns, 127 model calls.
    expect([turns, afterTools]).toEqual([6, 121]);
    expect(results.map((result) => result.modelWaitMs?.calls)).toEqual([afterTools, afterTools, afterTools, afterTools]);
    // A unit is a user turn here: every model call but a turn's first has a previous one in its unit.
    expect(results.map((result) => result.modelIntervalMs?.calls)).toEqual([afterTools, afterTools, afterTools, afterTools]);
    for (const result of results) expect(result.modelIntervalMs!.p50).toBeGreaterThanOrEqual(result.modelWaitMs!.p50);
    // The wait holds the node: its median is at least the node's, where there is one.
    for (const result of results.slice(1)) expect(result.modelWaitMs!.p50).toBeGreaterThanOrEqual(result.nodeMs!.p50);
    expect(waitTable(results).split("\n").slice(2).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ["sqlite", "none", String(afterTools)],
      ["sqlite", "pass-through", String(afterTools)],
      ["sqlite", "compaction", String(afterTools)],
      ["sqlite", "in-model", String(afterTools)],
    ]);
  });

  it("compacts inside the model node as the compaction node does, timed once per model call, with nothing lost", () => {
    const [separate, inModel] = [results[2]!, results[3]!];
    expect([inModel.node, inModel.compaction, inModel.modelCalls, inModel.nodeMs?.runs]).toEqual(["in-model", true, separate.modelCalls, separate.modelCalls]);
    expect([inModel.checks.compactions, inModel.nodeMs?.compactingRuns]).toEqual([separate.checks.compactions, separate.nodeMs?.compactingRuns]);
    expect(inModel.checks.compactions).toBeGreaterThan(0);
    expect([inModel.checks.lost, inModel.checks.duplicated, inModel.checks.unrestorableThreads, inModel.checks.mismatchedThreads, inModel.pairingFailures.length, inModel.unitErrors]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("times the turnaround (tools node end to model node end) at every model call after a tool call, split by whether the step compacted", () => {
    const calls = (figures: { calls: number } | null) => figures?.calls ?? 0;
    expect(results.map((result) => calls(result.turnaroundMs.idle) + calls(result.turnaroundMs.compacting))).toEqual([121, 121, 121, 121]);
    // No compaction without a compaction node; the same compacting steps in both placements.
    expect(results.slice(0, 2).map((result) => result.turnaroundMs.compacting)).toEqual([null, null]);
    const [separate, inModel] = [results[2]!, results[3]!];
    expect(calls(inModel.turnaroundMs.compacting)).toBe(calls(separate.turnaroundMs.compacting));
    expect(calls(separate.turnaroundMs.compacting)).toBeGreaterThan(0);
    // A turnaround holds the wait: their medians, where every step is idle.
    expect(results[0]!.turnaroundMs.idle!.p50).toBeGreaterThanOrEqual(results[0]!.modelWaitMs!.p50);
  });

  it("replays the same run with model calls that take time (--model-ms), with nothing lost", () => {
    const inModel = results[3]!;
    expect(results.map((result) => result.modelMs)).toEqual([0, 0, 0, 0]);
    expect([slowModel.modelMs, slowModel.node, slowModel.modelCalls, slowModel.checks.compactions, slowModel.modelIntervalMs?.calls]).toEqual([5, "in-model", inModel.modelCalls, inModel.checks.compactions, inModel.modelIntervalMs?.calls]);
    // Each thread's model calls follow one another, 5 ms each: the run takes at least the longer thread's share.
    expect(slowModel.wallMs).toBeGreaterThanOrEqual((slowModel.modelCalls / 2) * 5);
    expect([slowModel.checks.lost, slowModel.checks.duplicated, slowModel.checks.unrestorableThreads, slowModel.checks.mismatchedThreads, slowModel.pairingFailures.length, slowModel.unitErrors]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("reports the floor in the table and keeps it out of the with/without targets", () => {
    const floorRow = resultsTable(results).split("\n").find((line) => line.includes("pass-through"))!;
    // A run without compacting steps shows none, not NaN.
    expect([floorRow.includes("NaN"), floorRow.trim().split(/\s+/).at(-9)]).toEqual([false, "-"]);
    // The pass-through awaits its compactor: its idle steps are all "awaited", none decided at once.
    expect(nodeTable(results).split("\n").filter((line) => line.startsWith("sqlite (pass-through)")).map((line) => line.split(/\s{2,}/)[1])).toEqual(["idle", "idle, awaited"]);
    const targets = verdicts(results).map((verdict) => verdict.target);
    expect(targets).toEqual([
      "sqlite: throughput with the node >= 0.8x without",
      "sqlite: bytes per thread with compaction <= 0.5x without",
      "sqlite: step median with compaction <= without",
      "sqlite: step p99 with compaction <= without",
      "sqlite (in-model): throughput with the node >= 0.8x without",
      "sqlite (in-model): bytes per thread with compaction <= 0.5x without",
      "sqlite (in-model): step median with compaction <= without",
      "sqlite (in-model): step p99 with compaction <= without",
      "sqlite: 0 lost/duplicated/unrestorable messages, pairing at every call",
      "sqlite + pass-through: 0 lost/duplicated/unrestorable messages, pairing at every call",
      "sqlite + compaction: 0 lost/duplicated/unrestorable messages, pairing at every call",
      "sqlite + in-model: 0 lost/duplicated/unrestorable messages, pairing at every call",
    ]);
  });
});

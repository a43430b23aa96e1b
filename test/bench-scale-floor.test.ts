/**
 * bench:scale's pass-through floor (`--floor`), on SQLite in this process: the same graph with a node
 * that returns no update in the compaction node's place, timed the same way. It changes nothing in
 * the threads, and the report keeps it out of the with/without targets.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../examples/traces.js";
import { PASS_THROUGH } from "../bench/scale/graph.js";
import { nodeTable, resultsTable, verdicts } from "../bench/scale/report.js";
import { runScenario, type ScenarioResult } from "../bench/scale/scenario.js";
import { planThreads } from "../bench/scale/threads.js";

describe("bench:scale's pass-through floor on SQLite (2 threads of the bundled sessions)", () => {
  const directory = mkdtempSync(join(tmpdir(), "scale-floor-"));
  const threads = planThreads(loadTraceSessions(BUNDLED_TRACES_PATH), 2, "floor");
  const results: ScenarioResult[] = [];

  beforeAll(async () => {
    for (const [label, window] of [["without", undefined], ["floor", PASS_THROUGH], ["with", 8_000]] as const) {
      results.push(await runScenario({ tracesPath: BUNDLED_TRACES_PATH, threads, backend: { kind: "sqlite", path: join(directory, `${label}.sqlite`) }, window, workers: 0, concurrency: 2 }));
    }
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

  it("reports the floor in the table and keeps it out of the with/without targets", () => {
    const floorRow = resultsTable(results).split("\n").find((line) => line.includes("pass-through"))!;
    // A run without compacting steps shows none, not NaN.
    expect([floorRow.includes("NaN"), floorRow.trim().split(/\s+/).at(-9)]).toEqual([false, "-"]);
    expect(nodeTable(results).split("\n").filter((line) => line.startsWith("sqlite (pass-through)")).map((line) => line.split(/\s+/)[2])).toEqual(["idle"]);
    const targets = verdicts(results).map((verdict) => verdict.target);
    expect(targets).toEqual([
      "sqlite: throughput with the node >= 0.8x without",
      "sqlite: bytes per thread with compaction <= 0.5x without",
      "sqlite: 0 lost/duplicated/unrestorable messages, pairing at every call",
      "sqlite + pass-through: 0 lost/duplicated/unrestorable messages, pairing at every call",
      "sqlite + compaction: 0 lost/duplicated/unrestorable messages, pairing at every call",
    ]);
  });
});

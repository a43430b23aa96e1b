/**
 * The scale benchmark (bench/scale), CI-sized: 8 threads of the bundled sessions on PostgreSQL,
 * driven by 2 worker processes sharing one schema, with the compaction node. Checks correctness
 * only (never timings): every thread restores to its recorded session message by message, tool
 * pairing held at every model call, no unit failed. Skipped locally without a server, failing under CI.
 */
import { beforeAll, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { runScenario, type ScenarioResult } from "../../bench/scale/scenario.js";
import { planThreads } from "../../bench/scale/threads.js";
import { describeWithPostgres } from "../support/postgres.js";

describeWithPostgres("bench:scale, CI-sized (8 threads x 2 worker processes on PostgreSQL)", (url) => {
  const threads = planThreads(loadTraceSessions(BUNDLED_TRACES_PATH), 8, "ci-scale");
  let result: ScenarioResult;

  beforeAll(async () => {
    const schema = `compaction_scale_${Date.now().toString(36)}`;
    result = await runScenario({ tracesPath: BUNDLED_TRACES_PATH, threads, backend: { kind: "postgres", url, schema }, window: 8_000, workers: 2, concurrency: 2 });
  }, 240_000);

  it("replays every session to the end: 4 x (96 + 31) model calls, no failed unit, no dead worker", () => {
    expect([result.modelCalls, result.unitErrors, result.deadWorkers]).toEqual([4 * (96 + 31), 0, 0]);
  });

  it("restores every thread to its recorded session, message by message", () => {
    expect(result.badThreads).toEqual([]);
    expect([result.checks.lost, result.checks.duplicated, result.checks.unrestorableThreads, result.checks.mismatchedThreads]).toEqual([0, 0, 0, 0]);
    expect(result.checks.compactions).toBeGreaterThanOrEqual(8);
  });

  it("kept tool pairing valid at every model call", () => {
    expect(result.pairingFailures).toEqual([]);
  });
});

/**
 * The latency scenario of `npm run bench` (bench/latency), CI-sized: the first 100 messages of the
 * bundled SWE-bench session, a 7 000-token window, a summary model that answers after 200 ms and an
 * agent model that answers after 400 ms. Counts, not speeds: which steps summarized, whether each
 * summary was made at the firing or applied from a preparation, and how many summary calls went out.
 */
import { HumanMessage } from "@langchain/core/messages";
import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../examples/traces.js";
import { classifyThread, percentiles, type ClassifiedStep } from "../bench/latency/analysis.js";
import { runLatency, type LatencyRun, type ThreadRun } from "../bench/latency/scenario.js";
import { startSummaryServer, summaryText } from "../bench/latency/summary-server.js";
import type { StepSample } from "../bench/latency/systems.js";

const DELAY_MS = 200;
const session = loadTraceSessions(BUNDLED_TRACES_PATH).find((each) => each.id === "mini-swe-agent/matplotlib__matplotlib-25775")!;
const shortSession = { ...session, messages: session.messages.slice(0, 100) };

const step = (startMs: number, nodeMs: number, kind: StepSample["kind"]): StepSample => ({ startMs, nodeMs, kind, compactMs: undefined, modelCalledAt: startMs + nodeMs + 1 });

describe("classifyThread: each step by the summary requests of its thread", () => {
  const thread = (steps: StepSample[], requests: ThreadRun["requests"]): ThreadRun => ({ system: "prepared", session: "s", thread: "prepared/s", steps, requests });
  const classes = (steps: ClassifiedStep[]) => steps.map((each) => [each.class, each.miss ?? null]);

  it("a request sent after a no-op step is a preparation; a firing with no request of its own applied it", () => {
    const run = thread([step(0, 1, "noop"), step(1000, 2, "noop"), step(2000, 1, "noop"), step(3000, 5, "summarized"), step(4000, 1, "noop")], [{ arrivedAt: 1003, outcome: "completed" }]);
    expect(classes(classifyThread(run, DELAY_MS))).toEqual([
      ["idle", null],
      ["started a preparation", null],
      ["idle", null],
      ["summary from a preparation", null],
      ["idle", null],
    ]);
  });

  it("a firing that sent its own request says why no preparation was applied", () => {
    const run = thread(
      [
        step(0, 1, "noop"),
        step(1000, 250, "summarized"), // no preparation before it
        step(2000, 1, "noop"), // prepares
        step(2100, 250, "summarized"), // its preparation (sent at 2002) is still running at 2100
        step(3000, 1, "noop"), // prepares
        step(4000, 10, "compacted"), // a hiding: that preparation is of no use any more
        step(5000, 1, "noop"), // prepares
        step(6000, 250, "summarized"), // ready since 5202, yet made at the firing
      ],
      [
        { arrivedAt: 1001, outcome: "completed" },
        { arrivedAt: 2002, outcome: "aborted" },
        { arrivedAt: 2101, outcome: "completed" },
        { arrivedAt: 3002, outcome: "completed" },
        { arrivedAt: 5002, outcome: "completed" },
        { arrivedAt: 6001, outcome: "completed" },
      ],
    );
    const classified = classifyThread(run, DELAY_MS);
    expect(classes(classified)).toEqual([
      ["idle", null],
      ["summary made at the firing", "no preparation since the last compaction"],
      ["started a preparation", null],
      ["summary made at the firing", "preparation still running"],
      ["started a preparation", null],
      ["hiding", null],
      ["started a preparation", null],
      ["summary made at the firing", "preparation ready, not applied"],
    ]);
    expect(classified[3]!.missLeadMs).toBe(98);
  });

  it("p50, p99 and max by nearest rank", () => {
    const values = Array.from({ length: 200 }, (_, index) => 200 - index);
    expect(percentiles(values)).toEqual({ count: 200, p50: 100, p99: 198, max: 200 });
  });
});

describe("the summary server", () => {
  it("answers after its delay with a deterministic summary in the format asked for, and records the thread and the client's abort", async () => {
    const server = await startSummaryServer({ delayMs: 60_000 });
    try {
      const controller = new AbortController();
      const call = server.modelFor("thread-a").invoke([new HumanMessage("Summarize into a <state_snapshot> block.")], { signal: controller.signal });
      await expect.poll(() => server.requests.length).toBe(1);
      controller.abort();
      await expect(call).rejects.toThrow();
      await expect.poll(() => server.requests[0]!.outcome()).toBe("aborted");
      expect(server.requests[0]!.thread).toBe("thread-a");
    } finally {
      await server.close();
    }
    const request = { method: "POST", path: "/v1/chat/completions", headers: {}, outcome: "pending" as const };
    const snapshot = summaryText({ ...request, body: { model: "m", messages: [{ role: "user", content: "<state_snapshot> please" }] } });
    expect(snapshot.startsWith("<state_snapshot>\n  <overall_goal>")).toBe(true);
    expect(snapshot).toBe(summaryText({ ...request, body: { model: "m", messages: [{ role: "user", content: "<state_snapshot> please" }] } }));
    expect(summaryText({ ...request, body: { model: "m", messages: [{ role: "user", content: "plain" }] } }).split("\n")[0]).toBe("<summary>");
  });
});

describe("the latency scenario on a short session", () => {
  let run: LatencyRun;
  const classified = (system: ThreadRun["system"]) => {
    const thread = run.threads.find((each) => each.system === system)!;
    return { thread, steps: classifyThread(thread, DELAY_MS) };
  };
  const count = (steps: ClassifiedStep[], stepClass: ClassifiedStep["class"]) => steps.filter((each) => each.class === stepClass).length;

  beforeAll(async () => {
    run = await runLatency([shortSession], { delayMs: DELAY_MS, thinkMs: 400, window: 7000 });
  }, 120_000);

  it("replays the session through the four systems: one step before every model call", () => {
    expect(run.threads.map((thread) => [thread.system, thread.steps.length, thread.steps.filter((each) => each.modelCalledAt !== undefined).length])).toEqual([
      ["blocking", 50, 50],
      ["prepared", 50, 50],
      ["summarizationMiddleware", 50, 50],
      ["passThrough", 50, 50],
    ]);
  });

  it("passThrough: the floor compacts nothing and sends no summary request", () => {
    const { thread, steps } = classified("passThrough");
    expect([count(steps, "idle"), thread.requests.length]).toEqual([50, 0]);
  });

  it("blocking: each summary is made at the firing, and that step waits for the summary model", () => {
    const { thread, steps } = classified("blocking");
    expect([count(steps, "hiding"), count(steps, "summary made at the firing"), count(steps, "started a preparation")]).toEqual([0, 3, 0]);
    expect(thread.requests.map((request) => request.outcome)).toEqual(["completed", "completed", "completed"]);
    for (const summarizing of steps.filter((each) => each.class === "summary made at the firing")) expect(summarizing.nodeMs).toBeGreaterThanOrEqual(DELAY_MS);
  });

  it("prepared: the blocking run's hiding and summaries, each summary started at its firing (a no-op step) and applied later; no summary call in a step", () => {
    const { thread, steps } = classified("prepared");
    expect([count(steps, "hiding"), count(steps, "summary from a preparation"), count(steps, "summary made at the firing"), count(steps, "started a preparation")]).toEqual([0, 3, 0, 3]);
    // One call per preparation, each answered and applied.
    expect(thread.requests.map((request) => request.outcome)).toEqual(["completed", "completed", "completed"]);
    // Each applied summary replaced the start of the history: fewer tokens after than before.
    for (const applied of steps.filter((each) => each.class === "summary from a preparation")) expect(applied.tokens![1]!).toBeLessThan(applied.tokens![0]!);
  });

  it("summarizationMiddleware: every summary is made at the firing, one call each", () => {
    const { thread, steps } = classified("summarizationMiddleware");
    expect(count(steps, "summary made at the firing")).toBe(7);
    expect(thread.requests).toHaveLength(7);
    for (const summarizing of steps.filter((each) => each.class === "summary made at the firing")) expect(summarizing.nodeMs).toBeGreaterThanOrEqual(DELAY_MS);
  });
});

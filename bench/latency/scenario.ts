/**
 * The latency scenario: recorded sessions replayed through three agents, each thread with a summary
 * model that answers after a fixed delay, timing what runs before every model call:
 * - `blocking`: ours, `autoCompaction({ prepare: false })`: a summary is made at the firing;
 * - `prepared`: ours, `autoCompaction({ prepare: true })`: the summary is prepared in the background
 *   from 0.7 of the way to the firing and applied at the firing when it is ready;
 * - `summarizationMiddleware`: LangChain's, in `createAgent`;
 * - `passThrough`: the same graph as ours with a node that compacts nothing and yields once: the
 *   floor any node meets in this process (LangGraph's own checkpoint writes and tracing context of
 *   the other threads run on the same event loop).
 * Each system has its own summary server, checkpointer, store and token counter; every thread its own
 * agent, policy and summary client (so each summary call is known by thread). The threads of a run
 * start spread over one think time, so their steps do not all fall in the same instant.
 */
import { PerformanceObserver, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createTokenCounter } from "../../src/index.js";
import { ReplaySession } from "../../examples/replay/index.js";
import type { TraceSession } from "../../examples/traces.js";
import { startSummaryServer, type SummaryServer } from "./summary-server.js";
import { ThreadProbe, langChainAgent, oursAgent, type AgentContext, type ReplayAgent, type StepSample } from "./systems.js";

export const LATENCY_SYSTEMS = ["blocking", "prepared", "summarizationMiddleware", "passThrough"] as const;
export type LatencySystem = (typeof LATENCY_SYSTEMS)[number];

/** How the scenario runs (plain data: it is sent to the processes that run the systems). */
export interface LatencySettings {
  /** The summary model answers after this long. */
  readonly delayMs: number;
  /** The agent's model answers after this long. */
  readonly thinkMs: number;
  /** The context window of every system, in tokens. */
  readonly window: number;
  /** At most this many threads run at once, one after the other from the start. @default all at once, their starts spread over `thinkMs` */
  readonly concurrency?: number;
  /** @default every system */
  readonly systems?: readonly LatencySystem[];
}

/** A summary request as the server saw it, once the run is over. */
export interface RecordedRequest {
  readonly arrivedAt: number;
  readonly outcome: "pending" | "completed" | "aborted";
}

/** One thread's steps (one per model call) and the summary requests its client sent. */
export interface ThreadRun {
  readonly system: LatencySystem;
  readonly session: string;
  readonly thread: string;
  readonly steps: readonly StepSample[];
  readonly requests: readonly RecordedRequest[];
}

/** A garbage-collection pause (`performance` timeline of the process that ran the system). */
export interface GcPause {
  readonly startMs: number;
  readonly durationMs: number;
}

/** Every thread of every system, the GC pauses of the processes, and the wall time. */
export interface LatencyRun {
  readonly settings: LatencySettings;
  readonly sessions: readonly string[];
  readonly threads: readonly ThreadRun[];
  readonly gcPauses: Partial<Record<LatencySystem, readonly GcPause[]>>;
  readonly wallMs: number;
}

function agentFor(system: LatencySystem, context: AgentContext): ReplayAgent {
  if (system === "summarizationMiddleware") return langChainAgent(context);
  return oursAgent(context, system === "prepared", system === "passThrough");
}

/** Run `tasks` with at most `limit` at once. */
async function pooled(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
}

/** Record this process's GC pauses until `stop()`. */
function watchGc(): { stop(): GcPause[] } {
  const pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ startMs: entry.startTime, durationMs: entry.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop() {
      observer.disconnect();
      return pauses;
    },
  };
}

/**
 * Replay every session through every system in this process, and wait for the background work to
 * settle. Throws when a thread fails (the replay went apart from the recording).
 */
export async function runLatency(sessions: readonly TraceSession[], settings: LatencySettings): Promise<LatencyRun> {
  const systems = settings.systems ?? LATENCY_SYSTEMS;
  const servers = new Map<LatencySystem, SummaryServer>();
  const threads: { system: LatencySystem; session: string; probe: ThreadProbe }[] = [];
  const agents: ReplayAgent[] = [];
  const tasks: (() => Promise<void>)[] = [];
  const gc = watchGc();
  try {
    for (const system of systems) servers.set(system, await startSummaryServer({ delayMs: settings.delayMs }));
    const shared = new Map(systems.map((system) => [system, { checkpointer: new MemorySaver(), store: new InMemoryStore(), tokenCounter: createTokenCounter() }]));
    const total = sessions.length * systems.length;
    // Interleaved by session, so the systems run side by side whatever the concurrency.
    for (const session of sessions) {
      const replay = new ReplaySession(session);
      for (const system of systems) {
        const thread = `${system}/${replay.id}`;
        const probe = new ThreadProbe(system, thread);
        const agent = agentFor(system, { replay, probe, thinkMs: settings.thinkMs, window: settings.window, summaryModel: servers.get(system)!.modelFor(thread), ...shared.get(system)! });
        const offsetMs = settings.concurrency === undefined ? (tasks.length * settings.thinkMs) / total : 0;
        agents.push(agent);
        threads.push({ system, session: replay.id, probe });
        tasks.push(async () => {
          if (offsetMs > 0) await sleep(offsetMs);
          await agent.run();
        });
      }
    }
    // The o200k encoder is loaded once per process, before any thread starts (a server loads it at start-up).
    await createTokenCounter().countText("warm up");
    const started = performance.now();
    await pooled(tasks, settings.concurrency ?? Number.POSITIVE_INFINITY);
    await Promise.all(agents.map((agent) => agent.settled()));
    const wallMs = performance.now() - started;
    const pauses = gc.stop();
    return {
      settings,
      sessions: sessions.map((session) => session.id),
      threads: threads.map(({ system, session, probe }) => ({
        system,
        session,
        thread: probe.thread,
        steps: probe.steps,
        requests: servers
          .get(system)!
          .requests.filter((request) => request.thread === probe.thread)
          .map((request) => ({ arrivedAt: request.arrivedAt, outcome: request.outcome() })),
      })),
      gcPauses: Object.fromEntries(systems.map((system) => [system, pauses])),
      wallMs,
    };
  } finally {
    gc.stop();
    await Promise.all([...servers.values()].map((server) => server.close()));
  }
}

/**
 * One process's share of a scale run: its own connections to the shared database, one compiled graph
 * per recorded session, and what it measured (time inside the compaction node, model calls, tool
 * pairing at every call). Used by the worker processes, the SQLite run and the fault tests.
 */
import type { BaseStore } from "@langchain/langgraph";
import { createTokenCounter, type CompactionNodeOptions, type TokenCounter } from "../../src/index.js";
import { ReplaySession } from "../../examples/replay/index.js";
import type { TraceSession } from "../../examples/traces.js";
import { buildScaleGraph, type NodeRun, type ScaleGraph, type ScaleGraphHooks, type ScaleStateValues } from "./graph.js";
import type { Persistence } from "./backends.js";
import { recordedPositions, runUnit, type NextAction } from "./threads.js";

/** A model call whose input broke tool pairing. */
export interface PairingFailure {
  readonly threadId: string;
  readonly lastMessageId: string | undefined;
  readonly problems: number;
}

/** What a runner measured since it started (or since {@link ThreadRunner.takeMetrics}). */
export interface RunnerMetrics {
  /** Every run of the compaction node, timed. */
  nodeRuns: NodeRun[];
  /** Time from the end of the tools node to the start of the model node, ms, per model call after a tool call (see `ScaleGraphHooks.onModelWait`). */
  modelWaits: number[];
  /** Time between consecutive model calls of a thread within a unit, ms (see `ScaleGraphHooks.onModelInterval`). */
  modelIntervals: number[];
  /** Time from the end of the tools node to the end of the model node, ms, by whether the step compacted (see `ScaleGraphHooks.onModelTurnaround`). */
  turnarounds: { idle: number[]; compacting: number[] };
  modelCalls: number;
  pairingFailures: PairingFailure[];
}

/** Options of {@link ThreadRunner}. */
export interface ThreadRunnerOptions {
  readonly sessions: readonly TraceSession[];
  readonly persistence: Persistence;
  /** Context window of the compaction node; `undefined`: the graph without the node. */
  readonly window: number | undefined;
  /** Compact inside the model node (see `ScaleGraphOptions.inModel`). @default false */
  readonly inModel?: boolean;
  /** Each model call's delay, ms (see `ScaleGraphOptions.modelMs`). @default 0 */
  readonly modelMs?: number;
  /** Replaces the persistence's store in the graphs (e.g. a fault-injecting wrapper of it). */
  readonly store?: BaseStore | undefined;
  /** More hooks, called after the runner's own. */
  readonly hooks?: ScaleGraphHooks;
  /** Options of the compaction node. @default its defaults */
  readonly compactionOptions?: CompactionNodeOptions;
}

const emptyMetrics = (): RunnerMetrics => ({ nodeRuns: [], modelWaits: [], modelIntervals: [], turnarounds: { idle: [], compacting: [] }, modelCalls: 0, pairingFailures: [] });

/** Runs units of work on threads of a scale run, in this process. */
export class ThreadRunner {
  readonly #options: ThreadRunnerOptions;
  readonly #graphs = new Map<number, { graph: ScaleGraph; replay: ReplaySession; positions: Map<string, number> }>();
  readonly #tokenCounter: TokenCounter = createTokenCounter({ model: "gpt-4o" });
  #metrics: RunnerMetrics = emptyMetrics();

  constructor(options: ThreadRunnerOptions) {
    this.#options = options;
  }

  /** The store the graphs use (the persistence's, or the replacement given). */
  get store(): BaseStore | undefined {
    return this.#options.store ?? this.#options.persistence.store;
  }

  /** The graph, replay and id positions of one session (built on first use). */
  session(index: number) {
    let entry = this.#graphs.get(index);
    if (!entry) {
      const session = this.#options.sessions[index];
      if (!session) throw new Error(`no session ${index}`);
      const replay = new ReplaySession(session);
      const hooks = this.#options.hooks;
      const graph = buildScaleGraph({
        replay,
        checkpointer: this.#options.persistence.checkpointer,
        store: this.store,
        window: this.#options.window,
        inModel: this.#options.inModel ?? false,
        modelMs: this.#options.modelMs ?? 0,
        tokenCounter: this.#tokenCounter,
        ...(this.#options.compactionOptions ? { compactionOptions: this.#options.compactionOptions } : {}),
        hooks: {
          onCompactionNode: (run, threadId) => {
            this.#metrics.nodeRuns.push(run);
            hooks?.onCompactionNode?.(run, threadId);
          },
          onModelWait: (ms, threadId) => {
            this.#metrics.modelWaits.push(ms);
            hooks?.onModelWait?.(ms, threadId);
          },
          onModelInterval: (ms, threadId) => {
            this.#metrics.modelIntervals.push(ms);
            hooks?.onModelInterval?.(ms, threadId);
          },
          onModelTurnaround: (ms, threadId, compacted) => {
            this.#metrics.turnarounds[compacted ? "compacting" : "idle"].push(ms);
            hooks?.onModelTurnaround?.(ms, threadId, compacted);
          },
          onModelCall: async (call) => {
            this.#metrics.modelCalls++;
            if (call.pairingProblems > 0) this.#metrics.pairingFailures.push({ threadId: call.threadId, lastMessageId: call.lastMessageId, problems: call.pairingProblems });
            await hooks?.onModelCall?.(call);
          },
        },
      });
      entry = { graph, replay, positions: recordedPositions(replay) };
      this.#graphs.set(index, entry);
    }
    return entry;
  }

  /** One unit of work on a thread (see `runUnit`): resume it or start its next turn. */
  async runUnit(threadId: string, session: number): Promise<NextAction> {
    const { graph, replay, positions } = this.session(session);
    // A wait is measured within one unit: a failed unit's tools node does not count for the next.
    graph.forgetWait(threadId);
    return runUnit(graph, replay, positions, threadId);
  }

  /** Run units on a thread until its session is over. */
  async runThread(threadId: string, session: number): Promise<void> {
    while ((await this.runUnit(threadId, session)).kind !== "over");
  }

  /**
   * Run a thread to the end of its session, going on from its last checkpoint after a unit fails
   * (a lost connection, a failed step), as a deployment retries a run: up to `maxFailures` failures,
   * `delayMs` apart. Returns the errors met, in order.
   *
   * @throws {Error} the last error, after `maxFailures` failures.
   */
  async runThreadResuming(threadId: string, session: number, options: { maxFailures?: number; delayMs?: number } = {}): Promise<string[]> {
    const errors: string[] = [];
    for (;;) {
      try {
        if ((await this.runUnit(threadId, session)).kind === "over") return errors;
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
        if (errors.length >= (options.maxFailures ?? 20)) throw error;
        await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 200));
      }
    }
  }

  /** The thread's checkpointed state. */
  async state(threadId: string, session: number): Promise<{ values: Partial<ScaleStateValues>; next: string[] }> {
    const snapshot = await this.session(session).graph.getState({ configurable: { thread_id: threadId } });
    return { values: snapshot.values as Partial<ScaleStateValues>, next: [...snapshot.next] };
  }

  /** What was measured since the last call, and start afresh. */
  takeMetrics(): RunnerMetrics {
    const metrics = this.#metrics;
    this.#metrics = emptyMetrics();
    return metrics;
  }
}

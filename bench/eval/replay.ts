/**
 * Replays one recorded session through one system, the way an agent runs: before each assistant
 * message of the recording, the persisted history plus the messages added since the last call goes
 * through the system, and what the model would receive is measured. The assistant message then
 * joins the persisted history, as the model's reply joins the agent's state.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { performance } from "node:perf_hooks";
import { extractArtifacts, type ArtifactIndex, type TokenCounter } from "../../src/index.js";
import type { TraceSession } from "../../examples/traces.js";
import {
  RetentionTracker,
  UNBOUNDED_ARTIFACT_LIMITS,
  cachedPrefixTokens,
  commonPrefixLength,
  toolPairingValid,
  trackedArtifacts,
  type Retention,
} from "./metrics.js";
import type { EvalSystem } from "./systems.js";
import type { SummaryCall } from "./summary-model.js";

/** One model call of a replay. */
export interface StepRecord {
  /** Position of the assistant message this call produced, in the recording. */
  readonly position: number;
  /** Tokens of the model's input. */
  readonly inputTokens: number;
  /** Messages of the model's input. */
  readonly messages: number;
  /**
   * Cached input tokens of this step: the model call's longest common prefix with the previous
   * call's input (message granularity), plus {@link summaryCachedTokens}.
   */
  readonly cachedTokens: number;
  /**
   * Of `cachedTokens`, the summary calls' part: each summary prompt's common prefix with the
   * previous step's model input (what the provider has cached when the summary call is made).
   */
  readonly summaryCachedTokens: number;
  readonly compacted: boolean;
  /** Time the system took before this call (compaction, summary calls, applying the update). */
  readonly compactionMs: number;
  readonly retention: Retention;
  readonly pairingValid: boolean;
  /** Summary calls the system made before this call. */
  readonly summaryCalls: readonly SummaryCall[];
}

/** What a system did with one recording. */
export interface TraceReplay {
  readonly trace: string;
  readonly system: string;
  readonly window: number;
  readonly steps: readonly StepRecord[];
  /** Tokens of the recording's assistant messages: the agent's output, the same for every system. */
  readonly agentOutputTokens: number;
}

/** A compaction, as the probe step sees it. */
export interface CompactionEventForProbes {
  readonly step: number;
  /** What left the model's context at this step. */
  readonly originals: readonly BaseMessage[];
  /** The recording up to this call (what really happened). */
  readonly history: readonly BaseMessage[];
  /** What the model receives. */
  readonly context: readonly BaseMessage[];
}

/** Options of {@link replayTrace}. */
export interface ReplayOptions {
  readonly window: number;
  /** Measures every call (the same counter the systems trigger with). */
  readonly tokenCounter: TokenCounter;
  /** Called after each step at which the system compacted (e.g. to ask probes). */
  readonly onCompaction?: (event: CompactionEventForProbes) => Promise<void>;
  /** Called with what the model receives at every step (tests compare it with a real agent's calls). */
  readonly onInput?: (input: readonly BaseMessage[], step: number) => void;
}

/**
 * Replay `session` through `system`.
 *
 * @example
 * const replay = await replayTrace(session, clearToolUsesView.create(context), { window: 16_000, tokenCounter });
 */
export async function replayTrace(session: TraceSession, system: EvalSystem, options: ReplayOptions): Promise<TraceReplay> {
  const { tokenCounter } = options;
  const retention = new RetentionTracker();
  const steps: StepRecord[] = [];
  let persisted: BaseMessage[] = [];
  let pending: BaseMessage[] = [];
  let previousInput: readonly BaseMessage[] = [];
  let originalIndex: ArtifactIndex = extractArtifacts([], [], UNBOUNDED_ARTIFACT_LIMITS);
  let agentOutputTokens = 0;
  const recording = session.messages;
  for (let position = 0; position < recording.length; position++) {
    const message = recording[position]!;
    if (message.type !== "ai") {
      pending.push(message);
      continue;
    }
    // The artifacts the original stream has shown so far, before this call.
    originalIndex = extractArtifacts(pending, [originalIndex], UNBOUNDED_ARTIFACT_LIMITS);
    retention.register(trackedArtifacts(originalIndex));
    const history = [...persisted, ...pending];
    const started = performance.now();
    const result = await system.step(history);
    const compactionMs = performance.now() - started;
    const summaryCalls = system.drainSummaryCalls();
    const summaryCachedTokens = summaryCallsCachedTokens(summaryCalls, previousInput);
    const measurement = await tokenCounter.measure(result.input);
    const prefix = commonPrefixLength(previousInput, result.input);
    steps.push({
      position,
      inputTokens: measurement.total,
      messages: result.input.length,
      cachedTokens: cachedPrefixTokens(measurement.perMessage, prefix) + summaryCachedTokens,
      summaryCachedTokens,
      compacted: result.compacted,
      compactionMs,
      retention: retention.measure(result.input),
      pairingValid: toolPairingValid(result.input),
      summaryCalls,
    });
    options.onInput?.(result.input, steps.length - 1);
    if (result.compacted && options.onCompaction) {
      await options.onCompaction({ step: steps.length - 1, originals: result.originals, history: recording.slice(0, position), context: result.input });
    }
    previousInput = result.input;
    // The reply joins the state; its artifacts join the original stream.
    agentOutputTokens += await tokenCounter.countMessage(message);
    originalIndex = extractArtifacts([message], [originalIndex], UNBOUNDED_ARTIFACT_LIMITS);
    persisted = [...result.persisted, message];
    pending = [];
  }
  return { trace: session.id, system: system.name, window: options.window, steps, agentOutputTokens };
}

/**
 * The cached input tokens of summary calls made before a model call: each prompt's common prefix
 * (message granularity) with `previousInput`, the agent's previous model call, which is what the
 * provider holds in its cache when the summary call is made. A standalone summary prompt (one
 * human message holding the conversation as text) shares nothing with it: 0.
 *
 * @example
 * summaryCallsCachedTokens(step.summaryCalls, previousStepInput);
 */
export function summaryCallsCachedTokens(calls: readonly SummaryCall[], previousInput: readonly BaseMessage[]): number {
  let cached = 0;
  for (const call of calls) cached += cachedPrefixTokens(call.perMessage, commonPrefixLength(previousInput, call.messages));
  return cached;
}

/** The totals of one replay (or of several: see {@link addTotals}). */
export interface ReplayTotals {
  /** Replays summed (one per trace). */
  readonly traces: number;
  readonly modelCalls: number;
  /** Input tokens of the model calls. */
  readonly modelInputTokens: number;
  readonly summaryCalls: number;
  readonly summaryInputTokens: number;
  readonly summaryOutputTokens: number;
  readonly agentOutputTokens: number;
  /** Cached input tokens: model calls' and summary calls'. */
  readonly cachedTokens: number;
  /** Of `cachedTokens`, the summary calls' part. */
  readonly summaryCachedTokens: number;
  readonly peakInputTokens: number;
  /** The largest summary prompt, in tokens. */
  readonly peakSummaryInputTokens: number;
  /** Model calls whose input is over the window. */
  readonly callsOverWindow: number;
  /** Summary calls whose prompt is over the window. */
  readonly summaryCallsOverWindow: number;
  readonly compactions: number;
  readonly compactionMs: number;
  /** Sum over steps with at least one tracked artifact of the share present; divide by `retentionSteps`. */
  readonly retentionShareSum: number;
  readonly retentionSteps: number;
  /**
   * Per kind: artifacts present and tracked, summed over steps; `afterCompaction`: tracked, summed
   * over the steps at or after the trace's first compaction (0: the kind never met a compaction, so
   * its share is 1 by construction).
   */
  readonly retentionByKind: { readonly [kind in keyof Retention["byKind"]]: KindRetention };
  readonly pairingValidSteps: number;
}

/** Retention of one artifact kind, summed over steps. */
export interface KindRetention {
  readonly present: number;
  readonly total: number;
  readonly afterCompaction: number;
}

const emptyByKind = () => ({
  files: { present: 0, total: 0, afterCompaction: 0 },
  identifiers: { present: 0, total: 0, afterCompaction: 0 },
  errors: { present: 0, total: 0, afterCompaction: 0 },
});

/** The totals of a replay. */
export function totalsOf(replay: TraceReplay): ReplayTotals {
  let modelInputTokens = 0;
  let summaryCalls = 0;
  let summaryInputTokens = 0;
  let summaryOutputTokens = 0;
  let cachedTokens = 0;
  let summaryCachedTokens = 0;
  let peakInputTokens = 0;
  let peakSummaryInputTokens = 0;
  let callsOverWindow = 0;
  let summaryCallsOverWindow = 0;
  let compactions = 0;
  let compactionMs = 0;
  let retentionShareSum = 0;
  let retentionSteps = 0;
  let pairingValidSteps = 0;
  const byKind = emptyByKind();
  for (const step of replay.steps) {
    modelInputTokens += step.inputTokens;
    cachedTokens += step.cachedTokens;
    summaryCachedTokens += step.summaryCachedTokens;
    peakInputTokens = Math.max(peakInputTokens, step.inputTokens);
    if (step.inputTokens > replay.window) callsOverWindow++;
    if (step.compacted) compactions++;
    compactionMs += step.compactionMs;
    if (step.pairingValid) pairingValidSteps++;
    if (step.retention.total > 0) {
      retentionShareSum += step.retention.present / step.retention.total;
      retentionSteps++;
    }
    for (const kind of ["files", "identifiers", "errors"] as const) {
      byKind[kind].present += step.retention.byKind[kind].present;
      byKind[kind].total += step.retention.byKind[kind].total;
      if (compactions > 0) byKind[kind].afterCompaction += step.retention.byKind[kind].total;
    }
    for (const call of step.summaryCalls) {
      summaryCalls++;
      summaryInputTokens += call.inputTokens;
      summaryOutputTokens += call.outputTokens;
      peakSummaryInputTokens = Math.max(peakSummaryInputTokens, call.inputTokens);
      if (call.inputTokens > replay.window) summaryCallsOverWindow++;
    }
  }
  return {
    traces: 1,
    modelCalls: replay.steps.length,
    modelInputTokens,
    summaryCalls,
    summaryInputTokens,
    summaryOutputTokens,
    agentOutputTokens: replay.agentOutputTokens,
    cachedTokens,
    summaryCachedTokens,
    peakInputTokens,
    peakSummaryInputTokens,
    callsOverWindow,
    summaryCallsOverWindow,
    compactions,
    compactionMs,
    retentionShareSum,
    retentionSteps,
    retentionByKind: byKind,
    pairingValidSteps,
  };
}

/** The sum of two totals (peaks: the larger). */
export function addTotals(a: ReplayTotals, b: ReplayTotals): ReplayTotals {
  const kind = (name: keyof ReplayTotals["retentionByKind"]) => ({
    present: a.retentionByKind[name].present + b.retentionByKind[name].present,
    total: a.retentionByKind[name].total + b.retentionByKind[name].total,
    afterCompaction: a.retentionByKind[name].afterCompaction + b.retentionByKind[name].afterCompaction,
  });
  return {
    traces: a.traces + b.traces,
    modelCalls: a.modelCalls + b.modelCalls,
    modelInputTokens: a.modelInputTokens + b.modelInputTokens,
    summaryCalls: a.summaryCalls + b.summaryCalls,
    summaryInputTokens: a.summaryInputTokens + b.summaryInputTokens,
    summaryOutputTokens: a.summaryOutputTokens + b.summaryOutputTokens,
    agentOutputTokens: a.agentOutputTokens + b.agentOutputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    summaryCachedTokens: a.summaryCachedTokens + b.summaryCachedTokens,
    peakInputTokens: Math.max(a.peakInputTokens, b.peakInputTokens),
    peakSummaryInputTokens: Math.max(a.peakSummaryInputTokens, b.peakSummaryInputTokens),
    callsOverWindow: a.callsOverWindow + b.callsOverWindow,
    summaryCallsOverWindow: a.summaryCallsOverWindow + b.summaryCallsOverWindow,
    compactions: a.compactions + b.compactions,
    compactionMs: a.compactionMs + b.compactionMs,
    retentionShareSum: a.retentionShareSum + b.retentionShareSum,
    retentionSteps: a.retentionSteps + b.retentionSteps,
    retentionByKind: { files: kind("files"), identifiers: kind("identifiers"), errors: kind("errors") },
    pairingValidSteps: a.pairingValidSteps + b.pairingValidSteps,
  };
}

/** Totals of nothing. */
export const EMPTY_TOTALS: ReplayTotals = Object.freeze({
  traces: 0,
  modelCalls: 0,
  modelInputTokens: 0,
  summaryCalls: 0,
  summaryInputTokens: 0,
  summaryOutputTokens: 0,
  agentOutputTokens: 0,
  cachedTokens: 0,
  summaryCachedTokens: 0,
  peakInputTokens: 0,
  peakSummaryInputTokens: 0,
  callsOverWindow: 0,
  summaryCallsOverWindow: 0,
  compactions: 0,
  compactionMs: 0,
  retentionShareSum: 0,
  retentionSteps: 0,
  retentionByKind: emptyByKind(),
  pairingValidSteps: 0,
});

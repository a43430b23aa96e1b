/** The totals of replays: what each system did over a trace, summed over traces. */
import type { Retention } from "./metrics.js";
import type { TraceReplay } from "./replay.js";

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
  /** Cached input tokens under Anthropic's automatic caching (model and summary calls; see anthropic-cache.ts). */
  readonly anthropicCachedTokens: number;
  /** Of the input, cached under Anthropic's automatic caching with the package's cache anchors (see replay.ts). */
  readonly anchoredCachedTokens: number;
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
  /** Reply grounding summed over steps: reused words the input held, and reused words (see grounding.ts). */
  readonly groundedWords: number;
  readonly reusedWords: number;
  /** Re-reads the grounding misses force, summed over steps (see rereads.ts). */
  readonly rereads: number;
  readonly rereadCachedTokens: number;
  readonly rereadUncachedTokens: number;
  readonly rereadOutputTokens: number;
  /** Missing reused words a tool result had; missing ones only the agent's replies, or only user messages, had (lost). */
  readonly rereadWords: number;
  readonly lostOwnWords: number;
  readonly lostUserWords: number;
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
  let anthropicCachedTokens = 0;
  let anchoredCachedTokens = 0;
  let peakInputTokens = 0;
  let peakSummaryInputTokens = 0;
  let callsOverWindow = 0;
  let summaryCallsOverWindow = 0;
  let compactions = 0;
  let compactionMs = 0;
  let retentionShareSum = 0;
  let retentionSteps = 0;
  let pairingValidSteps = 0;
  let groundedWords = 0;
  let reusedWords = 0;
  const recovery = { rereads: 0, rereadCachedTokens: 0, rereadUncachedTokens: 0, rereadOutputTokens: 0, rereadWords: 0, lostOwnWords: 0, lostUserWords: 0 };
  const byKind = emptyByKind();
  for (const step of replay.steps) {
    modelInputTokens += step.inputTokens;
    cachedTokens += step.cachedTokens;
    summaryCachedTokens += step.summaryCachedTokens;
    anthropicCachedTokens += step.anthropicCachedTokens;
    anchoredCachedTokens += step.anchoredCachedTokens;
    peakInputTokens = Math.max(peakInputTokens, step.inputTokens);
    if (step.inputTokens > replay.window) callsOverWindow++;
    if (step.compacted) compactions++;
    compactionMs += step.compactionMs;
    if (step.pairingValid) pairingValidSteps++;
    groundedWords += step.grounding.grounded;
    reusedWords += step.grounding.reused;
    recovery.rereads += step.recovery.rereads;
    recovery.rereadCachedTokens += step.recovery.cachedTokens;
    recovery.rereadUncachedTokens += step.recovery.uncachedTokens;
    recovery.rereadOutputTokens += step.recovery.outputTokens;
    recovery.rereadWords += step.recovery.rereadWords;
    recovery.lostOwnWords += step.recovery.lostOwnWords;
    recovery.lostUserWords += step.recovery.lostUserWords;
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
    anthropicCachedTokens,
    anchoredCachedTokens,
    peakInputTokens,
    peakSummaryInputTokens,
    callsOverWindow,
    summaryCallsOverWindow,
    compactions,
    compactionMs,
    retentionShareSum,
    retentionSteps,
    retentionByKind: byKind,
    groundedWords,
    reusedWords,
    ...recovery,
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
    anthropicCachedTokens: a.anthropicCachedTokens + b.anthropicCachedTokens,
    anchoredCachedTokens: a.anchoredCachedTokens + b.anchoredCachedTokens,
    peakInputTokens: Math.max(a.peakInputTokens, b.peakInputTokens),
    peakSummaryInputTokens: Math.max(a.peakSummaryInputTokens, b.peakSummaryInputTokens),
    callsOverWindow: a.callsOverWindow + b.callsOverWindow,
    summaryCallsOverWindow: a.summaryCallsOverWindow + b.summaryCallsOverWindow,
    compactions: a.compactions + b.compactions,
    compactionMs: a.compactionMs + b.compactionMs,
    retentionShareSum: a.retentionShareSum + b.retentionShareSum,
    retentionSteps: a.retentionSteps + b.retentionSteps,
    retentionByKind: { files: kind("files"), identifiers: kind("identifiers"), errors: kind("errors") },
    groundedWords: a.groundedWords + b.groundedWords,
    reusedWords: a.reusedWords + b.reusedWords,
    rereads: a.rereads + b.rereads,
    rereadCachedTokens: a.rereadCachedTokens + b.rereadCachedTokens,
    rereadUncachedTokens: a.rereadUncachedTokens + b.rereadUncachedTokens,
    rereadOutputTokens: a.rereadOutputTokens + b.rereadOutputTokens,
    rereadWords: a.rereadWords + b.rereadWords,
    lostOwnWords: a.lostOwnWords + b.lostOwnWords,
    lostUserWords: a.lostUserWords + b.lostUserWords,
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
  anthropicCachedTokens: 0,
  anchoredCachedTokens: 0,
  peakInputTokens: 0,
  peakSummaryInputTokens: 0,
  callsOverWindow: 0,
  summaryCallsOverWindow: 0,
  compactions: 0,
  compactionMs: 0,
  retentionShareSum: 0,
  retentionSteps: 0,
  retentionByKind: emptyByKind(),
  groundedWords: 0,
  reusedWords: 0,
  rereads: 0,
  rereadCachedTokens: 0,
  rereadUncachedTokens: 0,
  rereadOutputTokens: 0,
  rereadWords: 0,
  lostOwnWords: 0,
  lostUserWords: 0,
  pairingValidSteps: 0,
});

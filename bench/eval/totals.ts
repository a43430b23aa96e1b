/** The totals of replays: what each system did over a trace, summed over traces. */
import type { Retention } from "./metrics.js";
import type { TraceReplay } from "./replay.js";
import { RECALL_REFERENCE_TOKENS, RECALL_SCHEMA_TOKENS } from "./recall.js";

/**
 * The same replay with recall on (see recall.ts), summed over steps: the recall tool's schema in every
 * model call, the misses an archive held recalled, the others re-read or lost.
 */
export interface RecallTotals {
  /** Sources recalled, recall calls (pages), and the tokens they returned. */
  readonly recalls: number;
  readonly recallCalls: number;
  readonly returnedTokens: number;
  /** Input tokens of the recall calls: cached prefix, and new (each call and its page). */
  readonly cachedTokens: number;
  readonly uncachedTokens: number;
  readonly outputTokens: number;
  /** Missing words an archived source had. */
  readonly recalledWords: number;
  /** Tool results no archive held, re-read as without recall. */
  readonly rereads: number;
  readonly rereadCachedTokens: number;
  readonly rereadUncachedTokens: number;
  readonly rereadOutputTokens: number;
  readonly rereadWords: number;
  /** Missing words no archive held: the agent's own, the user's. */
  readonly lostOwnWords: number;
  readonly lostUserWords: number;
  /** Model calls whose input with the schema is over the window, and recall calls over it. */
  readonly modelCallsOverWindow: number;
  readonly recallCallsOverWindow: number;
  /** Recalls left unread because a round had no room for any part (see `recallCallsOf`). */
  readonly stalledRecalls: number;
  /** Missing words a reference reached but no room was left to read back at their step. */
  readonly unreadWords: number;
  /** The largest input: a model call's with the schema, or a recall call's. */
  readonly peakInputTokens: number;
  /** Model calls that read a cached prefix (their schema is then cached too), per cache reading. */
  readonly prefixCachedCalls: number;
  readonly anthropicCachedCalls: number;
  readonly anchoredCachedCalls: number;
  /**
   * Tokens of the references in the model calls' inputs (each rewritten message's), and of those in
   * the cached prefix: under the prefix reading, and under Anthropic's readings (the prefix reading's,
   * where the call reads its cache at all).
   */
  readonly referenceTokens: number;
  readonly prefixCachedReferenceTokens: number;
  readonly anthropicCachedReferenceTokens: number;
  readonly anchoredCachedReferenceTokens: number;
}

const RECALL_SUMMED = [
  "recalls",
  "recallCalls",
  "returnedTokens",
  "cachedTokens",
  "uncachedTokens",
  "outputTokens",
  "recalledWords",
  "rereads",
  "rereadCachedTokens",
  "rereadUncachedTokens",
  "rereadOutputTokens",
  "rereadWords",
  "lostOwnWords",
  "lostUserWords",
  "modelCallsOverWindow",
  "recallCallsOverWindow",
  "stalledRecalls",
  "unreadWords",
  "prefixCachedCalls",
  "anthropicCachedCalls",
  "anchoredCachedCalls",
  "referenceTokens",
  "prefixCachedReferenceTokens",
  "anthropicCachedReferenceTokens",
  "anchoredCachedReferenceTokens",
] as const satisfies readonly (keyof RecallTotals)[];

/** Recall totals of nothing. */
export const EMPTY_RECALL: RecallTotals = Object.freeze({ ...(Object.fromEntries(RECALL_SUMMED.map((key) => [key, 0])) as Record<(typeof RECALL_SUMMED)[number], number>), peakInputTokens: 0 });

/** The sum of two recall totals (the peak: the larger). */
function addRecall(a: RecallTotals, b: RecallTotals): RecallTotals {
  const sum = Object.fromEntries(RECALL_SUMMED.map((key) => [key, a[key] + b[key]])) as Record<(typeof RECALL_SUMMED)[number], number>;
  return { ...sum, peakInputTokens: Math.max(a.peakInputTokens, b.peakInputTokens) };
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
  /** The same replay with recall on. */
  readonly recall: RecallTotals;
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
  const recall = { ...EMPTY_RECALL } as { -readonly [K in keyof RecallTotals]: RecallTotals[K] };
  for (const step of replay.steps) {
    for (const key of ["recalls", "recallCalls", "returnedTokens", "cachedTokens", "uncachedTokens", "outputTokens", "recalledWords", "rereads", "rereadCachedTokens", "rereadUncachedTokens", "rereadOutputTokens", "rereadWords", "lostOwnWords", "lostUserWords"] as const) {
      recall[key] += step.recall[key];
    }
    const references = RECALL_REFERENCE_TOKENS * step.referenced.all;
    const cachedReferences = RECALL_REFERENCE_TOKENS * step.referenced.cached;
    const withRecall = step.inputTokens + RECALL_SCHEMA_TOKENS + references;
    if (withRecall > replay.window) recall.modelCallsOverWindow++;
    recall.recallCallsOverWindow += step.recall.callsOverWindow;
    recall.stalledRecalls += step.recall.stalledRecalls;
    recall.unreadWords += step.recall.unreadWords;
    recall.peakInputTokens = Math.max(recall.peakInputTokens, withRecall, step.recall.peakCallTokens);
    recall.referenceTokens += references;
    if (step.cachedPrefix.prefix) {
      recall.prefixCachedCalls++;
      recall.prefixCachedReferenceTokens += cachedReferences;
    }
    if (step.cachedPrefix.anthropic) {
      recall.anthropicCachedCalls++;
      recall.anthropicCachedReferenceTokens += cachedReferences;
    }
    if (step.cachedPrefix.anchored) {
      recall.anchoredCachedCalls++;
      recall.anchoredCachedReferenceTokens += cachedReferences;
    }
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
    recall,
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
    recall: addRecall(a.recall, b.recall),
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
  recall: EMPTY_RECALL,
});

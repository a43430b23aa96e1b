/**
 * The rows of the evaluation's report: a system's totals and the figures that follow from them, the
 * cost of every row under every price set, and the markdown tables of one window.
 */
import { PRICE_PRESETS, type PricePresetId, type PriceRates } from "../../src/cost/prices.js";
import { costOf, shareOf, type Prices } from "./metrics.js";
import type { ReplayTotals } from "./replay.js";
import { rereadCost } from "./rereads.js";
import { RECALL_SCHEMA_TOKENS } from "./recall.js";
import { fmtCost, fmtInt, fmtRatio, fmtShare, markdownTable } from "./report-format.js";
import type { SystemKind } from "./systems.js";

/** One row of a window's table: a system's totals over every trace, and what follows from them. */
export interface SystemRow {
  readonly system: string;
  readonly kind: SystemKind;
  readonly totals: ReplayTotals;
  /** Model-call and summary-call input tokens. */
  readonly inputTokens: number;
  /** Agent replies and summaries. */
  readonly outputTokens: number;
  /** Model-call input + summary-call input + summary-call output, averaged over the traces. */
  readonly tokensPerTask: number;
  /** Cached input tokens (model and summary calls) / input tokens. */
  readonly cachedShare: number;
  /** The cost at the reference prices. */
  readonly cost: number;
  /** The part of `cost` spent on summary calls (their input, cached part at the cached price, and their output). */
  readonly summaryCost: number;
  /** `cost` plus the re-reads the grounding misses force, at the reference prices (see rereads.ts). */
  readonly costWithRereads: number;
  /** Mean over steps (with at least one artifact seen) of the share of artifacts present. */
  readonly retention: number;
  /** Reply grounding: reused words the inputs held / reused words, pooled over steps (1 with none). */
  readonly grounding: number;
  /** Share of steps whose model input has valid tool pairing. */
  readonly pairingShare: number;
  /** A row with recall on ({@link recallRowOf}): its cost with re-reads also holds the recalls. */
  readonly recall?: true;
}

/**
 * How a price set reads a call's cached input: `"prefix"`, the longest run of leading messages shared
 * with the previous call (a provider that caches every prefix); `"anthropic-automatic"`, what
 * Anthropic's automatic caching reads (see anthropic-cache.ts); `"anthropic-anchored"`, the same
 * with the package's cache anchors on every model call (`anthropicCacheAnchors`).
 */
export type CacheReading = "prefix" | "anthropic-automatic" | "anthropic-anchored";

const CACHED_BY_READING: Record<CacheReading, (totals: ReplayTotals) => number> = {
  prefix: (totals) => totals.cachedTokens,
  "anthropic-automatic": (totals) => totals.anthropicCachedTokens,
  "anthropic-anchored": (totals) => totals.anchoredCachedTokens,
};

/** The cost of a row's tokens at `prices`: model and summary calls, cached input (read as `cache` says) at the cached price. */
export function rowCost(row: Pick<SystemRow, "inputTokens" | "outputTokens" | "totals">, prices: Prices, cache: CacheReading = "prefix"): number {
  const cached = CACHED_BY_READING[cache](row.totals);
  return costOf({ input: row.inputTokens, cached, output: row.outputTokens }, prices);
}

/** {@link rowCost} plus the re-reads' cost at `prices` (their cached prefix is read alike under every cache reading). */
export function rowCostWithRereads(row: Pick<SystemRow, "inputTokens" | "outputTokens" | "totals">, prices: Prices, cache: CacheReading = "prefix"): number {
  return rowCost(row, prices, cache) + rereadCost(row.totals, prices);
}

/** The row of a system from its totals, its cost at `prices` (the reference prices). */
export function rowOf(system: string, kind: SystemKind, totals: ReplayTotals, prices: Prices): SystemRow {
  const inputTokens = totals.modelInputTokens + totals.summaryInputTokens;
  const outputTokens = totals.agentOutputTokens + totals.summaryOutputTokens;
  const cost = costOf({ input: inputTokens, cached: totals.cachedTokens, output: outputTokens }, prices);
  return {
    system,
    kind,
    totals,
    inputTokens,
    outputTokens,
    tokensPerTask: shareOf(inputTokens + totals.summaryOutputTokens, totals.traces) ?? 0,
    cachedShare: shareOf(totals.cachedTokens, inputTokens) ?? 0,
    cost,
    summaryCost: costOf({ input: totals.summaryInputTokens, cached: totals.summaryCachedTokens, output: totals.summaryOutputTokens }, prices),
    costWithRereads: cost + rereadCost(totals, prices),
    retention: shareOf(totals.retentionShareSum, totals.retentionSteps) ?? 1,
    grounding: shareOf(totals.groundedWords, totals.reusedWords) ?? 1,
    pairingShare: shareOf(totals.pairingValidSteps, totals.modelCalls) ?? 1,
  };
}

/** The name of a system's row with recall on. */
export const recallRowName = (system: string): string => `${system} + recall`;

/**
 * The row of `row`'s system with recall on (see recall.ts), from `row`'s replay: the recall tool's
 * schema in every model call (cached when the call reads a cached prefix) and the reference on every
 * rewritten message of its input (cached within the cached prefix); the recall calls and the
 * re-reads of what no archive held in its cost with re-reads (its totals' `reread*` tokens hold
 * both, so every price set prices them alike); lost words only what no archive held; calls over the
 * window counting the model calls with the schema and the recall calls. Grounding is the system's: what
 * its inputs held before any recall.
 */
export function recallRowOf(row: SystemRow, prices: Prices): SystemRow {
  const { totals } = row;
  const recall = totals.recall;
  const schema = RECALL_SCHEMA_TOKENS;
  const withRecall: ReplayTotals = {
    ...totals,
    modelInputTokens: totals.modelInputTokens + schema * totals.modelCalls + recall.referenceTokens,
    cachedTokens: totals.cachedTokens + schema * recall.prefixCachedCalls + recall.prefixCachedReferenceTokens,
    anthropicCachedTokens: totals.anthropicCachedTokens + schema * recall.anthropicCachedCalls + recall.anthropicCachedReferenceTokens,
    anchoredCachedTokens: totals.anchoredCachedTokens + schema * recall.anchoredCachedCalls + recall.anchoredCachedReferenceTokens,
    peakInputTokens: recall.peakInputTokens,
    callsOverWindow: recall.modelCallsOverWindow + recall.recallCallsOverWindow,
    rereads: recall.rereads,
    rereadCachedTokens: recall.rereadCachedTokens + recall.cachedTokens,
    rereadUncachedTokens: recall.rereadUncachedTokens + recall.uncachedTokens,
    rereadOutputTokens: recall.rereadOutputTokens + recall.outputTokens,
    rereadWords: recall.rereadWords,
    lostOwnWords: recall.lostOwnWords,
    lostUserWords: recall.lostUserWords,
  };
  return { ...rowOf(recallRowName(row.system), row.kind, withRecall, prices), recall: true };
}

/**
 * `rows` with, right after the row of each system `withRecall` names, its row with recall on: from
 * `replayedWithRecall`'s totals for that system where it has them (the system replayed as it runs
 * with the recall tool), else from the row's own replay.
 */
export function withRecallRows(rows: readonly SystemRow[], withRecall: readonly string[], prices: Prices, replayedWithRecall: ReadonlyMap<string, ReplayTotals> = new Map()): SystemRow[] {
  return rows.flatMap((row) => {
    if (!withRecall.includes(row.system)) return [row];
    const totals = replayedWithRecall.get(row.system);
    return [row, recallRowOf(totals === undefined ? row : rowOf(row.system, row.kind, totals, prices), prices)];
  });
}

/**
 * Reply grounding once the misses are recovered: the words the inputs held, plus those re-read and,
 * with recall on, those recalled, of the reused words. Lost words are what it lacks of 1.
 */
export function recoveredGrounding(row: Pick<SystemRow, "totals" | "recall">): number {
  const { totals } = row;
  const recovered = totals.groundedWords + totals.rereadWords + (row.recall ? totals.recall.recalledWords : 0);
  return shareOf(recovered, totals.reusedWords) ?? 1;
}

/** A set of prices the report costs every row with: the reference prices or a provider preset. */
export interface PriceSet {
  readonly id: "reference" | PricePresetId | typeof ANTHROPIC_AUTOMATIC | typeof ANTHROPIC_ANCHORED;
  readonly label: string;
  readonly rates: PriceRates;
  /** How cached input is read. @default "prefix" */
  readonly cache?: CacheReading;
  /** Where a preset's prices come from, and when they were read. */
  readonly source?: string;
  readonly checked?: string;
  readonly note?: string;
}

/** The id of the price set with Anthropic's prices and its automatic caching. */
export const ANTHROPIC_AUTOMATIC = "anthropic-claude-automatic";

/** The id of the price set with Anthropic's prices, its automatic caching and the package's cache anchors on every call. */
export const ANTHROPIC_ANCHORED = "anthropic-claude-anchored";

/**
 * The reference prices (the headline table's), then every preset of `PRICE_PRESETS` in its order,
 * then Anthropic's prices again with the cache read as its automatic caching reads it, and once more
 * with the package's cache anchors on every model call.
 */
export function priceSetsOf(reference: Prices): PriceSet[] {
  const claude = PRICE_PRESETS["anthropic-claude"];
  return [
    { id: "reference", label: "reference", rates: reference },
    ...Object.values(PRICE_PRESETS).map((preset) => ({
      id: preset.id,
      label: preset.label,
      rates: { input: preset.input, cacheWrite: preset.cacheWrite, cachedInput: preset.cachedInput, output: preset.output },
      source: preset.source,
      checked: preset.checked,
      ...(preset.note === undefined ? {} : { note: preset.note }),
    })),
    {
      id: ANTHROPIC_AUTOMATIC,
      label: `${claude.label}, automatic caching`,
      rates: { input: claude.input, cacheWrite: claude.cacheWrite, cachedInput: claude.cachedInput, output: claude.output },
      cache: "anthropic-automatic",
    },
    {
      id: ANTHROPIC_ANCHORED,
      label: `${claude.label}, automatic caching + cache anchors`,
      rates: { input: claude.input, cacheWrite: claude.cacheWrite, cachedInput: claude.cachedInput, output: claude.output },
      cache: "anthropic-anchored",
    },
  ];
}

/** The rows that are LangChain's (kind "peer"): the ClearToolUsesEdit rows and summarizationMiddleware. */
export const isLangChainRow = (row: { readonly kind: SystemKind }): boolean => row.kind === "peer";

/** One system's cost under one price set. */
export interface PresetCostRow {
  readonly system: string;
  readonly kind: SystemKind;
  readonly cost: number;
  /** `cost` plus the re-reads the grounding misses force (see rereads.ts). */
  readonly costWithRereads: number;
  /** `cost` / the baseline's cost; `undefined` without a baseline row. */
  readonly vsNone: number | undefined;
  /** `cost` / the cheapest LangChain row's cost; `undefined` without a LangChain row. */
  readonly vsCheapestLangChain: number | undefined;
}

/** Every row's cost under one price set at one window. */
export interface PresetCosts {
  readonly prices: PriceSet["id"];
  readonly label: string;
  /** The LangChain row that costs least under these prices. */
  readonly cheapestLangChain: string | undefined;
  readonly rows: readonly PresetCostRow[];
}

/** The cost of every row under every price set, with its multiples of no compaction and of the cheapest LangChain row. */
export function presetCostsOf(rows: readonly SystemRow[], priceSets: readonly PriceSet[]): PresetCosts[] {
  return priceSets.map((priceSet) => {
    const costs = rows.map((row) => rowCost(row, priceSet.rates, priceSet.cache));
    const withRereads = rows.map((row) => rowCostWithRereads(row, priceSet.rates, priceSet.cache));
    const baseline = rows.findIndex((row) => row.kind === "baseline");
    let cheapest: number | undefined;
    rows.forEach((row, index) => {
      if (isLangChainRow(row) && (cheapest === undefined || costs[index]! < costs[cheapest]!)) cheapest = index;
    });
    return {
      prices: priceSet.id,
      label: priceSet.label,
      cheapestLangChain: cheapest === undefined ? undefined : rows[cheapest]!.system,
      rows: rows.map((row, index) => ({
        system: row.system,
        kind: row.kind,
        cost: costs[index]!,
        costWithRereads: withRereads[index]!,
        vsNone: baseline < 0 ? undefined : costs[index]! / costs[baseline]!,
        vsCheapestLangChain: cheapest === undefined ? undefined : costs[index]! / costs[cheapest]!,
      })),
    };
  });
}

const ratioOrDash = (value: number | undefined) => (value === undefined ? "—" : fmtRatio(value));

/** The markdown table of every row's cost under every price set: cost, × no compaction, × the cheapest LangChain row, cost with re-reads. */
export function presetCostTable(presetCosts: readonly PresetCosts[]): string {
  const systems = presetCosts[0]?.rows ?? [];
  return markdownTable(
    ["system", ...presetCosts.flatMap(({ label }) => [`${label}: cost`, "× none", "× cheapest LangChain", "with re-reads"])],
    systems.map(({ system, kind }, index) => [
      kind === "ours" ? `**${system}**` : system,
      ...presetCosts.flatMap(({ rows }) => {
        const row = rows[index]!;
        return [fmtCost(row.cost), ratioOrDash(row.vsNone), ratioOrDash(row.vsCheapestLangChain), fmtCost(row.costWithRereads)];
      }),
    ]),
    new Set(presetCosts.flatMap((_, index) => [1 + 4 * index, 2 + 4 * index, 3 + 4 * index, 4 + 4 * index])),
  );
}

const KINDS = ["files", "identifiers", "errors"] as const;

/** How a figure reads where the system never compacted (a retention of 1 by construction). */
export const NEVER_COMPACTED = "n/a (never compacted)";

/** A kind's pooled retention, or {@link NEVER_COMPACTED} when no step after a compaction tracked it. */
export function kindRetention(totals: ReplayTotals, kind: (typeof KINDS)[number]): string {
  const { present, total, afterCompaction } = totals.retentionByKind[kind];
  return afterCompaction === 0 ? NEVER_COMPACTED : (present / total).toFixed(2);
}

/** The headline markdown table of one window, costs at the reference prices. */
export function windowTable(rows: readonly SystemRow[]): string {
  const baseline = rows.find((row) => row.kind === "baseline");
  return markdownTable(
    [
      "system",
      "tokens per task",
      "input tokens",
      "of which summary calls (cached)",
      "output tokens",
      "cached-prefix tokens",
      "cached share",
      "cost",
      "cost vs none",
      "cost with re-reads",
      "re-reads",
      "lost words (own / user)",
      "peak input",
      "calls > window (model / summary)",
      "compactions",
      "compaction ms",
      "retention",
      "retention files / ids / errors",
      "reply grounding",
      "tool pairing valid",
    ],
    rows.map((row) => [
      row.kind === "ours" ? `**${row.system}**` : row.system,
      fmtInt(row.tokensPerTask),
      fmtInt(row.inputTokens),
      `${fmtInt(row.totals.summaryInputTokens)} (${row.totals.summaryCalls} calls, ${fmtInt(row.totals.summaryCachedTokens)} cached)`,
      fmtInt(row.outputTokens),
      fmtInt(row.totals.cachedTokens),
      fmtShare(row.cachedShare),
      fmtCost(row.cost),
      baseline ? fmtRatio(row.cost / baseline.cost) : "—",
      fmtCost(row.costWithRereads),
      fmtInt(row.totals.rereads),
      `${fmtInt(row.totals.lostOwnWords)} / ${fmtInt(row.totals.lostUserWords)}`,
      fmtInt(row.totals.peakInputTokens),
      `${row.totals.callsOverWindow} / ${row.totals.summaryCallsOverWindow}`,
      String(row.totals.compactions),
      fmtInt(row.totals.compactionMs),
      fmtShare(row.retention),
      row.totals.compactions === 0 ? NEVER_COMPACTED : KINDS.map((kind) => kindRetention(row.totals, kind)).join(" / "),
      fmtShare(row.grounding),
      `${(row.pairingShare * 100).toFixed(1)}%`,
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
  );
}

/** The rows of one trace source (session id prefix) at one window. */
export interface SourceRows {
  readonly source: string;
  readonly rows: readonly SystemRow[];
}

/** The trace source of a session: its id up to the first "/" (e.g. "mini-swe-agent", "tau-bench-airline"). */
export function traceSourceOf(sessionId: string): string {
  const slash = sessionId.indexOf("/");
  return slash < 0 ? sessionId : sessionId.slice(0, slash);
}

/**
 * Retention and reply grounding per trace source at one window: per system, for each source, the
 * mean retention and the per-kind figures, or {@link NEVER_COMPACTED} where the system never compacted
 * a trace of the source, and the grounding.
 */
export function retentionBySourceTable(sources: readonly SourceRows[]): string {
  const systems = sources[0]?.rows.map((row) => row.system) ?? [];
  return markdownTable(
    ["system", ...sources.flatMap(({ source }) => [`${source}: compactions`, `${source}: retention`, `${source}: files / ids / errors`, `${source}: grounding`])],
    systems.map((system) => [
      system,
      ...sources.flatMap(({ rows }) => {
        const row = rows.find((candidate) => candidate.system === system);
        if (!row) return ["—", "—", "—", "—"];
        const compacted = row.totals.compactions > 0;
        return [
          String(row.totals.compactions),
          compacted ? fmtShare(row.retention) : NEVER_COMPACTED,
          compacted ? KINDS.map((kind) => (row.totals.retentionByKind[kind].total === 0 ? "—" : kindRetention(row.totals, kind))).join(" / ") : NEVER_COMPACTED,
          fmtShare(row.grounding),
        ];
      }),
    ]),
    new Set(sources.flatMap((_, index) => [1 + 4 * index, 2 + 4 * index, 4 + 4 * index])),
  );
}

/**
 * The cost of every row under every price set, and the goal check: the recommended default's four
 * goals, toolResultHiding's two, and cost not above no compaction for every system of ours, each
 * cost goal once per price set.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "../../bench/eval/metrics.js";
import { EMPTY_TOTALS, type ReplayTotals } from "../../bench/eval/replay.js";
import { goalMatrix, goalSection, goalsFor, systemsMeetingAllGoals, type GoalWindow } from "../../bench/eval/report-goals.js";
import { presetCostTable, presetCostsOf, priceSetsOf, rowOf } from "../../bench/eval/report-tables.js";
import type { SystemKind } from "../../bench/eval/systems.js";

const row = (system: string, kind: SystemKind, modelInputTokens: number, cachedTokens: number, totals: Partial<ReplayTotals> = {}) =>
  rowOf(
    system,
    kind,
    // LangChain's rows compact here, inside the window.
    { ...EMPTY_TOTALS, traces: 1, modelCalls: 1, pairingValidSteps: 1, retentionSteps: 1, retentionShareSum: 1, modelInputTokens, cachedTokens, compactions: kind === "peer" ? 1 : 0, ...totals },
    DEFAULT_PRICES,
  );

// The reference prices (cached 0.1) and GPT-4.1's (cached 0.25): a system that caches much gains less under the second.
const priceSets = priceSetsOf(DEFAULT_PRICES).filter((set) => set.id === "reference" || set.id === "openai-gpt-4.1");

// Costs (M), reference / GPT-4.1: none 1.9 / 3.25, createAgent 1.4 / 2.0, summarization 2.2 / 2.5,
// autoCompaction 1.05 / 1.875, toolResultHiding 1.15 / 2.125, hidingThenSummary 3.0 / 4.5.
const rows = [
  row("no compaction", "baseline", 10_000_000, 9_000_000),
  row("ClearToolUsesEdit (createAgent)", "peer", 5_000_000, 4_000_000),
  row("summarizationMiddleware", "peer", 4_000_000, 2_000_000),
  row("autoCompaction", "ours", 6_000_000, 5_500_000),
  row("toolResultHiding", "ours", 7_000_000, 6_500_000),
  row("hidingThenSummary", "ours", 12_000_000, 10_000_000),
];
const window: GoalWindow = { window: 16_000, rows, presetCosts: presetCostsOf(rows, priceSets) };

describe("presetCostsOf", () => {
  it("costs every row under each price set, as multiples of no compaction and of the cheapest LangChain row", () => {
    const gpt41 = window.presetCosts[1]!;
    expect({ prices: gpt41.prices, cheapest: gpt41.cheapestLangChain, rows: gpt41.rows.map(({ system, cost, vsNone, vsCheapestLangChain }) => [system, cost, vsNone, vsCheapestLangChain]) }).toEqual({
      prices: "openai-gpt-4.1",
      cheapest: "ClearToolUsesEdit (createAgent)",
      rows: [
        ["no compaction", 3_250_000, 1, 3_250_000 / 2_000_000],
        ["ClearToolUsesEdit (createAgent)", 2_000_000, 2_000_000 / 3_250_000, 1],
        ["summarizationMiddleware", 2_500_000, 2_500_000 / 3_250_000, 2_500_000 / 2_000_000],
        ["autoCompaction", 1_875_000, 1_875_000 / 3_250_000, 1_875_000 / 2_000_000],
        ["toolResultHiding", 2_125_000, 2_125_000 / 3_250_000, 2_125_000 / 2_000_000],
        ["hidingThenSummary", 4_500_000, 4_500_000 / 3_250_000, 4_500_000 / 2_000_000],
      ],
    });
  });

  it("costs the automatic-caching set with the cached tokens Anthropic's automatic caching reads, at Claude's prices", () => {
    const sets = priceSetsOf(DEFAULT_PRICES).filter((set) => set.id === "anthropic-claude" || set.id === "anthropic-claude-automatic");
    const totals = { ...EMPTY_TOTALS, traces: 1, modelCalls: 1, modelInputTokens: 1_000_000, cachedTokens: 800_000, anthropicCachedTokens: 500_000 };
    const [prefix, automatic] = presetCostsOf([rowOf("autoCompaction", "ours", totals, DEFAULT_PRICES)], sets);
    expect([prefix!.label, automatic!.label]).toEqual(["Anthropic Claude (Sonnet 4)", "Anthropic Claude (Sonnet 4), automatic caching"]);
    // Uncached input at the cache-write price 1.25, cached at 0.1.
    expect(prefix!.rows[0]!.cost).toBeCloseTo(200_000 * 1.25 + 800_000 * 0.1, 6);
    expect(automatic!.rows[0]!.cost).toBeCloseTo(500_000 * 1.25 + 500_000 * 0.1, 6);
  });

  it("tabulates three columns per price set, ours in bold", () => {
    const lines = presetCostTable(window.presetCosts).split("\n");
    expect([lines[0], lines[5]]).toEqual([
      "| system | reference: cost | × none | × cheapest LangChain | with re-reads | OpenAI GPT-4.1: cost | × none | × cheapest LangChain | with re-reads |",
      "| **autoCompaction** | 1.050 M | 0.55× | 0.75× | 1.050 M | 1.875 M | 0.58× | 0.94× | 1.875 M |",
    ]);
  });
});

describe("goalsFor", () => {
  it("checks the recommended default's goals, the cost goals once per price set", () => {
    expect(goalsFor("autoCompaction", window).map(({ goal, prices, met, detail }) => [goal, prices ?? "any", met, detail])).toEqual([
      ["window", "any", true, "0 model calls and 0 summary calls over (peak input 0, peak summary prompt 0)"],
      ["grounding", "any", true, "1.000; lost words own / user 0 / 0, re-reads 0"],
      ["retention", "any", true, "1.000"],
      ["pairing", "any", true, "1 of 1 calls (100.0%)"],
      // No re-reads here: the cost with re-reads is the cost.
      ["rereads-vs-langchain", "reference", true, "0.750× ClearToolUsesEdit (createAgent) (1.050 M vs 1.400 M)"],
      ["cost-vs-none", "reference", true, "0.553× no compaction (1.050 M vs 1.900 M)"],
      ["rereads-vs-langchain", "openai-gpt-4.1", false, "0.938× ClearToolUsesEdit (createAgent) (1.875 M vs 2.000 M)"],
      ["cost-vs-none", "openai-gpt-4.1", true, "0.577× no compaction (1.875 M vs 3.250 M)"],
    ]);
  });

  it("fails the recommended default on a call over the window, retention under 0.95 or an invalid pairing", () => {
    const bad = rowOf("autoCompaction", "ours", { ...EMPTY_TOTALS, traces: 1, modelCalls: 4, pairingValidSteps: 3, retentionSteps: 4, retentionShareSum: 3.7, callsOverWindow: 1, modelInputTokens: 10 }, DEFAULT_PRICES);
    const verdicts = goalsFor("autoCompaction", { ...window, rows: [rows[0]!, bad], presetCosts: presetCostsOf([rows[0]!, bad], priceSets) });
    expect(verdicts.filter((verdict) => verdict.prices === undefined).map(({ goal, met }) => [goal, met])).toEqual([
      ["window", false],
      ["grounding", true],
      ["retention", false],
      ["pairing", false],
    ]);
  });

  it("holds the default's grounding to the best LangChain row inside the window less 0.01, and prices its re-reads", () => {
    // summarizationMiddleware grounds more but goes over the window: the floor is createAgent's 0.95 − 0.01.
    const peers = [
      row("ClearToolUsesEdit (createAgent)", "peer", 5_000_000, 4_000_000, { groundedWords: 95, reusedWords: 100 }),
      row("summarizationMiddleware", "peer", 1_000_000, 0, { groundedWords: 99, reusedWords: 100, callsOverWindow: 2 }),
    ];
    // Cost 1.05 M, with re-reads 1.05 M + 10 M cached × 0.1 + 0.2 M uncached + 0.05 M output × 4 = 2.45 M.
    const rereading = row("autoCompaction", "ours", 6_000_000, 5_500_000, {
      groundedWords: 93,
      reusedWords: 100,
      rereads: 10,
      rereadCachedTokens: 10_000_000,
      rereadUncachedTokens: 200_000,
      rereadOutputTokens: 50_000,
      lostUserWords: 2,
    });
    const all = [rows[0]!, ...peers, rereading];
    const verdicts = goalsFor("autoCompaction", { window: 16_000, rows: all, presetCosts: presetCostsOf(all, priceSets.slice(0, 1)) });
    expect(verdicts.filter(({ goal }) => goal === "grounding" || goal === "rereads-vs-langchain").map(({ text, met, detail }) => [text, met, detail])).toEqual([
      ["reply grounding >= 0.940 (ClearToolUsesEdit (createAgent) 0.950 − 0.01)", false, "0.930; lost words own / user 0 / 2, re-reads 10"],
      // Its cost alone (1.05 M) would pass against createAgent's 1.4 M; summarizationMiddleware (0.2 M) is over the window.
      ["cost with re-reads at most 0.85× the cheapest LangChain row inside the window", false, "1.750× ClearToolUsesEdit (createAgent) (2.450 M vs 1.400 M)"],
    ]);
  });

  it("with no LangChain row inside the window: grounding at least 0.90 against the cheapest row; with none compacting: 0.99 and no compaction's cost", () => {
    const over = { callsOverWindow: 1 };
    const outside = [rows[0]!, row("ClearToolUsesEdit (createAgent)", "peer", 5_000_000, 4_000_000, over), row("summarizationMiddleware", "peer", 4_000_000, 2_000_000, over), rows[3]!];
    const idle = [rows[0]!, row("ClearToolUsesEdit (createAgent)", "peer", 10_000_000, 9_000_000, { compactions: 0 }), rows[3]!];
    const verdictsAt = (all: typeof rows) =>
      goalsFor("autoCompaction", { window: 16_000, rows: all, presetCosts: presetCostsOf(all, priceSets.slice(0, 1)) })
        .filter(({ goal }) => goal === "grounding" || goal === "rereads-vs-langchain")
        .map(({ text, met, detail }) => [text, met, detail]);
    expect({ outside: verdictsAt(outside), idle: verdictsAt(idle) }).toEqual({
      outside: [
        ["reply grounding >= 0.900 (no LangChain row stays inside the window)", true, "1.000; lost words own / user 0 / 0, re-reads 0"],
        ["cost with re-reads at most 0.85× the cheapest LangChain row (none stays inside)", true, "0.750× ClearToolUsesEdit (createAgent) (1.050 M vs 1.400 M)"],
      ],
      idle: [
        ["reply grounding >= 0.990 (no LangChain row compacts)", true, "1.000; lost words own / user 0 / 0, re-reads 0"],
        ["cost with re-reads not above no compaction's (no LangChain row compacts)", true, "0.553× no compaction (1.050 M vs 1.900 M)"],
      ],
    });
  });

  it("checks toolResultHiding against no compaction (strictly) and ClearToolUsesEdit (createAgent)", () => {
    expect(goalsFor("toolResultHiding", window).map(({ goal, prices, met, detail }) => [goal, prices, met, detail])).toEqual([
      ["cost-below-none", "reference", true, "0.605× no compaction (1.150 M vs 1.900 M)"],
      ["cost-vs-createAgent", "reference", true, "0.821× ClearToolUsesEdit (createAgent) (1.150 M vs 1.400 M)"],
      ["cost-below-none", "openai-gpt-4.1", true, "0.654× no compaction (2.125 M vs 3.250 M)"],
      ["cost-vs-createAgent", "openai-gpt-4.1", false, "1.063× ClearToolUsesEdit (createAgent) (2.125 M vs 2.000 M)"],
    ]);
  });

  it("checks every other system of ours for cost not above no compaction, and applies the role goals to variant rows", () => {
    const variant = row('toolResultHiding {"keepRecentGroups":2}', "ours", 7_000_000, 6_500_000);
    const withVariant: GoalWindow = { ...window, rows: [...rows, variant], presetCosts: presetCostsOf([...rows, variant], priceSets) };
    expect({
      hidingThenSummary: goalsFor("hidingThenSummary", window).map(({ goal, met }) => [goal, met]),
      variant: goalsFor(variant.system, withVariant).map(({ goal }) => goal),
    }).toEqual({
      hidingThenSummary: [
        ["cost-vs-none", false],
        ["cost-vs-none", false],
      ],
      variant: ["cost-below-none", "cost-vs-createAgent", "cost-below-none", "cost-vs-createAgent"],
    });
  });

  it("fails a goal whose comparison row was not run", () => {
    const withoutCreateAgent = rows.filter((candidate) => candidate.system !== "ClearToolUsesEdit (createAgent)");
    const verdicts = goalsFor("toolResultHiding", { ...window, rows: withoutCreateAgent, presetCosts: presetCostsOf(withoutCreateAgent, priceSets) });
    expect(verdicts[1]).toEqual({
      system: "toolResultHiding",
      goal: "cost-vs-createAgent",
      text: "cost not above ClearToolUsesEdit (createAgent)",
      prices: "reference",
      met: false,
      detail: "ClearToolUsesEdit (createAgent) not run",
    });
  });
});

describe("goal matrix and section", () => {
  it("lists every system of ours, and none meets all its goals here", () => {
    const matrix = goalMatrix([window]);
    expect({ systems: [...matrix.keys()], meetingAll: systemsMeetingAllGoals([window]) }).toEqual({
      systems: ["autoCompaction", "toolResultHiding", "hidingThenSummary"],
      meetingAll: [],
    });
  });

  it("prints the verdicts with their figures and a compact matrix with what is not met under which prices", () => {
    const lines = goalSection([window], priceSets).join("\n").split("\n");
    expect([
      lines.find((line) => line.startsWith("- met: autoCompaction, artifact retention")),
      lines.find((line) => line.startsWith("| toolResultHiding | cost not above")),
      lines.find((line) => line.startsWith("| autoCompaction | 7/8")),
      lines.find((line) => line.startsWith("| hidingThenSummary | 0/2")),
    ]).toEqual([
      "- met: autoCompaction, artifact retention >= 0.95 — 1.000",
      "| toolResultHiding | cost not above ClearToolUsesEdit (createAgent) | met: 0.821× ClearToolUsesEdit (createAgent) (1.150 M vs 1.400 M) | **NOT met**: 1.063× ClearToolUsesEdit (createAgent) (2.125 M vs 2.000 M) |",
      "| autoCompaction | 7/8; not: cost with re-reads at most 0.85× the cheapest LangChain row inside the window (openai-gpt-4.1) |",
      "| hidingThenSummary | 0/2; not: cost not above no compaction (reference, openai-gpt-4.1) |",
    ]);
  });
});

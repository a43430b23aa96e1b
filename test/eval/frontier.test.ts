/**
 * The frontier sweep: which LangChain points a setting of ours dominates, the family curves, the
 * cheapest autoCompaction above the grounding floor, the chart, and one real sweep on the shortest
 * bundled session at one window.
 */
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { renderFrontierChart } from "../../bench/eval/frontier-chart.js";
import { runFrontier } from "../../bench/eval/frontier-run.js";
import { frontierSettings, frontierWindow, paretoCurve, type FrontierSetting } from "../../bench/eval/frontier.js";
import { DEFAULT_PRICES } from "../../bench/eval/metrics.js";
import { EMPTY_TOTALS, addTotals, replayTrace, totalsOf, type ReplayTotals } from "../../bench/eval/replay.js";
import { presetCostsOf, priceSetsOf, rowOf, type SystemRow } from "../../bench/eval/report-tables.js";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { clearToolUsesCreateAgent, noCompaction, summarization, type SystemKind } from "../../bench/eval/systems.js";
import { createTokenCounter } from "../../src/index.js";

const reference = priceSetsOf(DEFAULT_PRICES).slice(0, 1);
/** A row costing `modelInputTokens` uncached tokens at the reference prices, grounding `grounded`/100. */
const row = (system: string, kind: SystemKind, modelInputTokens: number, grounded: number, totals: Partial<ReplayTotals> = {}) =>
  rowOf(system, kind, { ...EMPTY_TOTALS, traces: 1, modelCalls: 1, modelInputTokens, groundedWords: grounded, reusedWords: 100, compactions: kind === "baseline" ? 0 : 1, ...totals }, DEFAULT_PRICES);
const setting = (family: FrontierSetting["family"], kind: SystemKind, trigger: number, keep: number): FrontierSetting => ({ family, kind, trigger, keep, spec: noCompaction });

describe("frontierWindow", () => {
  const headline = [row("no compaction", "baseline", 1000, 100), row("ClearToolUsesEdit (createAgent)", "peer", 900, 98), row("autoCompaction", "ours", 600, 90)];
  const sweep = [
    { setting: setting("autoCompaction", "ours", 0.2, 2), row: row("autoCompaction 0.2/2", "ours", 500, 95) },
    { setting: setting("autoCompaction", "ours", 0.5, 2), row: row("autoCompaction 0.5/2", "ours", 700, 99) },
    // Cheaper and better grounded, but over the window: it dominates nothing.
    { setting: setting("toolResultHiding", "ours", 0.5, 3), row: row("toolResultHiding 0.5/3", "ours", 400, 100, { callsOverWindow: 1 }) },
    { setting: setting("ClearToolUsesEdit", "peer", 0.3, 3), row: row("ClearToolUsesEdit 0.3/3", "peer", 800, 96) },
    { setting: setting("ClearToolUsesEdit", "peer", 0.3, 10), row: row("ClearToolUsesEdit 0.3/10", "peer", 1000, 94) },
    { setting: setting("summarizationMiddleware", "peer", 0.8, 20), row: row("summarizationMiddleware 0.8/20", "peer", 650, 99.5, { callsOverWindow: 3 }) },
  ];
  const frontier = frontierWindow(16_000, sweep, headline, reference, "autoCompaction");

  it("dominates a peer point with the cheapest setting of ours inside the window that grounds as much, at 0.85× its cost or less", () => {
    expect(frontier.verdicts.map(({ peer, dominatedBy, why }) => [peer, dominatedBy, why])).toEqual([
      // Only 0.5/2 grounds 0.96 or more inside the window, at 700/800 of its cost: not enough.
      ["ClearToolUsesEdit 0.3/3", undefined, "autoCompaction 0.5/2: 0.875× its cost with re-reads at grounding 0.990"],
      ["ClearToolUsesEdit 0.3/10", "autoCompaction 0.2/2", "autoCompaction 0.2/2: 0.500× its cost with re-reads at grounding 0.950"],
      ["summarizationMiddleware 0.8/20", undefined, "no setting of ours inside the window grounds 0.995 or more; it makes 3 calls over the window"],
    ]);
  });

  it("takes the cheapest autoCompaction (the default included) inside the window at or above the floor: the best LangChain headline row's grounding less 0.01", () => {
    expect({ floor: frontier.floor, best: frontier.bestAuto, defaultPoint: frontier.points[0]!.family }).toEqual({
      floor: 0.98 - 0.01,
      best: [{ prices: "reference", system: "autoCompaction 0.5/2", cost: 700, grounding: 0.99 }],
      defaultPoint: "default",
    });
  });

  it("draws each family of ours as the settings nothing of the family beats on both axes, cheapest first", () => {
    const autos = frontier.points.filter((point) => point.family === "autoCompaction" || point.family === "default");
    // The default (600, 0.90) is beaten by 0.2/2 (500, 0.95).
    expect(paretoCurve(autos, "reference").map((point) => point.system)).toEqual(["autoCompaction 0.2/2", "autoCompaction 0.5/2"]);
  });

  it("renders a curve per family of ours, a hollow labelled point per peer (a star when over the window), the default as a diamond", () => {
    const svg = renderFrontierChart({ title: "t", frontier, prices: "reference" });
    expect({
      curves: [...svg.matchAll(/<polyline data-family="([^"]+)"/g)].map((match) => match[1]),
      peers: [...svg.matchAll(/data-kind="peer"><title>([^:]+):/g)].map((match) => match[1]),
      labels: [...svg.matchAll(/>((?:CTU|SUM) [^<]+)<\/text>/g)].map((match) => match[1]),
      defaults: [...svg.matchAll(/data-kind="default"/g)].length,
    }).toEqual({
      // toolResultHiding's only setting is over the window: no curve.
      curves: ["autoCompaction"],
      peers: ["ClearToolUsesEdit 0.3/3", "ClearToolUsesEdit 0.3/10", "summarizationMiddleware 0.8/20"],
      labels: ["CTU 0.3/3", "CTU 0.3/10", "SUM 0.8/20*"],
      defaults: 1,
    });
  });
});

describe("frontierWindow with a row with recall on", () => {
  const base = [row("no compaction", "baseline", 1000, 100), row("ClearToolUsesEdit (createAgent)", "peer", 900, 98), row("autoCompaction", "ours", 600, 90)];
  // With recall on: dearer, the same grounding; cheap enough to dominate the peer point if it were held against it.
  const recall = { ...row("autoCompaction + recall", "ours", 650, 99), recall: true as const };
  const sweep = [{ setting: setting("ClearToolUsesEdit", "peer", 0.3, 3), row: row("ClearToolUsesEdit 0.3/3", "peer", 800, 96) }];
  const frontier = frontierWindow(16_000, sweep, [...base, recall], reference, "autoCompaction");

  it("draws it as a point of its own, held against no LangChain point and not a candidate for the cheapest trigger", () => {
    const svg = renderFrontierChart({ title: "t", frontier, prices: "reference" });
    expect({
      points: frontier.points.map((point) => [point.system, point.family, point.costWithRereads["reference"]]),
      verdict: frontier.verdicts.map((verdict) => verdict.dominatedBy),
      best: frontier.bestAuto.map((best) => best.system),
      drawn: [...svg.matchAll(/data-kind="recall"><title>([^:]+):[^<]*<\/title><path[^>]*\/><text[^>]*>([^<]+)</g)].map((match) => [match[1], match[2]]),
    }).toEqual({
      points: [
        ["autoCompaction", "default", 600],
        ["autoCompaction + recall", "recall", 650],
        ["ClearToolUsesEdit 0.3/3", "ClearToolUsesEdit", 800],
      ],
      verdict: [undefined],
      best: [undefined],
      drawn: [["autoCompaction + recall", "default + recall"]],
    });
  });
});

describe("renderFrontierChart", () => {
  it("gives peer points at the same place one label, two settings and how many more (settings that never compact sit at no compaction's point)", () => {
    const headline = [row("no compaction", "baseline", 1000, 100)];
    const idle = [
      { setting: setting("ClearToolUsesEdit", "peer", 0.8, 3), row: row("ClearToolUsesEdit 0.8/3", "peer", 1000, 100, { compactions: 0 }) },
      { setting: setting("summarizationMiddleware", "peer", 0.8, 20), row: row("summarizationMiddleware 0.8/20", "peer", 1000, 100, { compactions: 0 }) },
      { setting: setting("ClearToolUsesEdit", "peer", 0.55, 3), row: row("ClearToolUsesEdit 0.55/3", "peer", 1000, 100, { compactions: 0 }) },
      { setting: setting("ClearToolUsesEdit", "peer", 0.3, 3), row: row("ClearToolUsesEdit 0.3/3", "peer", 900, 95) },
    ];
    const svg = renderFrontierChart({ title: "t", frontier: frontierWindow(200_000, idle, headline, reference, "autoCompaction"), prices: "reference" });
    expect([...svg.matchAll(/<text data-place="[^"]+"[^>]*>([^<]+)<\/text>/g)].map((match) => match[1])).toEqual(["CTU 0.8/3, SUM 0.8/20 +1 more", "CTU 0.3/3"]);
  });
});

describe("runFrontier on one session", () => {
  it("runs every setting; a peer setting equal to a headline row's gives that row's figures", async () => {
    const tokenCounter = createTokenCounter();
    const summaryModel = new DeterministicSummaryModel({ tokenCounter });
    const session = loadTraceSessions(BUNDLED_TRACES_PATH).reduce((best, candidate) => (candidate.messages.length < best.messages.length ? candidate : best));
    const window = 16_000;
    const headlineRows: SystemRow[] = [];
    for (const spec of [noCompaction, clearToolUsesCreateAgent, summarization]) {
      const replay = await replayTrace(session, spec.create({ window, tokenCounter, summaryModel }), { window, tokenCounter });
      headlineRows.push(rowOf(spec.name, spec.kind, addTotals(EMPTY_TOTALS, totalsOf(replay)), DEFAULT_PRICES));
    }
    const priceSets = priceSetsOf(DEFAULT_PRICES);
    const result = await runFrontier({ sessions: [session], headline: [{ window, rows: headlineRows, sources: [], presetCosts: presetCostsOf(headlineRows, priceSets) }], tokenCounter, summaryModel, prices: DEFAULT_PRICES, priceSets, log: () => {} });
    const frontier = result.windows[0]!;
    const ctu = frontier.points.find((point) => point.system === "ClearToolUsesEdit 0.8/3")!;
    const sum = frontier.points.find((point) => point.system === "summarizationMiddleware 0.8/20")!;
    const headlineCost = (system: string) => presetCostsOf(headlineRows, priceSets)[0]!.rows.find((candidate) => candidate.system === system)!.costWithRereads;
    expect({
      settings: result.settings,
      points: frontier.points.length,
      verdicts: frontier.verdicts.length,
      ctu: [ctu.grounding, ctu.costWithRereads["reference"]],
      sum: [sum.grounding, sum.costWithRereads["reference"]],
    }).toEqual({
      settings: frontierSettings().length,
      // No default row among the headline rows given here.
      points: frontierSettings().length,
      verdicts: frontierSettings().filter((candidate) => candidate.kind === "peer").length * priceSets.length,
      ctu: [headlineRows[1]!.grounding, headlineCost("ClearToolUsesEdit (createAgent)")],
      sum: [headlineRows[2]!.grounding, headlineCost("summarizationMiddleware")],
    });
  }, 120_000);
});

/** The cost-retention chart: every system a labelled point at its coordinates, markers by kind, labels apart. */
import { describe, expect, it } from "vitest";
import { costRetentionAxes, renderCostRetentionChart, type CostRetentionPoint } from "../../bench/eval/report-charts.js";

const points: CostRetentionPoint[] = [
  { system: "no compaction", kind: "baseline", costRatio: 1, retention: 1 },
  { system: "ClearToolUsesEdit (view)", kind: "peer", costRatio: 0.8, retention: 0.96 },
  { system: "autoCompaction", kind: "ours", costRatio: 0.55, retention: 0.975 },
  { system: "hidingThenSummary", kind: "ours", costRatio: 0.56, retention: 0.975 },
  { system: "summarizationMiddleware <&>", kind: "peer", costRatio: 0.9, retention: 1 },
];
const svg = renderCostRetentionChart({ title: "Cost vs retention", points });

/** Each point's group: its system, kind, coordinates, marker and label position. */
const groups = [...svg.matchAll(/<g data-system="([^"]*)" data-kind="(\w+)" data-x="([\d.]+)" data-y="([\d.]+)">(.*?)<\/g>/gs)].map(([, system, kind, x, y, body]) => ({
  system,
  kind,
  x: Number(x),
  y: Number(y),
  marker: body!.includes("<path") ? "cross" : body!.includes('fill="#2563eb"') ? "filled" : body!.includes('fill="#ffffff"') ? "hollow" : "none",
  label: /<text x="[\d.]+" y="([\d.]+)"[^>]*>([^<]*)<\/text>/.exec(body!)!.slice(1),
}));

describe("renderCostRetentionChart", () => {
  it("scales x from 0 to 1.05 × the largest cost multiple (a tenth up) and y from the lowest retention less 0.01 (a twentieth down) to 1", () => {
    expect(costRetentionAxes(points)).toEqual({ xMax: 1.1, yMin: 0.95 });
  });

  it("puts every system at its coordinates: plot 800 × 460 from (70, 50)", () => {
    // x = 70 + ratio / 1.1 × 800; y = 50 + 460 − (retention − 0.95) / 0.05 × 460.
    expect(groups.map(({ system, kind, x, y }) => [system, kind, x, y]).sort()).toEqual(
      [
        ["no compaction", "baseline", 797.3, 50],
        ["ClearToolUsesEdit (view)", "peer", 651.8, 418],
        ["autoCompaction", "ours", 470, 280],
        ["hidingThenSummary", "ours", 477.3, 280],
        ["summarizationMiddleware &lt;&amp;&gt;", "peer", 724.5, 50],
      ].sort(),
    );
  });

  it("draws ours filled, LangChain's hollow and no compaction as a cross, each labelled with its name", () => {
    expect(Object.fromEntries(groups.map(({ system, marker, label }) => [system, [marker, label[1]]]))).toEqual({
      "no compaction": ["cross", "no compaction"],
      "ClearToolUsesEdit (view)": ["hollow", "ClearToolUsesEdit (view)"],
      autoCompaction: ["filled", "autoCompaction"],
      hidingThenSummary: ["filled", "hidingThenSummary"],
      "summarizationMiddleware &lt;&amp;&gt;": ["hollow", "summarizationMiddleware &lt;&amp;&gt;"],
    });
  });

  it("moves a label that would cover another point's marker off it, a line down, with a leader line", () => {
    const labelY = Object.fromEntries(groups.map(({ system, label }) => [system, Number(label[0])]));
    // autoCompaction's label, beside its point at y + 4 = 284, would cover hidingThenSummary's marker 7 units to the right:
    // it moves a line (14) down; hidingThenSummary's label stays beside its point.
    expect([labelY["autoCompaction"], labelY["hidingThenSummary"], (svg.match(/stroke="#9ca3af"/g) ?? []).length]).toEqual([298, 284, 1]);
  });

  it("names another share on the y axis and in each point's tooltip when asked (the cost-grounding chart)", () => {
    const grounding = renderCostRetentionChart({ title: "Cost vs reply grounding", points, yLabel: "reply grounding", yName: "grounding" });
    const axis = (chart: string) => /rotate\(-90\)" text-anchor="middle">([^<]*)</.exec(chart)![1];
    const tooltip = (chart: string) => /<title>autoCompaction: ([^<]*)<\/title>/.exec(chart)![1];
    expect([axis(svg), tooltip(svg), axis(grounding), tooltip(grounding)]).toEqual(["artifact retention", "0.550×, retention 0.975", "reply grounding", "0.550×, grounding 0.975"]);
  });
});

/**
 * The goal check of the evaluation, at every window and under every price set (the reference prices,
 * each provider preset, and Claude's prices with Anthropic's automatic caching):
 * - the recommended default (`autoCompaction`, and variants of it): no model or summary call over
 *   the window; reply grounding at least the best LangChain row that stays inside the window less
 *   {@link GROUNDING_MARGIN} (where none does, {@link GROUNDING_FLOOR}); cost with re-reads at most
 *   {@link RECOMMENDED_COST_FACTOR}× the cheapest LangChain row that stays inside the window (where
 *   none does, the cheapest); with recall on, no lost word; where no LangChain row compacts, grounding at least
 *   {@link GROUNDING_UNCOMPACTED} and cost with re-reads not above no compaction's; retention at
 *   least {@link RECOMMENDED_RETENTION}, tool pairing valid at every call;
 * - `toolResultHiding` (and variants of it): cost below no compaction and not above
 *   `ClearToolUsesEdit (createAgent)`;
 * - every system of ours: cost not above no compaction.
 */
import { fmtCost, fmtInt, fmtShare, markdownTable } from "./report-format.js";
import { kindRetention, type PresetCostRow, type PresetCosts, type PriceSet, type SystemRow } from "./report-tables.js";
import { RECOMMENDED_DEFAULT, clearToolUsesCreateAgent } from "./systems.js";

/** The recommended default's cost with re-reads, as a multiple of the cheapest LangChain row's, at most. */
export const RECOMMENDED_COST_FACTOR = 0.85;
/** The recommended default's reply grounding may be this much below the best LangChain row inside the window. */
export const GROUNDING_MARGIN = 0.01;
/** The recommended default's reply grounding, at least, where no LangChain row stays inside the window. */
export const GROUNDING_FLOOR = 0.9;
/** The recommended default's reply grounding, at least, where no LangChain row compacts (the sessions fit). */
export const GROUNDING_UNCOMPACTED = 0.99;
/** The recommended default's artifact retention, at least. */
export const RECOMMENDED_RETENTION = 0.95;

/** Which goal a verdict is about. */
export type GoalId = "window" | "lost-words" | "retention" | "pairing" | "grounding" | "rereads-vs-langchain" | "cost-below-none" | "cost-vs-createAgent" | "cost-vs-none";

/** One goal of one system at one window, under one price set for the cost goals. */
export interface GoalVerdict {
  readonly system: string;
  readonly goal: GoalId;
  /** The goal in words. */
  readonly text: string;
  /** The price set of a cost goal; absent for the goals that do not depend on prices. */
  readonly prices?: PriceSet["id"];
  readonly met: boolean;
  /** The figures the verdict rests on. */
  readonly detail: string;
}

/** What the goals are checked on at one window. */
export interface GoalWindow {
  readonly window: number;
  readonly rows: readonly SystemRow[];
  readonly presetCosts: readonly PresetCosts[];
}

/** The systems the role-specific goals apply to (each also to its `--variant` rows, named `<system> {...}`). */
export interface GoalTargets {
  readonly recommended: string;
  readonly hiding: string;
  /** The row `hiding` must not cost more than. */
  readonly createAgent: string;
}

/** `autoCompaction`, `toolResultHiding` and `ClearToolUsesEdit (createAgent)`. */
export const DEFAULT_GOAL_TARGETS: GoalTargets = Object.freeze({ recommended: RECOMMENDED_DEFAULT, hiding: "toolResultHiding", createAgent: clearToolUsesCreateAgent.name });

/** Whether `system` is `base` or a variant row of it (`base {json}`, `base (configuration)` or `base + recall`). */
export const isVariantOf = (system: string, base: string): boolean => system === base || system.startsWith(`${base} {`) || system.startsWith(`${base} (`) || system.startsWith(`${base} + `);

const times = (value: number) => `${value.toFixed(3)}×`;
const KINDS = ["files", "identifiers", "errors"] as const;

function retentionWhy(row: SystemRow): string {
  const share = (kind: (typeof KINDS)[number]) => {
    const { present, total } = row.totals.retentionByKind[kind];
    return total === 0 ? 1 : present / total;
  };
  const exposed = KINDS.filter((kind) => row.totals.retentionByKind[kind].afterCompaction > 0);
  const lowest = exposed.reduce<(typeof KINDS)[number] | undefined>((low, kind) => (low === undefined || share(kind) < share(low) ? kind : low), undefined);
  if (lowest === undefined) return "";
  return `; ${lowest} kept least (${KINDS.map((kind) => `${kind} ${kindRetention(row.totals, kind)}`).join(", ")})`;
}

const insideWindow = (row: SystemRow) => row.totals.callsOverWindow + row.totals.summaryCallsOverWindow === 0;

/**
 * The LangChain rows the default is held to at one window: those that stay inside it (every one
 * when none does), and whether any of them compacts at all.
 */
export function langChainReference(rows: readonly SystemRow[]): { rows: SystemRow[]; inside: boolean; compacts: boolean } {
  const peers = rows.filter((row) => row.kind === "peer");
  const inside = peers.filter(insideWindow);
  return { rows: inside.length > 0 ? inside : peers, inside: inside.length > 0, compacts: peers.some((row) => row.totals.compactions > 0) };
}

/** The reply grounding the default must reach at one window, and why. */
export function groundingFloor(rows: readonly SystemRow[]): { floor: number; why: string } {
  const reference = langChainReference(rows);
  if (!reference.compacts) return { floor: GROUNDING_UNCOMPACTED, why: "no LangChain row compacts" };
  if (!reference.inside) return { floor: GROUNDING_FLOOR, why: "no LangChain row stays inside the window" };
  const best = reference.rows.reduce((top, row) => (row.grounding > top.grounding ? row : top));
  return { floor: best.grounding - GROUNDING_MARGIN, why: `${best.system} ${fmtShare(best.grounding)} − ${GROUNDING_MARGIN}` };
}

/**
 * The verdicts of `system` (a row of `window`) on its goals: the recommended default's, toolResultHiding's,
 * or cost not above no compaction (every system of ours), the cost goals once per price set of
 * `window.presetCosts`. A comparison row that is missing (not run) fails the goal that needs it.
 *
 * @example
 * goalsFor("autoCompaction", { window: 16_000, rows, presetCosts });
 */
export function goalsFor(system: string, window: GoalWindow, targets: GoalTargets = DEFAULT_GOAL_TARGETS): GoalVerdict[] {
  const row = window.rows.find((candidate) => candidate.system === system);
  if (!row) return [];
  const verdicts: GoalVerdict[] = [];
  const recommended = isVariantOf(system, targets.recommended);
  const hiding = isVariantOf(system, targets.hiding);
  const reference = langChainReference(window.rows);
  if (recommended) {
    const { floor, why } = groundingFloor(window.rows);
    const { callsOverWindow, summaryCallsOverWindow, peakInputTokens, peakSummaryInputTokens } = row.totals;
    verdicts.push(
      {
        system,
        goal: "window",
        text: "no model or summary call over the window",
        met: callsOverWindow + summaryCallsOverWindow === 0,
        detail: `${callsOverWindow} model calls and ${summaryCallsOverWindow} summary calls over (peak input ${fmtInt(peakInputTokens)}, peak summary prompt ${fmtInt(peakSummaryInputTokens)})`,
      },
      {
        system,
        goal: "grounding",
        text: `reply grounding >= ${floor.toFixed(3)} (${why})`,
        met: row.grounding >= floor,
        detail: `${fmtShare(row.grounding)}; lost words own / user ${fmtInt(row.totals.lostOwnWords)} / ${fmtInt(row.totals.lostUserWords)}, re-reads ${fmtInt(row.totals.rereads)}`,
      },
      ...(row.recall
        ? [
            {
              system,
              goal: "lost-words" as const,
              text: "no lost words (recall on)",
              met: row.totals.lostOwnWords + row.totals.lostUserWords === 0,
              detail: `lost words own / user ${fmtInt(row.totals.lostOwnWords)} / ${fmtInt(row.totals.lostUserWords)}; ${fmtInt(row.totals.recall.recalls)} recalls in ${fmtInt(row.totals.recall.recallCalls)} calls`,
            },
          ]
        : []),
      {
        system,
        goal: "retention",
        text: `artifact retention >= ${RECOMMENDED_RETENTION}`,
        met: row.retention >= RECOMMENDED_RETENTION,
        detail: `${fmtShare(row.retention)}${row.retention >= RECOMMENDED_RETENTION ? "" : retentionWhy(row)}`,
      },
      {
        system,
        goal: "pairing",
        text: "tool pairing valid at every call",
        met: row.totals.pairingValidSteps === row.totals.modelCalls,
        detail: `${row.totals.pairingValidSteps} of ${row.totals.modelCalls} calls (${(row.pairingShare * 100).toFixed(1)}%)`,
      },
    );
  }
  for (const costs of window.presetCosts) {
    const own = costs.rows.find((candidate) => candidate.system === system)!;
    const baseline = costs.rows.find((candidate) => candidate.kind === "baseline");
    const vsNone = baseline ? `${times(own.cost / baseline.cost)} no compaction (${fmtCost(own.cost)} vs ${fmtCost(baseline.cost)})` : "no compaction not run";
    if (recommended) {
      const names = new Set(reference.rows.map((candidate) => candidate.system));
      const withRereads = (candidate: { costWithRereads: number }) => fmtCost(candidate.costWithRereads);
      if (!reference.compacts) {
        verdicts.push({
          system,
          goal: "rereads-vs-langchain",
          text: "cost with re-reads not above no compaction's (no LangChain row compacts)",
          prices: costs.prices,
          met: baseline !== undefined && own.costWithRereads <= baseline.costWithRereads,
          detail: baseline ? `${times(own.costWithRereads / baseline.costWithRereads)} no compaction (${withRereads(own)} vs ${withRereads(baseline)})` : "no compaction not run",
        });
      } else {
        const cheapest = costs.rows.filter((candidate) => names.has(candidate.system)).reduce<PresetCostRow | undefined>((low, candidate) => (low === undefined || candidate.costWithRereads < low.costWithRereads ? candidate : low), undefined);
        verdicts.push({
          system,
          goal: "rereads-vs-langchain",
          text: `cost with re-reads at most ${RECOMMENDED_COST_FACTOR}× the cheapest LangChain row ${reference.inside ? "inside the window" : "(none stays inside)"}`,
          prices: costs.prices,
          met: cheapest !== undefined && own.costWithRereads <= RECOMMENDED_COST_FACTOR * cheapest.costWithRereads,
          detail: cheapest ? `${times(own.costWithRereads / cheapest.costWithRereads)} ${cheapest.system} (${withRereads(own)} vs ${withRereads(cheapest)})` : "no LangChain row",
        });
      }
    }
    if (hiding) {
      const createAgent = costs.rows.find((candidate) => candidate.system === targets.createAgent);
      verdicts.push(
        { system, goal: "cost-below-none", text: "cost below no compaction", prices: costs.prices, met: baseline !== undefined && own.cost < baseline.cost, detail: vsNone },
        {
          system,
          goal: "cost-vs-createAgent",
          text: `cost not above ${targets.createAgent}`,
          prices: costs.prices,
          met: createAgent !== undefined && own.cost <= createAgent.cost,
          detail: createAgent ? `${times(own.cost / createAgent.cost)} ${createAgent.system} (${fmtCost(own.cost)} vs ${fmtCost(createAgent.cost)})` : `${targets.createAgent} not run`,
        },
      );
    } else {
      verdicts.push({ system, goal: "cost-vs-none", text: "cost not above no compaction", prices: costs.prices, met: baseline !== undefined && own.cost <= baseline.cost, detail: vsNone });
    }
  }
  return verdicts;
}

/** The goal verdicts of every system of ours at every window. */
export function goalMatrix(windows: readonly GoalWindow[], targets: GoalTargets = DEFAULT_GOAL_TARGETS): Map<string, Map<number, GoalVerdict[]>> {
  const matrix = new Map<string, Map<number, GoalVerdict[]>>();
  for (const window of windows) {
    for (const row of window.rows) {
      if (row.kind !== "ours") continue;
      let byWindow = matrix.get(row.system);
      if (!byWindow) matrix.set(row.system, (byWindow = new Map()));
      byWindow.set(window.window, goalsFor(row.system, window, targets));
    }
  }
  return matrix;
}

/** The systems of ours that meet every one of their goals at every window. */
export function systemsMeetingAllGoals(windows: readonly GoalWindow[], targets: GoalTargets = DEFAULT_GOAL_TARGETS): string[] {
  return [...goalMatrix(windows, targets)].filter(([, byWindow]) => [...byWindow.values()].every((verdicts) => verdicts.every((verdict) => verdict.met))).map(([system]) => system);
}

const status = (met: boolean) => (met ? "met" : "**NOT met**");
const COST_GOALS: readonly GoalId[] = ["rereads-vs-langchain", "cost-below-none", "cost-vs-createAgent", "cost-vs-none"];

/** The markdown goal section: the targets, per window the verdicts with their figures, and a compact matrix. */
export function goalSection(windows: readonly GoalWindow[], priceSets: readonly PriceSet[], targets: GoalTargets = DEFAULT_GOAL_TARGETS): string[] {
  const lines: string[] = ["## Goal check", ""];
  const matrix = goalMatrix(windows, targets);
  const langChain = windows[0]?.rows.filter((row) => row.kind === "peer").map((row) => row.system) ?? [];
  lines.push(
    `Targets, at every window and under every price set (${priceSets.map((set) => set.label).join("; ")}):`,
    "",
    `- ${targets.recommended} (the recommended default): no model or summary call over the window; reply grounding at least the best LangChain row (${langChain.join(", ")}) that stays inside the window less ${GROUNDING_MARGIN} (where none stays inside, at least ${GROUNDING_FLOOR}); cost with re-reads at most ${RECOMMENDED_COST_FACTOR}× the cheapest LangChain row that stays inside the window (where none does, the cheapest row); where no LangChain row compacts, reply grounding at least ${GROUNDING_UNCOMPACTED} and cost with re-reads not above no compaction's; artifact retention at least ${RECOMMENDED_RETENTION}; tool pairing valid at every call; its rows with recall on (\`+ recall\`), also no lost word.`,
    `- ${targets.hiding}: cost below no compaction and not above ${targets.createAgent}.`,
    "- Every system of ours: cost not above no compaction.",
    "",
  );
  for (const window of windows) {
    lines.push(`### Goals at ${fmtInt(window.window)} tokens`, "");
    const verdicts = [...matrix].flatMap(([, byWindow]) => byWindow.get(window.window) ?? []);
    for (const verdict of verdicts.filter((candidate) => candidate.prices === undefined)) {
      lines.push(`- ${status(verdict.met)}: ${verdict.system}, ${verdict.text} — ${verdict.detail}`);
    }
    if (verdicts.some((candidate) => candidate.prices === undefined)) lines.push("");
    const costRows: string[][] = [];
    for (const [system, byWindow] of matrix) {
      for (const goal of COST_GOALS) {
        const forGoal = (byWindow.get(window.window) ?? []).filter((verdict) => verdict.goal === goal);
        if (forGoal.length === 0) continue;
        costRows.push([system, forGoal[0]!.text, ...priceSets.map((set) => forGoal.find((verdict) => verdict.prices === set.id)).map((verdict) => (verdict ? `${status(verdict.met)}: ${verdict.detail}` : "—"))]);
      }
    }
    lines.push(markdownTable(["system", "cost goal", ...priceSets.map((set) => set.label)], costRows, new Set()), "");
  }
  const recommended = matrix.get(targets.recommended);
  const allMet = (byWindow: Map<number, GoalVerdict[]>) => [...byWindow.values()].every((verdicts) => verdicts.every((verdict) => verdict.met));
  if (!recommended) lines.push(`${targets.recommended} was not run.`, "");
  else if (allMet(recommended)) lines.push(`${targets.recommended} meets every goal at every window under every price set.`, "");
  else {
    const others = [...matrix].filter(([system, byWindow]) => system !== targets.recommended && isVariantOf(system, targets.recommended) && allMet(byWindow)).map(([system]) => system);
    lines.push(
      others.length > 0
        ? `${targets.recommended} does not meet every goal; ${others.join(", ")} ${others.length === 1 ? "does" : "do"} at every window under every price set.`
        : `${targets.recommended} does not meet every goal.`,
      "",
    );
  }
  const windowList = windows.map((window) => window.window);
  lines.push("Goals met per window (a cost goal counts once per price set; what is not met, with the price sets):", "");
  lines.push(
    markdownTable(
      ["system", ...windowList.map((window) => fmtInt(window))],
      [...matrix].map(([system, byWindow]) => [
        system,
        ...windowList.map((window) => {
          const verdicts = byWindow.get(window) ?? [];
          const failed = new Map<string, string[]>();
          for (const verdict of verdicts.filter((candidate) => !candidate.met)) failed.set(verdict.text, [...(failed.get(verdict.text) ?? []), ...(verdict.prices ? [verdict.prices] : [])]);
          const notMet = [...failed].map(([text, prices]) => (prices.length > 0 ? `${text} (${prices.join(", ")})` : text));
          return `${verdicts.length - [...verdicts].filter((verdict) => !verdict.met).length}/${verdicts.length}${notMet.length > 0 ? `; not: ${notMet.join("; ")}` : ""}`;
        }),
      ]),
      new Set(),
    ),
    "",
  );
  return lines;
}

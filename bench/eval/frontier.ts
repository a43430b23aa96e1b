/**
 * The frontier sweep of `npm run eval -- --frontier`: at every window, our triggers and keep
 * settings and LangChain's, each a point of cost with re-reads against reply grounding; which peer
 * points a setting of ours dominates, and the autoCompaction trigger that costs least with re-reads
 * above the default's grounding floor.
 */
import { autoCompaction, toolResultHiding } from "../../src/index.js";
import { GROUNDING_FLOOR, RECOMMENDED_COST_FACTOR, groundingFloor } from "./report-goals.js";
import { presetCostsOf, type PriceSet, type SystemRow } from "./report-tables.js";
import { contextEditing, ours, summarizationWith, type SystemKind, type SystemSpec } from "./systems.js";

/** A family of settings the sweep varies. */
export type FrontierFamily = "autoCompaction" | "toolResultHiding" | "ClearToolUsesEdit" | "summarizationMiddleware";

/** Triggers of ours swept, as shares of the window. */
export const OUR_TRIGGERS: readonly number[] = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8];
/** Triggers of LangChain's swept, as shares of the window. */
export const PEER_TRIGGERS: readonly number[] = [0.3, 0.55, 0.8];
/**
 * What each family keeps: autoCompaction's hiding keeps this many tool-call groups (`hiding.keepRecentGroups`),
 * toolResultHiding this many groups, ClearToolUsesEdit this many results, summarizationMiddleware this many messages.
 */
export const FRONTIER_KEEPS: Readonly<Record<FrontierFamily, readonly number[]>> = Object.freeze({
  autoCompaction: [2, 5],
  toolResultHiding: [3, 6],
  ClearToolUsesEdit: [3, 10],
  summarizationMiddleware: [10, 20],
});

/** One setting of the sweep. */
export interface FrontierSetting {
  readonly family: FrontierFamily;
  readonly kind: SystemKind;
  /** The trigger, as a share of the window. */
  readonly trigger: number;
  readonly keep: number;
  readonly spec: SystemSpec;
}

/** The name of a setting's row: `<family> <trigger>/<keep>`. */
export const settingName = (family: FrontierFamily, trigger: number, keep: number): string => `${family} ${trigger}/${keep}`;

/** Every setting of the sweep: ours over {@link OUR_TRIGGERS}, LangChain's (ClearToolUsesEdit as createAgent runs it) over {@link PEER_TRIGGERS}, each with every keep of {@link FRONTIER_KEEPS}. */
export function frontierSettings(): FrontierSetting[] {
  const settings: FrontierSetting[] = [];
  const add = (family: FrontierFamily, kind: SystemKind, triggers: readonly number[], make: (trigger: number, keep: number, name: string) => SystemSpec) => {
    for (const keep of FRONTIER_KEEPS[family]) for (const trigger of triggers) settings.push({ family, kind, trigger, keep, spec: make(trigger, keep, settingName(family, trigger, keep)) });
  };
  add("autoCompaction", "ours", OUR_TRIGGERS, (trigger, keep, name) =>
    ours(name, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, trigger: { fraction: trigger }, hiding: { keepRecentGroups: keep } })),
  );
  add("toolResultHiding", "ours", OUR_TRIGGERS, (trigger, keep, name) =>
    ours(name, ({ window, tokenCounter }) => toolResultHiding({ tokenCounter, contextWindow: window, trigger: { fraction: trigger }, keepRecentGroups: keep })),
  );
  add("ClearToolUsesEdit", "peer", PEER_TRIGGERS, (trigger, keep, name) => contextEditing("createAgent", { trigger, keep }, name));
  add("summarizationMiddleware", "peer", PEER_TRIGGERS, (trigger, keep, name) => summarizationWith({ trigger, keep }, name));
  return settings;
}

/** One point of the frontier at one window. */
export interface FrontierPoint {
  readonly system: string;
  /** `"default"`: the default as the headline rows run it; `"recall"`: a headline row with recall on (recall.ts). */
  readonly family: FrontierFamily | "default" | "recall";
  readonly kind: SystemKind;
  readonly trigger?: number;
  readonly keep?: number;
  readonly grounding: number;
  /** Model and summary calls over the window. */
  readonly callsOverWindow: number;
  readonly compactions: number;
  readonly rereads: number;
  /** Cost with re-reads under each price set, by its id. */
  readonly costWithRereads: Readonly<Record<string, number>>;
}

/** Whether a peer point is dominated under one price set, and by which setting of ours. */
export interface PeerVerdict {
  readonly peer: string;
  readonly prices: PriceSet["id"];
  readonly dominatedBy: string | undefined;
  /** Why not, when not: the cheapest setting of ours inside the window with at least its grounding, or none. */
  readonly why: string;
}

/** The frontier at one window. */
export interface FrontierWindow {
  readonly window: number;
  /** No compaction's cost with re-reads under each price set (its cost: it misses nothing). */
  readonly baseline: Readonly<Record<string, number>>;
  readonly points: readonly FrontierPoint[];
  readonly verdicts: readonly PeerVerdict[];
  /** The grounding floor of the default's goal at this window. */
  readonly floor: number;
  /** Per price set, the autoCompaction setting (or the default) that costs least with re-reads inside the window at or above `floor`. */
  readonly bestAuto: readonly { readonly prices: PriceSet["id"]; readonly system: string | undefined; readonly cost: number | undefined; readonly grounding: number | undefined }[];
}

/**
 * The frontier at one window from the sweep's rows, the headline rows (no compaction, LangChain's
 * and the default, for the grounding floor and the default's point; the rows with recall on, drawn
 * as points of their own) and the price sets.
 */
export function frontierWindow(window: number, sweep: readonly { setting: FrontierSetting; row: SystemRow }[], headline: readonly SystemRow[], priceSets: readonly PriceSet[], defaultSystem: string): FrontierWindow {
  const defaultRow = headline.find((row) => row.system === defaultSystem);
  const baselineRow = headline.find((row) => row.kind === "baseline");
  const recallRows = headline.filter((row) => row.recall === true);
  const rows = [...(baselineRow ? [baselineRow] : []), ...(defaultRow ? [defaultRow] : []), ...recallRows, ...sweep.map(({ row }) => row)];
  const presetCosts = presetCostsOf(rows, priceSets);
  const costsOf = (index: number) => Object.fromEntries(presetCosts.map((costs) => [costs.prices, costs.rows[index]!.costWithRereads]));
  const pointOf = (row: SystemRow, index: number, setting?: FrontierSetting): FrontierPoint => ({
    system: row.system,
    family: setting?.family ?? (row.recall ? "recall" : "default"),
    kind: row.kind,
    ...(setting ? { trigger: setting.trigger, keep: setting.keep } : {}),
    grounding: row.grounding,
    callsOverWindow: row.totals.callsOverWindow + row.totals.summaryCallsOverWindow,
    compactions: row.totals.compactions,
    rereads: row.totals.rereads,
    costWithRereads: costsOf(index),
  });
  const offset = rows.length - sweep.length;
  const first = baselineRow ? 1 : 0;
  const points = [
    ...(defaultRow ? [pointOf(defaultRow, first)] : []),
    ...recallRows.map((row, index) => pointOf(row, first + (defaultRow ? 1 : 0) + index)),
    ...sweep.map(({ setting, row }, index) => pointOf(row, offset + index, setting)),
  ];
  // The recall rows are drawn, not held against LangChain's points: the sweep's settings run without recall.
  const ourInside = points.filter((point) => point.kind === "ours" && point.family !== "recall" && point.callsOverWindow === 0);
  const verdicts: PeerVerdict[] = [];
  for (const peer of points.filter((point) => point.kind === "peer")) {
    for (const { id } of priceSets) {
      const able = ourInside.filter((point) => point.grounding >= peer.grounding);
      const cheapest = able.reduce<FrontierPoint | undefined>((low, point) => (low === undefined || point.costWithRereads[id]! < low.costWithRereads[id]! ? point : low), undefined);
      const ratio = cheapest ? cheapest.costWithRereads[id]! / peer.costWithRereads[id]! : undefined;
      const dominated = ratio !== undefined && ratio <= RECOMMENDED_COST_FACTOR;
      verdicts.push({
        peer: peer.system,
        prices: id,
        dominatedBy: dominated ? cheapest!.system : undefined,
        why:
          (cheapest ? `${cheapest.system}: ${ratio!.toFixed(3)}× its cost with re-reads at grounding ${cheapest.grounding.toFixed(3)}` : `no setting of ours inside the window grounds ${peer.grounding.toFixed(3)} or more`) +
          (peer.callsOverWindow > 0 ? `; it makes ${peer.callsOverWindow} calls over the window` : ""),
      });
    }
  }
  const { floor } = headline.some((row) => row.kind === "peer") ? groundingFloor(headline) : { floor: GROUNDING_FLOOR };
  const autos = points.filter((point) => (point.family === "autoCompaction" || point.family === "default") && point.callsOverWindow === 0 && point.grounding >= floor);
  const bestAuto = priceSets.map(({ id }) => {
    const best = autos.reduce<FrontierPoint | undefined>((low, point) => (low === undefined || point.costWithRereads[id]! < low.costWithRereads[id]! ? point : low), undefined);
    return { prices: id, system: best?.system, cost: best?.costWithRereads[id], grounding: best?.grounding };
  });
  return { window, baseline: baselineRow ? costsOf(0) : {}, points, verdicts, floor, bestAuto };
}

/**
 * The points of `family` (inside the window) that no other point of the family beats on both cost
 * with re-reads (at `prices`) and grounding, cheapest first: the family's curve on the chart.
 */
export function paretoCurve(points: readonly FrontierPoint[], prices: string): FrontierPoint[] {
  const sorted = [...points].filter((point) => point.callsOverWindow === 0).sort((a, b) => a.costWithRereads[prices]! - b.costWithRereads[prices]! || b.grounding - a.grounding);
  const curve: FrontierPoint[] = [];
  for (const point of sorted) if (curve.length === 0 || point.grounding > curve[curve.length - 1]!.grounding) curve.push(point);
  return curve;
}

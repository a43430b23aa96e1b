/**
 * The recall targets of the evaluation, per window, for a row with recall on (see recall.ts): no lost
 * word; cost with re-reads and recalls at most the cheapest LangChain row's that stays inside the
 * window (where none does, the cheapest row's), under every price set, at a reply grounding no lower
 * than that row's less {@link GROUNDING_MARGIN} (not asked where no LangChain row stays inside); no
 * call over the window. Read from the rows as bench/eval-results.json keeps them, so the doc tables
 * (doc-tables.ts) and bench/EVAL.md say the same.
 */
import { GROUNDING_MARGIN } from "./report-goals.js";
import { fmtCost, fmtInt, fmtRatio, fmtShare, markdownTable } from "./report-format.js";

/** What the targets read of a row. */
export interface RecallTargetRow {
  readonly system: string;
  readonly kind: string;
  readonly grounding: number;
  readonly recall?: boolean;
  readonly totals: {
    readonly callsOverWindow: number;
    readonly summaryCallsOverWindow: number;
    readonly lostOwnWords: number;
    readonly lostUserWords: number;
    readonly groundedWords: number;
    readonly reusedWords: number;
    readonly rereadWords: number;
    readonly recall: { readonly recalls: number; readonly recallCalls: number; readonly recalledWords: number };
  };
}

/** What the targets read of a window. */
export interface RecallTargetWindow {
  readonly window: number;
  readonly rows: readonly RecallTargetRow[];
  readonly presetCosts: readonly { readonly prices: string; readonly label: string; readonly rows: readonly { readonly system: string; readonly kind: string; readonly costWithRereads: number }[] }[];
}

/** The cost target under one price set. */
export interface RecallCostVerdict {
  readonly prices: string;
  readonly label: string;
  readonly cost: number;
  /** The cheapest LangChain row inside the window (else of all), its cost with re-reads and grounding. */
  readonly reference: string;
  readonly referenceCost: number;
  readonly referenceGrounding: number;
  readonly ratio: number;
  /** Cost at most the reference's and, where a LangChain row stays inside, grounding at least its less the margin. */
  readonly met: boolean;
}

/** A recall row's targets at one window. */
export interface RecallVerdict {
  readonly window: number;
  readonly system: string;
  readonly lostOwnWords: number;
  readonly lostUserWords: number;
  readonly recalls: number;
  readonly recallCalls: number;
  readonly grounding: number;
  /** Grounding once re-reads and recalls have brought the missed words back. */
  readonly recoveredGrounding: number;
  readonly callsOverWindow: number;
  /** Whether some LangChain row stays inside the window (else the cost is held to the cheapest of all). */
  readonly inside: boolean;
  readonly costs: readonly RecallCostVerdict[];
  readonly met: { readonly lostWords: boolean; readonly cost: boolean; readonly window: boolean };
}

const calls = (row: RecallTargetRow) => row.totals.callsOverWindow + row.totals.summaryCallsOverWindow;

/** The verdicts of `system` (a row with recall on) at `window`, or undefined when the window has no such row. */
export function recallVerdict(window: RecallTargetWindow, system: string): RecallVerdict | undefined {
  const row = window.rows.find((candidate) => candidate.system === system);
  if (!row) return undefined;
  const peers = window.rows.filter((candidate) => candidate.kind === "peer");
  const insidePeers = peers.filter((candidate) => calls(candidate) === 0);
  const reference = new Set((insidePeers.length > 0 ? insidePeers : peers).map((candidate) => candidate.system));
  const costs = window.presetCosts.flatMap((set): RecallCostVerdict[] => {
    const own = set.rows.find((candidate) => candidate.system === system);
    const cheapest = set.rows.filter((candidate) => reference.has(candidate.system)).reduce<(typeof set.rows)[number] | undefined>((low, candidate) => (low === undefined || candidate.costWithRereads < low.costWithRereads ? candidate : low), undefined);
    if (!own || !cheapest) return [];
    const referenceGrounding = peers.find((candidate) => candidate.system === cheapest.system)!.grounding;
    const ratio = own.costWithRereads / cheapest.costWithRereads;
    const groundingMet = insidePeers.length === 0 || row.grounding >= referenceGrounding - GROUNDING_MARGIN - 1e-12;
    return [{ prices: set.prices, label: set.label, cost: own.costWithRereads, reference: cheapest.system, referenceCost: cheapest.costWithRereads, referenceGrounding, ratio, met: ratio <= 1 && groundingMet }];
  });
  const { totals } = row;
  const recovered = totals.groundedWords + totals.rereadWords + totals.recall.recalledWords;
  return {
    window: window.window,
    system,
    lostOwnWords: totals.lostOwnWords,
    lostUserWords: totals.lostUserWords,
    recalls: totals.recall.recalls,
    recallCalls: totals.recall.recallCalls,
    grounding: row.grounding,
    recoveredGrounding: totals.reusedWords === 0 ? 1 : recovered / totals.reusedWords,
    callsOverWindow: calls(row),
    inside: insidePeers.length > 0,
    costs,
    met: { lostWords: totals.lostOwnWords + totals.lostUserWords === 0, cost: costs.length > 0 && costs.every((cost) => cost.met), window: calls(row) === 0 },
  };
}

const yesNo = (met: boolean) => (met ? "met" : "**not met**");

/**
 * The recall-target table of `systems` (rows with recall on) over `windows`: per window and system,
 * lost words, recalls, the cost with re-reads and recalls against the cheapest LangChain row inside
 * the window at the first price set (the reference prices), the price sets under which the cost and
 * grounding target holds, grounding, and calls over the window.
 */
export function recallTable(windows: readonly RecallTargetWindow[], systems: readonly string[], nameOf: (system: string) => string = (system) => system): string {
  const rows: string[][] = [];
  for (const window of windows) {
    let firstOfWindow = true;
    for (const system of systems) {
      const verdict = recallVerdict(window, system);
      if (!verdict) continue;
      const first = verdict.costs[0];
      const metSets = verdict.costs.filter((cost) => cost.met).length;
      rows.push([
        firstOfWindow ? fmtInt(window.window) : "",
        nameOf(system),
        `${yesNo(verdict.met.lostWords)}: ${fmtInt(verdict.lostOwnWords)} / ${fmtInt(verdict.lostUserWords)}`,
        `${fmtInt(verdict.recalls)} (${fmtInt(verdict.recallCalls)})`,
        first ? fmtCost(first.cost) : "—",
        first ? `${first.reference}${verdict.inside ? "" : " (none inside)"}: ${fmtCost(first.referenceCost)}, grounding ${fmtShare(first.referenceGrounding)}` : "—",
        first ? fmtRatio(first.ratio) : "—",
        `${fmtShare(verdict.grounding)} (after recovery ${fmtShare(verdict.recoveredGrounding)})`,
        `${yesNo(verdict.met.cost)}: ${metSets} of ${verdict.costs.length}`,
        `${yesNo(verdict.met.window)}: ${fmtInt(verdict.callsOverWindow)}`,
      ]);
      firstOfWindow = false;
    }
  }
  return markdownTable(
    [
      "window",
      "system",
      "lost words (own / user)",
      "recalls (calls)",
      "cost with re-reads and recalls",
      "cheapest LangChain row inside the window (cost with re-reads)",
      "× it",
      "reply grounding",
      "cost and grounding target (price sets)",
      "calls over the window",
    ],
    rows,
    new Set([3, 4, 6, 7]),
  );
}

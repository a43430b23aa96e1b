/** The frontier section of bench/EVAL.md: per window the chart, the dominance check of every LangChain point, and the cheapest autoCompaction trigger above the grounding floor. */
import { FRONTIER_KEEPS, OUR_TRIGGERS, PEER_TRIGGERS, paretoCurve, type FrontierPoint, type FrontierWindow } from "./frontier.js";
import type { FrontierResult } from "./frontier-run.js";
import { RECOMMENDED_COST_FACTOR } from "./report-goals.js";
import { fmtCost, fmtInt, fmtRatio, fmtShare, markdownTable } from "./report-format.js";
import type { PriceSet } from "./report-tables.js";

/** Whether every LangChain point of `frontier` is dominated under every price set. */
export const frontierMet = (frontier: FrontierWindow): boolean => frontier.verdicts.every((verdict) => verdict.dominatedBy !== undefined);

/** The markdown frontier section; `charts` maps a window to its SVG file. */
export function frontierSection(result: FrontierResult, priceSets: readonly PriceSet[], charts: ReadonlyMap<number, string>): string[] {
  const reference = priceSets[0]!.id;
  const lines: string[] = ["## Frontier: cost with re-reads against reply grounding", ""];
  lines.push(
    `A sweep of ${result.settings} settings per window (${(result.wallTimeMs / 1000).toFixed(0)} s for ${result.windows.length} windows, on top of the headline run): ` +
      `autoCompaction with \`trigger: { fraction }\` over ${OUR_TRIGGERS.join(", ")} of the window and \`hiding.keepRecentGroups\` ${FRONTIER_KEEPS.autoCompaction.join(" or ")}; ` +
      `toolResultHiding with the same triggers and \`keepRecentGroups\` ${FRONTIER_KEEPS.toolResultHiding.join(" or ")}; ` +
      `LangChain's ClearToolUsesEdit (as createAgent runs it) with its trigger over ${PEER_TRIGGERS.join(", ")} of the window and keep ${FRONTIER_KEEPS.ClearToolUsesEdit.join(" or ")} results; ` +
      `summarizationMiddleware with the same triggers and keep ${FRONTIER_KEEPS.summarizationMiddleware.join(" or ")} messages. Other options at their defaults; the default is autoCompaction as the headline rows run it.`,
    "",
    `Target: for every LangChain point, a setting of ours that stays inside the window with at least its reply grounding at no more than ${RECOMMENDED_COST_FACTOR}× its cost with re-reads, under every price set. ` +
      "On each chart (reference prices) a family's curve joins its settings that no other setting of the family beats on both axes; a label reads trigger/keep.",
    "",
  );
  lines.push(
    markdownTable(
      ["window", "target", "LangChain points dominated, per price set", "not dominated (reference prices)"],
      result.windows.map((frontier) => {
        const peers = new Set(frontier.verdicts.map((verdict) => verdict.peer));
        const perSet = priceSets.map((set) => `${frontier.verdicts.filter((verdict) => verdict.prices === set.id && verdict.dominatedBy !== undefined).length}/${peers.size}`);
        const open = frontier.verdicts.filter((verdict) => verdict.prices === reference && verdict.dominatedBy === undefined).map((verdict) => `${verdict.peer} (${verdict.why})`);
        return [fmtInt(frontier.window), frontierMet(frontier) ? "met" : "**NOT met**", [...new Set(perSet)].length === 1 ? `${perSet[0]} under each` : perSet.join(", "), open.length === 0 ? "none" : open.join("; ")];
      }),
      new Set([0]),
    ),
    "",
  );
  for (const frontier of result.windows) {
    lines.push(`### Frontier at ${fmtInt(frontier.window)} tokens`, "");
    const chart = charts.get(frontier.window);
    if (chart) lines.push(`![frontier at ${fmtInt(frontier.window)} tokens](${chart})`, "");
    const curves = new Set(["autoCompaction", "toolResultHiding"].flatMap((family) => paretoCurve(frontier.points.filter((point) => point.family === family), reference).map((point) => point.system)));
    const base = frontier.baseline[reference] ?? 1;
    lines.push(
      markdownTable(
        ["setting", "calls > window", "compactions", "re-reads", "reply grounding", "cost with re-reads", "× none", "on the curve"],
        frontier.points.map((point: FrontierPoint) => [
          point.family === "default" ? `**${point.system} (default)**` : point.kind === "ours" ? `**${point.system}**` : point.system,
          fmtInt(point.callsOverWindow),
          fmtInt(point.compactions),
          fmtInt(point.rereads),
          fmtShare(point.grounding),
          fmtCost(point.costWithRereads[reference]!),
          fmtRatio(point.costWithRereads[reference]! / base),
          curves.has(point.system) ? "yes" : "",
        ]),
        new Set([1, 2, 3, 4, 5, 6]),
      ),
      "",
    );
  }
  lines.push("### The cheapest autoCompaction trigger above the grounding floor", "");
  lines.push(
    "Per window, of the autoCompaction settings of the sweep and the default that stay inside the window and reach the default's grounding floor (see the goal check), the one whose cost with re-reads is least, per price set:",
    "",
  );
  lines.push(
    markdownTable(
      ["window", "grounding floor", ...priceSets.map((set) => set.label)],
      result.windows.map((frontier) => [
        fmtInt(frontier.window),
        fmtShare(frontier.floor),
        ...priceSets.map((set) => {
          const best = frontier.bestAuto.find((candidate) => candidate.prices === set.id);
          return best?.system === undefined ? "none reaches the floor" : `${best.system} (${fmtRatio(best.cost! / frontier.baseline[set.id]!)} none, grounding ${fmtShare(best.grounding!)})`;
        }),
      ]),
      new Set([0, 1]),
    ),
    "",
  );
  return lines;
}

import type { ToolCallIndex } from "../messages/tool-call-groups.js";
import type { KeepRecentResults } from "./tool-result-hiding-options.js";

/**
 * How many of the newest results keep their content: those of the newest `keepRecentGroups` groups,
 * or as `keepRecentResults` says (a number of results, or those that fit in a token budget, newest
 * first: `perMessage` must then count them). @internal
 */
export function keptResults(
  keep: { readonly keepRecentGroups: number | undefined; readonly keepRecentResults: KeepRecentResults | undefined; readonly contextWindow: number | undefined },
  resultIndices: readonly number[],
  index: ToolCallIndex,
  perMessage: readonly number[],
): number {
  const { keepRecentResults } = keep;
  if (keepRecentResults === undefined) {
    const olderGroups = Math.max(0, index.groups.length - keep.keepRecentGroups!);
    let kept = 0;
    for (let groupNumber = olderGroups; groupNumber < index.groups.length; groupNumber++) kept += index.groups[groupNumber]!.resultIndices.length;
    return kept;
  }
  if (typeof keepRecentResults === "number") return Math.min(keepRecentResults, resultIndices.length);
  const budget = "tokens" in keepRecentResults ? keepRecentResults.tokens : Math.floor(keepRecentResults.fraction * keep.contextWindow!);
  let used = 0;
  let kept = 0;
  for (let position = resultIndices.length - 1; position >= 0; position--) {
    const cost = perMessage[resultIndices[position]!]!;
    if (used + cost > budget) break;
    used += cost;
    kept++;
  }
  return kept;
}

/** Whether {@link keptResults} needs the results' token counts. @internal */
export function keepNeedsCounts(keepRecentResults: KeepRecentResults | undefined): boolean {
  return keepRecentResults !== undefined && typeof keepRecentResults !== "number";
}

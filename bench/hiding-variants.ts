/**
 * Scenario 1b: the full pass of scenario 1 at one size (4000 messages; 1000 with `--quick`), approximate
 * counter, cold, with the settings around the default: `supersession: false` (what superseded-result
 * hiding costs) and `receipts: true` (what receipts cost), beside the same pass with the defaults
 * and ClearToolUsesEdit measured in scenario 1.
 */
import { createTokenCounter, toolResultHiding, type ToolResultHidingOptions } from "../src/index.js";
import { formatMs, formatRatio, measure, renderTable, type Timing } from "./measure.js";
import { KEEP_RECENT_GROUPS, type Plan } from "./settings.js";
import type { Subject } from "./sides.js";
import type { Comparison } from "./synthetic-pass.js";

export interface HidingVariant {
  label: string;
  options: Partial<ToolResultHidingOptions>;
  timing: Timing;
  hidden: number;
}

export interface HidingVariantsResult {
  messages: number;
  /** The pass of scenario 1 (default supersession, no receipts) and ClearToolUsesEdit's, ms. */
  defaultMs: number;
  langchainMs: number | undefined;
  variants: HidingVariant[];
}

/** The size measured: 4000 when the plan has it, else its largest size. */
export function variantsSize(plan: Plan): number {
  return plan.sizes.includes(4000) ? 4000 : Math.max(...plan.sizes);
}

export async function hidingVariants(plan: Plan, subjects: ReadonlyMap<number, Subject>, comparisons: readonly Comparison[]): Promise<HidingVariantsResult> {
  const size = variantsSize(plan);
  const subject = subjects.get(size)!;
  const base = comparisons.find((c) => c.counter === "approximate" && c.task === "hide" && c.messages === size)!;
  const variants: HidingVariant[] = [];
  for (const [label, options] of [
    ["supersession: false", { supersession: false }],
    ["receipts: true", { receipts: true }],
  ] as const) {
    let hidden = 0;
    const timing = await measure(
      { runs: plan.runs },
      () => toolResultHiding({ keepRecentGroups: KEEP_RECENT_GROUPS, trigger: { messages: 1 }, clearAtLeast: 0, receipts: false, ...options, tokenCounter: createTokenCounter({ mode: "approximate" }) }),
      (strategy) => strategy.compact(subject.messages),
      (result) => {
        if (result.status !== "compacted") throw new Error(`hiding variant ${label}: expected a compaction, got ${result.status}`);
        hidden = result.replaced.length;
      },
    );
    variants.push({ label, options, timing, hidden });
  }
  return { messages: size, defaultMs: base.ours.timing.medianMs, langchainMs: base.langchain?.timing.medianMs, variants };
}

export function hidingVariantsTable(result: HidingVariantsResult): string {
  const rows = [
    ["default supersession, receipts: false (scenario 1)", formatMs(result.defaultMs), "1.00x", formatRatio(result.langchainMs === undefined ? undefined : result.langchainMs / result.defaultMs), "—"],
    ...result.variants.map((variant) => [
      variant.label === "receipts: true" ? "default supersession, receipts: true" : "supersession: false, receipts: false",
      `${formatMs(variant.timing.medianMs)} [${variant.timing.runs}]`,
      formatRatio(variant.timing.medianMs / result.defaultMs),
      formatRatio(result.langchainMs === undefined ? undefined : result.langchainMs / variant.timing.medianMs),
      String(variant.hidden),
    ]),
  ];
  return renderTable([`toolResultHiding, ${result.messages} messages, approximate, cold`, "ms [runs]", "vs default", "ClearToolUsesEdit / ours", "hidden"], rows, new Set([1, 2, 3, 4]));
}

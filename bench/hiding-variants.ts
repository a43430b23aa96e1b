/**
 * Scenario 1b: the full pass of scenario 1 at one size (4000 messages; 1000 with `--quick`), approximate
 * counter, cold, with the settings around the default: `supersession: false` (what superseded-result
 * hiding costs) and `receipts: true` (what receipts cost), beside the same pass with the defaults
 * and ClearToolUsesEdit measured in scenario 1. The defaults' pass is measured again in turn with
 * the variants: the ratios compare passes made in the same state of the process.
 *
 * Alone (this scenario only, after the bench's warm-up; no scenario-1 or ClearToolUsesEdit figures):
 *
 *   npx tsx bench/hiding-variants.ts [--runs <n>] [--quick]
 */
import { createTokenCounter, toolResultHiding, type ToolResultHidingOptions } from "../src/index.js";
import { formatMs, formatRatio, median, renderTable, timingOf, type Timing } from "./measure.js";
import { KEEP_RECENT_GROUPS, parseCli, planFor, type Plan } from "./settings.js";
import { warmUp, type Subject } from "./sides.js";
import { syntheticSubjects, type Comparison } from "./synthetic-pass.js";

export interface HidingVariant {
  label: string;
  options: Partial<ToolResultHidingOptions>;
  timing: Timing;
  hidden: number;
}

export interface HidingVariantsResult {
  messages: number;
  /** The pass of scenario 1 (default supersession, no receipts) and ClearToolUsesEdit's, ms; `NaN` when scenario 1 did not run. */
  defaultMs: number;
  langchainMs: number | undefined;
  /** The defaults' pass measured here, run by run in turn with the variants (the ratios' base), ms. */
  interleavedDefaultMs: number;
  variants: HidingVariant[];
}

/** The size measured: 4000 when the plan has it, else its largest size. */
export function variantsSize(plan: Plan): number {
  return plan.sizes.includes(4000) ? 4000 : Math.max(...plan.sizes);
}

const SETTINGS: readonly (readonly [string, Partial<ToolResultHidingOptions>])[] = [
  ["defaults", {}],
  ["supersession: false", { supersession: false }],
  ["receipts: true", { receipts: true }],
];

/**
 * The defaults' pass and each variant's, a new strategy per run, measured run by run in turn (one
 * untimed round first), so that every ratio compares passes made in the same state of the process.
 */
export async function hidingVariants(plan: Plan, subjects: ReadonlyMap<number, Subject>, comparisons: readonly Comparison[]): Promise<HidingVariantsResult> {
  const size = variantsSize(plan);
  const subject = subjects.get(size)!;
  const base = comparisons.find((c) => c.counter === "approximate" && c.task === "hide" && c.messages === size);
  const samples = SETTINGS.map((): number[] => []);
  const hidden = SETTINGS.map(() => 0);
  for (let run = -1; run < plan.runs; run++) {
    for (const [position, [label, options]] of SETTINGS.entries()) {
      const strategy = toolResultHiding({ keepRecentGroups: KEEP_RECENT_GROUPS, trigger: { messages: 1 }, clearAtLeast: 0, receipts: false, ...options, tokenCounter: createTokenCounter({ mode: "approximate" }) });
      const started = performance.now();
      const result = await strategy.compact(subject.messages);
      const elapsed = performance.now() - started;
      if (result.status !== "compacted") throw new Error(`hiding variant ${label}: expected a compaction, got ${result.status}`);
      hidden[position] = result.replaced.length;
      if (run >= 0) samples[position]!.push(elapsed);
    }
  }
  const variants = SETTINGS.slice(1).map(([label, options], position) => ({ label, options, timing: timingOf(samples[position + 1]!, plan.runs), hidden: hidden[position + 1]! }));
  return { messages: size, defaultMs: base?.ours.timing.medianMs ?? Number.NaN, langchainMs: base?.langchain?.timing.medianMs, interleavedDefaultMs: median(samples[0]!), variants };
}

export function hidingVariantsTable(result: HidingVariantsResult): string {
  const rows = [
    ["default supersession, receipts: false (scenario 1)", formatMs(result.defaultMs), "—", formatRatio(result.langchainMs === undefined ? undefined : result.langchainMs / result.defaultMs), "—"],
    ["default supersession, receipts: false (in turn with the two below)", formatMs(result.interleavedDefaultMs), "1.00x", formatRatio(result.langchainMs === undefined ? undefined : result.langchainMs / result.interleavedDefaultMs), "—"],
    ...result.variants.map((variant) => [
      variant.label === "receipts: true" ? "default supersession, receipts: true" : "supersession: false, receipts: false",
      `${formatMs(variant.timing.medianMs)} [${variant.timing.runs}]`,
      formatRatio(variant.timing.medianMs / result.interleavedDefaultMs),
      formatRatio(result.langchainMs === undefined ? undefined : result.langchainMs / variant.timing.medianMs),
      String(variant.hidden),
    ]),
  ];
  return renderTable([`toolResultHiding, ${result.messages} messages, approximate, cold`, "ms [runs]", "vs default", "ClearToolUsesEdit / ours", "hidden"], rows, new Set([1, 2, 3, 4]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const plan = planFor(parseCli());
  const subjects = syntheticSubjects({ ...plan, sizes: [variantsSize(plan)] });
  await warmUp();
  const result = await hidingVariants(plan, subjects, []);
  console.log(hidingVariantsTable(result));
  const receipts = result.variants.find((variant) => variant.label === "receipts: true")!.timing.medianMs;
  console.log(`receipts: true / receipts: false, in turn: ${formatRatio(receipts / result.interleavedDefaultMs)} (target <= 1.5x)`);
}

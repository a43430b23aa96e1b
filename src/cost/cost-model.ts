import { z } from "zod/v4";
import { CompactionError } from "../errors.js";
import { parseOptions } from "../options.js";
import { priceRatesOf, pricesSchema, type PricePresetId, type PriceRates } from "./prices.js";

/** The horizon used when no next compaction is in sight, and the longest horizon counted. */
export const MAX_COST_HORIZON_STEPS = 1000;

/**
 * How a policy weighs a compaction against the prompt-cache break it causes (see
 * {@link judgeCompactionCost}).
 */
export interface CostModel {
  /** The model's price rates, or the id of one of the `PRICE_PRESETS`. */
  readonly prices: PriceRates | PricePresetId;
  /**
   * Number of later calls over which a compaction's saving is counted. @default the calls until the
   * history regrows to the next compaction's trigger (1 to 1000)
   */
  readonly horizonSteps?: number;
}

/**
 * Schema of a {@link CostModel} option, for strategies' option schemas: `prices` a preset id or
 * rates (finite, `input` > 0, the others ≥ 0), `horizonSteps` a positive integer; no other fields.
 * @internal
 */
export const costModelSchema = z
  .object({
    prices: pricesSchema,
    horizonSteps: z.number().int().positive().optional(),
  })
  .strict();

/** The figures of one prospective compaction, in tokens. */
export interface CompactionCostInput {
  /** The history now, as it would be sent without compacting. */
  readonly tokensBefore: number;
  /** The history after the compaction. */
  readonly tokensAfter: number;
  /** Tokens of the leading messages the compaction leaves unchanged (still cached). */
  readonly keptPrefixTokens: number;
  /** Tokens added since the previous model call (not cached even without compacting). */
  readonly freshTokens: number;
  /** Average tokens a step adds to the history; below 1 counts as 1. */
  readonly growthPerStep: number;
  /** The history size at which the next compaction would come; `Infinity` if none. */
  readonly nextTriggerTokens: number;
  /** Cost, in input-price units (tokens × rate), of a model call the compaction makes, such as a summary call. @default 0 */
  readonly extraCallCost?: number;
}

/** Whether a compaction repays its prompt-cache break, with the figures behind the answer. */
export interface CompactionCostVerdict {
  /** True when the saving over the horizon covers the break and the extra call. */
  readonly repays: boolean;
  /** How much more this call's prompt costs compacted than not, in input-price units (negative when compacting is cheaper at once). Excludes `extraCallCost`. */
  readonly breakCost: number;
  /** How much less each later call's prompt costs, in input-price units. */
  readonly savingPerStep: number;
  /** The number of later calls the saving was counted over. */
  readonly horizonSteps: number;
  /** The comparison in one line, e.g. "saves 1,234 per call over 12 calls = 14,808 >= break 9,876". */
  readonly reason: string;
}

const COUNTED_FIELDS = ["tokensBefore", "tokensAfter", "keptPrefixTokens", "freshTokens", "growthPerStep"] as const;

function checkFigures(input: CompactionCostInput): void {
  for (const field of COUNTED_FIELDS) {
    const value = input[field];
    if (!Number.isFinite(value) || value < 0) throw new CompactionError(`judgeCompactionCost: \`${field}\` must be a finite number >= 0, got ${value}`);
  }
  const { nextTriggerTokens, extraCallCost = 0 } = input;
  if (Number.isNaN(nextTriggerTokens) || nextTriggerTokens < 0) {
    throw new CompactionError(`judgeCompactionCost: \`nextTriggerTokens\` must be a number >= 0 or Infinity, got ${nextTriggerTokens}`);
  }
  if (!Number.isFinite(extraCallCost) || extraCallCost < 0) {
    throw new CompactionError(`judgeCompactionCost: \`extraCallCost\` must be a finite number >= 0, got ${extraCallCost}`);
  }
}

const figure = (value: number): string => Math.round(value).toLocaleString("en-US");

/** The calls until the history regrows from `tokensAfter` to the next trigger, within 1..1000. */
function regrowthHorizon(tokensAfter: number, nextTriggerTokens: number, growthPerStep: number): number {
  if (nextTriggerTokens === Number.POSITIVE_INFINITY) return MAX_COST_HORIZON_STEPS;
  const steps = Math.floor((nextTriggerTokens - tokensAfter) / Math.max(1, growthPerStep));
  return Math.min(MAX_COST_HORIZON_STEPS, Math.max(1, steps));
}

/**
 * Whether a compaction repays the prompt-cache break it causes. With c = `cachedInput` and
 * w = `cacheWrite` of the model's prices (relative to the input price, see {@link priceRatesOf}):
 *
 * - without compacting, this call's prompt costs `(tokensBefore - freshTokens) * c + freshTokens * w`
 *   (the history up to the previous call is cached, the fresh part is written);
 * - compacting, it costs `keptPrefixTokens * c + (tokensAfter - keptPrefixTokens) * w` (only the
 *   unchanged leading messages are still cached), plus `extraCallCost`;
 * - `breakCost` is the difference of the two prompt costs (compacted minus not), which is negative
 *   when compacting is cheaper at once; it excludes `extraCallCost`;
 * - each later call sends `tokensBefore - tokensAfter` fewer cached tokens:
 *   `savingPerStep = (tokensBefore - tokensAfter) * c`;
 * - the horizon is the model's `horizonSteps` when given, else the calls until the history regrows
 *   to the next trigger, `floor((nextTriggerTokens - tokensAfter) / growthPerStep)`, at least 1 and
 *   at most 1000 (1000 when `nextTriggerTokens` is `Infinity`);
 * - the compaction repays iff `savingPerStep * horizon >= breakCost + extraCallCost`.
 *
 * `freshTokens` counts at most `tokensBefore`, and `keptPrefixTokens` at most the smaller of
 * `tokensBefore` and `tokensAfter`. Output tokens are left out: compacting does not change them
 * (a summary call's output belongs in `extraCallCost`). Pure: the arguments are not changed.
 *
 * @throws {InvalidOptionError} when `model` is not a valid {@link CostModel} (an unknown preset id,
 * invalid rates, a `horizonSteps` that is not a positive integer, another field).
 * @throws {CompactionError} when a token figure is negative or not a number (`nextTriggerTokens`
 * may be `Infinity`).
 * @example
 * judgeCompactionCost(
 *   { tokensBefore: 100_000, tokensAfter: 20_000, keptPrefixTokens: 2_000, freshTokens: 1_000, growthPerStep: 2_000, nextTriggerTokens: 80_000 },
 *   { prices: "anthropic-claude" },
 * ); // repays: "saves 8,000 per call over 30 calls = 240,000 >= break 11,550"
 */
export function judgeCompactionCost(input: CompactionCostInput, model: CostModel): CompactionCostVerdict {
  const checked = parseOptions("judgeCompactionCost", costModelSchema, model);
  const { cachedInput: c, cacheWrite: w } = priceRatesOf(checked.prices);
  checkFigures(input);
  const { tokensBefore, tokensAfter, growthPerStep, nextTriggerTokens, extraCallCost = 0 } = input;
  const freshTokens = Math.min(input.freshTokens, tokensBefore);
  const keptPrefixTokens = Math.min(input.keptPrefixTokens, tokensBefore, tokensAfter);
  const uncompacted = (tokensBefore - freshTokens) * c + freshTokens * w;
  const compacted = keptPrefixTokens * c + (tokensAfter - keptPrefixTokens) * w;
  const breakCost = compacted - uncompacted;
  const savingPerStep = (tokensBefore - tokensAfter) * c;
  const horizonSteps = checked.horizonSteps ?? regrowthHorizon(tokensAfter, nextTriggerTokens, growthPerStep);
  const saving = savingPerStep * horizonSteps;
  const cost = breakCost + extraCallCost;
  const repays = saving >= cost;
  const calls = horizonSteps === 1 ? "1 call" : `${figure(horizonSteps)} calls`;
  const extra = extraCallCost > 0 ? ` + extra call ${figure(extraCallCost)}` : "";
  const reason = `saves ${figure(savingPerStep)} per call over ${calls} = ${figure(saving)} ${repays ? ">=" : "<"} break ${figure(breakCost)}${extra}`;
  return { repays, breakCost, savingPerStep, horizonSteps, reason };
}

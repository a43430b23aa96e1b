import { z } from "zod/v4";
import { parseOptions } from "../options.js";

/**
 * Token prices of a model, relative to its uncached input price (`input` = 1).
 *
 * - `input`: an input token that is neither read from nor written to the prompt cache;
 * - `cacheWrite`: an uncached input token that is written to the cache (Anthropic charges 1.25× for
 *   its 5-minute cache; OpenAI and Gemini charge no write surcharge, so 1);
 * - `cachedInput`: an input token read from the cache (a cache hit);
 * - `output`: a generated token.
 *
 * Rates may also be given in any one currency unit (e.g. dollars per million tokens):
 * {@link priceRatesOf} divides them by `input`, so the cost model always works in input-price units.
 */
export interface PriceRates {
  readonly input: number;
  readonly cacheWrite: number;
  readonly cachedInput: number;
  readonly output: number;
}

/** The names of the built-in {@link PRICE_PRESETS}. */
export type PricePresetId = "openai-gpt-5" | "openai-gpt-4.1" | "anthropic-claude" | "google-gemini-2.5";

/** Built-in price rates of a model family, with where and when they were read. */
export interface PricePreset extends PriceRates {
  readonly id: PricePresetId;
  /** Human-readable name of the model family. */
  readonly label: string;
  /** URL of the provider's page the rates were read from. */
  readonly source: string;
  /** ISO date (YYYY-MM-DD) on which `source` was read. */
  readonly checked: string;
  /** What the rates leave out or how they were derived. */
  readonly note?: string;
}

const CHECKED = "2026-11-24";

/**
 * Price rates of common model families, relative to the uncached input price, as the providers
 * published them on the `checked` date (standard tier, no batch discount):
 *
 * | id | per 1M tokens (input / cache write / cache hit / output) | cacheWrite | cachedInput | output |
 * |---|---|---|---|---|
 * | `openai-gpt-5` | $1.25 / — / $0.125 / $10 | 1 | 0.1 | 8 |
 * | `openai-gpt-4.1` | $2 / — / $0.50 / $8 | 1 | 0.25 | 4 |
 * | `anthropic-claude` | $3 / $3.75 / $0.30 / $15 (Sonnet 4) | 1.25 | 0.1 | 5 |
 * | `google-gemini-2.5` | $1.25 / — / $0.125 / $10 (2.5 Pro, prompts ≤ 200k) | 1 | 0.1 | 8 |
 *
 * Prices change: pass your own {@link PriceRates} when they differ from these.
 */
export const PRICE_PRESETS: Readonly<Record<PricePresetId, PricePreset>> = Object.freeze({
  "openai-gpt-5": Object.freeze({
    id: "openai-gpt-5",
    label: "OpenAI GPT-5",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.1,
    output: 8,
    source: "https://developers.openai.com/api/docs/models/gpt-5-codex",
    checked: CHECKED,
    note: "$1.25 input, $0.125 cached input, $10 output per 1M tokens (the GPT-5 and GPT-5-Codex price). OpenAI caches prompts automatically with no write surcharge.",
  }),
  "openai-gpt-4.1": Object.freeze({
    id: "openai-gpt-4.1",
    label: "OpenAI GPT-4.1",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.25,
    output: 4,
    source: "https://developers.openai.com/api/docs/models/gpt-4.1",
    checked: CHECKED,
    note: "$2 input, $0.50 cached input, $8 output per 1M tokens. OpenAI caches prompts automatically with no write surcharge.",
  }),
  "anthropic-claude": Object.freeze({
    id: "anthropic-claude",
    label: "Anthropic Claude (Sonnet 4)",
    input: 1,
    cacheWrite: 1.25,
    cachedInput: 0.1,
    output: 5,
    source: "https://docs.anthropic.com/en/docs/about-claude/pricing",
    checked: CHECKED,
    note: "Claude Sonnet 4: $3 input, $3.75 5-minute cache write, $0.30 cache hit, $15 output per 1M tokens (Opus 4/4.1 and Haiku 3.5 have the same ratios). A 1-hour cache write costs 2x instead of 1.25x.",
  }),
  "google-gemini-2.5": Object.freeze({
    id: "google-gemini-2.5",
    label: "Google Gemini 2.5 Pro",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.1,
    output: 8,
    source: "https://ai.google.dev/gemini-api/docs/pricing",
    checked: CHECKED,
    note: "Prompts up to 200k tokens: $1.25 input, $0.125 context caching, $10 output per 1M tokens. The context caching price was $0.31 (0.25x) earlier and is $0.125 (0.1x) now. Implicit caching has no write surcharge; explicit caches also pay storage ($4.50 per 1M tokens per hour), which these rates leave out.",
  }),
} satisfies Record<PricePresetId, PricePreset>);

/** The ids of {@link PRICE_PRESETS}, in declaration order. */
const PRESET_IDS = Object.keys(PRICE_PRESETS) as [PricePresetId, ...PricePresetId[]];

/** @internal */
export const priceRatesSchema = z
  .object({
    input: z.number().positive().finite(),
    cacheWrite: z.number().nonnegative().finite(),
    cachedInput: z.number().nonnegative().finite(),
    output: z.number().nonnegative().finite(),
  })
  .strict();

/** @internal */
export const pricesSchema = z.union([z.enum(PRESET_IDS), priceRatesSchema], {
  error: (issue) =>
    typeof issue.input === "string"
      ? `expected one of the price presets ${PRESET_IDS.join(", ")}`
      : `expected a price preset id (${PRESET_IDS.join(", ")}) or { input, cacheWrite, cachedInput, output } as finite numbers`,
});

/**
 * The price rates for a preset id or for rates given directly, scaled so that `input` = 1 (rates
 * given in dollars per million tokens become ratios). Returns a new object; the argument is not
 * changed.
 *
 * @throws {InvalidOptionError} for an id that is not a {@link PricePresetId}, or rates that are not
 * finite numbers (`input` > 0, the others ≥ 0), or that carry other fields.
 * @example
 * priceRatesOf("anthropic-claude"); // { input: 1, cacheWrite: 1.25, cachedInput: 0.1, output: 5 }
 * priceRatesOf({ input: 2, cacheWrite: 2, cachedInput: 0.5, output: 8 }); // { input: 1, cacheWrite: 1, cachedInput: 0.25, output: 4 }
 */
export function priceRatesOf(prices: PriceRates | PricePresetId): PriceRates {
  const { prices: checked } = parseOptions("priceRatesOf", z.object({ prices: pricesSchema }), { prices });
  const rates: PriceRates = typeof checked === "string" ? PRICE_PRESETS[checked] : checked;
  const { input } = rates;
  return { input: 1, cacheWrite: rates.cacheWrite / input, cachedInput: rates.cachedInput / input, output: rates.output / input };
}

/**
 * Price presets for estimating what a history costs with a provider's prompt cache, per token and
 * relative to the provider's uncached input price (input = 1).
 */

/** Prices per token of one model, relative to its uncached input price. */
export interface PriceRates {
  /** An input token's list price. */
  readonly input: number;
  /** An uncached input token, which the provider writes to its cache (Anthropic bills 1.25×, the others 1×). */
  readonly cacheWrite: number;
  /** An input token read from the cache. */
  readonly cachedInput: number;
  /** An output token. */
  readonly output: number;
}

/** The presets' ids. */
export type PricePresetId = "openai-gpt-5" | "openai-gpt-4.1" | "anthropic-claude" | "google-gemini-2.5";

/** A provider's published prices, relative to its input price, with where they come from. */
export interface PricePreset extends PriceRates {
  readonly id: PricePresetId;
  readonly label: string;
  /** Where the prices were read. */
  readonly source: string;
  /** When they were read (YYYY-MM-DD). */
  readonly checked: string;
  readonly note?: string;
}

const CHECKED = "2026-11-24";

/**
 * The presets: OpenAI GPT-5 (cached 0.1×, output 8×), GPT-4.1 (cached 0.25×, output 4×), Anthropic
 * Claude (cache write 1.25×, cache read 0.1×, output 5×) and Google Gemini 2.5 Pro (cached 0.25×, output 8×).
 */
export const PRICE_PRESETS: Readonly<Record<PricePresetId, PricePreset>> = Object.freeze({
  "openai-gpt-5": Object.freeze({
    id: "openai-gpt-5",
    label: "OpenAI GPT-5",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.1,
    output: 8,
    source: "https://openai.com/api/pricing/",
    checked: CHECKED,
  }),
  "openai-gpt-4.1": Object.freeze({
    id: "openai-gpt-4.1",
    label: "OpenAI GPT-4.1",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.25,
    output: 4,
    source: "https://openai.com/api/pricing/",
    checked: CHECKED,
  }),
  "anthropic-claude": Object.freeze({
    id: "anthropic-claude",
    label: "Anthropic Claude (Sonnet)",
    input: 1,
    cacheWrite: 1.25,
    cachedInput: 0.1,
    output: 5,
    source: "https://docs.anthropic.com/en/docs/about-claude/pricing",
    checked: CHECKED,
    note: "5-minute cache writes",
  }),
  "google-gemini-2.5": Object.freeze({
    id: "google-gemini-2.5",
    label: "Google Gemini 2.5 Pro",
    input: 1,
    cacheWrite: 1,
    cachedInput: 0.25,
    output: 8,
    source: "https://ai.google.dev/gemini-api/docs/pricing",
    checked: CHECKED,
    note: "prompts up to 200k tokens; cache storage not counted",
  }),
});

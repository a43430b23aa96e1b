/**
 * Price presets are data: rates relative to the uncached input price, with the provider page they
 * were read from. priceRatesOf resolves an id or scales given rates so that input = 1.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError, priceRatesOf, type PriceRates } from "../../src/index.js";
import { PRICE_PRESETS } from "../../src/extend/index.js";
import { caught } from "../support/errors.js";

const rates = ({ input, cacheWrite, cachedInput, output }: PriceRates): PriceRates => ({ input, cacheWrite, cachedInput, output });

describe("PRICE_PRESETS", () => {
  it("hold each family's rates relative to its input price", () => {
    expect(Object.fromEntries(Object.entries(PRICE_PRESETS).map(([id, preset]) => [id, rates(preset)]))).toEqual({
      "openai-gpt-5": { input: 1, cacheWrite: 1, cachedInput: 0.1, output: 8 },
      "openai-gpt-4.1": { input: 1, cacheWrite: 1, cachedInput: 0.25, output: 4 },
      "anthropic-claude": { input: 1, cacheWrite: 1.25, cachedInput: 0.1, output: 5 },
      "google-gemini-2.5": { input: 1, cacheWrite: 1, cachedInput: 0.1, output: 8 },
    });
  });

  it("match the per-million-token prices they were read from", () => {
    const perMillion = {
      "openai-gpt-5": { input: 1.25, cacheWrite: 1.25, cachedInput: 0.125, output: 10 },
      "openai-gpt-4.1": { input: 2, cacheWrite: 2, cachedInput: 0.5, output: 8 },
      "anthropic-claude": { input: 3, cacheWrite: 3.75, cachedInput: 0.3, output: 15 },
      "google-gemini-2.5": { input: 1.25, cacheWrite: 1.25, cachedInput: 0.125, output: 10 },
    } as const;
    for (const [id, dollars] of Object.entries(perMillion)) {
      const preset = PRICE_PRESETS[id as keyof typeof perMillion];
      expect(preset.cacheWrite).toBeCloseTo(dollars.cacheWrite / dollars.input, 12);
      expect(preset.cachedInput).toBeCloseTo(dollars.cachedInput / dollars.input, 12);
      expect(preset.output).toBeCloseTo(dollars.output / dollars.input, 12);
    }
  });

  it("name themselves, cite the provider's own page and the date it was read", () => {
    expect(Object.values(PRICE_PRESETS).map(({ id, source, checked }) => [id, new URL(source).hostname, checked])).toEqual([
      ["openai-gpt-5", "developers.openai.com", "2026-11-24"],
      ["openai-gpt-4.1", "developers.openai.com", "2026-11-24"],
      ["anthropic-claude", "docs.anthropic.com", "2026-11-24"],
      ["google-gemini-2.5", "ai.google.dev", "2026-11-24"],
    ]);
  });

  it("are frozen", () => {
    expect(Object.isFrozen(PRICE_PRESETS)).toBe(true);
    expect(Object.values(PRICE_PRESETS).every((preset) => Object.isFrozen(preset))).toBe(true);
  });
});

describe("priceRatesOf", () => {
  it("returns a preset's rates as a new object without its metadata", () => {
    const result = priceRatesOf("anthropic-claude");
    expect(result).toEqual({ input: 1, cacheWrite: 1.25, cachedInput: 0.1, output: 5 });
    expect(result).not.toBe(PRICE_PRESETS["anthropic-claude"]);
  });

  it("scales rates given in dollars per million tokens so that input = 1, without changing them", () => {
    const given = Object.freeze({ input: 2, cacheWrite: 2.5, cachedInput: 0.5, output: 8 });
    expect(priceRatesOf(given)).toEqual({ input: 1, cacheWrite: 1.25, cachedInput: 0.25, output: 4 });
    expect(given).toEqual({ input: 2, cacheWrite: 2.5, cachedInput: 0.5, output: 8 });
  });

  it("accepts rates already relative to input, and a free cache (cachedInput 0)", () => {
    expect(priceRatesOf({ input: 1, cacheWrite: 1, cachedInput: 0, output: 3 })).toEqual({ input: 1, cacheWrite: 1, cachedInput: 0, output: 3 });
  });

  it("throws InvalidOptionError for an unknown preset id, listing the known ones", async () => {
    const error = await caught(() => priceRatesOf("openai-gpt-9" as never));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ component: "priceRatesOf", option: "prices" });
    expect((error as Error).message).toBe(
      'priceRatesOf: invalid option `prices`: expected one of the price presets openai-gpt-5, openai-gpt-4.1, anthropic-claude, google-gemini-2.5; got the string "openai-gpt-9"',
    );
  });

  const shapeProblem = "expected a price preset id (openai-gpt-5, openai-gpt-4.1, anthropic-claude, google-gemini-2.5) or { input, cacheWrite, cachedInput, output } as finite numbers";
  it.each([
    ["a zero input price", { input: 0, cacheWrite: 1, cachedInput: 0.1, output: 5 }, "prices.input", "expected a number > 0; got 0"],
    ["a negative rate", { input: 1, cacheWrite: 1, cachedInput: -0.1, output: 5 }, "prices.cachedInput", "expected a number >= 0; got -0.1"],
    ["an infinite rate", { input: 1, cacheWrite: Number.POSITIVE_INFINITY, cachedInput: 0.1, output: 5 }, "prices", `${shapeProblem}; got { input: 1, cacheWrite: Infinity, cachedInput: 0.1, output: 5 }`],
    ["a missing rate", { input: 1, cacheWrite: 1, output: 5 }, "prices", `${shapeProblem}; got { input: 1, cacheWrite: 1, output: 5 }`],
    ["another field", { input: 1, cacheWrite: 1, cachedInput: 0.1, output: 5, storage: 4.5 }, "prices.storage", "expected one of the options input, cacheWrite, cachedInput, output; got an unknown option"],
    ["a number", 5, "prices", `${shapeProblem}; got 5`],
  ])("throws InvalidOptionError for %s", async (_name, given, option, problem) => {
    const error = await caught(() => priceRatesOf(given as unknown as PriceRates));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ component: "priceRatesOf", option });
    expect((error as Error).message).toBe(`priceRatesOf: invalid option \`${option}\`: ${problem}`);
  });
});

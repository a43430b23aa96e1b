/**
 * judgeCompactionCost: a compaction repays its prompt-cache break when the cached tokens it saves on
 * the later calls cover what this call pays more (and any extra call). Every figure below is worked
 * out by hand from the rule in the function's TSDoc (c = cachedInput, w = cacheWrite).
 */
import { describe, expect, it } from "vitest";
import { CompactionError, InvalidOptionError, judgeCompactionCost, type CompactionCostInput, type CostModel } from "../../src/index.js";
import { MAX_COST_HORIZON_STEPS } from "../../src/cost/cost-model.js";
import { costModelSchema } from "../../src/cost/cost-model.js";
import { caught } from "../support/errors.js";

const noCache = { input: 1, cacheWrite: 1, cachedInput: 1, output: 4 };

describe("judgeCompactionCost", () => {
  it("Claude: a large shrink repays its break long before the next compaction", () => {
    // without: (100,000 - 1,000) * 0.1 + 1,000 * 1.25 = 11,150; with: 2,000 * 0.1 + 18,000 * 1.25 = 22,700
    // break 11,550; saving 80,000 * 0.1 = 8,000 per call; horizon floor((80,000 - 20,000) / 2,000) = 30
    const verdict = judgeCompactionCost(
      { tokensBefore: 100_000, tokensAfter: 20_000, keptPrefixTokens: 2_000, freshTokens: 1_000, growthPerStep: 2_000, nextTriggerTokens: 80_000 },
      { prices: "anthropic-claude" },
    );
    expect(verdict.repays).toBe(true);
    expect(verdict.breakCost).toBeCloseTo(11_550, 9);
    expect(verdict.savingPerStep).toBeCloseTo(8_000, 9);
    expect(verdict.horizonSteps).toBe(30);
    expect(verdict.reason).toBe("saves 8,000 per call over 30 calls = 240,000 >= break 11,550");
  });

  it("Claude: a small shrink with a summary call does not repay before the next compaction", () => {
    // without: 29,000 * 0.1 + 1,000 * 1.25 = 4,150; with: 4,000 * 0.1 + 20,000 * 1.25 = 25,400; break 21,250
    // saving 6,000 * 0.1 = 600; horizon floor((32,000 - 24,000) / 500) = 16; 9,600 < 21,250 + 2,000
    const input: CompactionCostInput = {
      tokensBefore: 30_000,
      tokensAfter: 24_000,
      keptPrefixTokens: 4_000,
      freshTokens: 1_000,
      growthPerStep: 500,
      nextTriggerTokens: 32_000,
      extraCallCost: 2_000,
    };
    const verdict = judgeCompactionCost(input, { prices: "anthropic-claude" });
    expect(verdict.repays).toBe(false);
    expect(verdict.breakCost).toBeCloseTo(21_250, 9);
    expect(verdict.savingPerStep).toBeCloseTo(600, 9);
    expect(verdict.horizonSteps).toBe(16);
    expect(verdict.reason).toBe("saves 600 per call over 16 calls = 9,600 < break 21,250 + extra call 2,000");
    // horizonSteps overrides the regrowth horizon: 38 * 600 = 22,800 < 23,250 <= 39 * 600 = 23,400
    expect(judgeCompactionCost(input, { prices: "anthropic-claude", horizonSteps: 38 }).repays).toBe(false);
    const longer = judgeCompactionCost(input, { prices: "anthropic-claude", horizonSteps: 39 });
    expect([longer.repays, longer.horizonSteps, longer.reason]).toEqual([true, 39, "saves 600 per call over 39 calls = 23,400 >= break 21,250 + extra call 2,000"]);
  });

  it("GPT-4.1: repays exactly at the break-even horizon (>=), not one call before", () => {
    // without: 12,000 * 0.25 = 3,000; with: 8,000 * 1 = 8,000; break 5,000; saving 4,000 * 0.25 = 1,000
    const at = (nextTriggerTokens: number) =>
      judgeCompactionCost({ tokensBefore: 12_000, tokensAfter: 8_000, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 1_000, nextTriggerTokens }, { prices: "openai-gpt-4.1" });
    expect(at(13_000)).toEqual({ repays: true, breakCost: 5_000, savingPerStep: 1_000, horizonSteps: 5, reason: "saves 1,000 per call over 5 calls = 5,000 >= break 5,000" });
    expect(at(12_999)).toEqual({ repays: false, breakCost: 5_000, savingPerStep: 1_000, horizonSteps: 4, reason: "saves 1,000 per call over 4 calls = 4,000 < break 5,000" });
  });

  it("GPT-5: a break that repays only over a long horizon", () => {
    // without: 99,500 * 0.1 + 500 * 1 = 10,450; with: 90,000 * 1 = 90,000; break 79,550; saving 10,000 * 0.1 = 1,000
    const input = { tokensBefore: 100_000, tokensAfter: 90_000, keptPrefixTokens: 0, freshTokens: 500, growthPerStep: 1_000, nextTriggerTokens: 100_000 };
    const soon = judgeCompactionCost(input, { prices: "openai-gpt-5" });
    expect([soon.repays, soon.horizonSteps, soon.reason]).toEqual([false, 10, "saves 1,000 per call over 10 calls = 10,000 < break 79,550"]);
    const unbounded = judgeCompactionCost({ ...input, nextTriggerTokens: Number.POSITIVE_INFINITY }, { prices: "openai-gpt-5" });
    expect([unbounded.repays, unbounded.horizonSteps, unbounded.reason]).toEqual([true, 1000, "saves 1,000 per call over 1,000 calls = 1,000,000 >= break 79,550"]);
  });

  it("a compaction that saves nothing never repays a break, over any horizon", () => {
    // without: 40,000 * 0.1 = 4,000; with: 10,000 * 0.1 + 30,000 * 1.25 = 38,500; break 34,500; saving 0
    const verdict = judgeCompactionCost(
      { tokensBefore: 40_000, tokensAfter: 40_000, keptPrefixTokens: 10_000, freshTokens: 0, growthPerStep: 1, nextTriggerTokens: Number.POSITIVE_INFINITY },
      { prices: "anthropic-claude", horizonSteps: 1_000_000 },
    );
    expect(verdict.repays).toBe(false);
    expect(verdict.savingPerStep).toBe(0);
    expect(verdict.breakCost).toBeCloseTo(34_500, 9);
    expect(verdict.reason).toBe("saves 0 per call over 1,000,000 calls = 0 < break 34,500");
  });

  it("without a cache (c = w = 1) every shrink repays at once, even by one token", () => {
    const one = judgeCompactionCost(
      { tokensBefore: 50_000, tokensAfter: 49_999, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 1_000, nextTriggerTokens: 50_000 },
      { prices: noCache },
    );
    expect(one).toEqual({ repays: true, breakCost: -1, savingPerStep: 1, horizonSteps: 1, reason: "saves 1 per call over 1 call = 1 >= break -1" });
    // without: 48,000 + 2,000 = 50,000; with: 1,000 + 9,000 = 10,000; break -40,000; horizon floor(30,000 / 2,000) = 15
    const summarized = judgeCompactionCost(
      { tokensBefore: 50_000, tokensAfter: 10_000, keptPrefixTokens: 1_000, freshTokens: 2_000, growthPerStep: 2_000, nextTriggerTokens: 40_000, extraCallCost: 3_000 },
      { prices: noCache },
    );
    expect(summarized).toEqual({
      repays: true,
      breakCost: -40_000,
      savingPerStep: 40_000,
      horizonSteps: 15,
      reason: "saves 40,000 per call over 15 calls = 600,000 >= break -40,000 + extra call 3,000",
    });
  });

  it("takes rates in dollars per million tokens as their ratios", () => {
    const figures = { tokensBefore: 12_000, tokensAfter: 8_000, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 1_000, nextTriggerTokens: 13_000 };
    expect(judgeCompactionCost(figures, { prices: { input: 2, cacheWrite: 2, cachedInput: 0.5, output: 8 } })).toEqual(
      judgeCompactionCost(figures, { prices: "openai-gpt-4.1" }),
    );
  });

  describe("horizon", () => {
    const horizon = (figures: Partial<CompactionCostInput>, model: Partial<CostModel> = {}) =>
      judgeCompactionCost(
        { tokensBefore: 10_000, tokensAfter: 5_000, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 100, nextTriggerTokens: 8_000, ...figures },
        { prices: "openai-gpt-5", ...model },
      ).horizonSteps;

    it("counts the calls until the history regrows to the next trigger", () => {
      expect(horizon({})).toBe(30); // floor(3,000 / 100)
      expect(horizon({ growthPerStep: 700 })).toBe(4); // floor(3,000 / 700)
    });
    it("is at least 1, also when the compacted history is already at or over the next trigger", () => {
      expect(horizon({ nextTriggerTokens: 5_050 })).toBe(1);
      expect(horizon({ nextTriggerTokens: 4_000 })).toBe(1);
    });
    it(`is at most ${MAX_COST_HORIZON_STEPS}, which is also the horizon when no compaction comes`, () => {
      expect(MAX_COST_HORIZON_STEPS).toBe(1000);
      expect(horizon({ nextTriggerTokens: 10_000_000 })).toBe(1000);
      expect(horizon({ nextTriggerTokens: Number.POSITIVE_INFINITY })).toBe(1000);
    });
    it("counts growth below 1 token per step as 1", () => {
      expect(horizon({ growthPerStep: 0, nextTriggerTokens: 5_300 })).toBe(300);
      expect(horizon({ growthPerStep: 0.5, nextTriggerTokens: 5_300 })).toBe(300);
    });
    it("is horizonSteps when the model gives it, whatever the trigger", () => {
      expect(horizon({ nextTriggerTokens: Number.POSITIVE_INFINITY }, { horizonSteps: 7 })).toBe(7);
    });
  });

  it("counts fresh tokens at most the history, and the kept prefix at most the smaller history", () => {
    const rates = { input: 1, cacheWrite: 2, cachedInput: 0.5, output: 4 };
    const clamped = judgeCompactionCost(
      { tokensBefore: 1_000, tokensAfter: 600, keptPrefixTokens: 900, freshTokens: 5_000, growthPerStep: 100, nextTriggerTokens: 1_000 },
      { prices: rates },
    );
    const exact = judgeCompactionCost(
      { tokensBefore: 1_000, tokensAfter: 600, keptPrefixTokens: 600, freshTokens: 1_000, growthPerStep: 100, nextTriggerTokens: 1_000 },
      { prices: rates },
    );
    // without: 1,000 * 2 = 2,000; with: 600 * 0.5 = 300; break -1,700
    expect(clamped).toEqual(exact);
    expect(clamped.breakCost).toBe(-1_700);
  });

  it("does not change its arguments", () => {
    const input = Object.freeze({ tokensBefore: 9_000, tokensAfter: 3_000, keptPrefixTokens: 500, freshTokens: 200, growthPerStep: 300, nextTriggerTokens: 9_000 });
    const prices = Object.freeze({ input: 3, cacheWrite: 3.75, cachedInput: 0.3, output: 15 });
    const model = Object.freeze({ prices, horizonSteps: 4 });
    judgeCompactionCost(input, model);
    expect(input).toEqual({ tokensBefore: 9_000, tokensAfter: 3_000, keptPrefixTokens: 500, freshTokens: 200, growthPerStep: 300, nextTriggerTokens: 9_000 });
    expect(model).toEqual({ prices: { input: 3, cacheWrite: 3.75, cachedInput: 0.3, output: 15 }, horizonSteps: 4 });
  });

  describe("errors", () => {
    const figures: CompactionCostInput = { tokensBefore: 1_000, tokensAfter: 500, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 10, nextTriggerTokens: 900 };

    it.each([
      ["an unknown preset", { prices: "mistral-large" }, "prices", 'expected one of the price presets openai-gpt-5, openai-gpt-4.1, anthropic-claude, google-gemini-2.5; got the string "mistral-large"'],
      ["a zero horizon", { prices: "openai-gpt-5", horizonSteps: 0 }, "horizonSteps", "expected a number > 0; got 0"],
      ["a fractional horizon", { prices: "openai-gpt-5", horizonSteps: 2.5 }, "horizonSteps", "expected an integer; got 2.5"],
      ["another field", { prices: "openai-gpt-5", discount: 0.5 }, "discount", "expected one of the options prices, horizonSteps; got an unknown option"],
    ])("rejects a model with %s as an InvalidOptionError", async (_name, model, option, problem) => {
      const error = await caught(() => judgeCompactionCost(figures, model as unknown as CostModel));
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(`judgeCompactionCost: invalid option \`${option}\`: ${problem}`);
    });

    it.each([
      ["tokensBefore", -1, "a finite number >= 0, got -1"],
      ["tokensAfter", Number.NaN, "a finite number >= 0, got NaN"],
      ["keptPrefixTokens", Number.POSITIVE_INFINITY, "a finite number >= 0, got Infinity"],
      ["freshTokens", -5, "a finite number >= 0, got -5"],
      ["growthPerStep", Number.NaN, "a finite number >= 0, got NaN"],
      ["nextTriggerTokens", Number.NaN, "a number >= 0 or Infinity, got NaN"],
      ["extraCallCost", -2, "a finite number >= 0, got -2"],
    ])("rejects %s = %s as a CompactionError", async (field, value, problem) => {
      const error = await caught(() => judgeCompactionCost({ ...figures, [field]: value }, { prices: "openai-gpt-5" }));
      expect(CompactionError.isInstance(error)).toBe(true);
      expect(InvalidOptionError.isInstance(error)).toBe(false);
      expect((error as Error).message).toBe(`judgeCompactionCost: \`${field}\` must be ${problem}`);
    });
  });
});

describe("costModelSchema", () => {
  it("accepts a preset id or rates, with an optional positive integer horizon", () => {
    expect(costModelSchema.safeParse({ prices: "google-gemini-2.5", horizonSteps: 12 }).success).toBe(true);
    expect(costModelSchema.safeParse({ prices: { input: 1, cacheWrite: 1.25, cachedInput: 0.1, output: 5 } }).success).toBe(true);
  });
  it("rejects a missing price, an unknown id, a negative horizon and other fields", () => {
    expect(
      [{}, { prices: "gpt-5" }, { prices: "openai-gpt-5", horizonSteps: -1 }, { prices: "openai-gpt-5", cache: "1h" }].map(
        (model) => costModelSchema.safeParse(model).success,
      ),
    ).toEqual([false, false, false, false]);
  });
});

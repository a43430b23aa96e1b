/** The command line of `npm run eval`: windows, prices, `--system` and `--variant`. */
import { describe, expect, it } from "vitest";
import { UsageError, parseCli, parseVariant, selectSystems, variantSystem } from "../../bench/eval/cli.js";
import { ALL_SYSTEMS } from "../../bench/eval/systems.js";

const names = (specs: readonly { name: string }[]) => specs.map((spec) => spec.name);
const ALWAYS = ["no compaction", "ClearToolUsesEdit (view)", "ClearToolUsesEdit (createAgent)", "summarizationMiddleware"];

describe("windows", () => {
  it("defaults to 16k, 32k, 64k, 128k and 200k; --window picks, sorted and deduplicated", () => {
    expect([parseCli([]).windows, parseCli(["--window", "64000,16_000", "--window", "16000"]).windows]).toEqual([
      [16_000, 32_000, 64_000, 128_000, 200_000],
      [16_000, 64_000],
    ]);
  });
});

describe("prices", () => {
  it("defaults to the reference prices, the cache-write price following the input price", () => {
    expect([parseCli([]).prices, parseCli(["--price-input", "2", "--price-cached", "0.3"]).prices, parseCli(["--price-cache-write", "1.25"]).prices]).toEqual([
      { input: 1, cacheWrite: 1, cachedInput: 0.1, output: 4 },
      { input: 2, cacheWrite: 2, cachedInput: 0.3, output: 4 },
      { input: 1, cacheWrite: 1.25, cachedInput: 0.1, output: 4 },
    ]);
  });

  it("rejects a price that is not a non-negative number", () => {
    expect(() => parseCli(["--price-cache-write=-1"])).toThrow(new UsageError('--price-cache-write must be a non-negative number, got "-1"'));
  });
});

describe("--system", () => {
  it("runs every system without a filter", () => {
    expect(names(selectSystems(ALL_SYSTEMS, []))).toEqual(names(ALL_SYSTEMS));
  });

  it("keeps no compaction and the LangChain rows, and ours named exactly", () => {
    expect(names(selectSystems(ALL_SYSTEMS, ["autoCompaction"]))).toEqual([...ALWAYS, "autoCompaction"]);
  });

  it("takes a filter that names no system exactly as a substring, and several filters together", () => {
    expect(names(selectSystems(ALL_SYSTEMS, ["ThenSummary", "toolResultHiding"]))).toEqual([...ALWAYS, "toolResultHiding", "hidingThenSummary", "selectiveThenSummary"]);
  });

  it("rejects a filter that matches nothing", () => {
    expect(() => selectSystems(ALL_SYSTEMS, ["nope"])).toThrow(UsageError);
  });

  it("adds the variants after the systems chosen", () => {
    expect(names(selectSystems(ALL_SYSTEMS, ["autoCompaction"], [parseVariant('{"system":"toolResultHiding","keepRecentGroups":2}')]))).toEqual([
      ...ALWAYS,
      "autoCompaction",
      'toolResultHiding {"keepRecentGroups":2}',
    ]);
  });
});

describe("--variant", () => {
  it("makes an autoCompaction variant by default and a toolResultHiding one with \"system\", named <system> <options>", () => {
    const specs = [parseVariant('{"threshold":0.7}'), parseVariant('{"system":"toolResultHiding","keepRecentGroups":2}')].map(variantSystem);
    expect(specs.map((spec) => [spec.name, spec.kind])).toEqual([
      ['autoCompaction {"threshold":0.7}', "ours"],
      ['toolResultHiding {"keepRecentGroups":2}', "ours"],
    ]);
  });

  it("rejects another system and what is not a JSON object", () => {
    expect([() => parseVariant('{"system":"hardTruncate"}'), () => parseVariant("[1]")].map((parse) => {
      try {
        parse();
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    })).toEqual(['--variant "system" must be "autoCompaction" or "toolResultHiding", got "hardTruncate"', "--variant must be a JSON object of options, got [1]"]);
  });
});

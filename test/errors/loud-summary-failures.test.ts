// A summary model that cannot work fails loudly: at creation when a package is missing, with a
// console warning (once per cause) and the event's summaryError when a summary fails at run time.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MODEL_PROVIDER_CONFIG, _inferModelProvider } from "langchain/chat_models/universal";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MissingPackageError, autoCompaction, createTokenCounter, fullSummary, stateSnapshotSummary, type CompactionEvent } from "../../src/index.js";
import { autoCompactionMiddleware, summarizationMiddleware } from "../../src/middleware/index.js";
import { PROVIDER_PACKAGES, inferredProvider } from "../../src/summary/model-packages.js";
import { setPackageResolver } from "../../src/peers.js";
import { resetSummaryWarnings } from "../../src/strategies/summary-warnings.js";
import { step, system, user } from "../support/builders.js";
import { caught } from "../support/errors.js";

/** Node's own resolution, except for the packages named: what a project without them sees. */
function without(...missing: string[]): void {
  setPackageResolver((name) => {
    if (missing.includes(name)) return false;
    try {
      import.meta.resolve(name);
      return true;
    } catch {
      return false;
    }
  });
}

afterEach(() => setPackageResolver(undefined));

describe("a summary model named by a string whose package is missing", () => {
  const cases: [string, () => unknown, string[]][] = [
    ["autoCompaction, a bare OpenAI name", () => autoCompaction({ contextWindow: 128_000, summaryModel: "gpt-4o-mini" }), ["@langchain/openai"]],
    ["autoCompaction, an anthropic: name", () => autoCompaction({ contextWindow: 128_000, summaryModel: "anthropic:claude-sonnet-4-5" }), ["@langchain/anthropic"]],
    ["autoCompactionMiddleware", () => autoCompactionMiddleware({ contextWindow: 128_000, summaryModel: "openai:gpt-4o-mini" }), ["@langchain/openai"]],
    ["fullSummary", () => fullSummary({ model: "gpt-4o-mini" }), ["@langchain/openai"]],
    ["stateSnapshotSummary", () => stateSnapshotSummary({ model: "claude-sonnet-4-5" }), ["@langchain/anthropic"]],
    ["summarizationMiddleware", () => summarizationMiddleware({ model: "gpt-4o-mini", trigger: { tokens: 1000 } }), ["@langchain/openai"]],
  ];
  for (const [name, create, missing] of cases) {
    it(`${name}: throws MissingPackageError at creation, with the npm install line`, async () => {
      without(...missing);
      const error = await caught(create);
      expect(MissingPackageError.isInstance(error)).toBe(true);
      expect((error as MissingPackageError).packages).toEqual(missing);
      expect((error as Error).message).toContain(`npm install ${missing.join(" ")}`);
    });
  }

  it("names langchain too when a provider: name has neither", async () => {
    without("langchain", "@langchain/anthropic");
    const error = (await caught(() => autoCompaction({ contextWindow: 8000, summaryModel: "anthropic:claude-sonnet-4-5" }))) as MissingPackageError;
    expect(error.message).toBe(
      'autoCompaction: `summaryModel` "anthropic:claude-sonnet-4-5" needs langchain and @langchain/anthropic, which are not installed: npm install langchain @langchain/anthropic (or pass a chat model object)',
    );
  });

  it("creates the policy when the packages are there, and for a chat model object whatever is installed", () => {
    expect(() => autoCompaction({ contextWindow: 8000, summaryModel: "anthropic:claude-sonnet-4-5" })).not.toThrow();
    without("@langchain/openai", "langchain");
    expect(() => autoCompaction({ contextWindow: 8000, summaryModel: fakeModel() })).not.toThrow();
  });

  it("agrees with the installed langchain's providers and name inference", () => {
    expect(PROVIDER_PACKAGES).toEqual(Object.fromEntries(Object.entries(MODEL_PROVIDER_CONFIG).map(([provider, config]) => [provider, config.package])));
    for (const name of ["gpt-4o-mini", "o3-mini", "claude-sonnet-4-5", "command-r", "gemini-2.0", "amazon.nova", "mistral-large", "sonar-pro", "llama-3", "ft:gpt-4o-mini:org::x"]) {
      expect([name, inferredProvider(name)]).toEqual([name, _inferModelProvider(name)]);
    }
  });
});

describe("a summary that fails at run time", () => {
  const counter = createTokenCounter({ mode: "approximate" });
  const loop = (): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: 8 }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(100))).flat()];
  let warn: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    resetSummaryWarnings();
    warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it("warns once per cause, says it in the event, and its reason does not contradict itself", async () => {
    const input = loop();
    const window = Math.ceil((await counter.countMessages(input)) / 1.2);
    const model = fakeModel().respond(new Error("rate limited")).respond(new Error("rate limited")).respond(new Error("401 bad key"));
    const events: CompactionEvent[] = [];
    const policy = autoCompaction({ tokenCounter: counter, contextWindow: window, keepRecent: 4, summaryModel: model, hiding: false, prepare: false, onEvent: (event) => events.push(event) });
    const results = [await policy.compact(input), await policy.compact(input), await policy.compact(input)];
    expect(results.map((result) => [result.status, result.summaryError])).toEqual([
      ["truncated", "the summary call failed: rate limited"],
      ["truncated", "the summary call failed: rate limited"],
      ["truncated", "the summary call failed: 401 bad key"],
    ]);
    expect(results[0]!.reason).toBe(`summary failed: the summary call failed: rate limited; truncated to the hard limit ${window}`);
    expect(events.map((event) => [event.status, event.summaryError])).toEqual(results.map((result) => [result.status, result.summaryError]));
    expect(warn.mock.calls).toEqual([
      ["[langchain-compaction] autoCompaction: a summary could not be written: the summary call failed: rate limited. The oldest messages were cut instead. Printed once per cause; the warnings: false option silences it."],
      ["[langchain-compaction] autoCompaction: a summary could not be written: the summary call failed: 401 bad key. The oldest messages were cut instead. Printed once per cause; the warnings: false option silences it."],
    ]);
  });

  it("prints nothing with warnings: false, and still reports it", async () => {
    const model = fakeModel().respond(new Error("boom"));
    const result = await fullSummary({ model, tokenCounter: counter, warnings: false }).compact(loop());
    expect([result.status, result.summaryError, warn.mock.calls]).toEqual(["failed", "the summary call failed: boom", []]);
  });

  it("does not warn for a summary that was written", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>done</summary>"));
    const result = await fullSummary({ model, tokenCounter: counter }).compact(loop());
    expect([result.status, result.summaryError, warn.mock.calls]).toEqual(["summarized", undefined, []]);
  });
});

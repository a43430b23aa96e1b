import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRICES,
  RetentionTracker,
  artifactsSeen,
  cachedPrefixTokens,
  callsOverWindow,
  commonPrefixLength,
  costOf,
  retentionIn,
  shareOf,
  toolPairingValid,
  type TrackedArtifacts,
} from "../../bench/eval/metrics.js";
import { PRICE_PRESETS } from "../../src/cost/prices.js";
import { EMPTY_TOTALS, totalsOf, type StepRecord, type TraceReplay } from "../../bench/eval/replay.js";
import { NO_RECOVERY } from "../../bench/eval/rereads.js";
import { NO_RECALL, RECALL_SCHEMA_TOKENS } from "../../bench/eval/recall.js";
import { EMPTY_RECALL } from "../../bench/eval/totals.js";
import { NEVER_COMPACTED, kindRetention, retentionBySourceTable, rowOf, traceSourceOf, windowTable } from "../../bench/eval/report-tables.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

describe("commonPrefixLength", () => {
  it("counts the leading messages the two calls share", () => {
    const [s, u, a] = [system("s"), user("u"), assistant("a", "thinking")];
    expect(commonPrefixLength([s, u, a], [s, u, user("u2"), a])).toBe(2);
  });

  it("takes a copy with another id but the same content for the same message (providers never see ids)", () => {
    expect(commonPrefixLength([system("s", "rules"), user("u", "fix it")], [system("s-copy", "rules"), user("u-copy", "fix it"), user("new")])).toBe(2);
  });

  it("breaks at a tool result whose content changed, as a cleared result does", () => {
    const call = assistant("a1", "", [{ id: "c1" }]);
    const before = [user("u"), call, toolResult("t1", "c1", "long output"), user("u2")];
    const after = [user("u"), call, toolResult("t1", "c1", "[cleared]"), user("u2")];
    expect(commonPrefixLength(before, after)).toBe(2);
  });

  it("is 0 for the first call", () => {
    expect(commonPrefixLength([], [user("u")])).toBe(0);
  });
});

describe("cachedPrefixTokens", () => {
  it("sums the token counts of the shared leading messages", () => {
    expect(cachedPrefixTokens([10, 20, 30, 40], 3)).toBe(60);
  });

  it("is 0 without a shared prefix", () => {
    expect(cachedPrefixTokens([10, 20], 0)).toBe(0);
  });
});

describe("costOf", () => {
  it("prices uncached input, cached input and output apart", () => {
    expect(costOf({ input: 1000, cached: 600, output: 50 }, DEFAULT_PRICES)).toBe(400 + 60 + 200);
  });

  it("uses the prices given", () => {
    expect(costOf({ input: 100, cached: 100, output: 10 }, { input: 3, cacheWrite: 3, cachedInput: 0.5, output: 15 })).toBe(50 + 150);
  });

  it("bills uncached input at the cache-write price, not the list input price", () => {
    // Anthropic's rates: 400 uncached × 1.25 + 600 cached × 0.1 + 50 output × 5.
    expect(costOf({ input: 1000, cached: 600, output: 50 }, PRICE_PRESETS["anthropic-claude"])).toBe(500 + 60 + 250);
  });
});

describe("callsOverWindow", () => {
  it("counts the calls with more tokens than the window, not the ones that fill it exactly", () => {
    expect(callsOverWindow([900, 1000, 1001, 5000], 1000)).toBe(2);
  });
});

describe("shareOf", () => {
  it("divides, and has no share of nothing", () => {
    expect([shareOf(3, 4), shareOf(0, 0)]).toEqual([0.75, undefined]);
  });
});

describe("artifact retention", () => {
  const stream = [
    user("u", "Fix the crash in src/app.py"),
    assistant("a1", "", [{ id: "c1", name: "get_reservation", args: { reservation_id: "ZFA04Y" } }]),
    toolResult("t1", "c1", "ok", "get_reservation"),
    assistant("a2", "", [{ id: "c2", args: { command: "python src/app.py && cat README.md" } }]),
    toolResult("t2", "c2", "Traceback (most recent call last):\nValueError: bad input"),
  ];

  it("tracks the files, identifiers and error lines of the original stream", () => {
    expect(artifactsSeen(stream)).toEqual({
      files: ["src/app.py", "README.md"],
      identifiers: ["ZFA04Y"],
      errors: ["Traceback (most recent call last):", "ValueError: bad input"],
    });
  });

  it("finds them as substrings of the context, summaries and tool-call arguments included", () => {
    const tracked: TrackedArtifacts = artifactsSeen(stream);
    const context = [new HumanMessage("Summary: edited src/app.py; saw ValueError: bad input"), stream[3]!, new ToolMessage({ content: "[cleared]", tool_call_id: "c2" })];
    expect(retentionIn(tracked, context)).toEqual({
      present: 3,
      total: 5,
      byKind: { files: { present: 2, total: 2 }, identifiers: { present: 0, total: 1 }, errors: { present: 1, total: 2 } },
    });
  });

  it("gives the same answer incrementally, without searching a kept message twice", () => {
    const tracker = new RetentionTracker();
    tracker.register(artifactsSeen(stream.slice(0, 3)));
    const early = tracker.measure(stream.slice(0, 3));
    tracker.register(artifactsSeen(stream));
    const context = [stream[0]!, new HumanMessage("reservation ZFA04Y")];
    expect([early, tracker.measure(context)]).toEqual([retentionIn(artifactsSeen(stream.slice(0, 3)), stream.slice(0, 3)), retentionIn(artifactsSeen(stream), context)]);
  });
});

describe("toolPairingValid", () => {
  it("accepts answered calls and rejects a result without its call", () => {
    const call = assistant("a1", "", [{ id: "c1" }]);
    expect([toolPairingValid([user("u"), call, toolResult("t1", "c1")]), toolPairingValid([user("u"), toolResult("t1", "c1")])]).toEqual([true, false]);
  });
});

/** A step with the given figures and nothing else of note. */
function stepOf(overrides: Partial<StepRecord>): StepRecord {
  return {
    position: 0,
    inputTokens: 0,
    messages: 1,
    cachedTokens: 0,
    summaryCachedTokens: 0,
    anthropicCachedTokens: 0,
    anchoredCachedTokens: 0,
    compacted: false,
    compactionMs: 0,
    retention: { present: 1, total: 1, byKind: { files: { present: 1, total: 1 }, identifiers: { present: 0, total: 0 }, errors: { present: 0, total: 0 } } },
    grounding: { grounded: 3, reused: 3 },
    recovery: NO_RECOVERY,
    recall: NO_RECALL,
    cachedPrefix: { prefix: false, anthropic: false, anchored: false },
    referenced: { all: 0, cached: 0 },
    pairingValid: true,
    summaryCalls: [],
    ...overrides,
  };
}

describe("totals and rows of a replay", () => {
  const replay: TraceReplay = {
    trace: "t",
    system: "s",
    window: 1000,
    agentOutputTokens: 30,
    steps: [
      stepOf({ inputTokens: 400, cachedTokens: 0 }),
      stepOf({ inputTokens: 1200, cachedTokens: 390, anthropicCachedTokens: 200, pairingValid: false }),
      stepOf({
        inputTokens: 300,
        cachedTokens: 0,
        compacted: true,
        compactionMs: 5,
        summaryCalls: [{ inputTokens: 1100, outputTokens: 20, messages: [], perMessage: [1100] }],
        retention: { present: 1, total: 2, byKind: { files: { present: 1, total: 2 }, identifiers: { present: 0, total: 0 }, errors: { present: 0, total: 0 } } },
        grounding: { grounded: 1, reused: 4 },
        // Of the 3 missing words: 2 from one tool result (re-read once, 200 tokens), 1 the user's.
        recovery: { rereads: 1, cachedTokens: 300, uncachedTokens: 250, outputTokens: 50, rereadWords: 2, lostOwnWords: 0, lostUserWords: 1 },
      }),
    ],
  };

  it("sums the calls, the summary calls and the peaks", () => {
    expect(totalsOf(replay)).toEqual({
      ...EMPTY_TOTALS,
      traces: 1,
      modelCalls: 3,
      modelInputTokens: 1900,
      summaryCalls: 1,
      summaryInputTokens: 1100,
      summaryOutputTokens: 20,
      agentOutputTokens: 30,
      cachedTokens: 390,
      anthropicCachedTokens: 200,
      peakInputTokens: 1200,
      peakSummaryInputTokens: 1100,
      callsOverWindow: 1,
      summaryCallsOverWindow: 1,
      compactions: 1,
      compactionMs: 5,
      retentionShareSum: 2.5,
      retentionSteps: 3,
      // Only the third step comes at or after the first compaction.
      retentionByKind: { files: { present: 3, total: 4, afterCompaction: 2 }, identifiers: { present: 0, total: 0, afterCompaction: 0 }, errors: { present: 0, total: 0, afterCompaction: 0 } },
      // Pooled over steps: 3 + 3 + 1 of 3 + 3 + 4.
      groundedWords: 7,
      reusedWords: 10,
      rereads: 1,
      rereadCachedTokens: 300,
      rereadUncachedTokens: 250,
      rereadOutputTokens: 50,
      rereadWords: 2,
      lostOwnWords: 0,
      lostUserWords: 1,
      pairingValidSteps: 2,
      // With recall on, the schema in every call: 1,260 tokens at the peak, one call over the window.
      recall: { ...EMPTY_RECALL, modelCallsOverWindow: 1, peakInputTokens: 1200 + RECALL_SCHEMA_TOKENS },
    });
  });

  it("adds the summary calls to input and output, and prices the whole", () => {
    const row = rowOf("s", "ours", totalsOf(replay), DEFAULT_PRICES);
    expect({
      input: row.inputTokens,
      tokensPerTask: row.tokensPerTask,
      output: row.outputTokens,
      cost: row.cost,
      costWithRereads: row.costWithRereads,
      cachedShare: row.cachedShare,
      retention: row.retention,
      grounding: row.grounding,
      pairingShare: row.pairingShare,
    }).toEqual({
      input: 3000,
      // Model-call input 1900 + summary input 1100 + summary output 20, over one trace.
      tokensPerTask: 3020,
      output: 50,
      cost: 2610 + 39 + 200,
      // The re-read: 300 cached × 0.1 + 250 uncached × 1 + 50 output × 4.
      costWithRereads: 2610 + 39 + 200 + 30 + 250 + 200,
      cachedShare: 0.13,
      retention: 2.5 / 3,
      grounding: 0.7,
      pairingShare: 2 / 3,
    });
  });

  it("counts the summary calls' cached prefix in the cached tokens and apart, and prices it as cached", () => {
    const cachedSummary: TraceReplay = {
      ...replay,
      steps: replay.steps.map((step, index) => (index === 2 ? { ...step, cachedTokens: 600, summaryCachedTokens: 600 } : step)),
    };
    const totals = totalsOf(cachedSummary);
    const row = rowOf("s", "ours", totals, DEFAULT_PRICES);
    // Summary calls: 500 uncached + 600 × 0.1 + 20 × 4; the whole: 2,010 uncached + 990 × 0.1 + 50 × 4.
    expect({ cached: totals.cachedTokens, summaryCached: totals.summaryCachedTokens, summaryCost: row.summaryCost, cost: row.cost }).toEqual({
      cached: 990,
      summaryCached: 600,
      summaryCost: 500 + 60 + 80,
      cost: 2010 + 99 + 200,
    });
  });
});

describe("retention per kind and per trace source", () => {
  const totals = (kinds: Partial<typeof EMPTY_TOTALS.retentionByKind>, compactions: number) => ({
    ...EMPTY_TOTALS,
    traces: 1,
    modelCalls: 2,
    compactions,
    retentionSteps: 2,
    retentionShareSum: 1.5,
    retentionByKind: { ...EMPTY_TOTALS.retentionByKind, ...kinds },
  });

  it("reads a kind no call after a compaction tracked as never compacted, not as 1.00", () => {
    const kinds = { files: { present: 3, total: 4, afterCompaction: 2 }, identifiers: { present: 5, total: 5, afterCompaction: 0 } };
    expect([kindRetention(totals(kinds, 1), "files"), kindRetention(totals(kinds, 1), "identifiers")]).toEqual(["0.75", NEVER_COMPACTED]);
  });

  it("takes the trace source from the session id's prefix", () => {
    expect([traceSourceOf("mini-swe-agent/django__django-16560"), traceSourceOf("tau-bench-airline/task2-trial1"), traceSourceOf("plain")]).toEqual([
      "mini-swe-agent",
      "tau-bench-airline",
      "plain",
    ]);
  });

  it("gives the cost with re-reads, the re-reads and the lost words their columns after the cost vs none", () => {
    const row = rowOf("s", "ours", { ...totals({}, 0), modelInputTokens: 1000, rereads: 2, rereadCachedTokens: 2000, rereadUncachedTokens: 300, rereadOutputTokens: 100, lostOwnWords: 3, lostUserWords: 1 }, DEFAULT_PRICES);
    const [header, , line] = windowTable([row]).split("\n").map((text) => text.split("|").slice(1, -1).map((cell) => cell.trim()));
    const at = header!.indexOf("cost vs none");
    // 1000 uncached + the re-reads: 2000 cached × 0.1 + 300 + 100 output × 4.
    expect([header!.slice(at + 1, at + 4), line!.slice(at + 1, at + 4)]).toEqual([
      ["cost with re-reads", "re-reads", "lost words (own / user)"],
      ["0.002 M", "2", "3 / 1"],
    ]);
  });

  it("gives reply grounding its own column in the headline table, after retention per kind", () => {
    const row = rowOf("s", "ours", { ...totals({ files: { present: 3, total: 4, afterCompaction: 2 } }, 1), groundedWords: 9, reusedWords: 12 }, DEFAULT_PRICES);
    const [header, align, line] = windowTable([row]).split("\n").map((text) => text.split("|").slice(1, -1).map((cell) => cell.trim()));
    const at = header!.indexOf("reply grounding");
    expect([at, header![at - 1], align![at], line![at], line!.length]).toEqual([18, "retention files / ids / errors", "---:", "0.750", 20]);
  });

  it("tabulates retention and grounding per source, never compacted where a system did not compact that source", () => {
    const compacted = { ...totals({ files: { present: 3, total: 4, afterCompaction: 2 } }, 1), groundedWords: 9, reusedWords: 12 };
    const untouched = { ...totals({ identifiers: { present: 5, total: 5, afterCompaction: 0 } }, 0), groundedWords: 7, reusedWords: 7 };
    const table = retentionBySourceTable([
      { source: "a", rows: [rowOf("s", "ours", compacted, DEFAULT_PRICES)] },
      { source: "b", rows: [rowOf("s", "ours", untouched, DEFAULT_PRICES)] },
    ]);
    expect(table.split("\n")).toEqual([
      "| system | a: compactions | a: retention | a: files / ids / errors | a: grounding | b: compactions | b: retention | b: files / ids / errors | b: grounding |",
      "| :--- | ---: | ---: | :--- | ---: | ---: | ---: | :--- | ---: |",
      `| s | 1 | 0.750 | 0.75 / — / — | 0.750 | 0 | ${NEVER_COMPACTED} | ${NEVER_COMPACTED} | 1.000 |`,
    ]);
  });
});

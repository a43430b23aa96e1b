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
import { EMPTY_TOTALS, totalsOf, type StepRecord, type TraceReplay } from "../../bench/eval/replay.js";
import { CACHE_TIE_MARGIN, NEVER_COMPACTED, goalsFor, kindRetention, retentionBySourceTable, rowOf, traceSourceOf } from "../../bench/eval/report.js";
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
    expect(costOf({ input: 100, cached: 100, output: 10 }, { input: 3, cached: 0.5, output: 15 })).toBe(50 + 150);
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
    compacted: false,
    compactionMs: 0,
    retention: { present: 1, total: 1, byKind: { files: { present: 1, total: 1 }, identifiers: { present: 0, total: 0 }, errors: { present: 0, total: 0 } } },
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
      stepOf({ inputTokens: 1200, cachedTokens: 390, pairingValid: false }),
      stepOf({
        inputTokens: 300,
        cachedTokens: 0,
        compacted: true,
        compactionMs: 5,
        summaryCalls: [{ inputTokens: 1100, outputTokens: 20 }],
        retention: { present: 1, total: 2, byKind: { files: { present: 1, total: 2 }, identifiers: { present: 0, total: 0 }, errors: { present: 0, total: 0 } } },
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
      pairingValidSteps: 2,
    });
  });

  it("adds the summary calls to input and output, and prices the whole", () => {
    const row = rowOf("s", "ours", totalsOf(replay), DEFAULT_PRICES);
    expect({ input: row.inputTokens, tokensPerTask: row.tokensPerTask, output: row.outputTokens, cost: row.cost, cachedShare: row.cachedShare, retention: row.retention, pairingShare: row.pairingShare }).toEqual({
      input: 3000,
      // Model-call input 1900 + summary input 1100 + summary output 20, over one trace.
      tokensPerTask: 3020,
      output: 50,
      cost: 2610 + 39 + 200,
      cachedShare: 0.13,
      retention: 2.5 / 3,
      pairingShare: 2 / 3,
    });
  });
});

describe("goalsFor", () => {
  const row = (system: string, kind: "baseline" | "peer" | "ours", totals: Partial<typeof EMPTY_TOTALS>) =>
    rowOf(system, kind, { ...EMPTY_TOTALS, modelCalls: 1, pairingValidSteps: 1, retentionSteps: 1, retentionShareSum: 1, ...totals }, DEFAULT_PRICES);

  it("checks the four goals against the peer rows", () => {
    const rows = [
      row("none", "baseline", { modelInputTokens: 1000, cachedTokens: 900 }),
      row("editing", "peer", { modelInputTokens: 800, cachedTokens: 600 }),
      row("ours", "ours", { modelInputTokens: 500, cachedTokens: 450, callsOverWindow: 1, retentionShareSum: 0.8 }),
    ];
    expect(goalsFor(rows[2]!, rows, ["editing"], DEFAULT_PRICES).map(({ goal, met }) => [goal, met])).toEqual([
      ["no call over the window", false],
      ["lower cost than every peer row", true],
      ["higher cached-prefix share than LangChain's context editing", true],
      ["artifact retention >= 0.9", false],
    ]);
  });

  it("splits the cost into model and summary calls, and gives the uncached input beside the share", () => {
    const rows = [
      row("editing", "peer", { modelInputTokens: 8_000_000, cachedTokens: 7_000_000 }),
      row("ours", "ours", { modelInputTokens: 5_000_000, cachedTokens: 4_000_000, summaryInputTokens: 1_000_000, summaryOutputTokens: 100_000 }),
    ];
    expect(goalsFor(rows[1]!, rows, ["editing"], DEFAULT_PRICES).map(({ short, detail }) => [short, detail])).toEqual([
      ["window", "0 model calls and 0 summary calls over (peak input 0)"],
      // ours: 2 M uncached + 0.4 M cached + 0.4 M output = 2.8 M, of which summary calls 1 M + 0.4 M; editing: 1 M + 0.7 M.
      ["cost", "2.800 M vs cheapest peer editing 1.700 M (1.65×); model calls 1.400 M vs 1.700 M, summary calls 1.400 M vs 0.000 M"],
      ["cache", "0.667 vs editing 0.875; uncached input tokens 2,000,000 vs 1,000,000, input tokens 6,000,000 vs 8,000,000"],
      ["retention", "1.000"],
    ]);
  });

  /** A summarizing peer, two context-editing rows (view, persisted) and ours missing every goal. */
  const missing = () => {
    const rows = [
      row("summarizationMiddleware", "peer", { modelInputTokens: 1_000_000, cachedTokens: 900_000, summaryCalls: 2, summaryInputTokens: 8_000, summaryOutputTokens: 1_000, compactions: 2 }),
      row("view", "peer", { modelInputTokens: 1_000_000, cachedTokens: 800_000, compactions: 9 }),
      row("persisted", "peer", { modelInputTokens: 2_000_000, cachedTokens: 1_900_000, compactions: 5 }),
      row("ours", "ours", {
        modelCalls: 10,
        modelInputTokens: 900_000,
        cachedTokens: 800_000,
        summaryCalls: 2,
        summaryInputTokens: 40_000,
        summaryOutputTokens: 2_000,
        compactions: 2,
        callsOverWindow: 3,
        peakInputTokens: 5_000,
        summaryCallsOverWindow: 1,
        peakSummaryInputTokens: 40_000,
        retentionShareSum: 0.8,
        retentionByKind: {
          files: { present: 9, total: 10, afterCompaction: 10 },
          identifiers: { present: 0, total: 0, afterCompaction: 0 },
          errors: { present: 2, total: 5, afterCompaction: 5 },
        },
      }),
    ];
    return goalsFor(rows[3]!, rows, ["view", "persisted"], DEFAULT_PRICES);
  };

  it("explains each missed goal in one computed sentence", () => {
    // Costs: peer 100,000 + 90,000 + 4,000 (summary output) + 8,000 (summary input) = 202,000;
    // ours 100,000 + 80,000 + 8,000 + 40,000 = 228,000. The cached share is compared with the higher
    // editing row (persisted, 0.95), whose uncached input is 100,000 against ours 140,000.
    expect(missing().map(({ short, why }) => [short, why])).toEqual([
      ["window", "what ours leaves after compacting is still over the window at 3 of 10 model calls (largest 5,000 tokens), and so is the prompt of 1 of its 2 summary calls (largest 40,000)."],
      [
        "cost",
        "ours costs 0.026 M more than summarizationMiddleware: summary calls +0.036 M (ours 2 calls of 20,000 prompt tokens on average, the peer's 2 of 4,000: " +
          "the peer sends only the newest 4,000 tokens of the part it summarizes (trimTokensToSummarize)), model calls −0.010 M (ours 100,000 uncached + 800,000 cached input tokens, the peer's 100,000 + 900,000).",
      ],
      ["cache", "ours sends 40,000 more uncached tokens than persisted: +40,000 in summary prompts (never cached) and +0 in model calls, whose cached prefix breaks at each of its 2 compactions (the peer's: 5)."],
      ["retention", `of the artifact kinds, ours keeps errors least: 0.40 pooled over its calls (files 0.90, identifiers ${NEVER_COMPACTED}).`],
    ]);
  });

  it("compares the cached share with the higher of the context-editing rows", () => {
    expect(missing()[2]!.detail).toBe("0.851 vs persisted 0.950; uncached input tokens 140,000 vs 100,000, input tokens 940,000 vs 2,000,000");
  });

  it("explains a lower share with fewer uncached tokens by the smaller total", () => {
    const rows = [row("editing", "peer", { modelInputTokens: 1_000_000, cachedTokens: 950_000 }), row("ours", "ours", { modelInputTokens: 400_000, cachedTokens: 360_000 })];
    expect(goalsFor(rows[1]!, rows, ["editing"], DEFAULT_PRICES)[2]!.why).toBe(
      "ours sends 10,000 fewer uncached tokens than editing; its share is lower because it sends 600,000 fewer tokens in all (the share divides by every input token).",
    );
  });

  it(`calls a cached share within ${CACHE_TIE_MARGIN} of the context-editing row a tie, above or below it, and not met`, () => {
    const editing = row("editing", "peer", { modelInputTokens: 1000, cachedTokens: 950 });
    const verdict = (cached: number) => {
      const ours = row("ours", "ours", { modelInputTokens: 1000, cachedTokens: cached });
      const { met, tie } = goalsFor(ours, [editing, ours], ["editing"], DEFAULT_PRICES)[2]!;
      return { met, tie };
    };
    expect([verdict(954), verdict(946), verdict(955), verdict(944)]).toEqual([
      { met: false, tie: true },
      { met: false, tie: true },
      { met: true, tie: false },
      { met: false, tie: false },
    ]);
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

  it("tabulates retention per source, never compacted where a system did not compact that source", () => {
    const compacted = totals({ files: { present: 3, total: 4, afterCompaction: 2 } }, 1);
    const untouched = totals({ identifiers: { present: 5, total: 5, afterCompaction: 0 } }, 0);
    const table = retentionBySourceTable([
      { source: "a", rows: [rowOf("s", "ours", compacted, DEFAULT_PRICES)] },
      { source: "b", rows: [rowOf("s", "ours", untouched, DEFAULT_PRICES)] },
    ]);
    expect(table.split("\n")).toEqual([
      "| system | a: compactions | a: retention | a: files / ids / errors | b: compactions | b: retention | b: files / ids / errors |",
      "| :--- | ---: | ---: | :--- | ---: | ---: | :--- |",
      `| s | 1 | 0.750 | 0.75 / — / — | 0 | ${NEVER_COMPACTED} | ${NEVER_COMPACTED} |`,
    ]);
  });
});

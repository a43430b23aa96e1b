/** The inspector's plain sentences for a compaction record's reason and for what it did. */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { CompactionRecord } from "../../src/compaction-record.js";
import { autoCompaction, toolResultHiding } from "../../src/index.js";
import { compactionDid, plainReason } from "../../src/inspector/plain-reason.js";

/** Option names (`clearAtLeast`, `keepTurns`), status words and terse separators a reader should not meet. */
const JARGON = /\b[a-z]+[A-Z][A-Za-z]*\b|\bnoop\b|\(s\)|[<>]=?\s*break\b/u;

describe("plainReason", () => {
  it.each([
    [
      "hiding noop: hiding would free at most 1057 tokens, less than clearAtLeast (2000); summarized instead",
      "Not enough to hide yet: hiding older tool results would free at most 1,057 tokens, and it needs 2,000. So the older messages were summarized instead.",
    ],
    [
      "hiding left 2437 tokens, above the target 2400; summarized instead",
      "Hiding older tool results would have left 2,437 tokens, more than its target of 2,400: a hiding stands on its own only under its target (by default 0.6 of the size that started the compaction), so that the next compaction comes calls later. So the older messages were summarized instead.",
    ],
    [
      "hiding noop: no tool result older than the kept groups is left to hide; summary failed: Error: model down; the history is unchanged; under the hard limit 12000, nothing else done",
      "Hiding older tool results changed nothing: no tool result older than the recent ones it keeps was left to hide. The summary failed: Error: model down. The history is unchanged. The history is under the hard limit of 12,000 tokens, so nothing else was done.",
    ],
    [
      "hiding was a no-op (hiding would free 12 tokens, less than clearAtLeast (200)); fullSummary failed: Error: boom; the history is unchanged",
      "Hiding older tool results changed nothing. Not enough to hide yet: hiding older tool results would free 12 tokens, and it needs 200. The summary failed: Error: boom. The history is unchanged.",
    ],
    [
      "hiding skipped by the cost model: saves 8,000 per call over 30 calls = 240,000 < break 11,550",
      "Hiding was not worth it yet: it would save 8,000 per call over 30 calls (240,000 in all), less than the 11,550 it costs to rewrite the cached prompt.",
    ],
    [
      "summary noop: nothing older than the 1 message(s) to keep; truncated to the hard limit 12000",
      "The summary changed nothing: nothing is older than the 1 message it keeps. So the oldest messages were cut to fit the hard limit of 12,000 tokens.",
    ],
    ["3 user turn(s), within keepTurns 4", "Only 3 user turns, no more than the 4 it keeps."],
    ["Error: model down", "Error: model down."],
  ])("%j reads as plain sentences", (reason, plain) => {
    expect(plainReason(reason)).toBe(plain);
    expect(plain).not.toMatch(JARGON);
  });

  it("translates the reasons real strategies give, leaving no option names", async () => {
    const messages = [
      new HumanMessage({ id: "h1", content: "Read it" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: "line of output\n".repeat(100) }),
      new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "c2", name: "read", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "t2", tool_call_id: "c2", content: "short" }),
    ];
    const tooLittle = await toolResultHiding({ keepRecentGroups: 1, clearAtLeast: 5_000, trigger: { tokens: 1 } }).compact(messages);
    expect(tooLittle.reason).toMatch(/less than clearAtLeast \(5000\)$/u);
    expect(plainReason(tooLittle.reason!)).toMatch(/^Not enough to hide yet: hiding older tool results would free \d+ tokens, and it needs 5,000\.$/u);
    const disabled = await autoCompaction({ contextWindow: 10_000, enabled: false }).compact(messages);
    expect(plainReason(disabled.reason!)).toBe("Automatic compaction is disabled.");
  });
});

describe("compactionDid", () => {
  const base: CompactionRecord = {
    id: "c1",
    at: "2025-01-01T12:00:00.000Z",
    strategy: "autoCompaction",
    status: "summarized",
    tokensBefore: 100,
    tokensAfter: 50,
    messagesBefore: 6,
    messagesAfter: 3,
    removedIds: ["a1", "t1"],
    replacedIds: ["h1"],
    insertedIds: [],
    summaryId: "h1",
    archive: "state",
  };

  it.each([
    [{}, "Summarized 3 older messages into one."],
    [{ status: "compacted", removedIds: [], replacedIds: ["t1"], summaryId: null }, "Replaced 1 message in place with shorter copies."],
    [{ status: "truncated", summaryId: null }, "Cut 3 of the oldest messages to fit."],
    [{ status: "failed", removedIds: [], replacedIds: [], summaryId: null }, "Failed: the messages were left as they were."],
  ] as const)("%j: %s", (overrides, sentence) => {
    expect(compactionDid({ ...base, ...overrides } as CompactionRecord)).toBe(sentence);
  });

  it("names what a rewrite in place hid and shortened, given the types of the originals it archived", () => {
    const hiding = { ...base, status: "compacted", removedIds: [], replacedIds: ["t1", "a2", "t2"], summaryId: null } as CompactionRecord;
    expect(compactionDid(hiding, ["tool", "ai", "tool"])).toBe("Hid 2 older tool results and shortened 1 older assistant message in place.");
    expect(compactionDid({ ...hiding, replacedIds: ["t1"] }, ["tool"])).toBe("Hid 1 older tool result in place.");
    expect(compactionDid({ ...hiding, replacedIds: ["h1"] }, ["human"])).toBe("Replaced 1 message in place with shorter copies.");
  });
});

/** renderInspectionText: the terminal summary, with the thread's untrusted text made inert. */
import { describe, expect, it } from "vitest";
import type { Inspection } from "../../src/inspector/inspection.js";
import { renderInspectionText } from "../../src/inspector/render-text.js";
import { failedRecord } from "./support/failed-record.js";

const record = failedRecord({
  id: "c1",
  at: "2025-01-01T12:00:00.000Z",
  // An escape sequence that would turn the terminal red, and one that would set its title.
  strategy: "mine\u001b[31m",
  messages: 2,
  reason: "boom\u001b]0;owned\u0007",
  durationMs: 1.5,
  lastMessageId: "a1",
});

const inspection: Inspection = {
  threadId: "t1\u009b2J",
  generatedAt: "2025-01-02T00:00:00.000Z",
  totals: {
    originalMessages: 2,
    originalTokens: 1_234,
    contextMessages: 2,
    contextTokens: 1_234,
    modelCalls: 1,
    peakContextTokens: 1_200,
    peakCallStep: 1,
    compactions: 1,
    failedCompactions: 1,
    summaries: 0,
    hiddenResults: 0,
    archivedMessages: 0,
    tokensSaved: 0,
    compactionMs: 1.5,
  },
  timeline: [],
  compactions: [{ number: 1, record, summary: null, archivedMessages: 0, originals: [], step: 1 }],
  chart: [],
  // A newline would forge a line of its own.
  warnings: ["archive of x\n- no warnings"],
};

describe("renderInspectionText", () => {
  it("prints the totals, the compaction and the warnings, control characters (terminal escapes, newlines) as U+FFFD", () => {
    expect(renderInspectionText(inspection).split("\n")).toEqual([
      "Thread t1\uFFFD2J",
      "History: 2 messages stored, 1,234 tokens; context now: 2 messages, 1,234 tokens",
      "Model calls: 1; peak context: 1,200 tokens sent in one model call",
      "Compactions: 1 (1 failed), 0 summaries, 0 hidden tool results, 0 messages archived, 0 tokens saved in 1.5 ms",
      "#1  2025-01-01T12:00:00.000Z  mine\uFFFD[31m  failed  tokens ? → ?  messages 2 → 2  | boom\uFFFD]0;owned\uFFFD",
      "Warnings:",
      "- archive of x\uFFFD- no warnings",
      "",
    ]);
  });
});

/**
 * The artifact index finds error lines with one scan of a text: the same lines, in the same order,
 * as testing every line on its own (the rule it documents), on generated texts built from the
 * fragments the rule is sensitive to, and on every tool result and user message of the recorded
 * sessions.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { extractArtifacts } from "../../src/extend/index.js";

const ERROR_LINE =
  /\b[A-Z]\w*(?:Error|Exception)\b|^Traceback \(most recent call last\)|\b(?:error|fatal|panic)\s*:|\bFAIL(?:ED|URE)?\b|\bfailed\b|No such file or directory|command not found|^E\s{2,}/;
const DIFF_LINE = /^[+-](?![+-])/;

/** The rule, line by line: each `\n`-separated line, trimmed, not a diff line, matching ERROR_LINE; the newest 30, each once (at its last place). */
function expectedErrors(text: string): string[] {
  const lines = new Map<string, true>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed !== "" && !DIFF_LINE.test(trimmed) && ERROR_LINE.test(trimmed)) {
      const kept = trimmed.length > 200 ? trimmed.slice(0, 200) : trimmed;
      lines.delete(kept);
      lines.set(kept, true);
    }
  }
  return [...lines.keys()].slice(-30);
}

const FRAGMENTS = [
  "\n", "\n", "\n", " ", "  ", "\t", "\r", "\u2028", "ok", "x", "-", "+", "--", "E", "E  ", "E\t\t", " E  y", "Traceback (most recent call last)",
  "  Traceback (most recent call last):", "error", "error:", "error \n:", "fatal :", "panic:", "FAIL", "FAILED", "FAILURE", "FAILS", "failed",
  "ValueError", "Error", "new Error(", "raise KeyErrorX", "IOException", "No such file or directory", "command not found", "_error:", "+ ValueError",
  "- failed", "-- failed", "é", "😀",
];

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function errorsOf(message: BaseMessage): readonly string[] {
  return extractArtifacts([message]).errors;
}

describe("error lines of a text", () => {
  it("are the lines the line-by-line rule finds, on 3,000 generated texts", () => {
    const random = seeded(7);
    let withErrors = 0;
    for (let sample = 0; sample < 3_000; sample++) {
      const parts: string[] = [];
      const length = 1 + Math.floor(random() * 40);
      for (let part = 0; part < length; part++) parts.push(FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!);
      const text = parts.join("");
      const expected = expectedErrors(text);
      if (expected.length > 0) withErrors++;
      expect(errorsOf(new HumanMessage(text)), JSON.stringify(text)).toEqual(expected);
    }
    // The generated texts exercise both outcomes, not just one.
    expect(withErrors).toBeGreaterThan(1_000);
    expect(withErrors).toBeLessThan(3_000);
  });

  it("are the lines the line-by-line rule finds, on 3,000 generated texts around `Error` and `error` (where the scan passes over an `rror`)", () => {
    const around = [
      "\n", " ", "\t", "(", ":", " :", "_", "9", "x", "X", "e", "E", "r", "rror", "Error", "error", "Errors", "EError", "ValueError", "new Error(",
      "terror", "rrror", "ErrorError", "_Error", "_error", "xerror:", "error:", "Exception", "é", "😀",
    ];
    const random = seeded(11);
    let withErrors = 0;
    for (let sample = 0; sample < 3_000; sample++) {
      const parts: string[] = [];
      const length = 1 + Math.floor(random() * 30);
      for (let part = 0; part < length; part++) parts.push(around[Math.floor(random() * around.length)]!);
      const text = parts.join("");
      const expected = expectedErrors(text);
      if (expected.length > 0) withErrors++;
      expect(errorsOf(new ToolMessage({ content: text, tool_call_id: "c1" })), JSON.stringify(text)).toEqual(expected);
    }
    expect(withErrors).toBeGreaterThan(500);
    expect(withErrors).toBeLessThan(3_000);
  });

  it("are the lines the line-by-line rule finds, in every tool result and user message of the recorded sessions", () => {
    const sessions = loadTraceSessions(defaultTracesPath());
    let checked = 0;
    let found = 0;
    for (const session of sessions) {
      for (const message of session.messages) {
        if (!(message instanceof ToolMessage) && message.type !== "human") continue;
        if (typeof message.content !== "string") continue;
        const expected = expectedErrors(message.content);
        found += expected.length;
        expect(errorsOf(message)).toEqual(expected);
        checked++;
      }
    }
    expect(sessions).toHaveLength(32);
    expect(checked).toBeGreaterThan(1_000);
    expect(found).toBeGreaterThan(100);
  });
});

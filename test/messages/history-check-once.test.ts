/**
 * A strategy's check reads a valid message once, whichever history holds it; a message with a
 * problem is read at every check, and the public `checkHistory` reads every message every time.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { checkHistory } from "../../src/index.js";
import { checkHistoryOnce } from "../../src/messages/history-check.js";

/** `message` with its content read through a getter that counts the reads. */
function countingReads<T extends BaseMessage>(message: T): { message: T; reads: () => number } {
  let reads = 0;
  const content = message.content;
  Object.defineProperty(message, "content", {
    get() {
      reads++;
      return content;
    },
  });
  return { message, reads: () => reads };
}

describe("checkHistoryOnce (the strategies' check)", () => {
  it("does not read a message found valid again, in the same or another history", () => {
    const { message, reads } = countingReads(new HumanMessage("fix the parser"));
    expect(checkHistoryOnce([message])).toEqual([]);
    const first = reads();
    // The getter is what the check reads (so the count below can change).
    expect(first).toBeGreaterThan(0);
    expect(checkHistoryOnce([new AIMessage("ok"), message])).toEqual([]);
    expect(checkHistoryOnce([message, message])).toEqual([]);
    expect(reads()).toBe(first);
  });

  it("finds a message's problem at every check, at its position in each history", () => {
    const { message, reads } = countingReads(new HumanMessage("half a pair \ud83d"));
    expect(checkHistoryOnce([message]).map(({ kind, index }) => [kind, index])).toEqual([["lone-surrogate", 0]]);
    const first = reads();
    expect(checkHistoryOnce([new HumanMessage("hi"), message]).map(({ kind, index }) => [kind, index])).toEqual([["lone-surrogate", 1]]);
    expect(reads()).toBeGreaterThan(first);
  });
});

describe("checkHistory (public)", () => {
  it("reads every message at every call: a message edited in place is checked as it is now", () => {
    const message = new HumanMessage("hello");
    expect(checkHistoryOnce([message])).toEqual([]);
    expect(checkHistory([message])).toEqual([]);
    message.content = "bad \ud83d";
    expect(checkHistory([message]).map(({ kind, index }) => [kind, index])).toEqual([["lone-surrogate", 0]]);
  });
});

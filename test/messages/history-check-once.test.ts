/** `checkHistory` reads a valid message once, whichever history holds it; a message with a problem is read at every check. */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { checkHistory } from "../../src/index.js";

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

describe("checkHistory reads a valid message once", () => {
  it("does not read a message found valid again, in the same or another history", () => {
    const { message, reads } = countingReads(new HumanMessage("fix the parser"));
    expect(checkHistory([message])).toEqual([]);
    const first = reads();
    expect(first).toBeGreaterThan(0);
    expect(checkHistory([new AIMessage("ok"), message])).toEqual([]);
    expect(checkHistory([message, message])).toEqual([]);
    expect(reads()).toBe(first);
  });

  it("finds a message's problem at every check, at its position in each history", () => {
    const { message, reads } = countingReads(new HumanMessage("half a pair \ud83d"));
    expect(checkHistory([message]).map(({ kind, index }) => [kind, index])).toEqual([["lone-surrogate", 0]]);
    const first = reads();
    expect(checkHistory([new HumanMessage("hi"), message]).map(({ kind, index }) => [kind, index])).toEqual([["lone-surrogate", 1]]);
    expect(reads()).toBeGreaterThan(first);
  });
});

/**
 * assistantTextTrimming: older assistant texts cut to a head with a notice, calls kept, never twice,
 * the newest groups and answers without calls untouched; and autoCompaction's batch that trims them
 * with the hidden results.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  assistantTextTrimming,
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  validateToolPairing,
} from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { DEFAULT_TRIM_KEEP_CHARS } from "../../src/strategies/assistant-text-trimming.js";
import { assistant, ids, sameObjects, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { wireProblems } from "../support/wire/index.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
/** A reasoning text of 400 code units. */
const reasoning = (n: number) => `THOUGHT ${n}: ${"look at the code ".repeat(12)}then check src/late.py again ${"and think ".repeat(14)}`.slice(0, 400);

function history(steps: number): BaseMessage[] {
  const messages: BaseMessage[] = [system("s"), user("u1")];
  for (let n = 1; n <= steps; n++) {
    messages.push(assistant(`a${n}`, reasoning(n), [{ id: `c${n}`, args: { command: `cat src/f${n}.py` } }]), toolResult(`t${n}`, `c${n}`, `output ${n} `.repeat(150)));
  }
  return messages;
}

const trimmedIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.trimmedText).map((message) => message.id);

describe("assistantTextTrimming", () => {
  it("cuts every older assistant text to its head and a notice, keeping calls, ids and the newest groups", async () => {
    expect(DEFAULT_TRIM_KEEP_CHARS).toBe(80);
    const input = history(4);
    const result = await assistantTextTrimming({ keepRecentGroups: 2, tokenCounter }).compact(input);
    expect(result.status).toBe("compacted");
    expect(trimmedIds(result.messages)).toEqual(["a1", "a2"]);
    const first = result.messages[2] as AIMessage;
    const original = reasoning(1);
    const head = original.slice(0, 80).trimEnd();
    expect(first.content).toBe(`${head} [… ${original.length - head.length} more characters of this reasoning hidden to save context]`);
    expect(first.tool_calls).toEqual((input[2] as AIMessage).tool_calls);
    expect(first.id).toBe("a1");
    expect(compactionMarkerOf(first)).toMatchObject({ strategy: "assistantTextTrimming", trimmedText: true, originalTokens: await tokenCounter.countMessage(input[2]!) });
    // The marker keeps the original's artifact index (its call's command and file).
    expect(compactionMarkerOf(first)!.artifacts).toMatchObject({ filesRead: ["src/f1.py"], commands: ["cat src/f1.py"] });
    // The newest two groups, the results and the other messages are the same objects.
    expect(sameObjects(result.messages.slice(6), input.slice(6))).toBe(true);
    expect(result.messages[3]).toBe(input[3]);
    expect(result.replaced.map(({ index }) => index)).toEqual([2, 4]);
    expect(wireProblems(result.messages)).toEqual([]);
    expect(validateToolPairing(result.messages)).toEqual([]);
    // The input is not mutated.
    expect((input[2] as AIMessage).content).toBe(original);
  });

  it("never trims a message twice, and leaves short texts and answers without calls alone", async () => {
    const answer = new AIMessage({ id: "answer", content: "x ".repeat(300) });
    const short = assistant("a0", "short reasoning", [{ id: "c0" }]);
    const input = [system("s"), user("u1"), short, toolResult("t0", "c0", "ok"), answer, user("u2"), ...history(3).slice(2)];
    const strategy = assistantTextTrimming({ keepRecentGroups: 1, tokenCounter });
    const once = await strategy.compact(input);
    expect(trimmedIds(once.messages)).toEqual(["a1", "a2"]);
    expect(once.messages[2]).toBe(short);
    expect(once.messages[4]).toBe(answer);
    const twice = await strategy.compact(once.messages);
    expect(twice.status).toBe("noop");
    expect(twice.reason).toBe("no older assistant text is long enough to trim");
    expect(sameObjects(twice.messages, once.messages)).toBe(true);
  });

  it("reads a message's text once: a later run that trims it again takes the same copy", async () => {
    const input = history(3);
    const strategy = assistantTextTrimming({ keepRecentGroups: 1, tokenCounter });
    const first = await strategy.compact(input);
    const again = await strategy.compact(input);
    expect(trimmedIds(again.messages)).toEqual(["a1", "a2"]);
    expect(sameObjects(again.messages, first.messages)).toBe(true);
    const other = await assistantTextTrimming({ keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(other.messages[2]).not.toBe(first.messages[2]);
    expect(other.messages).toEqual(first.messages);
  });

  it("trims the text blocks of a block-content message, leaving its other blocks, on a code point boundary", async () => {
    const text = `${"é".repeat(79)}😀${"tail ".repeat(40)}`;
    const blocks = [{ type: "text", text }, { type: "tool_use", id: "c9", name: "bash", input: { command: "ls" } }];
    const input = [user("u1"), new AIMessage({ id: "a9", content: blocks, tool_calls: [{ id: "c9", name: "bash", args: { command: "ls" }, type: "tool_call" }] }), toolResult("t9", "c9"), ...history(1).slice(2)];
    const result = await assistantTextTrimming({ keepRecentGroups: 1, tokenCounter }).compact(input);
    const content = (result.messages[1] as AIMessage).content as { type: string; text?: string }[];
    // 80 code units would split the emoji's surrogate pair: the head stops before it.
    expect(content[0]!.text!.startsWith(`${"é".repeat(79)} [… `)).toBe(true);
    expect(content[1]).toEqual(blocks[1]);
    expect(wireProblems(result.messages)).toEqual([]);
  });

  it("rejects an invalid option with a typed error", async () => {
    const error = await caught(() => assistantTextTrimming({ keepChars: 0 }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(/keepChars/);
  });
});

describe("autoCompaction trims older assistant text with the hidden results", () => {
  it("trims the same older groups in the same batch by default, and not with trimAssistantText: false", async () => {
    const input = history(12);
    const tokens = await tokenCounter.countMessages(input);
    // Fired at the history's size, hiding stands under 0.6 of it, trimmed or not.
    const options = { tokenCounter, contextWindow: tokens * 2, keepRecent: 4, trigger: { tokens: tokens - 200 }, hiding: { clearAtLeast: 0 } };
    const result = await autoCompaction(options).compact(input);
    expect(result.status).toBe("compacted");
    // The default keeps the newest 3 of the 12 groups.
    const older = Array.from({ length: 9 }, (_, n) => n + 1);
    expect(trimmedIds(result.messages)).toEqual(older.map((n) => `a${n}`));
    expect(result.messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id)).toEqual(older.map((n) => `t${n}`));
    // Reported against the input: every replaced message with its original.
    expect(result.replaced.map(({ before }) => before)).toEqual(input.slice(2, 20));
    expect(wireProblems(result.messages)).toEqual([]);
    const untrimmed = await autoCompaction({ ...options, hiding: { clearAtLeast: 0, trimAssistantText: false } }).compact(input);
    expect(trimmedIds(untrimmed.messages)).toEqual([]);
    expect(ids(untrimmed.messages)).toEqual(ids(input));
    expect(untrimmed.tokensAfter).toBeGreaterThan(result.tokensAfter);
  });
});

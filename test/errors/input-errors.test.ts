/**
 * Malformed input is rejected with a typed error naming the message index, by every strategy and
 * policy, before anything else reads it (issue 11: object content used to crash with
 * `TypeError: content is not iterable`, and a RemoveMessage passed through to the output).
 */
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidHistoryError,
  InvalidOptionError,
  autoCompaction,
  checkHistory,
  createTokenCounter,
  fullSummary,
  hardTruncate,
  hidingThenSummary,
  selectiveCompact,
  selectiveThenSummary,
  slidingWindow,
  stateSnapshotSummary,
  toolResultHiding,
} from "../../src/index.js";
import { type CompactionStrategy } from "../../src/extend/index.js";
import { assistant, ids, sameObjects, step, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

/** Every strategy and every policy that throws on a malformed input (autoCompaction never throws: below). */
const factories: readonly [string, (invalidHistory: "throw" | "repair") => CompactionStrategy][] = [
  ["toolResultHiding", (invalidHistory) => toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory })],
  ["selectiveCompact", (invalidHistory) => selectiveCompact({ tokenCounter, invalidHistory, target: 10 })],
  ["slidingWindow", (invalidHistory) => slidingWindow({ tokenCounter, invalidHistory, keepTurns: 1 })],
  ["hardTruncate", (invalidHistory) => hardTruncate({ tokenCounter, invalidHistory, maxTokens: 10 })],
  ["fullSummary", (invalidHistory) => fullSummary({ tokenCounter, invalidHistory })],
  ["stateSnapshotSummary", (invalidHistory) => stateSnapshotSummary({ tokenCounter, invalidHistory, contextWindow: 1_000 })],
  ["hidingThenSummary", (invalidHistory) => hidingThenSummary({ tokenCounter, invalidHistory, contextWindow: 1_000 })],
  ["selectiveThenSummary", (invalidHistory) => selectiveThenSummary({ tokenCounter, invalidHistory, contextWindow: 1_000 })],
];

/** A message whose content was set to something that is not content (as a bad deserializer would). */
function withContent<T extends BaseMessage>(message: T, content: unknown): T {
  (message as unknown as { content: unknown }).content = content;
  return message;
}

/** s, u1, u2 with object content, a long exchange and u3: index 2 is the bad one. */
function objectContentHistory(): BaseMessage[] {
  return [system("s"), user("u1"), withContent(user("u2"), { text: "hello" }), ...step(1), ...step(2), user("u3")];
}

const OBJECT_CONTENT = "message 2 (human) has content that is neither a string nor an array of content blocks: got an object";

describe.each(factories)("%s on malformed input", (name, create) => {
  it.each(["throw", "repair"] as const)("rejects object content at index 2 with InvalidHistoryError naming index 2 (invalidHistory: %s)", async (invalidHistory) => {
    const input = objectContentHistory();
    const snapshot = snapshotHistory(input);
    const error = await caught(() => create(invalidHistory).compact(input, { force: true }));
    expect(InvalidHistoryError.isInstance(error)).toBe(true);
    expect((error as InvalidHistoryError).message).toBe(`${name}: ${OBJECT_CONTENT}`);
    expect((error as InvalidHistoryError).problems).toEqual([{ kind: "invalid-content", index: 2, message: OBJECT_CONTENT }]);
    expectHistoryUnchanged(snapshot);
  });

  it("rejects a RemoveMessage in the input, even with invalidHistory: \"repair\"", async () => {
    const input = [system("s"), user("u1"), assistant("a1", "hi"), new RemoveMessage({ id: "u1" }), user("u2")];
    const error = await caught(() => create("repair").compact(input, { force: true }));
    const message =
      "message 3 is a RemoveMessage (an update for LangGraph's messages reducer, not a message to send): apply it to the history first";
    expect(InvalidHistoryError.isInstance(error) && [error.message, error.problems]).toEqual([
      `${name}: ${message}`,
      [{ kind: "remove-message", index: 3, message }],
    ]);
  });

  it("rejects a lone surrogate by default, naming the message and field", async () => {
    const input = [system("s"), user("u1", "a cut emoji: \uD83D"), assistant("a1", "ok")];
    const error = await caught(() => create("throw").compact(input, { force: true }));
    const message = "message 1 (human) has a lone surrogate (half of a UTF-16 pair, not valid Unicode) in its content";
    expect(InvalidHistoryError.isInstance(error) && [error.message, error.problems]).toEqual([
      `${name}: ${message} Pass invalidHistory: "repair" to replace lone surrogates with U+FFFD.`,
      [{ kind: "lone-surrogate", index: 1, field: "content", message }],
    ]);
  });
});

describe("lone surrogates with invalidHistory: \"repair\"", () => {
  it("are replaced by U+FFFD on a copy, and the repair is reported", async () => {
    const input = [system("s"), user("u1", "cut \uD83D here and \uDE00 there, whole 😀"), assistant("a1", "ok")];
    const snapshot = snapshotHistory(input);
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory: "repair" }).compact(input);
    expect(result.status).toBe("repaired");
    expect(result.messages.map((message) => message.content)).toEqual(["system s", "cut \uFFFD here and \uFFFD there, whole 😀", "ok"]);
    expect(ids(result.messages)).toEqual(["s", "u1", "a1"]);
    expect(result.messages[0]).toBe(input[0]);
    expect(result.messages[2]).toBe(input[2]);
    expect(result.repair).toEqual({
      messages: result.messages,
      problems: [
        {
          kind: "lone-surrogate",
          index: 1,
          field: "content",
          message: "message 1 (human) has a lone surrogate (half of a UTF-16 pair, not valid Unicode) in its content",
        },
      ],
      removed: [],
      replaced: [{ index: 1, before: input[1], after: result.messages[1] }],
      moved: [],
    });
    expectHistoryUnchanged(snapshot);
  });

  it("are replaced in tool-call arguments and content blocks too, and the pairing repair is reported with them", async () => {
    const call = new AIMessage({
      id: "a1",
      content: [{ type: "text", text: "writing \uDBFF" }],
      tool_calls: [{ id: "c1", name: "write_file", args: { path: "x.txt", text: "half \uD800 pair" }, type: "tool_call" }],
    });
    const input = [system("s"), user("u1"), call, toolResult("t1", "c1"), toolResult("t9", "orphan")];
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory: "repair" }).compact(input);
    expect(result.status).toBe("repaired");
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "t1"]);
    const repaired = result.messages[2] as AIMessage;
    expect(repaired.content).toEqual([{ type: "text", text: "writing \uFFFD" }]);
    expect(repaired.tool_calls).toEqual([{ id: "c1", name: "write_file", args: { path: "x.txt", text: "half \uFFFD pair" }, type: "tool_call" }]);
    expect(result.repair?.problems.map((problem) => [problem.kind, problem.index])).toEqual([
      ["lone-surrogate", 2],
      ["lone-surrogate", 2],
      ["orphan-result", 4],
    ]);
    expect(result.repair?.replaced).toEqual([{ index: 2, before: input[2], after: repaired }]);
    expect(result.repair?.removed).toEqual([{ index: 4, message: input[4] }]);
    // The input's message keeps its text: the repair worked on a copy.
    expect((input[2] as AIMessage).tool_calls?.[0]?.args).toEqual({ path: "x.txt", text: "half \uD800 pair" });
  });

  it("are what autoCompaction repairs by itself", async () => {
    const input = [system("s"), user("u1", "bad \uDC00 text"), assistant("a1", "ok")];
    const result = await autoCompaction({ tokenCounter, contextWindow: 100_000 }).compact(input);
    expect([result.status, result.messages[1]!.content]).toEqual(["repaired", "bad \uFFFD text"]);
  });
});

describe("autoCompaction on malformed input", () => {
  it("never throws: object content at index 2 is a failed result naming index 2, with the input unchanged", async () => {
    const input = objectContentHistory();
    const result = await autoCompaction({ tokenCounter, contextWindow: 1_000 }).compact(input, { force: true });
    expect([result.status, result.reason]).toEqual(["failed", `autoCompaction: ${OBJECT_CONTENT}`]);
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("never passes a RemoveMessage through", async () => {
    const input = [system("s"), user("u1"), new RemoveMessage({ id: "x" })];
    const result = await autoCompaction({ tokenCounter, contextWindow: 1_000 }).compact(input);
    expect([result.status, result.reason]).toEqual([
      "failed",
      "autoCompaction: message 2 is a RemoveMessage (an update for LangGraph's messages reducer, not a message to send): apply it to the history first",
    ]);
  });
});

describe("input checks", () => {
  it("name a content block that is neither a string nor an object", async () => {
    const input = [user("u1"), withContent(assistant("a1"), [{ type: "text", text: "ok" }, null])];
    const error = await caught(() => toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact(input));
    expect((error as Error).message).toBe("toolResultHiding: message 1 (ai) has content block 1 that is neither a string nor an object: got null");
  });

  it("list every problem, and say how many more there are", async () => {
    const input = [withContent(user("u1"), 42), user("u2", "\uD800"), new RemoveMessage({ id: "u1" }), "not a message" as unknown as BaseMessage];
    expect(checkHistory(input).map(({ kind, index }) => [kind, index])).toEqual([
      ["invalid-content", 0],
      ["lone-surrogate", 1],
      ["remove-message", 2],
      ["not-a-message", 3],
    ]);
    const error = await caught(() => slidingWindow({ tokenCounter, keepTurns: 1 }).compact(input));
    expect((error as Error).message).toBe(
      "slidingWindow: message 0 (human) has content that is neither a string nor an array of content blocks: got a number (and 3 more problem(s)) " +
        'Pass invalidHistory: "repair" to replace lone surrogates with U+FFFD.',
    );
  });

  it("check the messages a history gained since the strategy's last output", async () => {
    const strategy = toolResultHiding({ ...EVERY_RUN, tokenCounter });
    const first = await strategy.compact([system("s"), user("u1"), ...step(1)]);
    const grown = [...first.messages, withContent(new ToolMessage({ id: "t2", tool_call_id: "c1", content: "" }), undefined)];
    const error = await caught(() => strategy.compact(grown));
    expect((error as InvalidHistoryError).problems.map(({ kind, index }) => [kind, index])).toEqual([["invalid-content", 4]]);
  });

  it("accept what LangChain builds: calls with empty text, string blocks and whole surrogate pairs", async () => {
    // (Calls with content [] are sent by ChatOpenAI as an empty array, which OpenAI rejects: see empty-content.test.ts.)
    const input = [system("s"), user("u1", "emoji 😀 and 𝔸"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "bash", args: {} }] }), toolResult("t1", "c1")];
    expect(checkHistory([...input, withContent(new HumanMessage("x"), ["a string block", { type: "text", text: "a block" }])])).toEqual([]);
    expect((await toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact(input)).status).toBe("noop");
  });
});

describe("option errors name the option, what it takes and what it got", () => {
  it.each([
    ["a string trigger", () => autoCompaction({ contextWindow: 8000, trigger: "12000" as never }), "autoCompaction: invalid option `trigger`: expected a size such as { tokens: 12000 }, { messages: 40 } or { fraction: 0.8 }, or a list of sizes; got the string \"12000\""],
    ["a threshold over 1", () => autoCompaction({ contextWindow: 8000, threshold: 2 }), "autoCompaction: invalid option `threshold`: expected a number <= 1; got 2"],
    ["a fractional window", () => autoCompaction({ contextWindow: 1.5 }), "autoCompaction: invalid option `contextWindow`: expected an integer; got 1.5"],
    ["a number as the summary model", () => fullSummary({ model: 5 as never }), "fullSummary: invalid option `model`: expected a string or a chat model; got 5"],
    ["a misspelt option", () => hardTruncate({ maxTokens: 10, keepRecnt: 2 } as never), "hardTruncate: invalid option `keepRecnt`: expected one of the options tokenCounter, invalidHistory, onEvent, logger, warnings, maxTokens, keepRecent; got an unknown option (did you mean keepRecent?)"],
  ])("%s", async (_name, create, message) => {
    const error = await caught(create);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(message);
  });
});

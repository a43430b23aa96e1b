import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  compactionMarkerOf,
  createTokenCounter,
  hardTruncate,
  validateToolPairing,
  type TokenCounter,
  type TokenMeasurement,
} from "../src/index.js";
import { COMPACTION_METADATA_KEY } from "../src/extend/index.js";
import { hasLoneSurrogate, headOf } from "../src/text/code-points.js";
// Not exported by the package (and without a declaration file): what ChatAnthropic sends, converted by its own code.
// @ts-expect-error -- no declaration file
import { _convertMessagesToAnthropicPayload } from "../node_modules/@langchain/anthropic/dist/utils/message_inputs.js";
import { caught } from "./support/errors.js";
import { assistant, ids, step, system, toolResult, user, sameObjects } from "./support/builders.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

/** s, u1, five one-call steps, u2: 13 messages. */
function history(): BaseMessage[] {
  return [system("s"), user("u1"), ...step(1), ...step(2), ...step(3), ...step(4), ...step(5), user("u2")];
}

describe("hardTruncate", () => {
  it("leaves a history within maxTokens alone", async () => {
    const input = history();
    const result = await hardTruncate({ maxTokens: 100_000, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("keeps the system message and the newest keepRecent messages", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 5, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    // u1 opens the conversation: the newest user message before the kept tail.
    expect(ids(result.messages)).toEqual(["s", "u1", "a4", "t4", "a5", "t5", "u2"]);
    expect(result.removed.map(({ index }) => index)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("moves the cut forward rather than separate a call from its result", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    // the newest 4 would start at t4, inside the a4/t4 group
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 4, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a5", "t5", "u2"]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("drops further whole groups until the history fits", async () => {
    const input = history();
    const tailTokens = await tokenCounter.countMessages([input[0]!, input[1]!, ...input.slice(-3)]);
    const result = await hardTruncate({ maxTokens: tailTokens, keepRecent: 10, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a5", "t5", "u2"]);
    expect(result.tokensAfter).toBeLessThanOrEqual(tailTokens);
  });

  it("cuts the text of an oversized newest message as a last resort, with a visible marker", async () => {
    const counter = createTokenCounter();
    const input = [system("s"), user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1", "word ".repeat(5_000))];
    const result = await hardTruncate({ maxTokens: 1_000, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("truncated");
    // u1 stays: it is the request the exchange answers, and the conversation opens with it.
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "t1"]);
    const cut = result.messages[3]!;
    expect(cut.content).toMatch(/^(word ?)+\n\[\.\.\. \d+ tokens cut to fit the context window \.\.\.\]$/);
    expect(compactionMarkerOf(cut)).toMatchObject({ strategy: "hardTruncate", truncated: true });
    expect(result.replaced.map(({ index, before }) => [index, before])).toEqual([[3, input[3]]]);
    expect(result.tokensAfter).toBeLessThanOrEqual(1_000);
    expect(await counter.countMessages(result.messages)).toBe(result.tokensAfter);
  });

  it("empties huge tool-call arguments of the newest exchange before giving up", async () => {
    const input = [
      system("s"),
      user("u1"),
      assistant("a1", "writing the file", [{ id: "c1", name: "write_file", args: { path: "big.txt", text: "data ".repeat(5_000) } }]),
      toolResult("t1", "c1", "ok"),
    ];
    const result = await hardTruncate({ maxTokens: 200, keepRecent: 2, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "t1"]);
    const call = result.messages[2] as AIMessage;
    expect(call.tool_calls).toEqual([{ id: "c1", name: "write_file", args: {}, type: "tool_call" }]);
    expect(compactionMarkerOf(call)).toEqual({ strategy: "hardTruncate", truncated: true, originalTokens: expect.any(Number), hiddenToolInputs: ["c1"] });
    expect(result.tokensAfter).toBeLessThanOrEqual(200);
  });

  it("rejects keepRecent 0: a request needs a message besides the system prompt", async () => {
    const error = await caught(() => hardTruncate({ maxTokens: 100, keepRecent: 0 }));
    expect(InvalidOptionError.isInstance(error) && error.option).toBe("keepRecent");
  });

  it("fails, changing nothing, when the system messages alone exceed the limit", async () => {
    const input = [system("s", "rules ".repeat(2_000)), user("u1"), assistant("a1", "hi")];
    const result = await hardTruncate({ maxTokens: 100, tokenCounter }).compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(/^cannot fit 100 tokens: system messages and the newest exchange still need \d+$/);
    expect(sameObjects(result.messages, input)).toBe(true);
  });
});

/** The first message after the leading system messages. */
const firstNonSystem = (messages: readonly BaseMessage[]) => messages.find((message) => message.type !== "system");

/** A compaction summary (a human message marked as one). */
const summary = () =>
  new HumanMessage({
    id: "sum",
    content: "summary of the work so far",
    response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: "fullSummary", summary: true } },
  });

describe("hardTruncate opens the conversation with a user message", () => {
  it("keeps the newest user message before a tail of tool results, then that tail", async () => {
    const input = [system("s"), user("u1"), ...step(1), user("u2"), ...step(2), ...step(3), ...step(4)];
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 4, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "u2", "a3", "t3", "a4", "t4"]);
    expect(firstNonSystem(result.messages)).toBe(input[4]);
    expect(validateToolPairing(result.messages)).toEqual([]);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2, 3, 5, 6]);
    expect(result.replaced).toEqual([]);
  });

  it("counts the user message against maxTokens: when the tail and it do not fit, it drops further groups", async () => {
    const input = [system("s"), user("u1"), ...step(1), ...step(2), ...step(3)];
    const fits = await tokenCounter.countMessages([input[0]!, input[1]!, ...input.slice(-2)]);
    const result = await hardTruncate({ maxTokens: fits, keepRecent: 4, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a3", "t3"]);
    expect(result.tokensAfter).toBeLessThanOrEqual(fits);
  });

  it("adds nothing when the tail already starts with a user message", async () => {
    const input = [system("s"), user("u1"), ...step(1), user("u2"), ...step(2)];
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 3, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u2", "a2", "t2"]);
  });

  it("keeps a summary, which opens the conversation when no user message came after it", async () => {
    const input = [system("s"), summary(), ...step(1), ...step(2), ...step(3)];
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 2, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "sum", "a3", "t3"]);
  });

  it("keeps the user message after a summary too: the summary does not hold that request", async () => {
    const input = [system("s"), summary(), user("u2"), ...step(2), ...step(3)];
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 2, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "sum", "u2", "a3", "t3"]);
  });

  it("keeps the pending calls last, after the user message that asked for them", async () => {
    const input = [system("s"), user("u1"), ...step(1), ...step(2), assistant("a3", "running", [{ id: "c3" }])];
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 1, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a3"]);
    expect(result.messages.at(-1)).toBe(input.at(-1));
  });
});

/**
 * A counter that counts every character of a message's JSON content and calls (tool_result blocks
 * included), so the test does not depend on which blocks the package's own counter reads.
 */
function jsonCounter(): TokenCounter {
  const countMessage = async (message: BaseMessage) => 4 + Math.ceil(JSON.stringify([message.content, (message as AIMessage).tool_calls ?? []]).length / 4);
  const measure = async (messages: readonly BaseMessage[]): Promise<TokenMeasurement> => {
    const perMessage = await Promise.all(messages.map(countMessage));
    const estimated = perMessage.reduce((sum, count) => sum + count, 3);
    return { perMessage, estimated, calibrationAnchors: [], calibrationOffset: 0, total: estimated };
  };
  return {
    mode: "approximate",
    encoding: undefined,
    calibrate: false,
    countText: async (text) => Math.ceil(text.length / 4),
    countMessage,
    countMessages: async (messages) => (await measure(messages)).total,
    measure,
    truncateText: async (text, maxTokens) => headOf(text, Math.max(0, Math.floor(maxTokens)) * 4),
  };
}

/** `text` is a non-empty head of `original` followed by the cut marker. */
function expectCutOf(text: string, original: string): void {
  const [head, marker, ...rest] = text.split("\n");
  expect(rest).toEqual([]);
  expect(head!.length > 0 && head!.length < original.length && original.startsWith(head!)).toBe(true);
  expect(marker).toMatch(/^\[\.\.\. \d+ tokens cut to fit the context window \.\.\.\]$/);
}

describe("hardTruncate's last-resort cut", () => {
  it("keeps an Anthropic tool_result block in its user message and cuts its text instead", async () => {
    const counter = jsonCounter();
    const call = new AIMessage({
      id: "a1",
      content: [{ type: "text", text: "listing" }, { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }],
      tool_calls: [{ id: "toolu_1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
    });
    const answer = new HumanMessage({ id: "r1", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "file.txt ".repeat(2_000) }] });
    const input = [system("s"), user("u1", "list the files"), call, answer];
    const result = await hardTruncate({ maxTokens: 400, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "r1"]);
    const [block] = result.messages[3]!.content as { type: string; tool_use_id: string; content: string }[];
    expect(result.messages[3]!.content).toHaveLength(1);
    expect([block!.type, block!.tool_use_id]).toEqual(["tool_result", "toolu_1"]);
    expectCutOf(block!.content, "file.txt ".repeat(2_000));
    expect(result.tokensAfter).toBeLessThanOrEqual(400);
    // What ChatAnthropic sends: the tool_use, then its tool_result in the next user message.
    type Part = { type: string; id?: string; tool_use_id?: string };
    const payload = _convertMessagesToAnthropicPayload(result.messages) as { messages: { role: string; content: string | Part[] }[] };
    const parts = (content: string | Part[]) => (typeof content === "string" ? content : content.map((part) => part.id ?? part.tool_use_id ?? part.type));
    expect(payload.messages.map(({ role, content }) => [role, parts(content)])).toEqual([
      ["user", "list the files"],
      ["assistant", ["text", "toolu_1"]],
      ["user", ["toolu_1"]],
    ]);
  });

  it("cuts the longest texts first and leaves short ones whole", async () => {
    const counter = jsonCounter();
    const long = "word ".repeat(2_000);
    const answer = new HumanMessage({
      id: "r1",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "short" }, { type: "text", text: long }] },
        { type: "text", text: "and a note" },
      ],
    });
    const call = new AIMessage({
      id: "a1",
      content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }],
      tool_calls: [{ id: "toolu_1", name: "bash", args: {}, type: "tool_call" }],
    });
    const result = await hardTruncate({ maxTokens: 300, tokenCounter: counter }).compact([system("s"), user("u1"), call, answer]);
    const content = result.messages[3]!.content as { type: string; content?: { text: string }[]; text?: string }[];
    expect(content.map((part) => part.type)).toEqual(["tool_result", "text"]);
    expect(content[0]!.content![0]).toEqual({ type: "text", text: "short" });
    expectCutOf(content[0]!.content![1]!.text, long);
    expect(content[1]).toEqual({ type: "text", text: "and a note" });
    expect(result.tokensAfter).toBeLessThanOrEqual(300);
  });

  it("never cuts between the halves of a surrogate pair, with the approximate counter", async () => {
    // An odd offset: a cut every 4 code units lands inside an emoji.
    const input = [system("s"), user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1", `x${"😀".repeat(3_000)}`)];
    const result = await hardTruncate({ maxTokens: 300, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    const text = result.messages[3]!.content as string;
    expect(hasLoneSurrogate(text)).toBe(false);
    expect(text).toMatch(/^x(😀)+\n\[\.\.\. \d+ tokens cut to fit the context window \.\.\.\]$/u);
  });
});

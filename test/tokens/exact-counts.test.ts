/**
 * The exact counter's text parts are js-tiktoken's `encode(text, [], []).length`, text by text: on
 * every message of the 32 recorded sessions (content, tool-call names, JSON arguments and ids, tool
 * results' call ids and names) and on texts made to be hard (long runs without a space, long runs of
 * whitespace, mixed scripts, emoji, lone surrogates), through every way the counter counts a text.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { createTokenCounter } from "../../src/index.js";
import { TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TOKENS_PER_ROLE, TOKENS_PER_TOOL_CALL } from "../../src/tokens/message-units.js";

/** js-tiktoken: the reference. */
const REFERENCES = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };
const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const sessions = loadTraceSessions(defaultTracesPath());

/** A message's count from js-tiktoken, written out field by field (not from the counter's walk). */
function referenceCount(message: BaseMessage, tokens: (text: string) => number): number {
  let count = TOKENS_PER_MESSAGE + TOKENS_PER_ROLE;
  if (typeof message.content !== "string") throw new Error("the recorded sessions have string content");
  if (message.content !== "") count += tokens(message.content);
  if (message instanceof AIMessage) {
    for (const call of message.tool_calls ?? []) count += TOKENS_PER_TOOL_CALL + tokens(call.name) + tokens(JSON.stringify(call.args)) + tokens(call.id ?? "");
  }
  if (message instanceof ToolMessage) {
    if (message.tool_call_id !== "") count += tokens(message.tool_call_id);
    if (message.name) count += TOKENS_PER_NAME + tokens(message.name);
  }
  return count;
}

const emojiRun = "👨‍👩‍👧‍👦🇫🇷👍🏽❤️🫠😀".repeat(12);
/** Texts where cutting, caching or a wrong merge would show. js-tiktoken's merge is quadratic in a piece's length: pieces stay under about 2 000 bytes. */
const ADVERSARIAL = [
  "x".repeat(65),
  "x".repeat(1_000),
  "=".repeat(100) + "\n" + "-".repeat(300) + "\n" + "#".repeat(129),
  `before ${"a".repeat(65)} after ${"b".repeat(64)} ${"😀".repeat(64)}`,
  // base64 and hex: one run of non-space characters, split only by the pattern.
  Buffer.from(Array.from({ length: 3_000 }, (_, position) => (position * 7919) % 256)).toString("base64"),
  Buffer.from(Array.from({ length: 700 }, (_, position) => (position * 131) % 256)).toString("hex"),
  "sha256:" + "0123456789abcdef".repeat(20) + " /very/long/path/" + "segment_".repeat(60) + "file.py",
  "https://example.com/" + "a%2Fb%3Dc&".repeat(50),
  " ".repeat(65),
  " ".repeat(700) + "x",
  "\n".repeat(500),
  "\t".repeat(100) + "\n" + " \t \n  \r\n".repeat(60),
  "word" + " ".repeat(300) + "word" + " ".repeat(129) + "\n" + "\u00a0".repeat(100) + "\u3000".repeat(80),
  "Package                   Version\n------------------------- ---------\n" + ["numpy", "pandas", "scikit-learn", "torch"].map((name) => name.padEnd(26) + "1.2.3".padEnd(40)).join("\n"),
  "𝒳".repeat(200),
  "x" + "𝒳".repeat(192),
  emojiRun,
  "漢字かなカナ한국어".repeat(12) + "مرحبا".repeat(12) + "हिन्दी".repeat(12) + "Ελληνικά".repeat(12),
  "e\u0301".repeat(100) + "\u0301".repeat(100),
  "lone \ud800 high, lone \udc00 low, at the end \ud83d",
  "\ud800".repeat(100),
  "x" + "\udc00".repeat(70) + "y" + "\ud83d\ude00".repeat(40) + "\ud83d",
  "<|endoftext|>".repeat(10) + "a".repeat(80),
];

describe.each(ENCODINGS)("the exact counter equals js-tiktoken (%s)", (encoding) => {
  const reference = REFERENCES[encoding];
  const known = new Map<string, number>();
  const tokens = (text: string) => {
    let count = known.get(text);
    if (count === undefined) known.set(text, (count = reference.encode(text, [], []).length));
    return count;
  };

  it("on every message of the recorded sessions", async () => {
    const counter = createTokenCounter({ encoding, calibrate: false });
    const wrong: { session: string; message: string | undefined; counted: number; expected: number }[] = [];
    let messages = 0;
    let calls = 0;
    for (const session of sessions) {
      for (const message of session.messages) {
        const counted = await counter.countMessage(message);
        const expected = referenceCount(message, tokens);
        if (counted !== expected) wrong.push({ session: session.id, message: message.id, counted, expected });
        messages++;
        if (message instanceof AIMessage) calls += message.tool_calls?.length ?? 0;
      }
    }
    expect({ sessions: sessions.length, messages, calls, wrong: wrong.slice(0, 5), wrongCount: wrong.length }).toEqual({
      sessions: 32,
      messages: 4_806,
      calls: 2_177,
      wrong: [],
      wrongCount: 0,
    });
  });

  it.each(ADVERSARIAL.map((text) => [JSON.stringify(text).slice(0, 50), text]))("on %s, however it is counted", async (_label, text) => {
    const expected = tokens(text);
    const counter = createTokenCounter({ encoding, calibrate: false });
    // Twice: the second count of a text of 256 units or more comes from the text cache.
    expect([await counter.countText(text), await counter.countText(text)]).toEqual([expected, expected]);
    expect(await counter.countMessage(new HumanMessage(text))).toBe(TOKENS_PER_MESSAGE + TOKENS_PER_ROLE + expected);
    const args = { data: text };
    const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "store", args, type: "tool_call" }] });
    expect(await counter.countMessage(call)).toBe(TOKENS_PER_MESSAGE + TOKENS_PER_ROLE + TOKENS_PER_TOOL_CALL + tokens("store") + tokens(JSON.stringify(args)) + tokens("call_1"));
    // A history counted in two steps (`extend`) gives each message the same count.
    const history = [new HumanMessage("start"), new HumanMessage(text), new HumanMessage(`${text}\n${text}`)];
    const first = await counter.measure(history.slice(0, 2));
    expect((await counter.extend!(first, history)).perMessage).toEqual([tokens("start"), expected, tokens(`${text}\n${text}`)].map((count) => TOKENS_PER_MESSAGE + TOKENS_PER_ROLE + count));
    // Joined from parts (the text cut at a line break and in its middle) and cut to a budget.
    const middle = Math.floor(text.length / 2);
    expect(await counter.countJoined!(["head\n", text.slice(0, middle), text.slice(middle), "\ntail"])).toBe(tokens(`head\n${text}\ntail`));
    expect(await counter.truncateText(text, expected)).toBe(text);
    const cut = await counter.truncateText(text, Math.floor(expected / 2));
    expect(tokens(cut)).toBeLessThanOrEqual(Math.floor(expected / 2));
    expect(text.startsWith(cut)).toBe(true);
  });
});

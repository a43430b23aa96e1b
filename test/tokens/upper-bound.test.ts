import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { createTokenCounter, type TokenCounter } from "../../src/index.js";
import { utf8Length } from "../../src/tokens/message-units.js";

const ENCODINGS = ["o200k_base", "cl100k_base"] as const;

/** A counter that has counted nothing but has its encoding loaded (a bound needs it loaded). */
async function loaded(encoding: (typeof ENCODINGS)[number]): Promise<TokenCounter> {
  const counter = createTokenCounter({ encoding });
  await counter.countText("load");
  return counter;
}

/** The bound of `messages` by a counter that never counted them, and their exact total by another. */
async function boundAndExact(encoding: (typeof ENCODINGS)[number], messages: readonly BaseMessage[]) {
  const bounding = await loaded(encoding);
  const bound = bounding.upperBound!(await bounding.measure([]), messages)!;
  const exact = await createTokenCounter({ encoding }).measure(messages);
  return { bound, exact };
}

const sessions = loadTraceSessions(defaultTracesPath());

describe("TokenCounter.upperBound", () => {
  it("is undefined until the encoding is loaded", async () => {
    const counter = createTokenCounter();
    const empty = { perMessage: [], estimated: 3, calibrationAnchors: [], calibrationOffset: 0, total: 3 };
    expect(counter.upperBound!(empty, [new HumanMessage("hi")])).toBeUndefined();
    await counter.countText("x");
    expect(counter.upperBound!(empty, [new HumanMessage("hi")])!.total).toBe(3 + 4 + 2);
  });

  it("prices a text counted before (a message read back from a checkpoint: a new object, the same text) at its count, a new text at its bytes", async () => {
    const counter = await loaded("o200k_base");
    const text = sessions.flatMap((session) => session.messages).find((message) => message.type === "tool" && typeof message.content === "string" && message.content.length > 2000)!.content as string;
    const original = new ToolMessage({ content: text, tool_call_id: "c" });
    const exact = await counter.countMessage(original);
    const structure = exact - (await counter.countText(text));
    const empty = await counter.measure([]);
    const readBack = new ToolMessage({ content: text, tool_call_id: "c" });
    expect(counter.upperBound!(empty, [readBack])!.total).toBe(empty.total + exact);
    const changed = new ToolMessage({ content: `${text} (and more)`, tool_call_id: "c" });
    expect(counter.upperBound!(empty, [changed])!.total).toBe(empty.total + structure + utf8Length(`${text} (and more)`));
  });

  it.each(ENCODINGS)("never under-estimates a message or a whole session of the recorded traces (%s)", async (encoding) => {
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    for (const session of sessions) {
      const { bound, exact } = await boundAndExact(encoding, session.messages);
      expect(bound.total).toBeGreaterThanOrEqual(exact.total);
      // The deferred exact figures are the counter's own.
      expect(bound.measure()).toEqual(exact);
      const bounding = await loaded(encoding);
      const reference = createTokenCounter({ encoding });
      const empty = await bounding.measure([]);
      for (const message of session.messages) {
        expect(bounding.upperBound!(empty, [message])!.total).toBeGreaterThanOrEqual(await reference.countMessages([message]));
      }
    }
  });

  it("bounds from the previous exact measurement and uses counts it already has", async () => {
    const session = sessions[0]!.messages;
    const half = Math.floor(session.length / 2);
    const counter = await loaded("o200k_base");
    const previous = await counter.measure(session.slice(0, half));
    const bound = counter.upperBound!(previous, session)!;
    const exact = await createTokenCounter().measure(session);
    expect(bound.total).toBeGreaterThanOrEqual(exact.total);
    // Once counted, the messages are priced exactly: the bound is the total.
    expect(counter.upperBound!(previous, session)!.total).toBe(bound.total);
    await counter.extend!(previous, session);
    expect(counter.upperBound!(previous, session)!.total).toBe(exact.total);
  });

  const adversarial = fc.oneof(
    fc.string({ unit: "binary", maxLength: 400 }),
    fc.string({ unit: "grapheme", maxLength: 200 }),
    fc.string({ unit: fc.constantFrom("0", "1", "7", "9", ".", ",", "-"), maxLength: 600 }),
    fc.string({ unit: fc.constantFrom(" ", "\n", "\t", "\r", "\u00a0", "\u3000"), maxLength: 600 }),
    fc.string({ unit: fc.constantFrom("😀", "👩‍👩‍👧", "🇫🇷", "漢", "字", "한", "ア", "\ud800", "\udfff", "é", "<|endoftext|>", "="), maxLength: 300 }),
    fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 300 }).map((points) => String.fromCodePoint(...points)),
  );

  it.each(ENCODINGS)("never under-estimates adversarial text: emoji, CJK, digits, whitespace, lone surrogates (%s)", async (encoding) => {
    const bounding = await loaded(encoding);
    const reference = createTokenCounter({ encoding });
    const empty = await bounding.measure([]);
    await fc.assert(
      fc.asyncProperty(adversarial, adversarial, async (text, args) => {
        const messages: BaseMessage[] = [
          new HumanMessage(text === "" ? "x" : text),
          new AIMessage({ content: [{ type: "text", text: `${text}!` }], tool_calls: [{ id: "c1", name: "run", args: { text: args }, type: "tool_call" }] }),
          new ToolMessage({ content: text === "" ? "ok" : text, tool_call_id: "c1", name: args === "" ? "run" : args }),
        ];
        for (const message of messages) {
          expect(bounding.upperBound!(empty, [message])!.total).toBeGreaterThanOrEqual(await reference.countMessages([message]));
        }
        expect(bounding.upperBound!(empty, messages)!.total).toBeGreaterThanOrEqual(await reference.countMessages(messages));
      }),
      { numRuns: 150 },
    );
  });

  it("bounds a new provider usage record's calibration by the largest offset it can have", async () => {
    const counter = await loaded("o200k_base");
    const first = [new HumanMessage("question one two three"), new AIMessage({ content: "answer", usage_metadata: { input_tokens: 500, output_tokens: 2, total_tokens: 502 } })];
    const previous = await counter.measure(first);
    const grown = [
      ...first,
      new HumanMessage("more ".repeat(50)),
      new AIMessage({ content: "ok", usage_metadata: { input_tokens: 900, output_tokens: 1, total_tokens: 901 } }),
      new HumanMessage("tail 😀 漢字"),
    ];
    const bound = counter.upperBound!(previous, grown)!;
    const exact = await createTokenCounter().measure(grown);
    expect(exact.calibrationAnchors.map((anchor) => anchor.index)).toEqual([1, 3]);
    expect(bound.total).toBeGreaterThanOrEqual(exact.total);
    expect(bound.measure()).toEqual(exact);
  });

  it("is the exact total in approximate mode", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    const messages = sessions[0]!.messages;
    const bound = counter.upperBound!(await counter.measure([]), messages)!;
    expect(bound.total).toBe((await createTokenCounter({ mode: "approximate" }).measure(messages)).total);
  });
});

describe("utf8Length", () => {
  it("is the length TextEncoder gives, lone surrogates included", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
    );
    expect(utf8Length("a\u00e9\u6f22\ud83d\ude00\ud800x\udc00")).toBe(1 + 2 + 3 + 4 + 3 + 1 + 3);
  });
});

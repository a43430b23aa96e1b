import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { autoCompaction, compactionMarkerOf, fullSummary, type AutoCompactionOptions } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { assistant, ids, sameObjects, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

/** One token per 10 characters of a message's text: every message below is 100 tokens. */
const tokenCounter = (messages: BaseMessage[]) => messages.reduce((total, message) => total + Math.ceil(messageText(message).length / 10), 0);
/** `count` messages of 100 tokens, user and assistant in turn, ids m0, m1, ... */
const conversation = (count: number, from = 0): BaseMessage[] =>
  Array.from({ length: count }, (_, n) => (n + from) % 2 === 0 ? user(`m${n + from}`, `u${n + from} `.repeat(400).slice(0, 1000)) : assistant(`m${n + from}`, `a${n + from} `.repeat(400).slice(0, 1000)));

let server: OpenAIServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function serve(...texts: (string | { error: number } | { text: string; delayMs: number })[]): Promise<ChatOpenAI> {
  server = await startOpenAIServer(
    texts.map((text) =>
      typeof text === "string" ? { content: `<summary>${text}</summary>` } : "error" in text ? { status: text.error } : { content: `<summary>${text.text}</summary>`, delayMs: text.delayMs },
    ),
  );
  return new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
}

/**
 * The trigger fires at 2000 tokens of conversation (20 messages); preparation starts at 0.7 of it
 * (14 messages; by default the summary starts at the firing), with the cut before the newest message (the room left, 600 tokens, is over the
 * summary target, 500). Hiding off: a firing summarizes.
 */
const options = (model: ChatOpenAI, extra: Partial<AutoCompactionOptions> = {}): AutoCompactionOptions => ({
  contextWindow: 100_000,
  trigger: { tokens: 2000 },
  hiding: false,
  keepRecent: 2,
  summaryMaxTokens: 100,
  tokenCounter,
  summaryModel: model,
  prepare: { at: 0.7 },
  ...extra,
});

/** The conversation size at which the trigger (2000 tokens, 100 a message) fires. */
const FIRING = 20;
const summaryText = (messages: readonly BaseMessage[]) => messageText(messages.find((message) => compactionMarkerOf(message)?.summary)!);

describe("autoCompaction: summaries prepared ahead", () => {
  it("past the mark, returns the same no-op at once and starts the summary of the part before the newest message", async () => {
    const model = await serve("prepared");
    const history = conversation(14);
    const prepared = autoCompaction(options(model));
    const result = await prepared.compact(history);
    const without = await autoCompaction(options(model, { prepare: false })).compact(history);
    expect({ status: result.status, reason: result.reason, same: sameObjects(result.messages, history) }).toEqual({
      status: "noop",
      reason: `${without.reason}; the summary of the first 13 messages is being prepared`,
      same: true,
    });
    await prepared.settled();
    expect(server!.requests).toHaveLength(1);
    const prompt = JSON.stringify(server!.requests[0]!.body!.messages);
    expect([prompt.includes("u12 u12"), prompt.includes("a13 a13")]).toEqual([true, false]);
  });

  it("under the mark, starts nothing", async () => {
    const model = await serve("prepared");
    const policy = autoCompaction(options(model));
    expect((await policy.compact(conversation(13))).status).toBe("noop");
    await policy.settled();
    expect(server!.requests).toHaveLength(0);
  });

  it("applies on an unchanged prefix: no call at the firing, the same result as a summary of that cut made then", async () => {
    const model = await serve("prepared text", "prepared text");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    await policy.settled();
    // The history only grew (same objects for the first 14 messages).
    const fired = [...early, ...conversation(6, 14)];
    const result = await policy.compact(fired);
    expect(server!.requests).toHaveLength(1);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual([undefined, ...ids(fired.slice(13))]);
    expect(sameObjects(result.messages.slice(1), fired.slice(13))).toBe(true);
    // A blocking summary of the same cut (keep the newest 7 messages), with the same model answer.
    const blocking = await fullSummary({ model, keepRecent: 7, tokenCounter, summaryMaxTokens: 100, summaryInputTokens: 4000, contextWindow: 100_000 }).compact(fired, { force: true });
    expect(server!.requests).toHaveLength(2);
    expect(messageText(result.messages[0]!)).toBe(messageText(blocking.messages[0]!));
    expect(compactionMarkerOf(result.messages[0]!)).toEqual(compactionMarkerOf(blocking.messages[0]!));
    expect({ removed: result.removed, tokensAfter: result.tokensAfter, summaryModel: result.summaryModel }).toEqual({
      removed: blocking.removed,
      tokensAfter: blocking.tokensAfter,
      summaryModel: blocking.summaryModel,
    });
  });

  it("applies when the prefix is the same ids and content in new objects (read back from a checkpoint)", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    await policy.compact(conversation(14));
    await policy.settled();
    const result = await policy.compact(conversation(20));
    expect(server!.requests).toHaveLength(1);
    expect(summaryText(result.messages)).toContain("prepared text");
  });

  it("discards it when a message it covers was rewritten (same id, new content): a new one is prepared from the firing and applied at the next step", async () => {
    const model = await serve("prepared text", "new text");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    await policy.settled();
    const rewritten = [...early.slice(0, 3), new HumanMessage({ id: "m3", content: "rewritten ".repeat(100) }), ...early.slice(4), ...conversation(6, 14)];
    const fired = await policy.compact(rewritten);
    expect({ status: fired.status, same: sameObjects(fired.messages, rewritten) }).toEqual({ status: "noop", same: true });
    expect(fired.reason).toBe(
      "the history changed before the prepared summary's cut; the summary of the first 18 messages is being prepared, and the history stands (under 90000 tokens) until it is ready",
    );
    await policy.settled();
    expect(server!.requests).toHaveLength(2);
    const result = await policy.compact([...rewritten, ...conversation(2, 20)]);
    expect(server!.requests).toHaveLength(2);
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("new text");
    expect(summaryText(result.messages)).not.toContain("prepared text");
  });

  it("discards it when a message it covers was removed (what a RemoveMessage does)", async () => {
    const model = await serve("prepared text", "new text");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    await policy.settled();
    const removed = [...early.slice(0, 5), ...early.slice(6), ...conversation(7, 14)];
    expect((await policy.compact(removed)).reason).toMatch(/^the history changed before the prepared summary's cut; /);
    await policy.settled();
    const result = await policy.compact([...removed, ...conversation(2, 21)]);
    expect(server!.requests).toHaveLength(2);
    expect(summaryText(result.messages)).toContain("new text");
  });

  it("a firing whose summary, started then, could not get under the hiding target a step later summarizes at once", async () => {
    const model = await serve("at once");
    // The newest message kept (100 tokens), a summary of up to 1100 and the last step's 100 tokens: over 1200 (0.6 of 2000).
    const policy = autoCompaction(options(model, { summaryMaxTokens: 1100 }));
    await policy.compact(conversation(4));
    const result = await policy.compact(conversation(20));
    expect(result.status).toBe("summarized");
    expect(server!.requests).toHaveLength(1);
  });

  it("a firing in a conversation this policy has not run before summarizes at once, as a single compact() call expects", async () => {
    const model = await serve("at once");
    const result = await autoCompaction(options(model)).compact(conversation(20));
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("at once");
    expect(server!.requests).toHaveLength(1);
  });

  it("a failing preparation changes nothing: the firing summarizes as without it", async () => {
    const model = await serve({ error: 500 }, "blocking text");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    const first = await policy.compact(early);
    expect(first.status).toBe("noop");
    await policy.settled();
    // One attempt per prefix: the next steps do not retry it.
    expect((await policy.compact([...early, ...conversation(2, 14)])).status).toBe("noop");
    await policy.settled();
    expect(server!.requests).toHaveLength(1);
    const result = await policy.compact([...early, ...conversation(6, 14)]);
    expect(server!.requests).toHaveLength(2);
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("blocking text");
  });

  it("a preparation still being written at the firing is not waited for under the stand limit: the history stands, and the next step applies it", async () => {
    const model = await serve({ text: "prepared text", delayMs: 300 });
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    while (server!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const firing = [...early, ...conversation(6, 14)];
    const fired = await policy.compact(firing);
    expect({ status: fired.status, reason: fired.reason, same: sameObjects(fired.messages, firing) }).toEqual({
      status: "noop",
      reason: "the summary prepared ahead is still being written; the history stands (under 90000 tokens) until it is ready",
      same: true,
    });
    await policy.settled();
    const result = await policy.compact([...firing, ...conversation(2, 20)]);
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("prepared text");
    await server!.idle();
    expect(server!.requests.map((request) => request.outcome)).toEqual(["completed"]);
  });

  it("over the stand limit (the threshold plus half the way to the hard limit), a preparation still being written is waited for: one call, its summary applied", async () => {
    const model = await serve({ text: "prepared text", delayMs: 300 });
    // Threshold 1920 (0.8 of 2400), hard limit 2000: the history stands under 1960 tokens; the firing has 2000.
    const policy = autoCompaction(options(model, { contextWindow: 2400, hardLimit: 2000 }));
    const early = conversation(14);
    await policy.compact(early);
    while (server!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const result = await policy.compact([...early, ...conversation(6, 14)]);
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("prepared text");
    await server!.idle();
    expect(server!.requests.map((request) => request.outcome)).toEqual(["completed"]);
  });

  it("a late preparation for a prefix that changed changes nothing: it is dropped (its call aborted) and the firing summarizes", async () => {
    const model = await serve({ text: "prepared text", delayMs: 3000 }, "blocking text");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    // The prepared call is under way (the server answers it in 3 s) when the trigger fires on a history whose m5 was removed.
    while (server!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const result = await policy.compact([...early.slice(0, 5), ...early.slice(6), ...conversation(7, 14)]);
    expect(result.status).toBe("summarized");
    expect(summaryText(result.messages)).toContain("blocking text");
    await policy.settled();
    await server!.idle();
    expect(server!.requests.map((request) => request.outcome)).toEqual(["aborted", "completed"]);
  });

  it("a preparation discarded before its call starts makes no call: the firing's summary is the only one", async () => {
    const model = await serve("blocking text");
    const invoke = vi.spyOn(ChatOpenAI.prototype, "invoke");
    const policy = autoCompaction(options(model));
    const early = conversation(14);
    await policy.compact(early);
    // In the same turn of the event loop: the trigger fires on a history whose m5 was removed, which drops the preparation.
    const result = await policy.compact([...early.slice(0, 5), ...early.slice(6), ...conversation(7, 14)]);
    expect(summaryText(result.messages)).toContain("blocking text");
    await policy.settled();
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(server!.requests.map((request) => request.outcome)).toEqual(["completed"]);
  });

  it("one policy serving two conversations without thread ids keeps one preparation for each", async () => {
    const model = await serve("first", "second");
    const policy = autoCompaction(options(model));
    const other = (count: number, from = 0) => conversation(count, from).map((message) => new HumanMessage({ id: `o${message.id}`, content: messageText(message) }));
    const early = conversation(14);
    const otherEarly = other(14);
    await policy.compact(early);
    await policy.compact(otherEarly);
    await policy.settled();
    expect(server!.requests).toHaveLength(2);
    const fired = await policy.compact([...early, ...conversation(6, 14)]);
    const otherFired = await policy.compact([...otherEarly, ...other(6, 14)]);
    expect(server!.requests).toHaveLength(2);
    expect([fired.status, otherFired.status]).toEqual(["summarized", "summarized"]);
    expect([summaryText(fired.messages), summaryText(otherFired.messages)].map((text) => [text.includes("first"), text.includes("second")])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  it("is on by default with a summary model, from the firing: the history stands and the summary goes in a step later; off with prepare: false and without a summary model", async () => {
    const model = await serve("prepared");
    const byDefault = autoCompaction({ ...options(model), prepare: undefined });
    // Under the trigger, past where a 0.9 mark would prepare: nothing is prepared.
    for (const count of [17, 18, 19]) {
      expect((await byDefault.compact(conversation(count))).reason).not.toMatch(/prepare/);
      await byDefault.settled();
    }
    expect(server!.requests).toHaveLength(0);
    // The firing: the summary is started and the history stands.
    const fired = await byDefault.compact(conversation(FIRING));
    expect([fired.status, fired.reason?.match(/no summary was prepared; the summary of the first \d+ messages is being prepared, and the history stands/) !== null]).toEqual(["noop", true]);
    await byDefault.settled();
    expect(server!.requests).toHaveLength(1);
    // The next step applies it, without another call.
    const applied = await byDefault.compact(conversation(FIRING + 1));
    expect([applied.status, summaryText(applied.messages).includes("prepared")]).toEqual(["summarized", true]);
    expect(server!.requests).toHaveLength(1);
    const off = autoCompaction(options(model, { prepare: false }));
    await off.compact(conversation(18));
    await off.settled();
    const noModel = autoCompaction({ ...options(model), summaryModel: undefined, prepare: undefined });
    expect((await noModel.compact(conversation(18))).status).toBe("noop");
    await noModel.settled();
    expect(server!.requests).toHaveLength(1);
  });

  it("by default prepares nothing before the firing, even where a trigger that also counts messages has its tokens but not its messages", async () => {
    const model = await serve("prepared");
    // Fires at 2000 tokens and 30 messages: 25 messages hold 2500 tokens and do not fire.
    const policy = autoCompaction({ ...options(model), prepare: undefined, trigger: { tokens: 2000, messages: 30 } });
    for (const count of [20, 24, 25]) {
      const result = await policy.compact(conversation(count));
      await policy.settled();
      expect([result.status, /prepar/.test(result.reason ?? "")]).toEqual(["noop", false]);
    }
    expect(server!.requests).toHaveLength(0);
  });

  it("decides once per thread in the background, however many steps come before it is decided", async () => {
    const model = await serve("prepared");
    const policy = autoCompaction(options(model));
    await policy.compact(conversation(4));
    const reasons = [(await policy.compact(conversation(14))).reason, (await policy.compact(conversation(15))).reason];
    expect(reasons.map((reason) => reason?.endsWith("; whether to prepare the summary is worked out in the background"))).toEqual([true, true]);
    await policy.settled();
    expect(server!.requests).toHaveLength(1);
  });

  it("rejects a mark outside (0, 1]", async () => {
    const model = await serve();
    for (const at of [0, 1.01, -0.5]) expect(() => autoCompaction(options(model, { prepare: { at } }))).toThrow(/prepare/);
    expect(() => autoCompaction(options(model, { prepare: { at: 1 } }))).not.toThrow();
  });
});

import type { BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { autoCompaction, compactionMarkerOf, type AutoCompactionOptions } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { ToolResultHiding } from "../../src/strategies/tool-result-hiding.js";
import { ids, sameObjects, step, user, assistant } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

/** One token per 10 characters of a message's text (tool calls are not counted). */
const tokenCounter = (messages: BaseMessage[]) => messages.reduce((total, message) => total + Math.ceil(messageText(message).length / 10), 0);
/** `count` talk messages of 100 tokens, ids m0, m1, ... */
const talk = (count: number): BaseMessage[] => Array.from({ length: count }, (_, n) => (n % 2 === 0 ? user(`m${n}`, "u ".repeat(500)) : assistant(`m${n}`, "a ".repeat(500))));
/** Agent steps n..n+count-1, each an assistant call (1 token) and a 250-token result. */
const steps = (from: number, count: number): BaseMessage[] => Array.from({ length: count }, (_, k) => step(from + k, "x".repeat(2500))).flat();

let server: OpenAIServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function serve(text: string): Promise<ChatOpenAI> {
  server = await startOpenAIServer([{ content: `<summary>${text}</summary>` }]);
  return new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
}

/**
 * Fires at 2000 tokens of conversation; hiding stands under 1200 (0.6 of it); the summary targets
 * 500 (0.25); preparation starts at 1400 (0.7). Hiding keeps the newest group.
 */
const options = (model: ChatOpenAI, extra: Partial<AutoCompactionOptions> = {}): AutoCompactionOptions => ({
  contextWindow: 100_000,
  trigger: { tokens: 2000 },
  hiding: { keepRecentGroups: 1, clearAtLeast: 100, trimAssistantText: false },
  keepRecent: 2,
  summaryMaxTokens: 100,
  tokenCounter,
  summaryModel: model,
  prepare: { at: 0.7 },
  ...extra,
});

describe("autoCompaction: summaries prepared ahead, with hiding", () => {
  it("prepares nothing when a dry run of hiding foresees that hiding will be enough at the firing", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    // 200 tokens of talk and 5 steps (1455 tokens): hiding the 4 older results leaves about a third of it.
    const result = await policy.compact([...talk(2), ...steps(0, 5)]);
    expect(result.status).toBe("noop");
    expect(result.reason).toMatch(/no summary prepared: hiding will be enough at the firing$/);
    await policy.settled();
    expect(server!.requests).toHaveLength(0);
  });

  it("runs the dry run once while the history only grows; a firing it misjudged starts the summary and goes on, and the next step applies it", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    const dryRuns = vi.spyOn(ToolResultHiding.prototype, "compact");
    const early = [...talk(2), ...steps(0, 5)];
    const chat = (from: number, count: number) => Array.from({ length: count }, (_, n) => user(`t${from + n}`, "t ".repeat(500)));
    const first = await policy.compact(early);
    const second = await policy.compact([...early, ...chat(0, 2)]);
    expect([first.reason, second.reason].map((reason) => reason?.endsWith("no summary prepared: hiding will be enough at the firing"))).toEqual([true, true]);
    expect(dryRuns).toHaveBeenCalledTimes(1);
    // 900 tokens of talk arrive, then an agent step: at the firing hiding leaves about 1,400 tokens, over 1,200, and no summary was prepared.
    const firing = [...early, ...chat(0, 9), ...steps(5, 1)];
    const fired = await policy.compact(firing);
    expect({ status: fired.status, same: sameObjects(fired.messages, firing) }).toEqual({ status: "noop", same: true });
    expect(fired.reason).toMatch(/; no summary was prepared; the summary of the first \d+ messages is being prepared, and the history stands \(under 90000 tokens\) until it is ready$/);
    await policy.settled();
    expect(server!.requests).toHaveLength(1);
    const result = await policy.compact([...firing, ...steps(6, 1)]);
    expect(result.status).toBe("summarized");
    expect(messageText(result.messages.find((message) => compactionMarkerOf(message)?.summary)!)).toContain("prepared text");
    dryRuns.mockRestore();
  });

  it("past the mark, once the decision is taken, makes the hiding after each step: the firing takes the hidden copies made then", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    const hidings = vi.spyOn(ToolResultHiding.prototype, "compact");
    const early = [...talk(2), ...steps(0, 5)];
    // 1706 tokens: past the mark (1400), under the trigger; the verdict stands, and the hiding is made after the step.
    const grown = [...early, ...steps(5, 1)];
    await policy.compact(early);
    const step = await policy.compact(grown);
    expect(step.reason).toMatch(/no summary prepared: hiding will be enough at the firing$/);
    expect(hidings).toHaveBeenCalledTimes(1);
    await policy.settled();
    expect(hidings).toHaveBeenCalledTimes(2);
    const warm = await hidings.mock.results[1]!.value;
    // The firing hides t0..t6; the copies of t0..t4 are the ones made after the step.
    const fired = await policy.compact([...grown, ...steps(6, 2)]);
    expect(fired.status).toBe("compacted");
    const hiddenIn = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden !== undefined);
    expect(ids(hiddenIn(warm.messages))).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(ids(hiddenIn(fired.messages))).toEqual(["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
    expect(sameObjects(hiddenIn(fired.messages).slice(0, 5), hiddenIn(warm.messages))).toBe(true);
    expect(server!.requests).toHaveLength(0);
    hidings.mockRestore();
  });

  it("a hiding made after a step does not hold up a decision the next step needs", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    const early = [...talk(2), ...steps(0, 5)];
    await policy.compact(early);
    // The verdict stands: the firing's hiding is to be made after this step.
    expect((await policy.compact([...early, ...steps(5, 1)])).reason).toMatch(/hiding will be enough at the firing$/);
    // Before it runs, the thread's history is rewritten (its message at the verdict's length changed), and hiding will not be enough.
    const rewritten = [...talk(8), ...steps(0, 3)];
    expect(rewritten[early.length - 1]!.id).not.toBe(early.at(-1)!.id);
    expect((await policy.compact(rewritten)).reason).toMatch(/worked out in the background$/);
    await policy.settled();
    expect(server!.requests).toHaveLength(1);
  });

  it("over the stand limit, a hiding that gets under it goes in at once instead of a wait for the summary being prepared", async () => {
    server = await startOpenAIServer([{ content: "<summary>late</summary>", delayMs: 2000 }]);
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    const invoke = vi.spyOn(ChatOpenAI.prototype, "invoke");
    // A 2500-token window: the threshold (2000) fires, and the history stands only under 2250.
    const policy = autoCompaction(options(model, { contextWindow: 2500 }));
    const early = [...talk(10), ...steps(0, 2)];
    expect((await policy.compact(early)).reason).toMatch(/the summary of the first \d+ messages is being prepared$/);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // 2255 tokens: over the stand limit; hiding the 4 older results leaves about 1300, over the hiding target (1200).
    const firing = [...early, ...steps(2, 3)];
    const result = await policy.compact(firing);
    // The preparation it discards is aborted on the next turn of the event loop, not in the step.
    expect(invoke).toHaveBeenCalledTimes(1);
    const preparing = invoke.mock.calls[0]![1]!.signal!;
    expect(preparing.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(preparing.aborted).toBe(true);
    expect(result.status).toBe("compacted");
    expect(result.reason).toMatch(/^hiding left \d+ tokens, above the target 1200; over the stand limit 2250, kept the hiding: a summary follows without a wait$/);
    expect(result.tokensAfter).toBeLessThanOrEqual(2250);
    expect(result.replaced.map((entry) => entry.before.id)).toEqual(["t0", "t1", "t2", "t3"]);
    await policy.settled();
    await server.idle();
    expect(server.requests.map((request) => request.outcome)).toEqual(["aborted"]);
  });

  it("prepares when hiding will not be enough, and at a firing where hiding alone would stand applies the summary instead, the rest hidden", async () => {
    const model = await serve("prepared text");
    const policy = autoCompaction(options(model));
    // 800 tokens of talk and 3 steps (1565 tokens): hiding leaves most of the older part (the talk).
    const early = [...talk(8), ...steps(0, 3)];
    const prepared = await policy.compact(early);
    expect(prepared.reason).toMatch(/the summary of the first \d+ messages is being prepared$/);
    await policy.settled();
    expect(server!.requests).toHaveLength(1);
    // Two more steps fire the trigger; hiding the 4 older results alone would stand (under 1200).
    const fired = [...early, ...steps(3, 2)];
    const hidingOnly = await autoCompaction(options(model, { prepare: false })).compact(fired);
    expect(hidingOnly.status).toBe("compacted");
    const result = await policy.compact(fired);
    expect(server!.requests).toHaveLength(1);
    expect(result.status).toBe("summarized");
    const [summary, ...kept] = result.messages;
    expect(messageText(summary!)).toContain("prepared text");
    // What follows the prepared cut is the hiding's output: the older results as placeholders, the newest group verbatim.
    const cut = fired.length - kept.length;
    expect(ids(kept)).toEqual(ids(fired.slice(cut)));
    const hidden = kept.filter((message) => compactionMarkerOf(message)?.hidden !== undefined).map((message) => message.id);
    expect(hidden).toEqual(fired.slice(cut, -2).filter((message) => message.type === "tool").map((message) => message.id));
    expect(kept.at(-1)).toBe(fired.at(-1));
    expect(result.replaced.map((entry) => entry.index)).toEqual(fired.flatMap((message, index) => (index >= cut && index < fired.length - 2 && message.type === "tool" ? [index] : [])));
    expect(result.tokensAfter).toBeLessThan(hidingOnly.tokensAfter);
  });
});

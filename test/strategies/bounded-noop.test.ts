import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { autoCompaction, createTokenCounter, hardTruncate, toolResultHiding, type CompactionEvent, type CompactionResult, type TokenCounter } from "../../src/index.js";
import { loadEncoder } from "../../src/tokens/encoder.js";
import { microtaskTurns } from "../support/microtasks.js";
import { agentSteps as steps, resultSummary as summaryOf } from "../support/agent-steps.js";

const sessions = loadTraceSessions(defaultTracesPath());
const session = sessions.reduce((longest, each) => (each.messages.length > longest.messages.length ? each : longest));
/** Another session's messages up to the assistant message after the 40th (every call answered): another thread's history. */
const otherMessages = sessions.find((each) => each !== session && each.messages.length > 60)!.messages;
const other = otherMessages.slice(0, otherMessages.findIndex((message, index) => index >= 40 && message.type === "ai"));

type Factory = (trigger: number, tokenCounter: TokenCounter, onEvent?: (event: CompactionEvent) => void) => { compact(messages: readonly BaseMessage[]): Promise<CompactionResult> };

const factories: Record<string, Factory> = {
  toolResultHiding: (trigger, tokenCounter, onEvent) => toolResultHiding({ trigger: { tokens: trigger }, tokenCounter, ...(onEvent ? { onEvent } : {}) }),
  // hardTruncate is a no-op within maxTokens: it cuts from one token over.
  hardTruncate: (trigger, tokenCounter, onEvent) => hardTruncate({ maxTokens: trigger - 1, tokenCounter, ...(onEvent ? { onEvent } : {}) }),
  autoCompaction: (trigger, tokenCounter, onEvent) =>
    autoCompaction({ contextWindow: 10 * trigger, trigger: { tokens: trigger }, tokenCounter, ...(onEvent ? { onEvent } : {}) }),
};

/** autoCompaction preparing summaries ahead from 0.9 of the trigger: the bound must be under that mark too. */
const preparing: Factory = (trigger, tokenCounter, onEvent) =>
  autoCompaction({
    contextWindow: 10 * trigger,
    trigger: { tokens: trigger },
    tokenCounter,
    prepare: { at: 0.9 },
    summaryModel: new FakeListChatModel({ responses: ["<summary>prepared</summary>"] }),
    ...(onEvent ? { onEvent } : {}),
  });

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every step of the longest session under a trigger far above it: no tokenizing, yet the figures read are exact. */
async function expectUncountedNoops(make: Factory): Promise<void> {
  const encoder = await loadEncoder("o200k_base");
  const events: CompactionEvent[] = [];
  const strategy = make(100_000_000, createTokenCounter(), (event) => events.push(event));
  const all = steps(session.messages);
  let history = (await strategy.compact(all[0]!)).messages;
  const encode = vi.spyOn(encoder, "count");
  let read = 0;
  for (const [position, step] of all.slice(1).entries()) {
    const grown = [...history, ...step];
    encode.mockClear();
    const result = await strategy.compact(grown);
    expect(encode).not.toHaveBeenCalled();
    expect(result.status).toBe("noop");
    expect(result.messages).toHaveLength(grown.length);
    result.messages.forEach((message, index) => expect(message).toBe(grown[index]));
    expect(result.messages).not.toBe(grown);
    // Every third step, read the figures: they are what a strategy counting everything reports.
    if (position % 3 === 0) {
      read++;
      const fresh = await make(100_000_000, createTokenCounter()).compact(grown);
      expect(summaryOf(result)).toEqual(summaryOf(fresh));
      expect(encode).toHaveBeenCalled();
      expect(events.at(-1)!.tokensBefore).toBe(fresh.tokensBefore);
      expect(events.at(-1)!.status).toBe("noop");
    }
    history = result.messages;
  }
  expect(read).toBeGreaterThan(3);
  expect(events).toHaveLength(all.length);
  }

describe.each(Object.keys(factories))("%s: a step under the upper bound", (name) => {
  const make = factories[name]!;

  it("returns the same message objects without tokenizing, and exact figures and reason when read", async () => {
    await expectUncountedNoops(make);
  });

  it("behaves exactly as a strategy that counts everything when a step crosses the trigger, and after", async () => {
    const all = steps(session.messages);
    const exact = createTokenCounter();
    // The trigger: the exact size of the history at two thirds of the session.
    const crossing = Math.floor((all.length * 2) / 3);
    const measured = await exact.measure(all.slice(0, crossing + 1).flat());
    const systemTokens = all.slice(0, crossing + 1).flat().reduce((sum, message, index) => sum + (message.type === "system" ? measured.perMessage[index]! : 0), 0);
    // autoCompaction's trigger measures the conversation (the history without its system messages).
    const trigger = name === "autoCompaction" ? measured.total - systemTokens : measured.total;
    const strategy = make(trigger, createTokenCounter());
    let history: BaseMessage[] = [];
    const statuses: string[] = [];
    for (const step of all) {
      const grown = [...history, ...step];
      const result = await strategy.compact(grown);
      const fresh = await make(trigger, createTokenCounter()).compact(grown);
      expect(summaryOf(result)).toEqual(summaryOf(fresh));
      statuses.push(result.status);
      history = result.messages;
    }
    expect(statuses.slice(0, crossing)).toEqual(Array(crossing).fill("noop"));
    expect(statuses[crossing]).not.toBe("noop");
  });

  it("counts the skipped messages after the step, off its path, so the run that needs them finds them counted", async () => {
    const encoder = await loadEncoder("o200k_base");
    const strategy = make(100_000_000, createTokenCounter()) as unknown as { compact(messages: readonly BaseMessage[], context?: { force?: boolean }): Promise<CompactionResult> };
    const all = steps(session.messages);
    const first = (await strategy.compact(all[0]!)).messages;
    const encode = vi.spyOn(encoder, "count");
    const grown = [...first, ...all[1]!];
    await strategy.compact(grown);
    expect(encode).not.toHaveBeenCalled();
    // The agent's model call: the event loop turns, the step's new messages are counted.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(encode).toHaveBeenCalled();
    encode.mockClear();
    await strategy.compact(grown, { force: true });
    expect(encode).not.toHaveBeenCalled();
  });

  it("resolves without an await of its own: nothing queued after it runs before the caller goes on", async () => {
    const strategy = make(100_000_000, createTokenCounter());
    const all = steps(session.messages);
    let history = (await strategy.compact(all[0]!)).messages;
    const turns: number[] = [];
    for (const step of all.slice(1, 6)) {
      const grown = [...history, ...step];
      const pending = strategy.compact(grown);
      turns.push(await microtaskTurns(() => pending));
      const result = await pending;
      expect(result.status).toBe("noop");
      history = result.messages;
    }
    // As an already resolved promise (an async step of three awaits took 3 or 4).
    expect(await microtaskTurns(() => Promise.resolve())).toBe(1);
    expect(turns).toEqual([1, 1, 1, 1, 1]);
  });

  it("decides a run with no history it grew from (a first run, another thread's history) by the bound too, once its counter has measured the empty history", async () => {
    const encoder = await loadEncoder("o200k_base");
    const counter = createTokenCounter();
    const all = steps(session.messages);
    const strategy = make(100_000_000, counter);
    // The counter's first run counts, and has the empty history measured after it.
    await strategy.compact(all[0]!);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const encode = vi.spyOn(encoder, "count");
    // A first run of another strategy on the same counter, and a history the strategy's last output is not a prefix of.
    const first = await make(100_000_000, counter).compact(all.slice(0, 3).flat());
    const otherThread = await strategy.compact(other);
    expect(encode).not.toHaveBeenCalled();
    // Exact figures when read, as a strategy counting everything gives them.
    expect(summaryOf(first)).toEqual(summaryOf(await make(100_000_000, createTokenCounter()).compact(all.slice(0, 3).flat())));
    expect(summaryOf(otherThread)).toEqual(summaryOf(await make(100_000_000, createTokenCounter()).compact(other)));
  });

  it("counts when the run is forced", async () => {
    const encoder = await loadEncoder("o200k_base");
    const strategy = make(100_000_000, createTokenCounter()) as unknown as { compact(messages: readonly BaseMessage[], context?: { force?: boolean }): Promise<CompactionResult> };
    const all = steps(session.messages);
    const first = (await strategy.compact(all[0]!)).messages;
    const encode = vi.spyOn(encoder, "count");
    await strategy.compact([...first, ...all[1]!], { force: true });
    expect(encode).toHaveBeenCalled();
  });
});

describe("counting after a no-op step under the bound", () => {
  it("leaves calibration as a full count sets it: a provider's usage record is judged against the whole prefix", async () => {
    const first = [new HumanMessage({ id: "u", content: "please look at the repository ".repeat(200) })];
    const call = new AIMessage({
      id: "a",
      content: "ok",
      tool_calls: [{ id: "c", name: "bash", args: {}, type: "tool_call" }],
      usage_metadata: { input_tokens: 5000, output_tokens: 5, total_tokens: 5005 },
    });
    const grown = [...first, call, new ToolMessage({ id: "t", content: "x", tool_call_id: "c" })];
    const strategy = toolResultHiding({ trigger: { tokens: 1_000_000 }, tokenCounter: createTokenCounter() });
    await strategy.compact(first);
    expect((await strategy.compact(grown)).status).toBe("noop");
    // The step's new messages are counted now, the usage record among them.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const next = [...grown, new HumanMessage({ id: "h", content: "next" })];
    const counted = await strategy.compact(next, { force: true } as never);
    expect(counted.tokensBefore).toBe((await createTokenCounter().measure(next)).total);
  });
});

describe("the bound's starting point", () => {
  it("moves on to a no-op step's messages once they are counted after it: the next bound walks only the messages after them", async () => {
    const counter = createTokenCounter();
    const strategy = toolResultHiding({ trigger: { tokens: 100_000_000 }, tokenCounter: counter });
    const all = steps(session.messages);
    const first = (await strategy.compact(all[0]!)).messages;
    const second = [...first, ...all[1]!];
    await strategy.compact(second);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const bound = vi.spyOn(counter, "upperBound");
    await strategy.compact([...second, ...all[2]!]);
    expect(bound.mock.calls.map(([previous]) => previous.perMessage.length)).toEqual([second.length]);
  });

  it("is not misled by a caller that changes its array after the step: the next run counts what it is given", async () => {
    const strategy = hardTruncate({ maxTokens: 5000, tokenCounter: createTokenCounter() });
    const first = [new HumanMessage({ id: "u0", content: "hello" }), new AIMessage({ id: "a0", content: "hi" })];
    await strategy.compact(first);
    const history = [...first, new HumanMessage({ id: "u1", content: "go on" })];
    expect((await strategy.compact(history)).status).toBe("noop");
    // The caller reuses its array; the step's messages are counted after it.
    history.push(new HumanMessage({ id: "tiny", content: "x" }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const next = [...history.slice(0, 3), new HumanMessage({ id: "big", content: "word ".repeat(8000) })];
    const result = await strategy.compact(next);
    expect({ status: result.status, tokensBefore: result.tokensBefore }).toEqual({ status: "truncated", tokensBefore: (await createTokenCounter().measure(next)).total });
  });

  it("a counter whose measure() throws at once on the empty history: runs count instead, nothing rejects", async () => {
    const counter = createTokenCounter();
    // Every method delegates to the counter, bound to it; measure() throws at once on the empty history.
    const delegated = Object.fromEntries(
      Object.getOwnPropertyNames(Object.getPrototypeOf(counter))
        .filter((name) => name !== "constructor" && typeof (counter as unknown as Record<string, unknown>)[name] === "function")
        .map((name) => [name, ((counter as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!).bind(counter)]),
    );
    const throwing = {
      ...delegated,
      mode: counter.mode,
      encoding: counter.encoding,
      calibrate: counter.calibrate,
      measure: (messages: readonly BaseMessage[]) => {
        if (messages.length === 0) throw new Error("no empty histories here");
        return counter.measure(messages);
      },
    } as unknown as TokenCounter;
    const all = steps(session.messages);
    const history = all.slice(0, 3).flat();
    const strategy = toolResultHiding({ trigger: { tokens: 100_000_000 }, tokenCounter: throwing });
    await strategy.compact(all[0]!);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const result = await toolResultHiding({ trigger: { tokens: 100_000_000 }, tokenCounter: throwing }).compact(history);
    expect(summaryOf(result)).toEqual(summaryOf(await toolResultHiding({ trigger: { tokens: 100_000_000 }, tokenCounter: createTokenCounter() }).compact(history)));
  });
});

describe("autoCompaction preparing summaries ahead: a step under the upper bound and the mark", () => {
  it("returns the same message objects without tokenizing, and exact figures and reason when read", async () => {
    await expectUncountedNoops(preparing);
  });
});

/**
 * An observer (`onEvent`, a logger) that throws or rejects never affects a run, and its rejection
 * never becomes an unhandled rejection (issue 11: an async onEvent that rejected killed the process).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  InvalidHistoryError,
  autoCompaction,
  createTokenCounter,
  hardTruncate,
  toolResultHiding,
  type CompactionEvent,
  type CompactionLogger,
  type CompactionResult,
} from "../../src/index.js";
import { ids, step, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const history = (): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: 10 }, (_, n) => step(n + 1, `output of step ${n + 1}: ${"line of text ".repeat(300)}`)).flat(), user("u2")];

/** What a run did, for comparing an observed run with an unobserved one. */
const outcome = (result: CompactionResult) => ({
  status: result.status,
  ids: ids(result.messages),
  tokensBefore: result.tokensBefore,
  tokensAfter: result.tokensAfter,
  removed: result.removed.map(({ index }) => index),
  replaced: result.replaced.map(({ index }) => index),
  reason: result.reason,
});

const failure = () => new Error("the observer is down");
/** Observers that fail in each way an observer can. */
const failingObservers: readonly [string, (event: CompactionEvent) => void][] = [
  ["throws", () => {
    throw failure();
  }],
  ["returns a rejected promise", async () => {
    throw failure();
  }],
  ["returns a thenable that rejects", () => ({ then: (_resolve: unknown, reject: (reason: unknown) => void) => reject(failure()) }) as unknown as void],
];

/** A logger whose every method fails the same way. */
const failingLogger = (observer: (event: CompactionEvent) => void): CompactionLogger => ({
  debug: (_message, event) => observer(event),
  info: (_message, event) => observer(event),
  warn: (_message, event) => observer(event),
});

/** Unhandled rejections surface once the current macrotask's microtasks have run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

let rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
beforeEach(() => {
  rejections = [];
  process.on("unhandledRejection", onRejection);
});
afterEach(() => {
  process.off("unhandledRejection", onRejection);
});

describe.each(failingObservers)("an observer that %s", (_, observer) => {
  it("leaves a compaction's result as it is without the observer", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const observed = await hardTruncate({ maxTokens: Math.floor(total / 2), tokenCounter, onEvent: observer, logger: failingLogger(observer) }).compact(input);
    const plain = await hardTruncate({ maxTokens: Math.floor(total / 2), tokenCounter }).compact(input);
    await settle();
    expect(observed.status).toBe("truncated");
    expect(outcome(observed)).toEqual(outcome(plain));
    expect(rejections).toEqual([]);
  });

  it("leaves a no-op and a policy's run as they are", async () => {
    const input = history();
    const noop = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 10, onEvent: observer }).compact(input);
    const policy = await autoCompaction({ tokenCounter, contextWindow: 100_000, hiding: false, onEvent: observer, logger: failingLogger(observer) }).compact(input, { force: true });
    const plainPolicy = await autoCompaction({ tokenCounter, contextWindow: 100_000, hiding: false }).compact(input, { force: true });
    await settle();
    expect(noop.status).toBe("noop");
    expect(policy.status).toBe("summarized");
    expect(outcome(policy)).toEqual(outcome(plainPolicy));
    expect(rejections).toEqual([]);
  });

  it("leaves a run's own error as the error thrown", async () => {
    const error = await caught(() => toolResultHiding({ ...EVERY_RUN, tokenCounter, onEvent: observer }).compact([user("u1"), toolResult("t1", "nobody")]));
    await settle();
    expect(InvalidHistoryError.isInstance(error) && error.problems.map(({ kind }) => kind)).toEqual(["orphan-result"]);
    expect(rejections).toEqual([]);
  });

  it("leaves a run inside a LangChain run (the custom event dispatched too) as it is", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const messages = await hardTruncate({ maxTokens: Math.floor(total / 2), tokenCounter, onEvent: observer }).invoke(input, { callbacks: [] });
    const plain = await hardTruncate({ maxTokens: Math.floor(total / 2), tokenCounter }).invoke(input);
    await settle();
    expect(ids(messages)).toEqual(ids(plain));
    expect(rejections).toEqual([]);
  });
});

describe("an observer that works", () => {
  it("gets the event even when it is async", async () => {
    const events: string[] = [];
    await toolResultHiding({ ...EVERY_RUN, tokenCounter, onEvent: async (event) => void events.push(`${event.strategy} ${event.status}`) }).compact(history());
    expect(events).toEqual(["toolResultHiding compacted"]);
  });
});

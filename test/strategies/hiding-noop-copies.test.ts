/**
 * A hiding step that cannot fire makes no hidden copy: when the results it would hide hold fewer
 * than `clearAtLeast` tokens in all, the step is a no-op without a pass, and its reason (what the
 * pass would have freed) is computed when read. Outputs and reasons are those of the pass at every
 * step (a counter that cannot count synchronously still runs it).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf, createTokenCounter, toolResultHiding, type CompactionResult, type TokenCounter, type ToolResultHidingOptions } from "../../src/index.js";
import { supersessionWork } from "../../src/messages/supersession-ledger.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

/** A counter that counts, as work, the hidden copies it is asked to count (by `countMessage`, or synchronously by a bound's `measure`). */
function countingCopies(withBound: boolean): { counter: TokenCounter; work: { copies: number } } {
  const base = createTokenCounter({ mode: "approximate" });
  const work = { copies: 0 };
  const copies = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden === true).length;
  const counter: TokenCounter = {
    mode: base.mode,
    encoding: base.encoding,
    calibrate: base.calibrate,
    countText: (text) => base.countText(text),
    countMessage: (message) => {
      work.copies += copies([message]);
      return base.countMessage(message);
    },
    countMessages: (messages) => base.countMessages(messages),
    measure: (messages) => base.measure(messages),
    extend: (previous, messages) => base.extend!(previous, messages),
    truncateText: (text, maxTokens) => base.truncateText(text, maxTokens),
    ...(withBound
      ? {
          upperBound: (previous, messages) => {
            const bound = base.upperBound!(previous, messages);
            return bound && { total: bound.total, measure: () => ((work.copies += copies(messages.slice(previous.perMessage.length))), bound.measure()) };
          },
        }
      : {}),
  };
  return { counter, work };
}

/** Step n: `ls` again, its result about 1,000 tokens (approximate counter). */
const ls = (n: number): BaseMessage[] => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command: "ls" } }]), toolResult(`t${n}`, `c${n}`, `src/module_${n}/file.ts `.repeat(170))];

/** A message as a provider reads it, with the markers. */
const shape = (message: BaseMessage) => [message.id, message.content, compactionMarkerOf(message)?.supersededBy, compactionMarkerOf(message)?.batch];

/**
 * The same steps through two hidings with `options`: one whose counter bounds (it may skip the
 * pass), one whose counter does not (it runs the pass). 30 steps compacted at once, then `steps`
 * more one at a time; each hiding's results, and per step the change of `work` around its run.
 */
async function stepBoth(options: ToolResultHidingOptions, step: (n: number) => BaseMessage[], steps: number, work: (copies: { copies: number }) => number) {
  const counters = [countingCopies(true), countingCopies(false)];
  const hidings = counters.map(({ counter }) => toolResultHiding({ ...options, tokenCounter: counter }));
  const start: BaseMessage[] = [system("s"), user("u")];
  for (let n = 0; n < 30; n++) start.push(...step(n));
  const histories = await Promise.all(hidings.map(async (hiding) => (await hiding.compact(start)).messages));
  const results: CompactionResult[][] = [[], []];
  const changes: number[][] = [[], []];
  for (let n = 30; n < 30 + steps; n++) {
    const added = step(n);
    for (const [which, hiding] of hidings.entries()) {
      const before = work(counters[which]!.work);
      const result = await hiding.compact([...histories[which]!, ...added]);
      changes[which]!.push(work(counters[which]!.work) - before);
      histories[which] = result.messages;
      results[which]!.push(result);
    }
  }
  return { results, changes };
}

describe("a hiding step that cannot fire", () => {
  it("makes no hidden copy, and gives the outputs and the reasons of the pass", async () => {
    // Each `ls` supersedes the one before: a step's candidates are the results since the last firing,
    // about 1,000 tokens each. Two free under 2,500 even at most; three free more once hidden.
    const { results, changes } = await stepBoth({ trigger: { messages: 1 }, keepRecentGroups: 3, clearAtLeast: 2_500 }, ls, 15, ({ copies }) => copies);
    const noopCopies = results.map((runs, which) => runs.reduce((sum, result, step) => sum + (result.status === "noop" ? changes[which]![step]! : 0), 0));
    const statuses = results[0]!.map((result) => result.status);
    // Fires at every third step: the three results since the last firing.
    expect(statuses).toEqual(Array.from({ length: 15 }, (_, step) => (step % 3 === 2 ? "compacted" : "noop")));
    expect(results[1]!.map((result) => result.status)).toEqual(statuses);
    // The pass hides one result at the first no-op after a firing, two at the second: 10 no-ops, 15 copies.
    expect(noopCopies).toEqual([0, 15]);
    // Read after the last step: the reasons the pass gave at each step.
    expect(results[0]!.map((result) => result.reason)).toEqual(results[1]!.map((result) => result.reason));
    expect(results[0]![0]!.reason).toMatch(/^hiding would free \d+ tokens, less than clearAtLeast \(2500\)$/);
    expect(results[0]!.map((result) => result.messages.map(shape))).toEqual(results[1]!.map((result) => result.messages.map(shape)));
  });

  it("short of clearAtLeast even were every kept result superseded, does no supersession scan, and gives the reason of the pass", async () => {
    // `ls` results of about 100 tokens: the results not hidden yet reach 1,000 tokens only after
    // several steps; until then a step does no supersession work at all.
    const small = (n: number): BaseMessage[] => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command: "ls" } }]), toolResult(`t${n}`, `c${n}`, `src/m_${n}.ts `.repeat(30))];
    const { results, changes } = await stepBoth({ trigger: { messages: 1 }, keepRecentGroups: 3, clearAtLeast: 1_000 }, small, 20, () => supersessionWork.partialScans + supersessionWork.fullScans);
    const scans = changes[0]!;
    const statuses = results[0]!.map((result) => result.status);
    expect(results[1]!.map((result) => result.status)).toEqual(statuses);
    // Scans only at the steps where what is not hidden yet could reach clearAtLeast (and at firings).
    const quiet = (steps: number) => Array.from({ length: steps }, () => ["noop", 0]);
    expect(statuses.map((status, step) => [status, scans[step]])).toEqual([...quiet(9), ["noop", 1], ["noop", 1], ["noop", 1], ["compacted", 1], ...quiet(7)]);
    expect(results[0]!.map((result) => result.reason)).toEqual(results[1]!.map((result) => result.reason));
    expect(results[0]!.map((result) => result.messages.map(shape))).toEqual(results[1]!.map((result) => result.messages.map(shape)));
  });
});

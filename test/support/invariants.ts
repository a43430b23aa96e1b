/**
 * Invariants every compaction (and every tool-pairing repair) must keep, as `expect` checks shared by
 * the property suite and the trace suite.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { expect } from "vitest";
import { validateToolPairing, type CompactionResult, type TokenCounter } from "../../src/index.js";

/** What a compaction result and a `repairToolPairing` result have in common. */
export interface HistoryEdit {
  readonly messages: readonly BaseMessage[];
  readonly removed: readonly { readonly index: number; readonly message: BaseMessage }[];
  readonly replaced: readonly { readonly index: number; readonly before: BaseMessage; readonly after: BaseMessage }[];
}

export interface HistorySnapshot {
  readonly array: readonly BaseMessage[];
  readonly elements: readonly BaseMessage[];
  readonly serialized: string;
}

/** Record an input history (its array, its elements and their serialized form) before a run. */
export function snapshotHistory(messages: readonly BaseMessage[]): HistorySnapshot {
  return { array: messages, elements: [...messages], serialized: JSON.stringify(messages.map((message) => message.toJSON())) };
}

/** The input array still holds the same objects, and none of them changed. */
export function expectHistoryUnchanged(snapshot: HistorySnapshot): void {
  expect(snapshot.array).toHaveLength(snapshot.elements.length);
  snapshot.array.forEach((message, position) => expect(message).toBe(snapshot.elements[position]));
  expect(JSON.stringify(snapshot.array.map((message) => message.toJSON()))).toBe(snapshot.serialized);
}

export function expectValidPairing(messages: readonly BaseMessage[]): void {
  expect(validateToolPairing(messages)).toEqual([]);
}

export function leadingSystemCount(messages: readonly BaseMessage[]): number {
  let count = 0;
  while (count < messages.length && messages[count]!.type === "system") count++;
  return count;
}

/** The input's leading system messages open the output, as the very same objects. */
export function expectLeadingSystemsKept(input: readonly BaseMessage[], output: readonly BaseMessage[]): void {
  const count = leadingSystemCount(input);
  expect(leadingSystemCount(output)).toBe(count);
  output.slice(0, count).forEach((message, position) => expect(message).toBe(input[position]));
}

/** True when both arrays hold the same objects in the same order. */
export function isSameHistory(a: readonly BaseMessage[], b: readonly BaseMessage[]): boolean {
  return a.length === b.length && a.every((message, position) => message === b[position]);
}

/**
 * For each output message, the input position it comes from: the input object itself, or the `after`
 * of a `replaced` entry. -1 for a message that comes from nowhere.
 */
export function sourcePositions(input: readonly BaseMessage[], edit: HistoryEdit): number[] {
  const inputPosition = new Map(input.map((message, position) => [message, position] as const));
  const replacedPosition = new Map(edit.replaced.map((entry) => [entry.after, entry.index] as const));
  return edit.messages.map((message) => inputPosition.get(message) ?? replacedPosition.get(message) ?? -1);
}

const ascending = (a: number, b: number) => a - b;

/** Output messages map to input messages at strictly increasing positions. */
export function expectOrderKept(input: readonly BaseMessage[], edit: HistoryEdit): void {
  const sources = sourcePositions(input, edit);
  expect(sources).not.toContain(-1);
  expect(sources).toEqual([...new Set(sources)].sort(ascending));
}

/**
 * Every input position is accounted for exactly once: kept as the same object, replaced by a copy
 * that is in the output, or removed; and `removed`/`replaced` name the input objects at their index.
 */
export function expectEveryMessageAccountedOnce(input: readonly BaseMessage[], edit: HistoryEdit): void {
  const inputPosition = new Map(input.map((message, position) => [message, position] as const));
  const kept = edit.messages.flatMap((message) => {
    const position = inputPosition.get(message);
    return position === undefined ? [] : [position];
  });
  const output = new Set(edit.messages);
  const accounted = [...kept, ...edit.replaced.map((entry) => entry.index), ...edit.removed.map((entry) => entry.index)];
  expect(accounted.sort(ascending)).toEqual(input.map((_, position) => position));
  expect(edit.removed.filter((entry) => entry.message !== input[entry.index])).toEqual([]);
  expect(edit.replaced.filter((entry) => entry.before !== input[entry.index])).toEqual([]);
  expect(edit.replaced.filter((entry) => !output.has(entry.after))).toEqual([]);
}

/** `noop` (and `failed`) return the input's messages; `compacted` and `truncated` return something else. */
export function expectStatusMatchesChange(input: readonly BaseMessage[], result: CompactionResult): void {
  const unchanged = isSameHistory(result.messages, input);
  expect(unchanged, `status ${result.status}, output ${unchanged ? "identical to" : "different from"} the input`).toBe(
    result.status === "noop" || result.status === "failed",
  );
}

export function expectTokensNotIncreased(result: CompactionResult): void {
  expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
}

/** `tokensBefore` and `tokensAfter` are what the same counter says of the input and the output. */
export async function expectTokenFiguresRecount(input: readonly BaseMessage[], result: CompactionResult, counter: TokenCounter): Promise<void> {
  expect({ tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter }).toEqual({
    tokensBefore: await counter.countMessages(input),
    tokensAfter: await counter.countMessages(result.messages),
  });
}

/**
 * A hard limit holds unless the run failed; a failed run returns the input unchanged and says what
 * the smallest history it could build still needs, which is over the limit.
 */
export function expectWithinHardLimit(input: readonly BaseMessage[], result: CompactionResult, maxTokens: number): void {
  if (result.status === "failed") {
    expect(isSameHistory(result.messages, input), "a failed run returns the input").toBe(true);
    const needed = /^cannot fit (\d+) tokens: system messages and the newest exchange still need (\d+)$/.exec(result.reason ?? "");
    expect(needed?.[1], `failure reason: ${result.reason}`).toBe(String(maxTokens));
    expect(Number(needed?.[2])).toBeGreaterThan(maxTokens);
  } else expect(result.tokensAfter).toBeLessThanOrEqual(maxTokens);
}

import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionResult, RemovedMessage, ReplacedMessage } from "../types.js";

/** Two results run one after the other, reported against the first one's input. */
export interface ChainedChanges {
  readonly messages: BaseMessage[];
  readonly removed: RemovedMessage[];
  readonly replaced: ReplacedMessage[];
}

/**
 * Combine `second` (run on `first.messages`) with `first` (run on `input`), so that `removed` and
 * `replaced` index into `input` and hold its originals: a message hidden by the first step and then
 * summarized by the second is reported as removed, with its original content.
 *
 * `first` must only remove messages and replace them in place (hiding, selective rules,
 * truncation); `second` may also insert (a summary). Linear.
 * @internal
 */
export function chainResults(input: readonly BaseMessage[], first: CompactionResult, second: CompactionResult): ChainedChanges {
  // Input position of each message of first.messages.
  const removedByFirst = new Set(first.removed.map(({ index }) => index));
  const inputPositionOf: number[] = [];
  for (let position = 0; position < input.length; position++) if (!removedByFirst.has(position)) inputPositionOf.push(position);
  const replaced = new Map<number, ReplacedMessage>(first.replaced.map((entry) => [entry.index, entry]));
  const removed: RemovedMessage[] = [...first.removed];
  for (const { index } of second.removed) {
    const position = inputPositionOf[index]!;
    removed.push({ index: position, message: input[position]! });
    replaced.delete(position);
  }
  for (const { index, after } of second.replaced) {
    const position = inputPositionOf[index]!;
    replaced.set(position, { index: position, before: input[position]!, after });
  }
  return {
    messages: second.messages,
    removed: removed.sort((a, b) => a.index - b.index),
    replaced: [...replaced.values()].sort((a, b) => a.index - b.index),
  };
}

/**
 * A summary's result followed by a truncation of its output, reported against the original input.
 * The summary's output is `[system messages..., summary, ...input.slice(tailStart)]`; a tail message
 * the truncation drops is reported as removed (the summary's originals already are).
 * @internal
 */
export function chainSummaryThenTruncation(input: readonly BaseMessage[], summary: CompactionResult, truncation: CompactionResult): ChainedChanges {
  const inputMessages = new Set(input);
  const summaryPosition = summary.messages.findIndex((message) => !inputMessages.has(message));
  const tailStart = input.length - (summary.messages.length - summaryPosition - 1);
  const inputPositionOf = (index: number) => (index > summaryPosition ? tailStart + index - summaryPosition - 1 : undefined);
  const removed = [...summary.removed];
  const replaced = new Map(summary.replaced.map((entry) => [entry.index, entry]));
  for (const { index } of truncation.removed) {
    const position = inputPositionOf(index);
    if (position === undefined) continue;
    removed.push({ index: position, message: input[position]! });
    replaced.delete(position);
  }
  for (const { index, after } of truncation.replaced) {
    const position = inputPositionOf(index);
    if (position !== undefined) replaced.set(position, { index: position, before: input[position]!, after });
  }
  return { messages: truncation.messages, removed: removed.sort((a, b) => a.index - b.index), replaced: [...replaced.values()].sort((a, b) => a.index - b.index) };
}


import type { BaseMessage } from "@langchain/core/messages";
import { ToolCallIndexBuilder, type ToolCallIndex } from "./tool-call-index.js";
import { isUserMessage } from "./tool-result-blocks.js";

export { ToolCallIndexBuilder, type ToolCallGroup, type ToolCallIndex, type ToolPairingProblem } from "./tool-call-index.js";

/**
 * Index the tool-call groups of a history in one pass, and find every pairing problem on the way.
 *
 * Calls are read as providers send them (`assistantCalls`); results are tool messages and the
 * `tool_result` blocks of human messages (Anthropic's form). A tool result answers the earliest
 * call with its id, among the calls of the assistant message whose contiguous results it is in;
 * failing that, the earliest earlier call with its id still unanswered (`misplaced-result`: providers
 * want every result directly after its call). A repeated call id is a problem (`duplicate-call-id`);
 * results are matched to calls by position, so each call keeps its own result.
 *
 * @example
 * const { groups, groupOf, problems } = indexToolCallGroups(messages);
 */
export function indexToolCallGroups(messages: readonly BaseMessage[]): ToolCallIndex {
  const builder = new ToolCallIndexBuilder();
  for (const message of messages) builder.push(message);
  return builder.view();
}

/**
 * Where a history may be cut without separating a tool call from its results (tool messages, or a
 * human message whose `tool_result` blocks answer it).
 *
 * Returns one flag per position `0..messages.length`: `1` at position `c` means keeping
 * `messages.slice(c)` (or dropping it) splits no tool-call group. Linear, from a
 * {@link indexToolCallGroups} result you may already have.
 *
 * @example
 * const safe = safeCutPoints(messages);
 * const tail = safe[start] ? messages.slice(start) : undefined;
 */
export function safeCutPoints(messages: readonly BaseMessage[], index: ToolCallIndex = indexToolCallGroups(messages)): Uint8Array {
  const length = messages.length;
  // Difference array: every group makes the positions assistantIndex+1 .. end unsafe.
  const coverage = new Int32Array(length + 2);
  for (const group of index.groups) {
    if (group.end > group.assistantIndex) {
      coverage[group.assistantIndex + 1]! += 1;
      coverage[group.end + 1]! -= 1;
    }
  }
  const safe = new Uint8Array(length + 1);
  let open = 0;
  for (let position = 0; position <= length; position++) {
    open += coverage[position]!;
    safe[position] = open === 0 ? 1 : 0;
  }
  return safe;
}

/**
 * Indices where a user turn starts and the history can be cut: human messages at a safe cut point
 * that carry no `tool_result` block (a message that does answers the assistant message before it:
 * it is part of that turn, not a new one).
 *
 * @example
 * const starts = userTurnStarts(messages);
 * const lastTwoTurns = messages.slice(starts.at(-2) ?? 0);
 */
export function userTurnStarts(messages: readonly BaseMessage[], safe: Uint8Array = safeCutPoints(messages)): number[] {
  const starts: number[] = [];
  for (let position = 0; position < messages.length; position++) {
    if (safe[position] === 1 && isUserMessage(messages[position]!)) starts.push(position);
  }
  return starts;
}

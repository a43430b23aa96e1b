import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";

/** One problem that would make a provider reject the history. Indices are into the history. */
export type ToolPairingProblem =
  | { kind: "missing-call-id"; index: number; callPosition: number; message: string }
  | { kind: "duplicate-call-id"; index: number; toolCallId: string; firstIndex: number; message: string }
  | { kind: "unanswered-call"; index: number; toolCallId: string; message: string }
  | { kind: "orphan-result"; index: number; toolCallId: string; message: string }
  | { kind: "duplicate-result"; index: number; toolCallId: string; firstIndex: number; message: string };

/**
 * A tool-call group (seed 001 §3.1): an assistant message with `tool_calls` plus the tool results
 * answering its ids. Parallel calls are one group; a group is kept or hidden as a whole.
 */
export interface ToolCallGroup {
  /** Index of the assistant message that made the calls. */
  readonly assistantIndex: number;
  /** Ids of the calls, in the assistant message's order (calls without an id are left out). */
  readonly callIds: readonly string[];
  /** Indices of the tool results answering the calls, ascending. */
  readonly resultIndices: readonly number[];
  /** The last index the group covers: its last result, or the assistant message itself. */
  readonly end: number;
}

/** What one linear pass over a history learns about its tool calls. */
export interface ToolCallIndex {
  readonly groups: readonly ToolCallGroup[];
  /** For each message, the number of the group it belongs to in `groups`, or -1. */
  readonly groupOf: Int32Array;
  /** Pairing problems, in the order they were found. Empty for a valid history. */
  readonly problems: readonly ToolPairingProblem[];
  /**
   * For a duplicate call id, the unique id the repair gives that occurrence and its results:
   * keyed by `${messageIndex}:${callPosition}` for calls and by the message index for results.
   * @internal
   */
  readonly renamedCalls: ReadonlyMap<string, string>;
  /** @internal */
  readonly renamedResults: ReadonlyMap<number, string>;
}

interface PendingCall {
  group: number;
  assistantIndex: number;
  callPosition: number;
  resolvedId: string;
}

interface MutableGroup {
  assistantIndex: number;
  callIds: string[];
  resultIndices: number[];
  end: number;
}

/**
 * Index the tool-call groups of a history in one pass, and find every pairing problem on the way.
 *
 * A tool result answers the most recent earlier call with its id that has no result yet. A repeated
 * call id is a problem (`duplicate-call-id`); its later occurrence is the one later results answer.
 *
 * @example
 * const { groups, groupOf, problems } = indexToolCallGroups(messages);
 */
export function indexToolCallGroups(messages: readonly BaseMessage[]): ToolCallIndex {
  const groups: MutableGroup[] = [];
  const groupOf = new Int32Array(messages.length).fill(-1);
  const problems: ToolPairingProblem[] = [];
  const pending = new Map<string, PendingCall>();
  /** Where each call id was first made, and where it was first answered. */
  const firstCallIndex = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const usedIds = new Set<string>();
  const duplicateCount = new Map<string, number>();
  const renamedCalls = new Map<string, string>();
  const renamedResults = new Map<number, string>();

  const reportUnanswered = (call: PendingCall, toolCallId: string) => {
    problems.push({
      kind: "unanswered-call",
      index: call.assistantIndex,
      toolCallId,
      message: `message ${call.assistantIndex} calls tool \`${toolCallId}\`, which no later tool result answers`,
    });
  };

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (isAssistantMessage(message)) {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) continue;
      const group: MutableGroup = { assistantIndex: index, callIds: [], resultIndices: [], end: index };
      const groupNumber = groups.length;
      groups.push(group);
      groupOf[index] = groupNumber;
      calls.forEach((call, callPosition) => {
        const id = call.id;
        if (typeof id !== "string" || id === "") {
          problems.push({
            kind: "missing-call-id",
            index,
            callPosition,
            message: `message ${index}: tool call ${callPosition} (\`${call.name}\`) has no id, so no result can answer it`,
          });
          return;
        }
        let resolvedId = id;
        const firstIndex = firstCallIndex.get(id);
        if (firstIndex !== undefined) {
          problems.push({
            kind: "duplicate-call-id",
            index,
            toolCallId: id,
            firstIndex,
            message: `message ${index} repeats tool call id \`${id}\` first used at message ${firstIndex}`,
          });
          const earlier = pending.get(id);
          if (earlier) {
            pending.delete(id);
            reportUnanswered(earlier, id);
          }
          let count = duplicateCount.get(id) ?? 0;
          do {
            count += 1;
            resolvedId = `${id}__dup${count}`;
          } while (usedIds.has(resolvedId));
          duplicateCount.set(id, count);
          renamedCalls.set(`${index}:${callPosition}`, resolvedId);
        } else {
          firstCallIndex.set(id, index);
        }
        usedIds.add(resolvedId);
        group.callIds.push(id);
        pending.set(id, { group: groupNumber, assistantIndex: index, callPosition, resolvedId });
      });
    } else if (isToolResultMessage(message)) {
      const id = message.tool_call_id;
      const call = pending.get(id);
      if (call) {
        pending.delete(id);
        answeredAt.set(id, index);
        const group = groups[call.group]!;
        group.resultIndices.push(index);
        group.end = index;
        groupOf[index] = call.group;
        if (call.resolvedId !== id) renamedResults.set(index, call.resolvedId);
        continue;
      }
      const firstAnswer = answeredAt.get(id);
      if (firstAnswer !== undefined) {
        problems.push({
          kind: "duplicate-result",
          index,
          toolCallId: id,
          firstIndex: firstAnswer,
          message: `message ${index} answers tool call \`${id}\` again (first answered at message ${firstAnswer})`,
        });
      } else {
        problems.push({
          kind: "orphan-result",
          index,
          toolCallId: id,
          message: `message ${index} is a tool result for \`${id}\`, but no earlier message calls it`,
        });
      }
    }
  }
  for (const [id, call] of pending) reportUnanswered(call, id);
  problems.sort((a, b) => a.index - b.index);
  return { groups, groupOf, problems, renamedCalls, renamedResults };
}

/**
 * Where a history may be cut without separating a tool call from its results.
 *
 * Returns one flag per position `0..messages.length`: `1` at position `c` means keeping
 * `messages.slice(c)` (or dropping it) splits no tool-call group. Linear, from a
 * {@link indexToolCallGroups} result you may already have.
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
 * Indices where a user turn starts and the history can be cut: human messages at a safe cut point.
 */
export function userTurnStarts(messages: readonly BaseMessage[], safe: Uint8Array = safeCutPoints(messages)): number[] {
  const starts: number[] = [];
  for (let position = 0; position < messages.length; position++) {
    if (messages[position]!.type === "human" && safe[position] === 1) starts.push(position);
  }
  return starts;
}

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
  readonly groupOf: readonly number[];
  /** Pairing problems, ordered by index. Empty for a valid history. */
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
  resolvedId: string;
}

interface MutableGroup {
  assistantIndex: number;
  callIds: string[];
  resultIndices: number[];
  end: number;
}

/** Where a call id was first made and first answered (-1 while unanswered). */
interface CallRecord {
  firstIndex: number;
  answeredAt: number;
  duplicates: number;
}

/**
 * Builds a {@link ToolCallIndex} one message at a time, so an index can be extended when a history
 * grows instead of rebuilt. `push` must see the messages in order; `view()` is the index so far.
 * @internal
 */
export class ToolCallIndexBuilder {
  readonly #groups: MutableGroup[] = [];
  readonly #groupOf: number[] = [];
  readonly #problems: ToolPairingProblem[] = [];
  /** Every call id seen (one map for the common valid case: one lookup per call and result). */
  readonly #calls = new Map<string, CallRecord>();
  /** Calls without a result yet: small, since results follow their calls. */
  readonly #pending = new Map<string, PendingCall>();
  readonly #renamedCalls = new Map<string, string>();
  readonly #renamedResults = new Map<number, string>();

  get length(): number {
    return this.#groupOf.length;
  }

  #unanswered(call: PendingCall, toolCallId: string): ToolPairingProblem {
    return {
      kind: "unanswered-call",
      index: call.assistantIndex,
      toolCallId,
      message: `message ${call.assistantIndex} calls tool \`${toolCallId}\`, which no later tool result answers`,
    };
  }

  push(message: BaseMessage): void {
    const index = this.#groupOf.length;
    if (isAssistantMessage(message)) {
      const calls = message.tool_calls;
      if (calls === undefined || calls.length === 0) {
        this.#groupOf.push(-1);
        return;
      }
      const groupNumber = this.#groups.length;
      const group: MutableGroup = { assistantIndex: index, callIds: [], resultIndices: [], end: index };
      this.#groups.push(group);
      this.#groupOf.push(groupNumber);
      for (let callPosition = 0; callPosition < calls.length; callPosition++) {
        const call = calls[callPosition]!;
        const id = call.id;
        if (typeof id !== "string" || id === "") {
          this.#problems.push({
            kind: "missing-call-id",
            index,
            callPosition,
            message: `message ${index}: tool call ${callPosition} (\`${call.name}\`) has no id, so no result can answer it`,
          });
          continue;
        }
        let resolvedId = id;
        const record = this.#calls.get(id);
        if (record === undefined) {
          this.#calls.set(id, { firstIndex: index, answeredAt: -1, duplicates: 0 });
        } else {
          this.#problems.push({
            kind: "duplicate-call-id",
            index,
            toolCallId: id,
            firstIndex: record.firstIndex,
            message: `message ${index} repeats tool call id \`${id}\` first used at message ${record.firstIndex}`,
          });
          const earlier = this.#pending.get(id);
          if (earlier) {
            this.#pending.delete(id);
            this.#problems.push(this.#unanswered(earlier, id));
          }
          do {
            record.duplicates += 1;
            resolvedId = `${id}__dup${record.duplicates}`;
          } while (this.#calls.has(resolvedId));
          // Reserve the new id, so a later call that really has it is seen as a repeat.
          this.#calls.set(resolvedId, { firstIndex: index, answeredAt: -1, duplicates: 0 });
          this.#renamedCalls.set(`${index}:${callPosition}`, resolvedId);
        }
        group.callIds.push(id);
        this.#pending.set(id, { group: groupNumber, assistantIndex: index, resolvedId });
      }
      return;
    }
    if (isToolResultMessage(message)) {
      const id = message.tool_call_id;
      const call = this.#pending.get(id);
      if (call) {
        this.#pending.delete(id);
        const record = this.#calls.get(id)!;
        if (record.answeredAt < 0) record.answeredAt = index;
        const group = this.#groups[call.group]!;
        group.resultIndices.push(index);
        group.end = index;
        this.#groupOf.push(call.group);
        if (call.resolvedId !== id) this.#renamedResults.set(index, call.resolvedId);
        return;
      }
      const record = this.#calls.get(id);
      if (record !== undefined && record.answeredAt >= 0) {
        this.#problems.push({
          kind: "duplicate-result",
          index,
          toolCallId: id,
          firstIndex: record.answeredAt,
          message: `message ${index} answers tool call \`${id}\` again (first answered at message ${record.answeredAt})`,
        });
      } else {
        this.#problems.push({
          kind: "orphan-result",
          index,
          toolCallId: id,
          message: `message ${index} is a tool result for \`${id}\`, but no earlier message calls it`,
        });
      }
    }
    this.#groupOf.push(-1);
  }

  /** The index of the messages pushed so far. Calls still pending count as unanswered. */
  view(): ToolCallIndex {
    let problems: ToolPairingProblem[] = this.#problems;
    if (this.#pending.size > 0) {
      problems = [...problems];
      for (const [id, call] of this.#pending) problems.push(this.#unanswered(call, id));
    }
    if (problems.length > 1) problems = [...problems].sort((a, b) => a.index - b.index);
    return {
      groups: this.#groups,
      groupOf: this.#groupOf,
      problems,
      renamedCalls: this.#renamedCalls,
      renamedResults: this.#renamedResults,
    };
  }
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
  const builder = new ToolCallIndexBuilder();
  for (const message of messages) builder.push(message);
  return builder.view();
}

/**
 * Where a history may be cut without separating a tool call from its results.
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
 * Indices where a user turn starts and the history can be cut: human messages at a safe cut point.
 *
 * @example
 * const starts = userTurnStarts(messages);
 * const lastTwoTurns = messages.slice(starts.at(-2) ?? 0);
 */
export function userTurnStarts(messages: readonly BaseMessage[], safe: Uint8Array = safeCutPoints(messages)): number[] {
  const starts: number[] = [];
  for (let position = 0; position < messages.length; position++) {
    if (messages[position]!.type === "human" && safe[position] === 1) starts.push(position);
  }
  return starts;
}

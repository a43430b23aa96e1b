import type { BaseMessage } from "@langchain/core/messages";
import { assistantCalls, rawToolCalls, type AssistantCallSource } from "./assistant-calls.js";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";

/**
 * One problem that would make a provider reject the history. Indices are into the history.
 * - `missing-call-id`: a call without an id (no result can answer it);
 * - `unlisted-call`: a call that only a `tool_use` block, OpenAI's raw `additional_kwargs.tool_calls`
 *   or a Responses API output item holds, not `tool_calls` (ChatOpenAI and ChatAnthropic would send
 *   different calls);
 * - `duplicate-call-id`: a call id used before (`firstIndex`), in this message or an earlier one;
 * - `unanswered-call`: a call that no tool result answers;
 * - `orphan-result`: a tool result that answers no earlier call;
 * - `duplicate-result`: a second result for a call already answered (at `firstIndex`);
 * - `misplaced-result`: a result for a call of the message at `assistantIndex` that is not among the
 *   tool results directly following that message (another message comes in between), as both
 *   providers require;
 * - `empty-tool-calls`: an assistant message without calls whose `additional_kwargs.tool_calls` is
 *   an empty array, which ChatOpenAI sends as an empty `tool_calls` array (OpenAI rejects it).
 */
export type ToolPairingProblem =
  | { kind: "missing-call-id"; index: number; callPosition: number; message: string }
  | { kind: "unlisted-call"; index: number; callPosition: number; toolCallId: string; message: string }
  | { kind: "duplicate-call-id"; index: number; toolCallId: string; firstIndex: number; message: string }
  | { kind: "unanswered-call"; index: number; toolCallId: string; message: string }
  | { kind: "orphan-result"; index: number; toolCallId: string; message: string }
  | { kind: "duplicate-result"; index: number; toolCallId: string; firstIndex: number; message: string }
  | { kind: "misplaced-result"; index: number; toolCallId: string; assistantIndex: number; message: string }
  | { kind: "empty-tool-calls"; index: number; message: string };

/**
 * A tool-call group: an assistant message with tool calls plus the tool results answering them.
 * Parallel calls are one group; a group is kept or hidden as a whole.
 */
export interface ToolCallGroup {
  /** Index of the assistant message that made the calls. */
  readonly assistantIndex: number;
  /** Ids of the calls, in the order of `assistantCalls` (calls without an id are left out). */
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
   * For a repeated call id, the unique id the repair gives that occurrence and its results:
   * keyed by `${messageIndex}:${callPosition}` for calls and by the message index for results.
   * @internal
   */
  readonly renamedCalls: ReadonlyMap<string, string>;
  /** @internal */
  readonly renamedResults: ReadonlyMap<number, string>;
}

/** A call waiting for its result. */
interface PendingCall {
  readonly group: number;
  readonly assistantIndex: number;
  readonly position: number;
  readonly resolvedId: string;
}

/** First in, first out, with O(1) removal from the front and a read-only walk. */
class Queue<T> {
  readonly items: T[] = [];
  head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  shift(): T | undefined {
    return this.head < this.items.length ? this.items[this.head++] : undefined;
  }
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

/** The contiguous tool results after an assistant message: the calls they may still answer. */
interface Run {
  readonly group: number;
  readonly pending: Map<string, Queue<PendingCall>>;
}

const SOURCE_NAMES: Record<Exclude<AssistantCallSource, "tool_calls">, string> = {
  content: "content blocks",
  additional_kwargs: "raw `additional_kwargs.tool_calls`",
  response_output: "`response_metadata.output`",
};

function enqueue(queues: Map<string, Queue<PendingCall>>, id: string, call: PendingCall): void {
  let queue = queues.get(id);
  if (!queue) queues.set(id, (queue = new Queue()));
  queue.items.push(call);
}

/**
 * Builds a {@link ToolCallIndex} one message at a time, so an index can be extended when a history
 * grows instead of rebuilt. `push` must see the messages in order; `view()` is the index so far.
 *
 * A tool result answers, first, the earliest call with its id of the assistant message whose
 * contiguous results it is in; otherwise the earliest unanswered call with its id made before (a
 * misplaced result). Calls are read with `assistantCalls`.
 * @internal
 */
export class ToolCallIndexBuilder {
  readonly #groups: MutableGroup[] = [];
  readonly #groupOf: number[] = [];
  readonly #problems: ToolPairingProblem[] = [];
  /** Every call id seen, and every id the repair reserves for a repeated one. */
  readonly #calls = new Map<string, CallRecord>();
  /** The current assistant message's run of results, while only tool results follow it. */
  #run: Run | undefined;
  /** Calls whose run ended without their result, by id, oldest first. */
  readonly #unanswered = new Map<string, Queue<PendingCall>>();
  readonly #renamedCalls = new Map<string, string>();
  readonly #renamedResults = new Map<number, string>();

  get length(): number {
    return this.#groupOf.length;
  }

  #endRun(): void {
    if (this.#run === undefined) return;
    for (const [id, queue] of this.#run.pending) {
      for (let at = queue.head; at < queue.items.length; at++) enqueue(this.#unanswered, id, queue.items[at]!);
    }
    this.#run = undefined;
  }

  push(message: BaseMessage): void {
    const index = this.#groupOf.length;
    if (isToolResultMessage(message)) {
      this.#pushResult(message.tool_call_id, index);
      return;
    }
    this.#endRun();
    const calls = assistantCalls(message);
    if (calls.length === 0) {
      // No calls, so tool_calls is empty and ChatOpenAI sends the raw calls: `[]` as it is.
      if (isAssistantMessage(message) && rawToolCalls(message)?.length === 0) {
        this.#problems.push({
          kind: "empty-tool-calls",
          index,
          message: `message ${index} has an empty \`additional_kwargs.tool_calls\`, which ChatOpenAI sends as an empty \`tool_calls\` array`,
        });
      }
      this.#groupOf.push(-1);
      return;
    }
    const groupNumber = this.#groups.length;
    const group: MutableGroup = { assistantIndex: index, callIds: [], resultIndices: [], end: index };
    this.#groups.push(group);
    this.#groupOf.push(groupNumber);
    const run: Run = { group: groupNumber, pending: new Map() };
    this.#run = run;
    for (let callPosition = 0; callPosition < calls.length; callPosition++) {
      const call = calls[callPosition]!;
      const id = call.id;
      if (call.source !== "tool_calls") {
        this.#problems.push({
          kind: "unlisted-call",
          index,
          callPosition,
          toolCallId: id ?? "",
          message: `message ${index}: tool call \`${id ?? call.name}\` is in its ${SOURCE_NAMES[call.source]} but not in \`tool_calls\`, so ChatOpenAI and ChatAnthropic would send different calls`,
        });
      }
      if (id === undefined) {
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
        do {
          record.duplicates += 1;
          resolvedId = `${id}__dup${record.duplicates}`;
        } while (this.#calls.has(resolvedId));
        // Reserve the new id, so a later call that really has it is seen as a repeat.
        this.#calls.set(resolvedId, { firstIndex: index, answeredAt: -1, duplicates: 0 });
        this.#renamedCalls.set(`${index}:${callPosition}`, resolvedId);
      }
      group.callIds.push(id);
      enqueue(run.pending, id, { group: groupNumber, assistantIndex: index, position: callPosition, resolvedId });
    }
  }

  #pushResult(id: string, index: number): void {
    let call = this.#run?.pending.get(id)?.shift();
    if (call === undefined) {
      const queue = this.#unanswered.get(id);
      call = queue?.shift();
      if (queue !== undefined && queue.size === 0) this.#unanswered.delete(id);
      if (call !== undefined) {
        this.#problems.push({
          kind: "misplaced-result",
          index,
          toolCallId: id,
          assistantIndex: call.assistantIndex,
          message: `message ${index} answers tool call \`${id}\` of message ${call.assistantIndex} but is not among the tool results directly after it`,
        });
      }
    }
    if (call !== undefined) {
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
    this.#groupOf.push(-1);
  }

  /** The index of the messages pushed so far. Calls still without a result count as unanswered. */
  view(): ToolCallIndex {
    const waiting: [string, PendingCall][] = [];
    for (const queues of this.#run ? [this.#unanswered, this.#run.pending] : [this.#unanswered]) {
      for (const [id, queue] of queues) for (let at = queue.head; at < queue.items.length; at++) waiting.push([id, queue.items[at]!]);
    }
    let problems: ToolPairingProblem[] = this.#problems;
    if (waiting.length > 0) {
      waiting.sort(([, a], [, b]) => a.assistantIndex - b.assistantIndex || a.position - b.position);
      problems = [
        ...problems,
        ...waiting.map(([id, call]): ToolPairingProblem => ({
          kind: "unanswered-call",
          index: call.assistantIndex,
          toolCallId: id,
          message: `message ${call.assistantIndex} calls tool \`${id}\`, which no later tool result answers`,
        })),
      ];
    }
    // Stable: at one index, the problems found on the way come before the unanswered calls.
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

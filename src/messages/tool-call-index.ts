import type { BaseMessage } from "@langchain/core/messages";
import { assistantCalls, rawToolCalls, type AssistantCallSource } from "./assistant-calls.js";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import type { ToolCallIndex, ToolPairingProblem } from "./tool-call-index-types.js";
import { toolResultBlocksOf, type ToolResultBlockRef } from "./tool-result-blocks.js";

export type { ToolCallGroup, ToolCallIndex, ToolPairingProblem } from "./tool-call-index-types.js";

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
  /** How many result messages (tool messages, human messages with tool_result blocks) it has so far. */
  results: number;
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
 *
 * The results after an assistant message are the tool messages and human messages carrying
 * `tool_result` blocks that follow it, as `ChatAnthropic` sends them in the next user message: a
 * human message of only `tool_result` blocks continues them (it is joined with the results around
 * it); one that holds other content too ends them, and its blocks count among them only when it
 * comes first (else it is sent as a message of its own) and only while no other content precedes
 * the block in it.
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
  readonly #renamedResultBlocks = new Map<string, string>();

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
      const group = this.#answer(message.tool_call_id, index, undefined);
      if (this.#run !== undefined) this.#run.results += 1;
      this.#groupOf.push(group);
      return;
    }
    const blocks = toolResultBlocksOf(message);
    if (blocks.length > 0) {
      this.#pushCarrier(blocks, (message.content as unknown[]).length, index);
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
    const run: Run = { group: groupNumber, pending: new Map(), results: 0 };
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

  /** A human message with `tool_result` blocks: each block is a result, matched like a tool message. */
  #pushCarrier(blocks: readonly ToolResultBlockRef[], contentLength: number, index: number): void {
    const onlyResults = blocks.length === contentLength;
    // With other content, it is not joined with the results before it: it is only in the run as its first result.
    if (!onlyResults && this.#run !== undefined && this.#run.results > 0) this.#endRun();
    let groupNumber = -1;
    for (const block of blocks) {
      // A tool_result after other content is not at the start of the user message.
      if (!block.leading) this.#endRun();
      const group = this.#answer(block.toolUseId, index, block.position);
      if (groupNumber < 0) groupNumber = group;
    }
    if (!onlyResults) this.#endRun();
    else if (this.#run !== undefined) this.#run.results += 1;
    this.#groupOf.push(groupNumber);
  }

  /** Match one result (a tool message, or a block at `blockPosition` of a human message) to its call. Returns its group, or -1. */
  #answer(id: string, index: number, blockPosition: number | undefined): number {
    const at = blockPosition === undefined ? {} : { blockPosition };
    const what = blockPosition === undefined ? `message ${index}` : `message ${index} (its tool_result block ${blockPosition})`;
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
          ...at,
          message: `${what} answers tool call \`${id}\` of message ${call.assistantIndex} but is not among the tool results directly after it`,
        });
      }
    }
    if (call !== undefined) {
      const record = this.#calls.get(id)!;
      if (record.answeredAt < 0) record.answeredAt = index;
      const group = this.#groups[call.group]!;
      if (group.resultIndices.at(-1) !== index) group.resultIndices.push(index);
      group.end = index;
      if (call.resolvedId !== id) {
        if (blockPosition === undefined) this.#renamedResults.set(index, call.resolvedId);
        else this.#renamedResultBlocks.set(`${index}:${blockPosition}`, call.resolvedId);
      }
      return call.group;
    }
    const record = this.#calls.get(id);
    if (record !== undefined && record.answeredAt >= 0) {
      this.#problems.push({
        kind: "duplicate-result",
        index,
        toolCallId: id,
        firstIndex: record.answeredAt,
        ...at,
        message: `${what} answers tool call \`${id}\` again (first answered at message ${record.answeredAt})`,
      });
    } else {
      this.#problems.push({
        kind: "orphan-result",
        index,
        toolCallId: id,
        ...at,
        message: `${what} is a tool result for \`${id}\`, but no earlier message calls it`,
      });
    }
    return -1;
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
      renamedResultBlocks: this.#renamedResultBlocks,
    };
  }
}

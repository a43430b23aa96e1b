/**
 * A recorded agent session prepared for replay through a real agent graph: the inputs of each graph
 * invocation (one per user turn), the recorded reply to each model call and the recorded result of
 * each tool call.
 *
 * Replay is keyed on message ids, not on a cursor: the model answers with the recorded message that
 * follows the last message it is given, and a tool answers with the recorded result of its call id.
 * So a replay survives compaction (which keeps the newest messages), a restart in a new process and
 * several workers taking turns on one thread, exactly as a real model would.
 */
import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import type { TraceSession } from "../traces.js";

/** Suffix of the id of the empty reply that ends a turn the recording left open (see {@link ReplaySession}). */
export const END_OF_TURN_SUFFIX = "/end";

function isToolCallingAssistant(message: BaseMessage): boolean {
  return message.type === "ai" && ((message as AIMessage).tool_calls?.length ?? 0) > 0;
}

/**
 * A recorded session ready to be replayed.
 *
 * Most recordings stop right after a tool result (the run ended there), and a few turns end in a
 * tool result followed by the next user message. A graph calls its model once more at that point;
 * the replay answers with an empty final message whose id is the last message's id plus
 * {@link END_OF_TURN_SUFFIX}, so the turn ends as it ended in the recording. {@link expectedHistory}
 * includes those replies.
 *
 * @example
 * const replay = new ReplaySession(loadTraceSessions(BUNDLED_TRACES_PATH)[0]!);
 * for (const input of replay.turns) await graph.invoke({ messages: input }, config);
 */
export class ReplaySession {
  readonly id: string;
  /** The recorded messages, as loaded (never handed to a graph: the replay gives out copies). */
  readonly recorded: readonly BaseMessage[];
  /** The input of each graph invocation: the system and user messages that open each turn. */
  readonly turns: readonly BaseMessage[][];
  /** Every message the graph's history holds after all turns: the recording plus end-of-turn replies. */
  readonly expectedHistory: readonly BaseMessage[];
  /** The names of the tools the recording calls, in first-seen order. */
  readonly toolNames: readonly string[];
  readonly #positionOf: Map<string, number>;
  readonly #resultOf: Map<string, ToolMessage>;
  readonly #argumentsOf: Map<string, Record<string, unknown>[]>;

  constructor(session: TraceSession) {
    this.id = session.id;
    this.recorded = session.messages;
    this.#positionOf = new Map();
    this.#resultOf = new Map();
    this.#argumentsOf = new Map();
    const turns: BaseMessage[][] = [];
    const expected: BaseMessage[] = [];
    let pendingCalls = 0;
    session.messages.forEach((message, position) => {
      if (message.id === undefined) throw new Error(`replay ${session.id}: message ${position} has no id`);
      this.#positionOf.set(message.id, position);
      const previous = session.messages[position - 1];
      if (message.type === "system" || message.type === "human") {
        // The model is called after every tool-result group: one the recording does not answer ends the turn.
        if (previous?.type === "tool" && pendingCalls === 0) expected.push(this.#endOfTurn(previous));
        if (previous === undefined || (previous.type !== "system" && previous.type !== "human")) turns.push([]);
        turns.at(-1)!.push(message);
      } else if (message.type === "ai") {
        pendingCalls = (message as AIMessage).tool_calls?.length ?? 0;
        for (const call of (message as AIMessage).tool_calls ?? []) {
          const seen = this.#argumentsOf.get(call.name) ?? [];
          seen.push(call.args);
          this.#argumentsOf.set(call.name, seen);
        }
      } else if (message.type === "tool") {
        const result = message as ToolMessage;
        this.#resultOf.set(result.tool_call_id, result);
        pendingCalls--;
      }
      expected.push(message);
    });
    const last = session.messages.at(-1);
    if (last?.type === "tool" || (last !== undefined && (last.type === "system" || last.type === "human"))) expected.push(this.#endOfTurn(last));
    this.turns = turns;
    this.expectedHistory = expected;
    this.toolNames = [...this.#argumentsOf.keys()];
  }

  #endOfTurn(last: BaseMessage): AIMessage {
    return new AIMessage({ id: `${last.id}${END_OF_TURN_SUFFIX}`, content: "" });
  }

  /**
   * The recorded reply to a model call whose input ends with `last`: the assistant message that
   * follows it (after the rest of its tool-result group, whose results a graph may order
   * differently), or the empty end-of-turn reply where the recording has none.
   *
   * @throws {Error} when `last` is not a message of the recording: the graph's history and the
   *   recording went apart, and replaying on would prove nothing.
   */
  replyAfter(last: BaseMessage | undefined): AIMessage {
    const position = last?.id === undefined ? undefined : this.#positionOf.get(last.id);
    if (position === undefined) {
      throw new Error(`replay ${this.id}: the model was called with a history ending in ${last?.id ?? "no message"}, which the recording does not have`);
    }
    let next = position + 1;
    while (this.recorded[next]?.type === "tool") next++;
    const reply = this.recorded[next];
    if (reply?.type === "ai") return reply as AIMessage;
    return this.#endOfTurn(this.recorded[next - 1]!);
  }

  /** The recorded result of a tool call, by call id. */
  resultOf(toolCallId: string): ToolMessage | undefined {
    return this.#resultOf.get(toolCallId);
  }

  /** The recorded results of a tool, in order (for calls a live model made, which have new ids). */
  resultsOf(toolName: string): ToolMessage[] {
    const results: ToolMessage[] = [];
    for (const message of this.recorded) {
      if (isToolCallingAssistant(message)) {
        for (const call of (message as AIMessage).tool_calls ?? []) {
          const result = call.id === undefined ? undefined : this.#resultOf.get(call.id);
          if (call.name === toolName && result) results.push(result);
        }
      }
    }
    return results;
  }

  /** The arguments of every recorded call of a tool, in order (to derive the tool's schema). */
  argumentsOf(toolName: string): readonly Record<string, unknown>[] {
    return this.#argumentsOf.get(toolName) ?? [];
  }

  /** Model calls the replay answers: one per turn input and one per tool-result group. */
  get modelCalls(): number {
    return this.expectedHistory.filter((message) => message.type === "ai").length;
  }
}

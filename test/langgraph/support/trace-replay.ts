/**
 * Replaying a recorded session in a real ReAct graph: a scripted chat model that answers with the
 * recorded assistant message following the last message it is shown, and tools that answer with the
 * recorded results. Stateless, so a run with compaction and one without produce the same messages.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod/v4";
import { cloneMessage } from "../../../src/index.js";
import type { TraceSession } from "../../../examples/traces.js";

/** One user turn: the messages the caller sends, and what the agent then adds. */
export interface ReplayTurn {
  readonly input: BaseMessage[];
  readonly produced: BaseMessage[];
}

export interface ReplayScript {
  /** The session cut after its last final answer, so every turn ends with one. */
  readonly messages: BaseMessage[];
  readonly turns: ReplayTurn[];
}

const kindOf = (message: BaseMessage): string =>
  message.type === "ai" ? ((message as AIMessage).tool_calls?.length ? "call" : "answer") : message.type;

/**
 * Split a session into user turns that a ReAct loop reproduces: after each user message, any number
 * of (assistant with calls, their results) steps and one final answer.
 * @throws when the session does not have that shape.
 */
export function replayScript(session: TraceSession): ReplayScript {
  let lastAnswer = session.messages.length - 1;
  while (lastAnswer >= 0 && kindOf(session.messages[lastAnswer]!) !== "answer") lastAnswer--;
  const messages = session.messages.slice(0, lastAnswer + 1);
  const turns: ReplayTurn[] = [];
  let position = 0;
  while (position < messages.length) {
    const input: BaseMessage[] = [];
    while (position < messages.length && (messages[position]!.type === "system" || messages[position]!.type === "human")) input.push(messages[position++]!);
    const produced: BaseMessage[] = [];
    while (position < messages.length && messages[position]!.type !== "human") produced.push(messages[position++]!);
    const shape = produced.map(kindOf).join(" ");
    if (input.length === 0 || !/^(call( tool)+ )*answer$/.test(shape)) throw new Error(`${session.id}: turn ${turns.length} does not replay as a ReAct loop: ${shape}`);
    turns.push({ input, produced });
  }
  return { messages, turns };
}

/** A chat model that replies with the recorded message after the last one it is shown. */
export class ReplayChatModel extends BaseChatModel {
  readonly #next = new Map<string, BaseMessage>();
  /** How many messages each call was shown. */
  readonly promptSizes: number[] = [];

  constructor(script: ReplayScript) {
    super({});
    script.messages.forEach((message, position) => {
      const next = script.messages[position + 1];
      if (next?.type === "ai" && message.id) this.#next.set(message.id, next);
    });
  }

  _llmType(): string {
    return "replay";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.promptSizes.push(messages.length);
    const last = messages[messages.length - 1];
    const reply = last?.id ? this.#next.get(last.id) : undefined;
    if (!reply) throw new Error(`replay: no recorded reply after message ${last?.id}`);
    const message = cloneMessage(reply as AIMessage);
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

/** One tool per recorded tool name, each answering a call with the recorded result (its id included). */
export function replayTools(script: ReplayScript): StructuredToolInterface[] {
  const results = new Map<string, ToolMessage>();
  const names = new Set<string>();
  for (const message of script.messages) {
    if (ToolMessage.isInstance(message)) results.set(message.tool_call_id, message);
    for (const call of (message as AIMessage).tool_calls ?? []) names.add(call.name);
  }
  return [...names].map((name) =>
    tool(
      async (_args: unknown, config) => {
        const callId = config.toolCall?.id;
        const recorded = callId === undefined ? undefined : results.get(callId);
        if (!recorded) throw new Error(`replay: no recorded result for call ${callId}`);
        return cloneMessage(recorded);
      },
      { name, description: `replays ${name}`, schema: z.looseObject({}) },
    ),
  );
}

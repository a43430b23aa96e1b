/**
 * What ChatOpenAI and ChatAnthropic send for a history, converted by their own code, and the pairing
 * rules their APIs enforce on it (each rule a 400 from the provider).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
// @ts-expect-error -- not exported by @langchain/anthropic and shipped without type declarations: imported by path
import { _convertMessagesToAnthropicPayload } from "../../node_modules/@langchain/anthropic/dist/utils/message_inputs.js";

export type WireMessage = Record<string, unknown> & { role: string };

/** The Chat Completions messages ChatOpenAI sends. */
export function openAIWire(messages: readonly BaseMessage[]): WireMessage[] {
  return convertMessagesToCompletionsMessageParams({ messages: [...messages], model: "gpt-4o" }) as unknown as WireMessage[];
}

/** The Messages API payload ChatAnthropic sends. */
export function anthropicWire(messages: readonly BaseMessage[]): { messages: WireMessage[]; system?: unknown } {
  return (_convertMessagesToAnthropicPayload as (messages: BaseMessage[]) => { messages: WireMessage[]; system?: unknown })([...messages]);
}

const isEmpty = (content: unknown) =>
  content === undefined || content === null || (typeof content === "string" && content.trim() === "") || (Array.isArray(content) && content.length === 0);

const callIdsOf = (message: WireMessage): string[] =>
  Array.isArray(message["tool_calls"]) ? (message["tool_calls"] as { id: string }[]).map((call) => call.id) : [];

/**
 * Why OpenAI's Chat Completions API would reject these messages: an empty `tool_calls` array, an
 * assistant message with neither content nor calls, a call not answered by the tool messages
 * directly after it, a tool message that answers no call of the assistant message it follows.
 */
export function openAIRejections(wire: readonly WireMessage[]): string[] {
  const reasons: string[] = [];
  wire.forEach((message, position) => {
    if (message.role === "assistant") {
      const calls = callIdsOf(message);
      if (Array.isArray(message["tool_calls"]) && calls.length === 0) reasons.push(`${position}: empty tool_calls array`);
      if (calls.length === 0 && isEmpty(message["content"])) reasons.push(`${position}: assistant message with neither content nor tool_calls`);
      const answered = new Set<string>();
      for (let next = position + 1; next < wire.length && wire[next]!.role === "tool"; next++) answered.add(String(wire[next]!["tool_call_id"]));
      for (const id of calls) if (!answered.has(id)) reasons.push(`${position}: tool call ${id} has no tool message directly after it`);
    }
    if (message.role === "tool") {
      let caller = position - 1;
      while (caller >= 0 && wire[caller]!.role === "tool") caller--;
      const calls = caller >= 0 && wire[caller]!.role === "assistant" ? callIdsOf(wire[caller]!) : [];
      if (!calls.includes(String(message["tool_call_id"]))) reasons.push(`${position}: tool message for ${String(message["tool_call_id"])} does not follow its call`);
    }
  });
  return reasons;
}

type Block = Record<string, unknown>;
const blocksOf = (message: WireMessage | undefined): Block[] => (message && Array.isArray(message["content"]) ? (message["content"] as Block[]) : []);

/**
 * Why Anthropic's Messages API would reject this payload: empty content, a `tool_use` without a
 * `tool_result` in the very next (user) message, a `tool_result` whose `tool_use` is not in the
 * message just before, a `tool_use` id used twice.
 */
export function anthropicRejections(payload: { messages: readonly WireMessage[] }): string[] {
  const reasons: string[] = [];
  const seen = new Set<string>();
  payload.messages.forEach((message, position) => {
    if (isEmpty(message["content"])) reasons.push(`${position}: empty content`);
    const uses = blocksOf(message).filter((block) => block["type"] === "tool_use").map((block) => String(block["id"]));
    for (const id of uses) {
      if (seen.has(id)) reasons.push(`${position}: tool_use id ${id} used twice`);
      seen.add(id);
    }
    const next = payload.messages[position + 1];
    const answered = new Set(blocksOf(next).filter((block) => block["type"] === "tool_result").map((block) => String(block["tool_use_id"])));
    for (const id of uses) if (!answered.has(id)) reasons.push(`${position}: tool_use ${id} has no tool_result in the next message`);
    const previous = payload.messages[position - 1];
    const called = new Set(blocksOf(previous).filter((block) => block["type"] === "tool_use").map((block) => String(block["id"])));
    for (const block of blocksOf(message)) {
      if (block["type"] === "tool_result" && !called.has(String(block["tool_use_id"]))) reasons.push(`${position}: tool_result for ${String(block["tool_use_id"])} does not follow its tool_use`);
    }
  });
  return reasons;
}

/** Both providers' rejections of a history, as each would send it. */
export function wireRejections(messages: readonly BaseMessage[]): { openai: string[]; anthropic: string[] } {
  return { openai: openAIRejections(openAIWire(messages)), anthropic: anthropicRejections(anthropicWire(messages)) };
}

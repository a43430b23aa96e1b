import type { BaseMessage } from "@langchain/core/messages";
import { isToolResultMessage, isBlock, type Block } from "./message-types.js";

/**
 * Anthropic's native tool results: `tool_result` content blocks (`{ type: "tool_result", tool_use_id,
 * content, is_error? }`) inside a user (`HumanMessage`) message, right after the assistant message
 * whose `tool_use` blocks they answer. `ChatAnthropic` sends such a message as it is, and joins it
 * with the tool messages around it only while every message involved holds nothing but
 * `tool_result` blocks.
 */



/** True for a `tool_result` content block. */
export function isToolResultBlock(block: unknown): block is Block {
  return isBlock(block) && block["type"] === "tool_result";
}

/** One `tool_result` block of a human message. */
export interface ToolResultBlockRef {
  /** Its position in the message's content array. */
  readonly position: number;
  /** The `tool_use_id` it answers (`""` when it has none). */
  readonly toolUseId: string;
  /**
   * True when only `tool_result` blocks come before it: Anthropic wants a message's tool results
   * first, before any other content.
   */
  readonly leading: boolean;
}

/**
 * The `tool_result` blocks of a human message, in content order; empty for any other message (a
 * `tool_result` block elsewhere is not sent as a tool result).
 *
 * @example
 * toolResultBlocksOf(new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] }));
 * // [{ position: 0, toolUseId: "toolu_1", leading: true }]
 */
export function toolResultBlocksOf(message: BaseMessage): ToolResultBlockRef[] {
  if (message.type !== "human" || !Array.isArray(message.content)) return [];
  const refs: ToolResultBlockRef[] = [];
  let leading = true;
  (message.content as unknown[]).forEach((block, position) => {
    if (!isToolResultBlock(block)) {
      leading = false;
      return;
    }
    refs.push({ position, toolUseId: typeof block["tool_use_id"] === "string" ? block["tool_use_id"] : "", leading });
  });
  return refs;
}

/** True for a human message whose content holds at least one `tool_result` block. */
export function carriesToolResults(message: BaseMessage): boolean {
  return message.type === "human" && Array.isArray(message.content) && (message.content as unknown[]).some(isToolResultBlock);
}

/** True for a human message whose content is only `tool_result` blocks (at least one). */
export function holdsOnlyToolResults(message: BaseMessage): boolean {
  return message.type === "human" && Array.isArray(message.content) && message.content.length > 0 && (message.content as unknown[]).every(isToolResultBlock);
}

/**
 * True for a user's own message: a human message that carries no `tool_result` block. Such a
 * message can start a user turn; one that carries tool results belongs to the assistant message
 * before it.
 */
export function isUserMessage(message: BaseMessage): boolean {
  return message.type === "human" && !carriesToolResults(message);
}

/**
 * The call ids a tool result message answers: a tool message's `tool_call_id`, or the `tool_use_id`
 * of each `tool_result` block of a human message. Empty for any other message.
 */
export function resultCallIds(message: BaseMessage): string[] {
  if (isToolResultMessage(message)) return [message.tool_call_id];
  return toolResultBlocksOf(message).map((ref) => ref.toolUseId);
}

import { AIMessage, ToolMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";

/** True for assistant messages (including chunks). */
export function isAssistantMessage(message: BaseMessage): message is AIMessage {
  return AIMessage.isInstance(message);
}

/** True for tool results (including chunks). */
export function isToolResultMessage(message: BaseMessage): message is ToolMessage {
  return ToolMessage.isInstance(message);
}

export { isBaseMessage };

/** Content block types that restate a tool call inside `content` (Anthropic, v1 standard blocks). */
export const TOOL_CALL_BLOCK_TYPES: ReadonlySet<string> = new Set(["tool_use", "tool_call", "function_call", "server_tool_use"]);

/** A content block (or any other plain record) as the package reads it. */
export type Block = Record<string, unknown>;

/** True for an object that is not an array: a content block, a raw call, an output item. */
export function isBlock(value: unknown): value is Block {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

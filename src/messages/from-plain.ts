import {
  coerceMessageLikeToMessage,
  isBaseMessage,
  mapStoredMessagesToChatMessages,
  type BaseMessage,
  type BaseMessageLike,
  type StoredMessage,
} from "@langchain/core/messages";
import { InvalidHistoryError } from "../errors.js";

/**
 * A message as JSON carries it: what LangGraph's API server (`langgraph dev`, LangGraph Platform)
 * returns through `@langchain/langgraph-sdk` (`{ type: "ai", content, tool_calls, id,
 * additional_kwargs, response_metadata, ... }`), an OpenAI-style `{ role, content }`, LangChain's
 * serialized form (`{ lc: 1, type: "constructor", id, kwargs }`) or a `StoredMessage`
 * (`{ type, data }`, what `message.toDict()` gives). Every field is optional here: the conversion
 * checks them.
 */
export interface PlainMessage {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly id?: unknown;
  readonly data?: unknown;
}

/** A message {@link fromPlainMessages} takes: a `BaseMessage`, or its plain form. */
export type MessageInput = BaseMessage | PlainMessage | BaseMessageLike | StoredMessage;

const STORED_ONLY_TYPES = new Set(["function", "generic"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{ type, data }` with no message field of its own: what `toDict()` and `mapChatMessagesToStoredMessages` write. */
function isStoredMessage(value: Record<string, unknown>): value is Record<string, unknown> & StoredMessage {
  return typeof value["type"] === "string" && isRecord(value["data"]) && !("content" in value) && !("lc" in value);
}

function convert(value: unknown): BaseMessage {
  if (isBaseMessage(value)) return value;
  if (typeof value !== "object" && typeof value !== "string") throw new Error(`expected a message, got ${typeof value}`);
  if (value === null) throw new Error("expected a message, got null");
  if (isRecord(value)) {
    if (isStoredMessage(value)) return mapStoredMessagesToChatMessages([value])[0]!;
    const { type, ...data } = value;
    // LangChain's coercion covers human, ai, system, developer and tool; the stored form covers the rest.
    if (typeof type === "string" && STORED_ONLY_TYPES.has(type)) {
      return mapStoredMessagesToChatMessages([{ type, data: data as unknown as StoredMessage["data"] }])[0]!;
    }
    if (type === "remove") throw new Error("a RemoveMessage is an instruction to the reducer, not a message of the history");
  }
  return coerceMessageLikeToMessage(value as BaseMessageLike);
}

/**
 * Real `BaseMessage`s from messages in any of their plain forms (see {@link PlainMessage}), e.g.
 * the `messages` of a thread's state read through `@langchain/langgraph-sdk`. Conversion is
 * LangChain's own (`coerceMessageLikeToMessage`, and `mapStoredMessagesToChatMessages` for the
 * `{ type, data }` form and for function and generic messages), so ids, content blocks, tool calls
 * (including invalid ones), `tool_call_id`, `name`, `artifact`, `status`, `additional_kwargs`,
 * `response_metadata` (this package's `compaction` marker included) and `usage_metadata` come
 * through. `BaseMessage`s are returned as they are; the input is never mutated. A streamed
 * `AIMessageChunk` comes back as an `AIMessage`, as LangChain converts it. Linear in the messages.
 *
 * @example
 * const { values } = await client.threads.getState<{ messages: PlainMessage[] }>(threadId);
 * const messages = fromPlainMessages(values.messages); // AIMessage, ToolMessage... instances
 * @throws {InvalidHistoryError} when `messages` is not an array, or one of them is not a message
 *   LangChain can read (e.g. a tool message without `tool_call_id`, an unknown `type`); the error
 *   names its index.
 */
export function fromPlainMessages(messages: readonly MessageInput[], component = "fromPlainMessages"): BaseMessage[] {
  if (!Array.isArray(messages)) throw new InvalidHistoryError(`${component}: messages is not an array`);
  return messages.map((message, index) => {
    try {
      return convert(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new InvalidHistoryError(`${component}: message ${index} is not a message LangChain can read: ${reason}`);
    }
  });
}

import type { BaseMessage } from "@langchain/core/messages";
import { compactionMarkerOf } from "../types.js";

/** Each message's hash, computed once per message object (messages are never mutated). */
const messageHashes = new WeakMap<BaseMessage, number>();

/** A 53-bit hash of a string (cyrb53). */
function hashText(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let position = 0; position < text.length; position++) {
    const code = text.charCodeAt(position);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The hash of what a provider receives of a message, and its id and compaction marker. */
function messageHash(message: BaseMessage): number {
  let hash = messageHashes.get(message);
  if (hash !== undefined) return hash;
  const fields = message as BaseMessage & { tool_calls?: unknown; tool_call_id?: unknown };
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const text = [
    message.type,
    message.id ?? "",
    message.name ?? "",
    typeof fields.tool_call_id === "string" ? fields.tool_call_id : "",
    JSON.stringify(fields.tool_calls ?? []),
    JSON.stringify(compactionMarkerOf(message) ?? null),
    content,
  ].join("\u0000");
  hash = hashText(text, 0);
  messageHashes.set(message, hash);
  return hash;
}

/**
 * A fingerprint of `messages.slice(0, cut)`: their types, ids, names, tool calls, compaction markers
 * and content, in order. Two prefixes with the same fingerprint are (but for a 2^-53 chance) the
 * same messages. Linear; each message object is hashed once. @internal
 */
export function prefixFingerprint(messages: readonly BaseMessage[], cut: number): string {
  let h1 = cut;
  let h2 = 0x9e3779b9;
  for (let position = 0; position < cut; position++) {
    const hash = messageHash(messages[position]!);
    const low = hash >>> 0;
    const high = Math.floor(hash / 4294967296);
    h1 = Math.imul(h1 ^ low, 2654435761) ^ high;
    h2 = Math.imul(h2 ^ high, 1597334677) ^ low;
    h1 = (h1 << 13) | (h1 >>> 19);
    h2 = (h2 << 17) | (h2 >>> 15);
  }
  return `${cut}:${(h1 >>> 0).toString(16)}:${(h2 >>> 0).toString(16)}`;
}

/**
 * The key of a conversation that has no thread id: its first non-system message, by id or else by
 * content (so one policy serving several conversations keeps one preparation per conversation).
 * @internal
 */
export function conversationKey(messages: readonly BaseMessage[]): string {
  const first = messages.find((message) => message.type !== "system");
  if (first === undefined) return "\u0000";
  return typeof first.id === "string" && first.id !== "" ? `\u0000id:${first.id}` : `\u0000hash:${messageHash(first)}`;
}

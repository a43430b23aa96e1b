import type { BaseMessage } from "@langchain/core/messages";
import { v4 as uuidv4 } from "@langchain/core/utils/uuid";
import { cloneMessage } from "../messages/clone-message.js";

/**
 * Give every message an id, for a history whose messages must be addressable: messages without an
 * id, or repeating an earlier message's id, are replaced by copies with a new UUID. Never mutates the
 * input; messages that already have a unique id are returned as they are.
 *
 * @example
 * const { messages, assigned } = assignMessageIds(history);
 * // assigned: how many messages got a new id
 */
export function assignMessageIds(messages: readonly BaseMessage[]): { messages: BaseMessage[]; assigned: number } {
  const seen = new Set<string>();
  let assigned = 0;
  const output = messages.map((message) => {
    const id = message.id;
    if (typeof id === "string" && id !== "" && !seen.has(id)) {
      seen.add(id);
      return message;
    }
    assigned++;
    const fresh = uuidv4();
    seen.add(fresh);
    return cloneMessage(message, { id: fresh });
  });
  return { messages: output, assigned };
}

/** True when every message has an id of its own. @internal */
export function hasUniqueIds(messages: readonly BaseMessage[]): boolean {
  const seen = new Set<string>();
  for (const message of messages) {
    const id = message.id;
    if (typeof id !== "string" || id === "" || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/** Id of the newest message of a history, or null. @internal */
export function lastIdOf(messages: readonly BaseMessage[]): string | null {
  const id = messages[messages.length - 1]?.id;
  return typeof id === "string" ? id : null;
}

import { mapChatMessagesToStoredMessages, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
import { jsonCopy } from "./json-copy.js";

/** Stored forms made ahead of an archive, by message; each is handed out once. */
const madeAhead = new WeakMap<BaseMessage, StoredMessage>();

function storedFormOf(message: BaseMessage): StoredMessage {
  return jsonCopy(mapChatMessagesToStoredMessages([message])[0]!);
}

/**
 * Make the stored form of messages an archive will soon hold (those a prepared summary will
 * replace), off the step that archives them. Messages are immutable, so the form stays right.
 * @internal
 */
export function storeAhead(messages: readonly BaseMessage[]): void {
  for (const message of messages) if (!madeAhead.has(message)) madeAhead.set(message, storedFormOf(message));
}

/**
 * The archive's form of `messages`: `mapChatMessagesToStoredMessages` as plain JSON data (no live
 * object shared), taken from {@link storeAhead} when it was made ahead (and then forgotten, so no
 * two archives share one), else made now.
 * @internal
 */
export function storedMessages(messages: readonly BaseMessage[]): StoredMessage[] {
  return messages.map((message) => {
    const ahead = madeAhead.get(message);
    if (ahead === undefined) return storedFormOf(message);
    madeAhead.delete(message);
    return ahead;
  });
}

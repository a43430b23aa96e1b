import { RemoveMessage, mapChatMessagesToStoredMessages, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
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

/** `RemoveMessage`s made ahead of a state update, by the message they remove; each is handed out once. */
const removalsAhead = new WeakMap<BaseMessage, RemoveMessage>();

/**
 * Make the `RemoveMessage` of each of `messages` (those a prepared summary will replace), off the
 * step whose state update removes them: a LangChain message costs microseconds to construct, and a
 * summary removes a hundred or more. Returns the ones it made (none for a message without an id,
 * or with one made already). @internal
 */
export function removeAhead(messages: readonly BaseMessage[]): RemoveMessage[] {
  const made: RemoveMessage[] = [];
  for (const message of messages) {
    if (typeof message.id !== "string" || message.id === "" || removalsAhead.has(message)) continue;
    const removal = new RemoveMessage({ id: message.id });
    removalsAhead.set(message, removal);
    made.push(removal);
  }
  return made;
}

/** The `RemoveMessage` of `message` (which has an id): the one made ahead for it, else a new one. @internal */
export function removalOf(message: BaseMessage): RemoveMessage {
  const ahead = removalsAhead.get(message);
  if (ahead === undefined || ahead.id !== message.id) return new RemoveMessage({ id: message.id! });
  removalsAhead.delete(message);
  return ahead;
}

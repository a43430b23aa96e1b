/**
 * `ChatAnthropic`'s own message conversion, `_convertMessagesToAnthropicPayload`, which
 * `@langchain/anthropic` does not export: loaded from its file in the installed package.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";

export interface AnthropicWireMessage {
  readonly role: string;
  readonly content: unknown;
}

export interface AnthropicPayload {
  readonly messages: readonly AnthropicWireMessage[];
  readonly system?: unknown;
}

interface MessageInputsModule {
  _convertMessagesToAnthropicPayload(messages: BaseMessage[]): AnthropicPayload;
}

/** `dist/utils/message_inputs.js` beside the package's entry point (found by Node's resolution, so symlinks are followed). */
const entry = createRequire(import.meta.url).resolve("@langchain/anthropic");
const messageInputs = (await import(pathToFileURL(join(dirname(entry), "utils", "message_inputs.js")).href)) as MessageInputsModule;

/**
 * The converter writes into a human message's content list when tool results follow it (it appends
 * their `tool_result` blocks): it gets copies of those messages, so validating never changes the
 * history it checks.
 */
function shielded(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((message) =>
    HumanMessage.isInstance(message) && Array.isArray(message.content)
      ? new HumanMessage({
          content: [...message.content],
          id: message.id,
          ...(message.name === undefined ? {} : { name: message.name }),
          additional_kwargs: message.additional_kwargs,
          response_metadata: message.response_metadata,
        })
      : message,
  );
}

/** The `messages` and `system` of the request `ChatAnthropic` sends for `messages`. */
export function convertForAnthropic(messages: readonly BaseMessage[]): AnthropicPayload {
  return messageInputs._convertMessagesToAnthropicPayload(shielded(messages));
}

/** The converter itself, for the test that shows it writes into its input. */
export const rawAnthropicConverter = messageInputs._convertMessagesToAnthropicPayload;

import { AIMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import type { TokenCounter } from "../tokens/token-counter-types.js";
import { RECALL_TOOL_NAME } from "./recall-refs.js";

// How much recalled text one call may return when the model's context window is known: what the
// next model call's input leaves free of the window, shared among the round's recall calls.

/** The share of the window a recall leaves free: the counter's error, and what the state does not hold (system prompt, tool schemas) when no usage is reported. @internal */
export const RECALL_ROOM_MARGIN = 0.05;
/** Tokens one call's result adds to its text: the `<recalled>` header and fence, the line naming the next part, and the tool message's own (its role, call id and name). @internal */
export const RECALL_FRAME_TOKENS = 50;

/**
 * The most tokens of recalled text each of `calls` parallel recall calls may return so that a
 * context of `contextTokens` with all their results stays within the window less
 * {@link RECALL_ROOM_MARGIN} of it: the room left, split evenly, less each call's frame. May be
 * zero or negative (no room). @internal
 */
export function recallCap(window: number, contextTokens: number, calls: number): number {
  return Math.floor((Math.floor(window * (1 - RECALL_ROOM_MARGIN)) - contextTokens) / Math.max(1, calls)) - RECALL_FRAME_TOKENS;
}

/**
 * The context a recall call's result joins, read from the run's state: its tokens (the state's
 * messages by `counter`, or the model's own count of the assistant message that made the calls,
 * its input and output tokens in `usage_metadata`, whichever is more) and the recall calls that
 * assistant message made (at least 1). @internal
 */
export async function recallContext(messages: readonly unknown[], counter: TokenCounter, toolName = RECALL_TOOL_NAME): Promise<{ tokens: number; calls: number }> {
  const history = messages.filter((message): message is BaseMessage => isBaseMessage(message));
  let caller: AIMessage | undefined;
  for (let index = history.length - 1; index >= 0 && caller === undefined; index--) {
    const message = history[index]!;
    if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) caller = message;
  }
  const calls = caller?.tool_calls?.filter((call) => call.name === toolName).length ?? 0;
  const usage = caller?.usage_metadata;
  const reported = usage ? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) : 0;
  const counted = (await counter.measure(history)).total;
  return { tokens: Math.max(counted, reported), calls: Math.max(1, calls) };
}

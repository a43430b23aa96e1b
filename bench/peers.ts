/**
 * The LangChain.js counterparts, called the way a user would call them, and the token counters a
 * user would hand them.
 */
import { AIMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { ClearToolUsesEdit, countTokensApproximately, type ContextEdit } from "langchain";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";

/**
 * A synchronous message-list counter: what both `ClearToolUsesEdit` (`countTokens`) and
 * `trimMessages` (`tokenCounter`) accept.
 */
export type LangChainTokenCounter = (messages: BaseMessage[]) => number;

/** LangChain's own approximate counter (characters / 4, no per-message overhead, no cache). */
export const langChainApproximateCounter: LangChainTokenCounter = (messages) => countTokensApproximately(messages);

let encoder: Tiktoken | undefined;

/** The o200k_base encoder, loaded once per process (like ours). */
export function o200kEncoder(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

function textOf(content: BaseMessage["content"]): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (part.type === "text" && typeof part["text"] === "string") text += part["text"];
  }
  return text;
}

/** Per-message and per-request overheads, the same figures our exact counter uses. */
const TOKENS_PER_MESSAGE = 4;
const REPLY_PRIMING_TOKENS = 3;

/**
 * What a user would hand LangChain for exact counting: js-tiktoken o200k_base over every message it
 * is given (content text, JSON of the tool calls, the tool-call id, a fixed overhead), with no
 * cache. Special-token text is ordinary text (`encode(text, [], [])`), as in ours.
 */
export function tiktokenCounter(): LangChainTokenCounter {
  const tiktoken = o200kEncoder();
  const count = (text: string): number => (text === "" ? 0 : tiktoken.encode(text, [], []).length);
  return (messages) => {
    let total = REPLY_PRIMING_TOKENS;
    for (const message of messages) {
      total += TOKENS_PER_MESSAGE + count(textOf(message.content));
      if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) total += count(JSON.stringify(message.tool_calls));
      else if (ToolMessage.isInstance(message)) total += count(message.tool_call_id);
    }
    return total;
  };
}

/** The `keep` of ClearToolUsesEdit used throughout: its 3 newest tool results. */
export const CLEAR_TOOL_USES_KEEP_MESSAGES = 3;

/**
 * `ClearToolUsesEdit` set to edit on every call (`trigger.tokens` must be > 0, so 1 is the lowest
 * trigger) and keep the newest 3 tool results.
 *
 * Typed as LangChain's own `ContextEdit` interface, which is how `contextEditingMiddleware` holds
 * it: there `model` is optional, and this edit only reads it for fraction-based settings.
 */
export function clearToolUsesEdit(): ContextEdit {
  return new ClearToolUsesEdit({ trigger: { tokens: 1 }, keep: { messages: CLEAR_TOOL_USES_KEEP_MESSAGES } });
}

/**
 * One `ClearToolUsesEdit.apply`. It mutates `messages` in place (that is its contract), so the
 * caller passes a fresh shallow copy made outside the timed region. Returns how many tool results
 * it cleared.
 */
export async function applyClearToolUses(edit: ContextEdit, messages: BaseMessage[], countTokens: LangChainTokenCounter): Promise<number> {
  await edit.apply({ messages, countTokens });
  let cleared = 0;
  for (const message of messages) if (isClearedByLangChain(message)) cleared += 1;
  return cleared;
}

/** True for a tool result ClearToolUsesEdit replaced (it marks `response_metadata.context_editing.cleared`). */
export function isClearedByLangChain(message: BaseMessage): boolean {
  if (!ToolMessage.isInstance(message)) return false;
  const editing: unknown = (message.response_metadata as Record<string, unknown> | undefined)?.["context_editing"];
  return typeof editing === "object" && editing !== null && (editing as Record<string, unknown>)["cleared"] === true;
}

/**
 * `trimMessages` doing hardTruncate's job: keep the system message and as many of the newest
 * messages as fit in `maxTokens`, whole messages only (`allowPartial: false`), starting on a human
 * or assistant message so that no tool result is left without its call (the kept part starts at a
 * safe cut, as in hardTruncate).
 */
export function trimToBudget(messages: BaseMessage[], maxTokens: number, tokenCounter: LangChainTokenCounter): Promise<BaseMessage[]> {
  return trimMessages(messages, {
    maxTokens,
    strategy: "last",
    tokenCounter,
    includeSystem: true,
    allowPartial: false,
    startOn: ["human", "ai"],
  });
}

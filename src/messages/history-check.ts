import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { hasLoneSurrogate } from "../text/code-points.js";
import { assistantCalls, hasSendableContent } from "./assistant-calls.js";
import { isAssistantMessage, isBaseMessage, isToolResultMessage } from "./message-types.js";

/**
 * A message of a history that no provider can take as it is. `index` is its position in the history.
 * - `not-a-message`: the element is not a LangChain message;
 * - `invalid-content`: its content is neither a string nor an array of content blocks (strings or
 *   objects), e.g. an object, a number or `null`;
 * - `remove-message`: a `RemoveMessage`, an update for LangGraph's messages reducer, not a message;
 * - `empty-content`: a user or assistant message (one without tool calls) with nothing to send:
 *   empty or blank text, an empty array, or only blank text and reasoning blocks (Anthropic rejects
 *   empty content; OpenAI an assistant message with neither content nor calls); or an assistant
 *   message with calls whose content is an empty array (OpenAI rejects an empty array);
 * - `lone-surrogate`: a text it sends (`field`: `content`, `tool_calls`, `invalid_tool_calls`,
 *   `additional_kwargs`, `name` or `tool_call_id`) holds half of a UTF-16 surrogate pair, which is not
 *   valid Unicode (Anthropic rejects it: "no low surrogate in string").
 */
export type HistoryProblem =
  | { kind: "not-a-message"; index: number; message: string }
  | { kind: "invalid-content"; index: number; message: string }
  | { kind: "remove-message"; index: number; message: string }
  | { kind: "empty-content"; index: number; message: string }
  | { kind: "lone-surrogate"; index: number; field: TextField; message: string };

/** The fields of a message whose text a provider receives. */
export const TEXT_FIELDS = ["content", "tool_calls", "invalid_tool_calls", "additional_kwargs", "name", "tool_call_id"] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** True for an array or a plain object (not a class instance such as a `Uint8Array`). */
export function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** How deep {@link containsLoneSurrogate} and the repair look into nested data (a guard against cycles). */
export const MAX_TEXT_DEPTH = 64;

/**
 * True when a string anywhere in `value` (arrays and plain objects, down to {@link MAX_TEXT_DEPTH})
 * has a lone surrogate.
 */
export function containsLoneSurrogate(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return hasLoneSurrogate(value);
  if (depth >= MAX_TEXT_DEPTH || !isPlainContainer(value)) return false;
  if (Array.isArray(value)) return value.some((item) => containsLoneSurrogate(item, depth + 1));
  for (const key in value) if (containsLoneSurrogate(value[key], depth + 1)) return true;
  return false;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Why `content` is not a string or an array of blocks, or `undefined` when it is. */
function contentProblem(content: unknown): string | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return `content that is neither a string nor an array of content blocks: got ${describeValue(content)}`;
  for (let position = 0; position < content.length; position++) {
    const block: unknown = content[position];
    if (typeof block !== "string" && (typeof block !== "object" || block === null || Array.isArray(block))) {
      return `content block ${position} that is neither a string nor an object: got ${describeValue(block)}`;
    }
  }
  return undefined;
}

/**
 * True for a conversation message (not a tool result; system messages go to the providers' system
 * prompt, where empty text is accepted) with nothing a provider accepts as content and no calls.
 */
function isEmptyMessage(message: BaseMessage): boolean {
  if (isToolResultMessage(message) || message.type === "system" || hasSendableContent(message.content)) return false;
  return !isAssistantMessage(message) || assistantCalls(message).length === 0;
}

/**
 * Messages the strategies' checks found without a problem, by object: a strategy checks a message
 * once, however many histories hold it (a policy's input, then each of its strategies' inputs and
 * outputs). Strategies treat messages as immutable, as the token counter's per-message cache does;
 * `checkHistory` itself reads every message at every call.
 */
const checkedValid = new WeakSet<BaseMessage>();

/**
 * The problems of one message at `index`, appended to `problems`: at most one per kind, and for lone
 * surrogates one per field. Reads each text once. With `once`, a message found valid by an earlier
 * check with `once` is not read again (see `checkedValid`).
 */
export function checkMessage(element: unknown, index: number, problems: HistoryProblem[], once = false): void {
  if (!isBaseMessage(element)) {
    problems.push({ kind: "not-a-message", index, message: `element ${index} is not a LangChain message` });
    return;
  }
  const message: BaseMessage = element;
  if (once && checkedValid.has(message)) return;
  const found = problems.length;
  if (RemoveMessage.isInstance(message)) {
    problems.push({
      kind: "remove-message",
      index,
      message: `message ${index} is a RemoveMessage (an update for LangGraph's messages reducer, not a message to send): apply it to the history first`,
    });
    return;
  }
  const invalid = contentProblem(message.content);
  if (invalid !== undefined) problems.push({ kind: "invalid-content", index, message: `message ${index} (${message.type}) has ${invalid}` });
  else if (isEmptyMessage(message)) {
    problems.push({ kind: "empty-content", index, message: `message ${index} (${message.type}) has no content to send (empty or blank) and no tool calls` });
  } else if (isAssistantMessage(message) && Array.isArray(message.content) && message.content.length === 0) {
    problems.push({ kind: "empty-content", index, message: `message ${index} (ai) has an empty content array, which ChatOpenAI sends as is (OpenAI rejects it)` });
  }
  const fields = message as unknown as Record<TextField, unknown>;
  for (const field of TEXT_FIELDS) {
    if (field === "content" && invalid !== undefined) continue;
    if (containsLoneSurrogate(fields[field])) {
      problems.push({
        kind: "lone-surrogate",
        index,
        field,
        message: `message ${index} (${message.type}) has a lone surrogate (half of a UTF-16 pair, not valid Unicode) in its ${field}`,
      });
    }
  }
  if (once && problems.length === found) checkedValid.add(message);
}

/**
 * Check a history for messages no provider can take as they are (see {@link HistoryProblem}), in one
 * pass, from position `from` on (the positions before it were checked already).
 *
 * @example
 * checkHistory([new HumanMessage("hi \uD83D")]);
 * // [{ kind: "lone-surrogate", index: 0, field: "content", message: "message 0 (human) has a lone surrogate ..." }]
 */
export function checkHistory(messages: readonly unknown[], from = 0): HistoryProblem[] {
  return checkFrom(messages, from, false);
}

/** {@link checkHistory} for the strategies: a message found valid by an earlier such check is not read again. @internal */
export function checkHistoryOnce(messages: readonly unknown[], from = 0): HistoryProblem[] {
  return checkFrom(messages, from, true);
}

function checkFrom(messages: readonly unknown[], from: number, once: boolean): HistoryProblem[] {
  const problems: HistoryProblem[] = [];
  for (let index = from; index < messages.length; index++) checkMessage(messages[index], index, problems, once);
  return problems;
}

/**
 * True for the problems `invalidHistory: "repair"` can fix: lone surrogates become U+FFFD, a message
 * with nothing to send gets the text `(empty message)`.
 */
export function isRepairable(problem: HistoryProblem): boolean {
  return problem.kind === "lone-surrogate" || problem.kind === "empty-content";
}

import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isBlock, type Block } from "./message-types.js";

/**
 * Where a call was found. `tool_calls` is LangChain's own list; the others are forms a provider
 * integration sends as well:
 * - `content`: a `tool_use` content block (ChatAnthropic sends these besides `tool_calls`), or a
 *   `tool_call` / `tool_call_chunk` block of a message with `response_metadata.output_version: "v1"`;
 * - `additional_kwargs`: OpenAI's raw `{ id, type: "function", function }` calls, which ChatOpenAI
 *   sends instead of `tool_calls` when `tool_calls` is empty;
 * - `response_output`: a `function_call` item of `response_metadata.output`, which ChatOpenAI's
 *   Responses API sends as it is.
 */
export type AssistantCallSource = "tool_calls" | "content" | "additional_kwargs" | "response_output";

/** One tool call of an assistant message, as a provider integration sends it. */
export interface AssistantCall {
  /** The call id; `undefined` when the call has none (then no result can answer it). */
  readonly id: string | undefined;
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** `tool_calls` when `tool_calls` lists the call; else the first other form found holding it. */
  readonly source: AssistantCallSource;
}

/** `additional_kwargs` keys of ChatOpenAI's Responses API that map a call id to its output item id. */
export const CALL_ID_MAP_KEYS = ["__openai_function_call_ids__", "__openai_custom_tool_call_ids__"] as const;

/** Content block types that restate a call (whether or not a converter sends them). */
export const CALL_BLOCK_TYPES: ReadonlySet<string> = new Set(["tool_use", "tool_call", "tool_call_chunk", "function_call"]);

/**
 * Content parts that are not content a provider accepts on their own: call blocks, streamed call
 * input, and reasoning (ChatOpenAI drops reasoning and thinking parts).
 */
const NOT_CONTENT_TYPES: ReadonlySet<string> = new Set([
  ...CALL_BLOCK_TYPES,
  "input_json_delta",
  "reasoning",
  "reasoning_content",
  "thinking",
  "redacted_thinking",
]);



/** True for a message built from ChatOpenAI / ChatAnthropic "v1" output (standard content blocks). */
export function isV1Message(message: BaseMessage): boolean {
  return (message.response_metadata as Record<string, unknown> | undefined)?.["output_version"] === "v1";
}

/** The call id a content block, raw call or output item carries (`call_id` for Responses API forms). */
export function blockCallId(block: Block): string | undefined {
  if (block["type"] === "function_call" && typeof block["call_id"] === "string") return block["call_id"];
  return typeof block["id"] === "string" ? block["id"] : undefined;
}

/** Whether a content block is a call a converter sends (see {@link AssistantCallSource}). */
export function isSentCallBlock(block: unknown, v1: boolean): block is Block {
  if (!isBlock(block)) return false;
  return v1 ? block["type"] === "tool_call" || block["type"] === "tool_call_chunk" : block["type"] === "tool_use";
}

/** Whether an item of `response_metadata.output` is a call (ChatOpenAI's Responses API). */
export function isOutputCallItem(item: unknown): item is Block {
  return isBlock(item) && (item["type"] === "function_call" || item["type"] === "custom_tool_call") && typeof item["call_id"] === "string";
}

function parseArgs(value: unknown): Record<string, unknown> {
  if (isBlock(value)) return value;
  if (typeof value !== "string" || value === "") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isBlock(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The raw OpenAI calls in `additional_kwargs.tool_calls`, when it is an array. */
export function rawToolCalls(message: BaseMessage): unknown[] | undefined {
  const raw = (message.additional_kwargs as Record<string, unknown> | undefined)?.["tool_calls"];
  return Array.isArray(raw) ? raw : undefined;
}

/** `response_metadata.output`, when it is an array (ChatOpenAI's Responses API). */
export function responseOutput(message: BaseMessage): unknown[] | undefined {
  const output = (message.response_metadata as Record<string, unknown> | undefined)?.["output"];
  return Array.isArray(output) ? output : undefined;
}

/**
 * Matches the entries of one representation (content blocks, raw calls...) to call positions: the
 * k-th entry with id X is the k-th call with id X, so repeated ids keep their own entries.
 * @internal
 */
export class CallMatcher {
  readonly #positions = new Map<string, number[]>();
  #seen = new Map<string, number>();

  constructor(calls: readonly { readonly id: string | undefined }[]) {
    calls.forEach((call, position) => {
      const key = call.id ?? "";
      const list = this.#positions.get(key);
      if (list) list.push(position);
      else this.#positions.set(key, [position]);
    });
  }

  /** Start matching another representation. */
  reset(): void {
    this.#seen = new Map();
  }

  /** The call position of the next entry with this id, or `undefined` when there are more entries than calls. */
  next(id: string | undefined): number | undefined {
    const key = id ?? "";
    const occurrence = this.#seen.get(key) ?? 0;
    this.#seen.set(key, occurrence + 1);
    return this.#positions.get(key)?.[occurrence];
  }
}

/**
 * The tool calls of an assistant message as ChatOpenAI and ChatAnthropic send them: `tool_calls`,
 * in order, then every call only another form holds, in the order found: `tool_use` content blocks
 * (or `tool_call` blocks of a v1 message), the raw OpenAI calls of `additional_kwargs.tool_calls`
 * when `tool_calls` is empty (ChatOpenAI sends them then), and `function_call` items of
 * `response_metadata.output`. A form's k-th entry with an id is the k-th call with that id, so
 * repeated ids stay distinct calls. Server-side tool blocks (`server_tool_use`) are not calls: their
 * results are in the same message. `invalid_tool_calls` are not sent as such (ChatOpenAI sends their
 * raw form, through `additional_kwargs.tool_calls`, only when `tool_calls` is empty).
 *
 * Every call returned needs a tool result. Positions are the ones {@link editToolCalls} takes. An
 * empty array for any other message.
 *
 * @example
 * const calls = assistantCalls(message);
 * const unlisted = calls.filter((call) => call.source !== "tool_calls"); // ChatOpenAI would not send these
 */
export function assistantCalls(message: BaseMessage): AssistantCall[] {
  if (!isAssistantMessage(message)) return [];
  const listed = message.tool_calls ?? [];
  const calls: AssistantCall[] = listed.map((call) => ({
    id: typeof call.id === "string" && call.id !== "" ? call.id : undefined,
    name: call.name ?? "",
    args: call.args ?? {},
    source: "tool_calls",
  }));
  const content = Array.isArray(message.content) ? (message.content as unknown[]) : undefined;
  const raw = listed.length === 0 ? rawToolCalls(message) : undefined;
  const output = responseOutput(message);
  // The common case: tool_calls is the only form (string content, or raw calls it already lists).
  if (content === undefined && raw === undefined && output === undefined) return calls;

  const matcher = new CallMatcher(calls);
  const addUnlisted = (id: string | undefined, name: unknown, args: unknown, source: AssistantCallSource) => {
    if (matcher.next(id) !== undefined) return;
    calls.push({ id: id === "" ? undefined : id, name: typeof name === "string" ? name : "", args: parseArgs(args), source });
  };
  if (content !== undefined) {
    const v1 = isV1Message(message);
    for (const block of content) {
      if (!isSentCallBlock(block, v1)) continue;
      addUnlisted(blockCallId(block), block["name"], block["type"] === "tool_use" ? block["input"] : block["args"], "content");
    }
  }
  if (raw !== undefined) {
    matcher.reset();
    for (const entry of raw) {
      if (!isBlock(entry)) continue;
      const fn = isBlock(entry["function"]) ? entry["function"] : {};
      addUnlisted(blockCallId(entry), fn["name"], fn["arguments"], "additional_kwargs");
    }
  }
  if (output !== undefined) {
    matcher.reset();
    for (const item of output) {
      if (!isOutputCallItem(item)) continue;
      addUnlisted(item["call_id"] as string, item["name"], item["arguments"] ?? item["input"], "response_output");
    }
  }
  return calls;
}

/**
 * Whether content holds anything a provider accepts as an assistant message's content: text that is
 * not only white space, or a part other than call blocks and reasoning.
 */
export function hasSendableContent(content: BaseMessage["content"]): boolean {
  if (typeof content === "string") return content.trim() !== "";
  if (!Array.isArray(content)) return false;
  for (const part of content as unknown[]) {
    if (typeof part === "string") {
      if (part.trim() !== "") return true;
      continue;
    }
    if (!isBlock(part)) continue;
    const type = String(part["type"]);
    if (type === "text" || type === "text_delta") {
      if (typeof part["text"] === "string" && part["text"].trim() !== "") return true;
      continue;
    }
    if (!NOT_CONTENT_TYPES.has(type)) return true;
  }
  return false;
}

/**
 * True for an assistant message with neither calls nor content a provider accepts: one that must be
 * dropped rather than sent (ChatAnthropic would send empty content, ChatOpenAI an empty message).
 *
 * @example
 * const edited = editToolCalls(message, { keepPositions: new Set() });
 * if (isEmptyAssistantMessage(edited)) {
 *   // drop it
 * }
 */
export function isEmptyAssistantMessage(message: BaseMessage): boolean {
  return isAssistantMessage(message) && !hasSendableContent(message.content) && assistantCalls(message).length === 0;
}

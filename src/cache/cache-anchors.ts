import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { z } from "zod/v4";
import { parseOptions } from "../options.js";
import { isV1Message } from "../messages/assistant-calls.js";
import { cloneMessage } from "../messages/clone-message.js";
import { isAssistantMessage, isBlock, isToolResultMessage, type Block } from "../messages/message-types.js";
import { carriesToolResults, toolResultBlocksOf } from "../messages/tool-result-blocks.js";
import { isLangChainCleared } from "../strategies/hiding-pass.js";
import { compactionMarkerOf } from "../types.js";

/**
 * Cache anchors for Anthropic's prompt cache.
 *
 * Anthropic reads a cached prefix only where a request put a cache breakpoint (`cache_control`), and
 * a breakpoint finds an earlier entry only among the 20 content blocks before it. With one
 * breakpoint at the end of each request (automatic caching), an agent loop reads the previous
 * call's whole prompt while the history only grows; when older tool results are hidden, the
 * changed result is far more than 20 blocks back and the whole prompt is written again at the
 * cache-write price. Two extra breakpoints, both computed from the history alone, keep the part
 * before the change readable:
 *
 * - **next**: on the assistant message whose call the first result after the newest hidden one
 *   answers (the first result of the history when none is hidden). A later hiding run starts there
 *   or later, so every request between runs writes (and refreshes) the prefix that run keeps.
 * - **previous**: on the assistant message of the oldest result hidden by the newest run (its
 *   hidden copies record it in `response_metadata.compaction.batch`). That is where the previous
 *   request's **next** anchor stood, so the request after a hiding run reads everything before it.
 *
 * When a history shows emptied call arguments (`hideToolInputs`: an assistant message's marker
 * lists `hiddenToolInputs`), a run also changes the assistant message of its oldest result, so both
 * anchors move to the assistant message before it.
 */

/** `cache_control` as Anthropic takes it: the 5-minute ephemeral cache. */
export const EPHEMERAL_CACHE_CONTROL = Object.freeze({ type: "ephemeral" as const });

/** How many breakpoints Anthropic accepts in one request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/** Options of {@link anthropicCacheAnchors}. */
export interface CacheAnchorOptions {
  /**
   * Whether the request also carries automatic caching's breakpoint at its end (`ChatAnthropic`'s
   * `cache_control` call option, or LangChain's `anthropicPromptCachingMiddleware`): it takes one of
   * the request's {@link ANTHROPIC_MAX_BREAKPOINTS}. @default true
   */
  automaticCaching?: boolean;
  /**
   * The anchors' cache lifetime. Anthropic wants a breakpoint with a longer lifetime never after
   * one with a shorter, so give the lifetime of the request's other breakpoints (automatic caching's
   * `ttl`): with `"1h"` there, `"1h"` here. @default "5m" (no `ttl` field sent)
   */
  ttl?: "5m" | "1h";
}

const optionsSchema = z.object({ automaticCaching: z.boolean().optional(), ttl: z.enum(["5m", "1h"]).optional() }).strict();

/** Where a history's results are, as the anchors need them: one pass. */
interface ResultScan {
  /** Per result message (in order): its index and the index of the assistant message before it. */
  readonly results: { readonly index: number; readonly assistant: number; readonly previousAssistant: number; readonly ids: readonly string[] }[];
  /** Position in `results` of the newest hidden result, -1 when none is. */
  readonly newestHidden: number;
  /** Some assistant message has emptied call arguments. */
  readonly inputsHidden: boolean;
}

function scan(messages: readonly BaseMessage[]): ResultScan {
  const results: ResultScan["results"] = [];
  let assistant = -1;
  let previousAssistant = -1;
  let newestHidden = -1;
  let inputsHidden = false;
  messages.forEach((message, index) => {
    if (isAssistantMessage(message)) {
      previousAssistant = assistant;
      assistant = index;
      if ((compactionMarkerOf(message)?.hiddenToolInputs?.length ?? 0) > 0) inputsHidden = true;
      return;
    }
    const ids = isToolResultMessage(message) ? [message.tool_call_id] : carriesToolResults(message) ? toolResultBlocksOf(message).map((ref) => ref.toolUseId) : undefined;
    if (ids === undefined) return;
    if (compactionMarkerOf(message)?.hidden || isLangChainCleared(message)) newestHidden = results.length;
    results.push({ index, assistant, previousAssistant, ids });
  });
  return { results, newestHidden, inputsHidden };
}

/**
 * The indices of the assistant messages that {@link anthropicCacheAnchors} marks, in history order
 * (none, one or two): see the module's description for the rule. Linear in the history.
 *
 * @example
 * cacheAnchorPositions(history); // e.g. [57, 212]: anchors after messages 57 and 212
 */
export function cacheAnchorPositions(messages: readonly BaseMessage[]): number[] {
  const { results, newestHidden, inputsHidden } = scan(messages);
  const anchorOf = (result: ResultScan["results"][number] | undefined): number => (result === undefined ? -1 : inputsHidden ? result.previousAssistant : result.assistant);
  const anchors = new Set<number>();
  if (newestHidden >= 0) {
    const batch = compactionMarkerOf(messages[results[newestHidden]!.index]!)?.batch;
    if (batch !== undefined) {
      let position = newestHidden;
      while (position >= 0 && !results[position]!.ids.includes(batch)) position--;
      anchors.add(anchorOf(results[position]));
    }
  }
  anchors.add(anchorOf(results[newestHidden + 1]));
  anchors.delete(-1);
  return [...anchors].sort((a, b) => a - b).filter((index) => anchorBlocks(messages[index] as AIMessage) !== undefined);
}

/** Breakpoints (`cache_control` blocks) a history already carries: each takes one of the request's. */
function breakpointsIn(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) if (isBlock(block) && block["cache_control"] !== undefined) count++;
  }
  return count;
}

/**
 * `messages` with cache breakpoints added for Anthropic (see the module's description): the
 * assistant messages at {@link cacheAnchorPositions} are replaced by copies whose content is the
 * list of blocks `ChatAnthropic` sends for them anyway (their text, then a `tool_use` block per call)
 * with `cache_control: { type: "ephemeral" }` (and `ttl` when `"1h"`) on the last block. What the converter sends is
 * otherwise unchanged, byte for byte, so the cached prefix is the same with or without anchors.
 * Never mutates its input; returns it as it is when there is nothing to anchor, or when the
 * request has fewer than two breakpoints left (Anthropic allows {@link ANTHROPIC_MAX_BREAKPOINTS};
 * `cache_control` blocks already in the messages and automatic caching's take theirs), since one
 * anchor alone reads nothing.
 *
 * For `ChatAnthropic` only: other providers do not take `tool_use` blocks or `cache_control`.
 * Apply it to the request, not to the stored history: breakpoints belong to one request.
 *
 * @example
 * const model = new ChatAnthropic({ model: "claude-sonnet-4-5" }).withConfig({ cache_control: { type: "ephemeral" } });
 * const reply = await model.invoke(anthropicCacheAnchors(hiddenHistory));
 * @throws {InvalidOptionError} for an invalid option.
 */
export function anthropicCacheAnchors(messages: readonly BaseMessage[], options: CacheAnchorOptions = {}): BaseMessage[] {
  parseOptions("anthropicCacheAnchors", optionsSchema, options);
  const positions = cacheAnchorPositions(messages);
  const free = ANTHROPIC_MAX_BREAKPOINTS - ((options.automaticCaching ?? true) ? 1 : 0) - breakpointsIn(messages);
  if (positions.length === 0 || free < 2) return [...messages];
  const cacheControl = options.ttl === undefined || options.ttl === "5m" ? EPHEMERAL_CACHE_CONTROL : { ...EPHEMERAL_CACHE_CONTROL, ttl: options.ttl };
  const output = [...messages];
  for (const index of positions) output[index] = cloneMessage(messages[index]!, { content: anchorBlocks(messages[index] as AIMessage, cacheControl)! });
  return output;
}

/**
 * {@link anthropicCacheAnchors} as a runnable, for an LCEL chain between the compaction and
 * `ChatAnthropic` (its runs are named `anthropicCacheAnchors`).
 *
 * @example
 * const model = new ChatAnthropic({ model: "claude-sonnet-4-5" }).withConfig({ cache_control: { type: "ephemeral" } });
 * const chain = toolResultHiding().pipe(anthropicCacheAnchorsRunnable()).pipe(model);
 */
export function anthropicCacheAnchorsRunnable(options: CacheAnchorOptions = {}): Runnable<BaseMessage[], BaseMessage[]> {
  parseOptions("anthropicCacheAnchorsRunnable", optionsSchema, options);
  return RunnableLambda.from((messages: BaseMessage[]) => anthropicCacheAnchors(messages, options)).withConfig({ runName: "anthropicCacheAnchors" });
}

/** Block types `ChatAnthropic` passes `cache_control` through on, as the last block of an assistant message. */
const ANCHORABLE_BLOCKS: ReadonlySet<unknown> = new Set(["text", "tool_use"]);

/**
 * The content blocks `ChatAnthropic` sends for `message`, the last one marked with `cache_control`;
 * `undefined` when it cannot be marked so (a v1 message, which the converter formats apart; no
 * block; a last block of another kind, such as thinking, which takes no `cache_control`).
 */
function anchorBlocks(message: AIMessage, cacheControl: Readonly<Record<string, string>> = EPHEMERAL_CACHE_CONTROL): Block[] | undefined {
  if (isV1Message(message)) return undefined;
  const calls = message.tool_calls ?? [];
  const blocks: Block[] =
    typeof message.content === "string"
      ? message.content === "" && calls.length > 0
        ? []
        : [{ type: "text", text: message.content }]
      : (message.content as unknown[]).filter(isBlock);
  if (typeof message.content !== "string" && blocks.length !== message.content.length) return undefined;
  const sent = new Set(blocks.filter((block) => block["type"] === "tool_use" || block["type"] === "server_tool_use" || block["type"] === "input_json_delta").map((block) => block["id"]));
  for (const call of calls) {
    if (call.id === undefined) return undefined;
    if (!sent.has(call.id)) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.args });
  }
  const last = blocks.at(-1);
  if (last === undefined || !ANCHORABLE_BLOCKS.has(last["type"]) || (last["type"] === "text" && last["text"] === "")) return undefined;
  blocks[blocks.length - 1] = { ...last, cache_control: { ...cacheControl } };
  return blocks;
}

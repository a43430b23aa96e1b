import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { z } from "zod/v4";
import { parseOptions } from "../options.js";
import { isV1Message } from "../messages/assistant-calls.js";
import { cloneMessage } from "../messages/clone-message.js";
import { isBlock, type Block } from "../messages/message-types.js";
import { cacheAnchorPositions } from "./cache-anchor-positions.js";

/**
 * Cache anchors for Anthropic's prompt cache: `cache_control` breakpoints on the assistant messages
 * that `cacheAnchorPositions` finds (see cache-anchor-positions.ts for the rule).
 *
 * Anthropic reads a cached prefix only where a request put a cache breakpoint, and a breakpoint finds
 * an earlier entry only among the 20 content blocks before it. With one breakpoint at the end of each
 * request (automatic caching), an agent loop reads the previous call's whole prompt while the
 * history only grows; when older tool results are hidden, the change is far more than 20 blocks back
 * and the whole prompt is written again at the cache-write price. The anchors keep the part before
 * the change readable.
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
  /**
   * The lifetimes of the breakpoints the request carries outside these messages, in order: on tool
   * definitions, or on a system prompt kept apart (`createAgent`'s). They count towards the 4 and
   * come first. @default []
   */
  externalBreakpoints?: readonly ("5m" | "1h")[];
}

/** The options a request's anchors share with the middleware's. @internal */
export const anchorOptionsShape = { automaticCaching: z.boolean().optional(), ttl: z.enum(["5m", "1h"]).optional() };

const optionsSchema = z.object({ ...anchorOptionsShape, externalBreakpoints: z.array(z.enum(["5m", "1h"])).optional() }).strict();

/** A breakpoint's lifetime, by rank: a request must not rank one above an earlier one. */
type Ttl = "5m" | "1h";
const TTL_RANK: Record<Ttl, number> = { "5m": 1, "1h": 2 };

/** The lifetime a `cache_control` asks for: `"1h"`, else Anthropic's default `"5m"`. */
export function ttlOf(cacheControl: unknown): Ttl {
  return (cacheControl as { ttl?: unknown } | null)?.ttl === "1h" ? "1h" : "5m";
}

/**
 * The lifetimes of the breakpoints in a message's `content`, in order: `cache_control` on a block,
 * or on a block nested in a block's `content` (a tool result's).
 *
 * @example
 * contentBreakpoints([{ type: "text", text: "rules", cache_control: { type: "ephemeral", ttl: "1h" } }]); // ["1h"]
 */
export function contentBreakpoints(content: unknown): ("5m" | "1h")[] {
  return breakpointsOf(content, []);
}

function breakpointsOf(content: unknown, into: Ttl[]): Ttl[] {
  if (!Array.isArray(content)) return into;
  for (const block of content) {
    if (!isBlock(block)) continue;
    if (block["cache_control"] !== undefined && block["cache_control"] !== null) into.push(ttlOf(block["cache_control"]));
    breakpointsOf(block["content"], into);
  }
  return into;
}

/**
 * `messages` with cache breakpoints added for Anthropic (see `cacheAnchorPositions` for where): the
 * assistant messages there are replaced by copies whose content is the list of blocks `ChatAnthropic`
 * sends for them anyway (their text, then a `tool_use` block per call; a streamed reply's deltas
 * left out, as the converter leaves them out) with `cache_control: { type: "ephemeral" }` (and `ttl`
 * when `"1h"`) on the last block. What the converter sends is otherwise unchanged, byte for byte, so
 * the cached prefix is the same with or without anchors. Never mutates its input.
 *
 * The messages are returned as they are when there is nothing to anchor, or when the anchors would
 * make a request Anthropic rejects: more than {@link ANTHROPIC_MAX_BREAKPOINTS} breakpoints (those
 * outside the messages, `externalBreakpoints`, those in the messages, nested ones included, and
 * automatic caching's count), or a breakpoint with a longer lifetime after one with a shorter.
 * An assistant message whose last block takes no `cache_control` (thinking) is not anchored.
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
  const ttl = options.ttl ?? "5m";
  // Each anchored message's blocks as ChatAnthropic sends them, worked out once.
  const sent = new Map<number, Block[]>();
  for (const index of cacheAnchorPositions(messages)) {
    const blocks = sentBlocks(messages[index] as AIMessage);
    if (blocks !== undefined) sent.set(index, blocks);
  }
  if (sent.size === 0) return [...messages];
  // Every breakpoint of the request in order: outside the messages (tools, a system prompt kept
  // apart), the messages' own and the anchors, then automatic caching's at the end.
  const order: Ttl[] = [...(options.externalBreakpoints ?? [])];
  messages.forEach((message, index) => {
    breakpointsOf(message.content, order);
    if (sent.has(index)) order.push(ttl);
  });
  if (options.automaticCaching ?? true) order.push(ttl);
  const fits = order.length <= ANTHROPIC_MAX_BREAKPOINTS && order.every((current, position) => position === 0 || TTL_RANK[current] <= TTL_RANK[order[position - 1]!]);
  if (!fits) return [...messages];
  const cacheControl = ttl === "5m" ? EPHEMERAL_CACHE_CONTROL : { ...EPHEMERAL_CACHE_CONTROL, ttl };
  const output = [...messages];
  for (const [index, blocks] of sent) output[index] = cloneMessage(messages[index]!, { content: [...blocks.slice(0, -1), { ...blocks.at(-1)!, cache_control: { ...cacheControl } }] });
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
 * The content blocks `ChatAnthropic` sends for `message`, whose last one can take `cache_control`;
 * `undefined` when there are none such (a v1 message, which the converter formats apart; no block;
 * a last block of another kind, such as thinking, which takes no `cache_control`).
 */
function sentBlocks(message: AIMessage): Block[] | undefined {
  if (isV1Message(message)) return undefined;
  const calls = message.tool_calls ?? [];
  if (typeof message.content !== "string" && !message.content.every(isBlock)) return undefined;
  const content: Block[] = typeof message.content === "string" ? (message.content === "" && calls.length > 0 ? [] : [{ type: "text", text: message.content }]) : (message.content as Block[]);
  const blocks: Block[] = [];
  for (const block of content) {
    // A streamed reply: the converter drops the deltas and takes a tool_use's input from its call.
    if (block["type"] === "input_json_delta") continue;
    if (block["type"] === "tool_use" && typeof block["input"] === "string") {
      const call = calls.find((candidate) => candidate.id === block["id"]);
      if (call === undefined) return undefined;
      blocks.push({ ...block, input: call.args });
    } else blocks.push(block);
  }
  const sent = new Set(blocks.filter((block) => block["type"] === "tool_use" || block["type"] === "server_tool_use").map((block) => block["id"]));
  for (const call of calls) {
    if (call.id === undefined) return undefined;
    if (!sent.has(call.id)) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.args });
  }
  const last = blocks.at(-1);
  if (last === undefined || !ANCHORABLE_BLOCKS.has(last["type"]) || (last["type"] === "text" && last["text"] === "")) return undefined;
  return blocks;
}

/**
 * The cached input of a call as Anthropic's automatic caching gives it: one cache breakpoint on the
 * request's last block (`ChatAnthropic`'s `cache_control` call option, or a `cache_control` on the
 * last message, the usual setup), which writes the whole prompt to the cache; a later request reads
 * a cached prefix only where an earlier request ended, and only if that end is within
 * {@link ANTHROPIC_LOOKBACK_BLOCKS} content blocks of its own breakpoint
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching: "automatic prefix
 * checking", about 20 blocks back).
 *
 * So in an agent loop the previous call's prompt is read whole while the history only grew. A
 * change further back than that (a hidden tool result, a summary) leaves no readable entry: the
 * whole prompt is written again, system prompt included. The prefix model of the other price sets
 * (the longest run of leading messages shared with the previous call is read) is what a provider
 * that caches every prefix (OpenAI, Gemini) bills; for Anthropic it holds only with a breakpoint
 * placed at the point of every break.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { cachedPrefixTokens, commonPrefixLength } from "./metrics.js";

/** How far back from its breakpoint Anthropic looks for a cached prefix, in content blocks. */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

/** Earlier prompts of a replay kept as cache entries: more than any loop step reaches back within the lookback. */
const ENTRIES_KEPT = 8;

/**
 * The content blocks `ChatAnthropic` sends for a message: a tool result is one `tool_result` block
 * (whatever its content; consecutive ones are merged into one user turn but stay a block each), a
 * string content one text block (none when empty), a content array one block per element, and each
 * tool call of an assistant message one `tool_use` block.
 */
export function anthropicBlocks(message: BaseMessage): number {
  if (message.type === "tool") return 1;
  const content = message.content;
  const contentBlocks = typeof content === "string" ? (content === "" ? 0 : 1) : content.length;
  const calls = (message as { tool_calls?: unknown[] }).tool_calls?.length ?? 0;
  // An array content already holds its tool_use blocks when it has them.
  const hasToolUse = Array.isArray(content) && content.some((block) => typeof block === "object" && block !== null && (block as { type?: unknown }).type === "tool_use");
  return contentBlocks + (hasToolUse ? 0 : calls);
}

/** One earlier prompt, as a cache entry. */
interface Entry {
  readonly messages: readonly BaseMessage[];
  readonly blocks: number;
}

/**
 * The prompts a replay has sent, and what each new one reads from them under automatic caching.
 *
 * @example
 * const cache = new AnthropicAutomaticCache();
 * const read = cache.read(input, perMessageTokens); // tokens read from the cache
 * cache.write(input);                                // the call's breakpoint writes its prompt
 */
export class AnthropicAutomaticCache {
  readonly #entries: Entry[] = [];

  /**
   * The tokens `messages` reads from the cache: those of the longest earlier prompt that is a prefix
   * of it (same messages) and ends within {@link ANTHROPIC_LOOKBACK_BLOCKS} blocks of its end; 0
   * when there is none.
   */
  read(messages: readonly BaseMessage[], perMessage: readonly number[]): number {
    const blocks = blocksOf(messages);
    let best = 0;
    for (const entry of this.#entries) {
      const within = blocks - entry.blocks <= ANTHROPIC_LOOKBACK_BLOCKS && entry.blocks <= blocks;
      if (!within || entry.messages.length <= best || entry.messages.length > messages.length) continue;
      if (commonPrefixLength(entry.messages, messages) === entry.messages.length) best = entry.messages.length;
    }
    return best === 0 ? 0 : cachedPrefixTokens(perMessage, best);
  }

  /** A call sent `messages` with its breakpoint at the end: an entry for the whole prompt. */
  write(messages: readonly BaseMessage[]): void {
    this.#entries.unshift({ messages, blocks: blocksOf(messages) });
    if (this.#entries.length > ENTRIES_KEPT) this.#entries.pop();
  }
}

function blocksOf(messages: readonly BaseMessage[]): number {
  let blocks = 0;
  for (const message of messages) blocks += anthropicBlocks(message);
  return blocks;
}

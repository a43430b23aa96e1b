/**
 * The cached input of a call as Anthropic's automatic caching gives it: one cache breakpoint on the
 * request's last block (`ChatAnthropic`'s `cache_control` call option, or a `cache_control` on the
 * last message, the usual setup), which writes the whole prompt to the cache (writes happen only at
 * the breakpoint, no entry for any earlier position); a later request reads a cached prefix only
 * where an earlier request ended, and only if that end is among the
 * {@link ANTHROPIC_LOOKBACK_BLOCKS} block positions its breakpoint checks, the breakpoint itself
 * counted first (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching: the lookback
 * "checks at most 20 positions per breakpoint"). A summary call reads the same way; the entry its
 * own breakpoint writes is never a prefix of the agent's later calls, so it is not kept. The
 * 1,024-token minimum below which nothing is cached and the 5-minute lifetime are left out, as in
 * the prefix reading.
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

/** How many block positions Anthropic checks for a cached prefix, from its breakpoint back (the breakpoint counted first). */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

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

/** One earlier prompt's prefix up to a breakpoint, as a cache entry. */
interface Entry {
  readonly messages: readonly BaseMessage[];
  /** How many leading messages of `messages` the entry holds. */
  readonly length: number;
  readonly blocks: number;
}

/**
 * The prompts a replay has sent, and what each new one reads from them under automatic caching,
 * with more breakpoints where a request has them (cache anchors, `src/cache/cache-anchors.ts`).
 *
 * @example
 * const cache = new AnthropicAutomaticCache();
 * const read = cache.read(input, perMessage);      // tokens read from the cache
 * cache.write(input);                               // the call's breakpoint writes its prompt
 * const anchored = cache.read(input, perMessage, [58, input.length]); // breakpoints after messages 57 and the last
 */
export class AnthropicAutomaticCache {
  readonly #entries: Entry[] = [];

  /**
   * The tokens `messages` reads from the cache with breakpoints after the first `p` messages for each
   * `p` of `breakpoints` (default: the end only). Each breakpoint reads the longest earlier entry
   * that is a prefix of the messages before it (same messages) and ends fewer than
   * {@link ANTHROPIC_LOOKBACK_BLOCKS} blocks before it; the call reads the longest any breakpoint
   * reads, 0 when none does. Every entry is kept: the block counts rule most of them out before any
   * message is compared.
   */
  read(messages: readonly BaseMessage[], perMessage: readonly number[], breakpoints: readonly number[] = [messages.length]): number {
    const cumulative = blocksOf(messages);
    let best = 0;
    for (const end of breakpoints) {
      const blocks = cumulative[end]!;
      for (const entry of this.#entries) {
        const within = entry.blocks <= blocks && blocks - entry.blocks < ANTHROPIC_LOOKBACK_BLOCKS;
        if (!within || entry.length <= best || entry.length > end) continue;
        if (commonPrefixLength(entry.messages, messages, entry.length) === entry.length) best = entry.length;
      }
    }
    return best === 0 ? 0 : cachedPrefixTokens(perMessage, best);
  }

  /** A call sent `messages` with breakpoints after the first `p` messages for each `p` of `breakpoints` (default: the end only): an entry for each. */
  write(messages: readonly BaseMessage[], breakpoints: readonly number[] = [messages.length]): void {
    const cumulative = blocksOf(messages);
    for (const end of breakpoints) this.#entries.push({ messages, length: end, blocks: cumulative[end]! });
  }
}

/** Per prompt array, the blocks of its first `p` messages at `[p]`: counted once per prompt for its reads and writes. */
const PROMPT_BLOCKS = new WeakMap<readonly BaseMessage[], number[]>();

function blocksOf(messages: readonly BaseMessage[]): number[] {
  let cumulative = PROMPT_BLOCKS.get(messages);
  if (cumulative === undefined) {
    cumulative = [0];
    for (const message of messages) cumulative.push(cumulative.at(-1)! + anthropicBlocks(message));
    PROMPT_BLOCKS.set(messages, cumulative);
  }
  return cumulative;
}

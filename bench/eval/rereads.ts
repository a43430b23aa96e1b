/**
 * Re-reads: the recovery a grounding miss forces, priced. The replay fixes the agent's next action,
 * so a context that lost what the agent is about to reuse costs nothing there; a live agent would
 * have to fetch it again. For each reused word the model's input lacks (see grounding.ts), the
 * source is the newest tool result of the recording that had it: the agent repeats that call. Each
 * source is charged once per compaction epoch (from a step at which the system compacted to the
 * next): one extra model call whose input is the step's input, all of it a cached prefix (it was just
 * sent), plus {@link REREAD_REPLY_TOKENS} tokens of the agent's repeated call and the source's tokens
 * as a new, uncached result; its output is that repeated call. A missing word no tool result had (the
 * agent's own, or the user's) cannot be fetched again: it is counted as lost, not charged.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { costOf, type Prices } from "./metrics.js";
import type { GroundingMisses } from "./grounding.js";

/** Tokens of the reply that repeats a tool call (a stated fixed figure). */
export const REREAD_REPLY_TOKENS = 50;

/** The recovery a step's grounding misses force. */
export interface StepRecovery {
  /** Tool results charged as re-read at this step (each once per compaction epoch). */
  readonly rereads: number;
  /** Input tokens of the re-read calls: each call's cached prefix (the step's input). */
  readonly cachedTokens: number;
  /** Input tokens of the re-read calls that are not cached: the repeated call and the source result. */
  readonly uncachedTokens: number;
  /** Output tokens of the re-read calls: {@link REREAD_REPLY_TOKENS} each. */
  readonly outputTokens: number;
  /** Missing words a tool result had (recoverable: charged now or earlier in the epoch). */
  readonly rereadWords: number;
  /** Missing words only the agent's own replies had. */
  readonly lostOwnWords: number;
  /** Missing words only user (or system) messages had. */
  readonly lostUserWords: number;
}

/** No recovery. */
export const NO_RECOVERY: StepRecovery = Object.freeze({ rereads: 0, cachedTokens: 0, uncachedTokens: 0, outputTokens: 0, rereadWords: 0, lostOwnWords: 0, lostUserWords: 0 });

/**
 * The re-reads of one replay: which sources this compaction epoch has already charged.
 *
 * @example
 * const ledger = new RereadLedger();
 * if (step.compacted) ledger.newEpoch();
 * const recovery = await ledger.charge(grounding.misses(reply, input), inputTokens, (m) => counter.countMessage(m));
 */
export class RereadLedger {
  #charged = new Set<BaseMessage>();

  /** A compaction: the next miss of any source is charged again. */
  newEpoch(): void {
    this.#charged = new Set();
  }

  /**
   * The recovery of one step: `inputTokens` is the step's model input, `countMessage` the tokens of a
   * source as a result (the recording's message).
   */
  async charge(misses: GroundingMisses, inputTokens: number, countMessage: (message: BaseMessage) => Promise<number>): Promise<StepRecovery> {
    if (misses.missing.size === 0) return NO_RECOVERY;
    let rereads = 0;
    let uncachedTokens = 0;
    let rereadWords = 0;
    let lostOwnWords = 0;
    let lostUserWords = 0;
    for (const source of misses.missing.values()) {
      if (source.kind === "own") lostOwnWords++;
      else if (source.kind === "user") lostUserWords++;
      else if (source.kind === "tool") {
        rereadWords++;
        if (this.#charged.has(source.message)) continue;
        this.#charged.add(source.message);
        rereads++;
        uncachedTokens += REREAD_REPLY_TOKENS + (await countMessage(source.message));
      }
    }
    return { rereads, cachedTokens: rereads * inputTokens, uncachedTokens, outputTokens: rereads * REREAD_REPLY_TOKENS, rereadWords, lostOwnWords, lostUserWords };
  }
}

/** Re-read tokens summed over steps, the basis of their cost. */
export interface RereadTokens {
  readonly rereadCachedTokens: number;
  readonly rereadUncachedTokens: number;
  readonly rereadOutputTokens: number;
}

/**
 * What the re-reads cost at `prices`: uncached input at the cache-write price, the cached prefix at
 * the cached price, output at the output price (as {@link costOf}). Every price set reads the cached
 * prefix the same way: it is the whole previous request, which any provider's cache holds.
 *
 * @example
 * rereadCost({ rereadCachedTokens: 10_000, rereadUncachedTokens: 1_050, rereadOutputTokens: 50 }, DEFAULT_PRICES); // 1000 + 1050 + 200
 */
export function rereadCost(tokens: RereadTokens, prices: Prices): number {
  return costOf({ input: tokens.rereadCachedTokens + tokens.rereadUncachedTokens, cached: tokens.rereadCachedTokens, output: tokens.rereadOutputTokens }, prices);
}

import type { BaseMessage } from "@langchain/core/messages";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod/v4";
import { InvalidHistoryError } from "../errors.js";
import { isBaseMessage } from "../messages/message-types.js";
import { indexToolCallGroups, type ToolCallIndex } from "../messages/tool-call-groups.js";
import { repairToolPairing } from "../messages/tool-pairing.js";
import { defaultTokenCounter, tokenCounterSchema, type TokenCounter, type TokenMeasurement } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult, RemovedMessage, ReplacedMessage } from "../types.js";

/** What a strategy does with a history whose tool calls and results do not pair up. */
export type InvalidHistoryHandling = "throw" | "repair";

/** Options every strategy accepts. */
export interface BaseStrategyOptions {
  /** Counter for all token figures. @default the shared exact o200k_base counter */
  tokenCounter?: TokenCounter;
  /**
   * `"throw"`: a history with broken tool pairing is rejected with an `InvalidHistoryError` listing
   * the problems. `"repair"`: it is first repaired with `repairToolPairing` (orphan results dropped,
   * unanswered calls removed, repeated ids renamed) and the result's `repair` says what was fixed.
   * @default "throw"
   */
  invalidHistory?: InvalidHistoryHandling;
}

/** @internal */
export const baseOptionsShape = {
  tokenCounter: tokenCounterSchema.optional(),
  invalidHistory: z.enum(["throw", "repair"]).optional(),
};

/** A valid history with everything a strategy needs, computed once per run. @internal */
export interface PreparedHistory {
  readonly messages: readonly BaseMessage[];
  readonly index: ToolCallIndex;
  readonly tokens: TokenMeasurement;
  readonly context: CompactionContext;
}

/** What a strategy's `run` returns: the result without the figures the base class fills in. */
export interface StrategyOutcome {
  readonly status: CompactionResult["status"];
  readonly messages?: BaseMessage[];
  readonly removed?: readonly RemovedMessage[];
  readonly replaced?: readonly ReplacedMessage[];
  readonly reason?: string;
}

/**
 * Base of every strategy: a `Runnable<BaseMessage[], BaseMessage[]>` (so `strategy.pipe(model)`
 * works in LCEL) with a `compact()` method that also reports what it did.
 *
 * Every run checks the input (an array of messages with valid tool pairing, else a typed error or
 * the documented repair), indexes the tool-call groups once and counts every message once.
 */
export abstract class CompactionStrategy extends Runnable<BaseMessage[], BaseMessage[]> {
  lc_namespace = ["langchain_compaction", "strategies"];
  /** Name reported in results, e.g. `toolResultHiding`. */
  abstract readonly strategyName: string;
  protected readonly tokenCounter: TokenCounter;
  protected readonly invalidHistory: InvalidHistoryHandling;

  protected constructor(options: BaseStrategyOptions) {
    super();
    this.tokenCounter = options.tokenCounter ?? defaultTokenCounter();
    this.invalidHistory = options.invalidHistory ?? "throw";
  }

  /** The strategy itself, on a checked history. Must not mutate anything it is given. */
  protected abstract run(history: PreparedHistory): Promise<StrategyOutcome>;

  /**
   * Compact a history.
   *
   * @returns the new history and what was done; on `noop` and `failed` the messages are the input's.
   * @throws {InvalidHistoryError} when `messages` is not an array of messages, or (with
   *   `invalidHistory: "throw"`) its tool pairing is broken.
   */
  async compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
    if (!Array.isArray(messages)) throw new InvalidHistoryError(`${this.strategyName}: expected an array of messages, got ${typeof messages}`);
    for (let position = 0; position < messages.length; position++) {
      if (!isBaseMessage(messages[position])) {
        throw new InvalidHistoryError(`${this.strategyName}: element ${position} is not a LangChain message`);
      }
    }
    context.signal?.throwIfAborted();
    let input: readonly BaseMessage[] = messages;
    let index = indexToolCallGroups(input);
    let repair: CompactionResult["repair"];
    if (index.problems.length > 0) {
      if (this.invalidHistory === "throw") {
        const first = index.problems[0]!;
        throw new InvalidHistoryError(
          `${this.strategyName}: the history's tool calls and results do not pair up (${index.problems.length} problem(s); first: ${first.message}). ` +
            `Fix it with repairToolPairing() or pass invalidHistory: "repair".`,
          index.problems,
        );
      }
      repair = repairToolPairing(input);
      input = repair.messages;
      index = indexToolCallGroups(input);
    }
    const tokens = await this.tokenCounter.measure(input);
    const outcome = await this.run({ messages: input, index, tokens, context });
    context.signal?.throwIfAborted();
    const unchanged = outcome.status === "noop" || outcome.status === "failed" || outcome.messages === undefined;
    const output = unchanged ? [...input] : outcome.messages!;
    // A recount (cached per message, so one linear pass) makes tokensAfter exactly what the next
    // run will measure, calibration included.
    const tokensAfter = unchanged ? tokens.total : (await this.tokenCounter.measure(output)).total;
    return {
      messages: output,
      status: outcome.status,
      strategy: this.strategyName,
      tokensBefore: tokens.total,
      tokensAfter,
      messagesBefore: messages.length,
      messagesAfter: output.length,
      removed: unchanged ? [] : (outcome.removed ?? []),
      replaced: unchanged ? [] : (outcome.replaced ?? []),
      ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      ...(repair ? { repair } : {}),
    };
  }

  /** Runnable entry point: the compacted history (the input's messages on `noop` or `failed`). */
  async invoke(input: BaseMessage[], options?: Partial<RunnableConfig>): Promise<BaseMessage[]> {
    return this._callWithConfig(
      async (messages: BaseMessage[], config?: Partial<RunnableConfig>) =>
        (await this.compact(messages, config?.signal ? { signal: config.signal } : {})).messages,
      input,
      options,
    );
  }
}

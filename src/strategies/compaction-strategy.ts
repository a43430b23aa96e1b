import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { Runnable, patchConfig, type RunnableConfig } from "@langchain/core/runnables";
import { emitCompactionEvent, type CompactionLogger } from "../observability.js";
import { compactionEventOf, type EventSource } from "./strategy-event.js";
import { defaultTokenCounter, tokenCounterFromFunction, type TokenCounter } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { analyse, countRest, outputProblem, patchTokens, prepareInput, type Analysis, type InvalidHistoryHandling, type PreparedInput } from "./prepare-history.js";
import { boundedNoopResult, warmCountsLater, type BoundedHistory, type BoundedNoop } from "./bounded-noop.js";
import type { BaseStrategyOptions } from "./strategy-options.js";
import type { PreparedHistory, StrategyOutcome } from "./strategy-run.js";
import { settledPromise } from "./settled-promise.js";
import { logReplaced } from "./replaced-log.js";
import { warnSummaryError } from "./summary-warnings.js";

export type { InvalidHistoryHandling } from "./prepare-history.js";
export type { BoundedHistory, BoundedNoop } from "./bounded-noop.js";
export { baseOptionsShape, type BaseStrategyOptions } from "./strategy-options.js";
export type { PreparedHistory, StrategyOutcome } from "./strategy-run.js";

/** A run's synchronous start (see `CompactionStrategy.#begin`). */
interface Begun {
  readonly prepared: PreparedInput | Promise<PreparedInput>;
  /** The no-op decided under the bound, when there is one. */
  readonly result: CompactionResult | undefined;
}

/** Contexts of runs nested in a policy's run: the policy reports the run, they do not dispatch their own event. */
const nestedContexts = new WeakSet<CompactionContext>();

/**
 * The context for a strategy a policy runs inside its own run: forced (the policy's trigger
 * decided), and without a custom event of its own. @internal
 */
export function nestedContext(context: CompactionContext): CompactionContext {
  const nested: CompactionContext = { ...context, force: true };
  nestedContexts.add(nested);
  return nested;
}

/**
 * Base of every strategy: a `Runnable<BaseMessage[], BaseMessage[]>` (so `strategy.pipe(model)`
 * works in LCEL) with a `compact()` method that also reports what it did.
 *
 * Every run checks the input (an array of messages a provider accepts: valid content, valid tool
 * pairing, well-formed text; else a typed error or the documented repair), indexes the tool-call
 * groups once and counts every message once. An output whose new messages a provider would reject
 * fails the run, which then changes nothing.
 */
export abstract class CompactionStrategy extends Runnable<BaseMessage[], BaseMessage[]> {
  lc_namespace = ["langchain_compaction", "strategies"];
  /** Name reported in results, e.g. `toolResultHiding`. */
  abstract readonly strategyName: string;
  protected readonly tokenCounter: TokenCounter;
  protected readonly invalidHistory: InvalidHistoryHandling;
  readonly #onEvent: BaseStrategyOptions["onEvent"];
  readonly #logger: CompactionLogger | undefined;
  readonly #warnings: boolean;
  /** The last output's analysis, for the next run (see `compact`). */
  #memo: Analysis | undefined;

  protected constructor(options: BaseStrategyOptions) {
    super();
    const counter = options.tokenCounter;
    this.tokenCounter = typeof counter === "function" ? tokenCounterFromFunction(counter) : (counter ?? defaultTokenCounter());
    this.invalidHistory = options.invalidHistory ?? "throw";
    this.#onEvent = options.onEvent;
    this.#logger = options.logger;
    this.#warnings = options.warnings !== false;
  }

  /** The strategy itself, on a checked history. Must not mutate anything it is given. */
  protected abstract run(history: PreparedHistory): Promise<StrategyOutcome>;

  /**
   * Optional: the no-op `run` would return for any history of at most `upperTotal` tokens (the
   * trigger cannot fire under the bound), or `undefined` to count exactly and call `run`. Called
   * only on a history that grew from the last output (an agent loop's next step), when the counter
   * bounds (`TokenCounter.upperBound`) and the run is not forced. A strategy that defines it must
   * agree with its `run`: same status, and `reason` the reason `run` would give.
   */
  protected noopUnderBound?(history: BoundedHistory): BoundedNoop | undefined;

  /**
   * Compact a history.
   *
   * A strategy remembers the analysis (tool-call index and token counts) of the last history it
   * returned. When the next input starts with those same message objects, as in an agent loop where
   * the history grew by one step, only the new messages are indexed and counted.
   *
   * A strategy that triggers by itself (`toolResultHiding`, `autoCompaction` with static options)
   * does not even count the new messages when an upper bound of the history (the last exact count
   * plus the UTF-8 bytes and structural tokens of the new messages, see `TokenUpperBound`) is under
   * its trigger: the step is a no-op whose `tokensBefore`, `tokensAfter` and `reason` are still the
   * exact ones, computed when first read (and by the event, only for a sink that reads them). The
   * next run counts on from the last exact count, so each message is still tokenized at most once.
   * Such a no-op is decided synchronously: the promise returned is already resolved. The event of
   * any no-op is sent without waiting for the run's handlers (a compaction's is waited for).
   *
   * @example
   * const { messages, status, removed, replaced } = await strategy.compact(history);
   * @returns the new history and what was done; on `noop` and `failed` the messages are the input's.
   * @throws {InvalidHistoryError} naming the message index: when `messages` is not an array of
   *   messages, a message's content is neither a string nor an array of blocks, a message is a
   *   `RemoveMessage`, or (with `invalidHistory: "throw"`) a text has a lone surrogate, a user or
   *   assistant message has nothing to send (no text, no blocks, no tool calls), or the tool pairing
   *   is broken.
   */
  compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
    const started = performance.now();
    let begun: Begun;
    try {
      begun = this.#begin(messages, context);
    } catch (error) {
      return this.#failed(error, messages, started, context);
    }
    if (begun.result) {
      // A no-op decided under the bound: no await at all (each would let other work run first), and
      // the event is sent without waiting for its handlers.
      this.#emit(begun.result, started, context).catch(() => undefined);
      // Its value readable without an await too: the graph adapters then run the model at once.
      return settledPromise(begun.result);
    }
    return this.#finish(begun, messages, context, started);
  }

  async #finish(begun: Begun, messages: readonly BaseMessage[], context: CompactionContext, started: number): Promise<CompactionResult> {
    let result: CompactionResult;
    try {
      result = await this.#compact(messages, context, await begun.prepared);
    } catch (error) {
      return this.#failed(error, messages, started, context);
    }
    // A no-op's event is not waited for: the step goes on at once (a compaction's is).
    if (result.status === "noop") this.#emit(result, started, context).catch(() => undefined);
    else await this.#emit(result, started, context);
    return result;
  }

  /** Report a run that threw, then throw it again. */
  async #failed(error: unknown, messages: readonly BaseMessage[], started: number, context: CompactionContext): Promise<never> {
    const length = Array.isArray(messages) ? messages.length : 0;
    await this.#emit(
      { status: "failed", tokensBefore: 0, tokensAfter: 0, messagesBefore: length, messagesAfter: length, reason: error instanceof Error ? error.message : String(error) },
      started,
      context,
    );
    throw error;
  }

  /** One event per run, to the sinks this strategy was given. */
  async #emit(
    result: EventSource,
    started: number,
    context: CompactionContext,
  ): Promise<void> {
    const nested = nestedContexts.has(context);
    if (result.summaryError !== undefined && this.#warnings && !nested) warnSummaryError(this.strategyName, result.summaryError, result.status);
    const dispatch = context.config?.callbacks !== undefined && !nested;
    if (!this.#onEvent && !this.#logger && !dispatch) return;
    const event = compactionEventOf(this.strategyName, result, started);
    await emitCompactionEvent(
      event,
      { ...(this.#onEvent ? { onEvent: this.#onEvent } : {}), ...(this.#logger ? { logger: this.#logger } : {}) },
      dispatch ? context.config : undefined,
    );
  }

  /**
   * The synchronous start of a run: check and index the input; when the input grew from the last
   * output and an upper bound of it decides a no-op, that no-op (`result`), else the preparation
   * (possibly still counting) that `#compact` goes on from.
   */
  #begin(messages: readonly BaseMessage[], context: CompactionContext): Begun {
    if (Array.isArray(messages)) context.signal?.throwIfAborted();
    // Taken, not shared: a concurrent run on the same strategy starts from scratch.
    const memo = this.#memo;
    this.#memo = undefined;
    const defer = this.noopUnderBound !== undefined && context.force !== true;
    const prepared = prepareInput(this.strategyName, messages, memo, this.tokenCounter, this.invalidHistory, defer);
    if (prepared instanceof Promise || !prepared.deferred) return { prepared, result: undefined };
    return { prepared, result: this.#underBound(prepared.analysis, prepared.pending, context) };
  }

  async #compact(messages: readonly BaseMessage[], context: CompactionContext, prepared: PreparedInput): Promise<CompactionResult> {
    const { pending, repair } = prepared;
    // A deferred analysis here was not under the bound (see #begin): count the rest.
    const analysis = prepared.deferred ? await countRest(prepared.analysis, this.tokenCounter) : prepared.analysis;
    const { messages: input, index, tokens } = analysis;
    const tokensBefore = repair ? (await this.tokenCounter.measure(messages)).total : tokens.total;
    let outcome = await this.run({ messages: input, index, tokens, context, pending });
    context.signal?.throwIfAborted();
    outcome = this.#guard(outcome, input, pending);
    const unchanged = outcome.status === "noop" || outcome.status === "failed" || outcome.messages === undefined;
    const output = unchanged ? [...input] : outcome.messages!;
    const replaced = unchanged ? [] : (outcome.replaced ?? []);
    // The memo keeps its own copy of the array: the caller may push onto, or edit, the one returned.
    const snapshot = output.slice();
    let after: Analysis;
    if (unchanged) after = { ...analysis, messages: snapshot };
    else if (outcome.preservesStructure) {
      // The next history grows from this one: what derives from the index learns what changed.
      logReplaced(index, input, snapshot);
      after = { ...analysis, messages: snapshot, tokens: await patchTokens(tokens, replaced, this.tokenCounter) };
    }
    else after = await analyse(snapshot, undefined, this.tokenCounter);
    this.#memo = after;
    const result: CompactionResult = {
      messages: output,
      status: repair && unchanged ? "repaired" : outcome.status,
      strategy: this.strategyName,
      tokensBefore,
      // The output's own measurement: exactly what the next run will measure, calibration included.
      tokensAfter: after.tokens.total,
      messagesBefore: messages.length,
      messagesAfter: output.length,
      removed: unchanged ? [] : (outcome.removed ?? []),
      replaced,
      ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      ...(outcome.trigger !== undefined ? { trigger: outcome.trigger } : {}),
      ...(outcome.summaryModel !== undefined ? { summaryModel: outcome.summaryModel } : {}),
      ...(outcome.summaryError !== undefined ? { summaryError: outcome.summaryError } : {}),
      ...(repair ? { repair } : {}),
    };
    const { lateReason } = outcome;
    if (lateReason === undefined || outcome.reason !== undefined || !unchanged) return result;
    // Computed when read, from the memo's own copy of the input (the caller may change its arrays).
    let reason: string | undefined;
    return Object.defineProperty(result, "reason", { get: () => (reason ??= lateReason(snapshot)), enumerable: true, configurable: true });
  }

  /**
   * The no-op of a history the strategy need not count: its new messages stay uncounted (the memo
   * keeps the counted prefix; the next run counts on from there) unless the result's token figures
   * or reason are read. Once they are counted after the step, the memo's count moves on to them.
   */
  #underBound(analysis: Analysis, pending: number | undefined, context: CompactionContext): CompactionResult | undefined {
    const { index, tokens } = analysis;
    // A copy: the bound and the result's figures are read later, and the caller may change its array by then.
    const messages = analysis.messages.slice();
    const bound = this.tokenCounter.upperBound!(tokens, messages);
    if (!bound) return undefined;
    const noop = this.noopUnderBound!({ messages, index, context, pending, counted: tokens, upperTotal: bound.total, upperAdded: bound.added });
    if (!noop) return undefined;
    const memo = { ...analysis, messages };
    this.#memo = memo;
    warmCountsLater(this.tokenCounter, messages.slice(tokens.perMessage.length), () => {
      // Counted now (from the cache): the next run's bound walks only the messages after these.
      if (this.#memo !== memo) return;
      const counted = bound.measure();
      if (counted.perMessage.length === messages.length) this.#memo = { ...memo, tokens: counted };
    });
    return boundedNoopResult(this.strategyName, messages, () => bound.measure(), noop);
  }

  /**
   * Safety nets on a run's outcome: an output that changed or dropped the pending calls, or whose new
   * messages a provider would reject (e.g. a lone surrogate from a cut), becomes a failure that
   * changes nothing.
   */
  #guard(outcome: StrategyOutcome, input: readonly BaseMessage[], pending: number | undefined): StrategyOutcome {
    if (outcome.status === "noop" || outcome.status === "failed" || outcome.messages === undefined) return outcome;
    const failed = (reason: string): StrategyOutcome => ({ status: "failed", reason, ...(outcome.trigger !== undefined ? { trigger: outcome.trigger } : {}) });
    if (pending !== undefined && outcome.messages.at(-1) !== input[pending]) {
      // The tools are about to answer those calls, so their message must stay last, as it is.
      return failed(`${this.strategyName} would have changed or dropped the pending tool calls of the last message; the history is unchanged`);
    }
    const problem = outputProblem(input, outcome.messages, outcome.preservesStructure === true);
    if (problem) return failed(`${this.strategyName} would have returned a history a provider rejects (output ${problem.message}); the history is unchanged`);
    return outcome;
  }

  /** Runnable entry point: the compacted history (the input's messages on `noop` or `failed`). */
  async invoke(input: BaseMessage[], options?: Partial<RunnableConfig>): Promise<BaseMessage[]> {
    return this._callWithConfig(
      async (messages: BaseMessage[], config: Partial<RunnableConfig> | undefined, runManager?: CallbackManagerForChainRun) => {
        // Summary calls and events become children of this run.
        const childConfig = patchConfig(config, { callbacks: runManager?.getChild() });
        return (await this.compact(messages, { ...(config?.signal ? { signal: config.signal } : {}), config: childConfig })).messages;
      },
      input,
      options,
    );
  }
}

/**
 * What the adapters (graph node, middleware, LCEL wrappers) need from a compactor: its `compact()`.
 * Every strategy and policy of this package fits, and so does any object with the same contract.
 *
 * @example
 * const compactor: Compactor = autoCompaction({ contextWindow: 128_000 });
 */
export type Compactor = Pick<CompactionStrategy, "compact">;

import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { Runnable, patchConfig, type RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod/v4";
import { InvalidHistoryError } from "../errors.js";
import { isBaseMessage } from "../messages/message-types.js";
import { emitCompactionEvent, type CompactionEvent, type CompactionLogger } from "../observability.js";
import { ToolCallIndexBuilder, type ToolCallIndex } from "../messages/tool-call-groups.js";
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
  /**
   * Receives one structured event per run (seed 004 REQ-3.6). Inside a LangChain run the event is
   * also dispatched as the custom event `compaction`.
   */
  onEvent?: (event: CompactionEvent) => void;
  /** Logs each run's event: no-ops at `debug`, compactions at `info`, failures at `warn`. */
  logger?: CompactionLogger;
}

/** @internal */
export const baseOptionsShape = {
  tokenCounter: tokenCounterSchema.optional(),
  invalidHistory: z.enum(["throw", "repair"]).optional(),
  onEvent: z.custom<(event: CompactionEvent) => void>((value) => typeof value === "function", "expected a function").optional(),
  logger: z
    .custom<CompactionLogger>((value) => typeof value === "object" && value !== null, "expected a logger object (e.g. console)")
    .optional(),
};

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

/** A valid history with everything a strategy needs, computed once per run. @internal */
export interface PreparedHistory {
  readonly messages: readonly BaseMessage[];
  readonly index: ToolCallIndex;
  readonly tokens: TokenMeasurement;
  readonly context: CompactionContext;
  /**
   * The position of the last message when it is an assistant message whose tool calls have no
   * results yet (the tools have not run). A strategy keeps it, unchanged, as the last message.
   */
  readonly pending: number | undefined;
}

/**
 * The position of a trailing assistant message with calls that have no results yet: pending calls
 * (seed 000: compaction may run between the model's answer and the tool runs), not a broken pairing.
 */
function pendingPosition(messages: readonly BaseMessage[], index: ToolCallIndex): number | undefined {
  const last = messages.length - 1;
  return last >= 0 && index.problems.some((problem) => problem.kind === "unanswered-call" && problem.index === last) ? last : undefined;
}

/** A history with its tool-call index and token counts. @internal */
interface Analysis {
  readonly messages: readonly BaseMessage[];
  /** The index state, extended in place when the next history grows from this one. */
  readonly builder: ToolCallIndexBuilder;
  readonly index: ToolCallIndex;
  readonly tokens: TokenMeasurement;
}

/** True when `messages` starts with exactly the message objects of `previous`. */
function extendsHistory(messages: readonly BaseMessage[], previous: readonly BaseMessage[]): boolean {
  if (messages.length < previous.length) return false;
  for (let position = 0; position < previous.length; position++) if (messages[position] !== previous[position]) return false;
  return true;
}

/** What a strategy's `run` returns: the result without the figures the base class fills in. */
export interface StrategyOutcome {
  readonly status: CompactionResult["status"];
  readonly messages?: BaseMessage[];
  /**
   * The output has the input's messages at the same positions, only some replaced by copies with
   * the same tool-call ids (e.g. hidden results): the input's index still describes it.
   */
  readonly preservesStructure?: boolean;
  readonly removed?: readonly RemovedMessage[];
  readonly replaced?: readonly ReplacedMessage[];
  readonly reason?: string;
  /** What fired the compaction, for strategies that trigger by themselves; `"forced"` when told to run. */
  readonly trigger?: string;
  /** Which model wrote a summary (`"none"` for the no-model summarizer). */
  readonly summaryModel?: string;
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
  readonly #onEvent: BaseStrategyOptions["onEvent"];
  readonly #logger: CompactionLogger | undefined;
  /** The last output's analysis, for the next run (see `compact`). */
  #memo: Analysis | undefined;

  protected constructor(options: BaseStrategyOptions) {
    super();
    this.tokenCounter = options.tokenCounter ?? defaultTokenCounter();
    this.invalidHistory = options.invalidHistory ?? "throw";
    this.#onEvent = options.onEvent;
    this.#logger = options.logger;
  }

  /** The strategy itself, on a checked history. Must not mutate anything it is given. */
  protected abstract run(history: PreparedHistory): Promise<StrategyOutcome>;

  /**
   * Compact a history.
   *
   * A strategy remembers the analysis (tool-call index and token counts) of the last history it
   * returned. When the next input starts with those same message objects, as in an agent loop where
   * the history grew by one step, only the new messages are indexed and counted.
   *
   * @example
   * const { messages, status, removed, replaced } = await strategy.compact(history);
   * @returns the new history and what was done; on `noop` and `failed` the messages are the input's.
   * @throws {InvalidHistoryError} when `messages` is not an array of messages, or (with
   *   `invalidHistory: "throw"`) its tool pairing is broken.
   */
  async compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
    const started = performance.now();
    let result: CompactionResult;
    try {
      result = await this.#compact(messages, context);
    } catch (error) {
      const length = Array.isArray(messages) ? messages.length : 0;
      await this.#emit(
        { status: "failed", tokensBefore: 0, tokensAfter: 0, messagesBefore: length, messagesAfter: length, reason: error instanceof Error ? error.message : String(error) },
        started,
        context,
      );
      throw error;
    }
    await this.#emit(result, started, context);
    return result;
  }

  /** One event per run, to the sinks this strategy was given. */
  async #emit(
    result: Pick<CompactionResult, "status" | "tokensBefore" | "tokensAfter" | "messagesBefore" | "messagesAfter" | "reason" | "trigger" | "summaryModel">,
    started: number,
    context: CompactionContext,
  ): Promise<void> {
    const dispatch = context.config?.callbacks !== undefined && !nestedContexts.has(context);
    if (!this.#onEvent && !this.#logger && !dispatch) return;
    const event: CompactionEvent = {
      strategy: this.strategyName,
      trigger: result.trigger ?? null,
      status: result.status,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      messagesBefore: result.messagesBefore,
      messagesAfter: result.messagesAfter,
      durationMs: performance.now() - started,
      summaryModel: result.summaryModel ?? null,
      error: result.status === "failed" ? (result.reason ?? "failed") : null,
    };
    await emitCompactionEvent(
      event,
      { ...(this.#onEvent ? { onEvent: this.#onEvent } : {}), ...(this.#logger ? { logger: this.#logger } : {}) },
      dispatch ? context.config : undefined,
    );
  }

  async #compact(messages: readonly BaseMessage[], context: CompactionContext): Promise<CompactionResult> {
    if (!Array.isArray(messages)) throw new InvalidHistoryError(`${this.strategyName}: expected an array of messages, got ${typeof messages}`);
    context.signal?.throwIfAborted();
    // Taken, not shared: a concurrent run on the same strategy starts from scratch.
    const memo = this.#memo;
    this.#memo = undefined;
    let analysis = await this.#analyse(messages, memo);
    let repair: CompactionResult["repair"];
    let pending = pendingPosition(messages, analysis.index);
    const problems = analysis.index.problems.filter((problem) => !(problem.kind === "unanswered-call" && problem.index === pending));
    if (problems.length > 0) {
      if (this.invalidHistory === "throw") {
        throw new InvalidHistoryError(
          `${this.strategyName}: the history's tool calls and results do not pair up (${problems.length} problem(s); first: ${problems[0]!.message}). ` +
            `Fix it with repairToolPairing() or pass invalidHistory: "repair".`,
          problems,
        );
      }
      // The pending calls are not a problem: the repair leaves that message as it is.
      const settled = pending === undefined ? messages : messages.slice(0, pending);
      repair = repairToolPairing(settled);
      const repaired = pending === undefined ? repair.messages : [...repair.messages, messages[pending]!];
      if (pending !== undefined) pending = repaired.length - 1;
      analysis = await this.#analyse(repaired, undefined);
    }
    const { messages: input, index, tokens } = analysis;
    const tokensBefore = repair ? (await this.tokenCounter.measure(messages)).total : tokens.total;
    let outcome = await this.run({ messages: input, index, tokens, context, pending });
    context.signal?.throwIfAborted();
    const changes = outcome.status !== "noop" && outcome.status !== "failed" && outcome.messages !== undefined;
    if (pending !== undefined && changes && outcome.messages!.at(-1) !== input[pending]) {
      // A safety net: the tools are about to answer those calls, so their message must stay last, as it is.
      outcome = { status: "failed", reason: `${this.strategyName} would have changed or dropped the pending tool calls of the last message; the history is unchanged` };
    }
    const unchanged = outcome.status === "noop" || outcome.status === "failed" || outcome.messages === undefined;
    const output = unchanged ? [...input] : outcome.messages!;
    const replaced = unchanged ? [] : (outcome.replaced ?? []);
    // The memo keeps its own copy of the array: the caller may push onto, or edit, the one returned.
    const snapshot = output.slice();
    let after: Analysis;
    if (unchanged) after = { ...analysis, messages: snapshot };
    else if (outcome.preservesStructure) after = { ...analysis, messages: snapshot, tokens: await this.#patchTokens(tokens, replaced) };
    else after = await this.#analyse(snapshot, undefined);
    this.#memo = after;
    return {
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
      ...(repair ? { repair } : {}),
    };
  }

  /** Index and count a history, continuing `memo` when the history extends the history it analysed. */
  async #analyse(messages: readonly BaseMessage[], memo: Analysis | undefined): Promise<Analysis> {
    const previous = memo && extendsHistory(messages, memo.messages) ? memo : undefined;
    const start = previous ? previous.messages.length : 0;
    for (let position = start; position < messages.length; position++) {
      if (!isBaseMessage(messages[position])) {
        throw new InvalidHistoryError(`${this.strategyName}: element ${position} is not a LangChain message`);
      }
    }
    const builder = previous ? previous.builder : new ToolCallIndexBuilder();
    for (let position = start; position < messages.length; position++) builder.push(messages[position]!);
    const tokens =
      previous && this.tokenCounter.extend
        ? await this.tokenCounter.extend(previous.tokens, messages)
        : await this.tokenCounter.measure(messages);
    return { messages, builder, index: builder.view(), tokens };
  }

  /** The measurement after some messages were replaced in place (same positions, same structure). */
  async #patchTokens(tokens: TokenMeasurement, replaced: readonly ReplacedMessage[]): Promise<TokenMeasurement> {
    const perMessage = [...tokens.perMessage];
    let estimated = tokens.estimated;
    for (const { index, after } of replaced) {
      const count = await this.tokenCounter.countMessage(after);
      estimated += count - perMessage[index]!;
      perMessage[index] = count;
    }
    // Rewritten copies share their original's usage record, so the calibration anchors stand.
    return { ...tokens, perMessage, estimated, total: Math.max(0, estimated + tokens.calibrationOffset) };
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

import type { BaseMessage } from "@langchain/core/messages";
import { parseOptions } from "../options.js";
import { CompactionStrategy, type BoundedHistory, type BoundedNoop, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import { settledValue } from "../strategies/settled-promise.js";
import { boundedNoopReason, boundedPosition, systemTokensOf, underThresholdReason } from "./auto-compaction-bound.js";
import { evaluateTrigger, messageCountOf } from "../strategies/context-size.js";
import type { SummaryModel } from "../summary/summary-model.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { BackgroundWork } from "./background-work.js";
import { assertModelPackages } from "../summary/model-packages.js";
import { fire, type FiringSettings, type FiringState } from "./auto-compaction-firing.js";
import { autoCompactionSchema, type AutoCompactionOptions } from "./auto-compaction-options.js";
import { planFor, targetsFor, type AutoCompactionPlan } from "./auto-compaction-plan.js";
import { DECIDED_IN_BACKGROUND, mayStand, pastMark, pastWarmMark, prepareAhead, preparationNeeded, scopeOf, standLimit, warmHiding } from "./prepare-ahead.js";
import { HidingVerdicts } from "./hiding-verdicts.js";
import { keyOf, PreparedSummaries } from "./prepared-summaries.js";

/**
 * Automatic compaction, a policy that never throws into the agent loop. Before each model call, when
 * the conversation (the history without its system messages) reaches `trigger` (60 000 tokens by
 * default) or the history reaches `threshold` (0.8) of the window (the size that fired), the cheapest step
 * that is enough:
 * 1. batched tool-result hiding: every result older than the newest groups becomes a short
 *    placeholder with a receipt, and the assistant text of those groups is cut to a short head (see
 *    `assistantTextTrimming`; the calls stay), at once, if that frees at least `clearAtLeast` tokens (and, with a
 *    `costModel`, below the threshold, repays its prompt-cache break); it stands when it gets the
 *    history under 0.6 of the size that fired;
 * 2. else a summary of all but the newest `keepRecent` messages (a separate model call, or the
 *    no-model summarizer), down to `target` (0.25 of the size that fired by default);
 * 3. if the summary fails or is not enough and the history is over `hardLimit`, truncation to fit it
 *    (a hiding that fits is kept instead when the summary fails).
 * Between compactions the history is left as it is, so the provider's prompt cache serves it. A
 * failure changes nothing (except that a hiding that fits is kept when the summary after it fails)
 * and is reported in the result's `reason` and the event.
 *
 * Options may be a function, read at every run, so a configuration change applies at once; the strategies built from them are reused while they stay the same.
 * @see autoCompaction
 */
export class AutoCompaction extends CompactionStrategy {
  readonly strategyName = "autoCompaction";
  readonly #options: AutoCompactionOptions | (() => AutoCompactionOptions);
  #plan: AutoCompactionPlan | undefined;
  readonly #prepared = new PreparedSummaries();
  readonly #verdicts = new HidingVerdicts();
  readonly #background = new BackgroundWork();
  readonly #firingState: FiringState;

  constructor(options: AutoCompactionOptions | (() => AutoCompactionOptions) = {}) {
    // With a provider, its first answer fixes the token counter and the event sinks; a provider that
    // fails now fails the runs (with the reason), not the construction.
    let initial: AutoCompactionOptions = {};
    if (typeof options !== "function") initial = parseOptions("autoCompaction", autoCompactionSchema, options) as AutoCompactionOptions;
    else {
      try {
        initial = parseOptions("autoCompaction", autoCompactionSchema, options()) as AutoCompactionOptions;
      } catch {
        initial = {};
      }
    }
    // A broken history is repaired (and the repair reported), never thrown at the agent.
    super({
      invalidHistory: "repair",
      ...(initial.tokenCounter ? { tokenCounter: initial.tokenCounter } : {}),
      ...(initial.onEvent ? { onEvent: initial.onEvent } : {}),
      ...(initial.logger ? { logger: initial.logger } : {}),
      ...(initial.warnings === false ? { warnings: false } : {}),
    });
    this.#options = options;
    this.#firingState = { prepared: this.#prepared, tokenCounter: this.tokenCounter };
    // Static options are checked now, so a missing context window or model package is an error at construction.
    if (typeof options !== "function") assertModelPackages("autoCompaction", "summaryModel", initial.summaryModel);
    if (typeof options !== "function") this.#plan = planFor(initial, undefined, this.tokenCounter, undefined);
  }

  /** Never throws, except the caller's own abort. A failure is a `failed` result with the input unchanged. */
  override compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
    const compacting = super.compact(messages, context);
    // A no-op the base decides under the bound is handed on as it is: readable without an await.
    if (settledValue(compacting)) return compacting;
    return compacting.then(
      (result) => {
        // A compacted history is a new prefix: what was prepared for the old one is of no use.
        if (result.status === "compacted" || result.status === "summarized" || result.status === "truncated") {
          const key = keyOf(context.threadId, messages);
          this.#prepared.forget(context.threadId, messages);
          this.#verdicts.forget(key);
        }
        return result;
      },
      (error: unknown) => {
        if (context.signal?.aborted) throw error;
        const input = Array.isArray(messages) ? [...messages] : [];
        return {
          messages: input,
          status: "failed",
          strategy: this.strategyName,
          tokensBefore: 0,
          tokensAfter: 0,
          messagesBefore: input.length,
          messagesAfter: input.length,
          removed: [],
          replaced: [],
          reason: error instanceof Error ? error.message : String(error),
        } satisfies CompactionResult;
      },
    );
  }

  /**
   * Static options, under the threshold and the trigger even at the bound: `run`'s no-op, without
   * counting the new messages. Past the mark where work after the step starts (`warmAt`, by the
   * bound) in a loop this policy ran before, that work (the firing's hiding and, past `prepare.at`,
   * whether to prepare a summary) is done after the step, as `run` would.
   */
  protected override noopUnderBound(history: BoundedHistory): BoundedNoop | undefined {
    const options = this.#options;
    if (typeof options === "function" || options.enabled === false) return undefined;
    const { messages, context } = history;
    const configModel = context.config?.configurable?.["summaryModel"] as SummaryModel | undefined;
    let plan: AutoCompactionPlan;
    try {
      plan = this.#plan = planFor(options, configModel, this.tokenCounter, this.#plan);
    } catch {
      return undefined;
    }
    const position = boundedPosition(history, plan);
    // A policy's first call decides on preparing at once (see run): it counts.
    if (position === undefined || (position === "past the mark" && !this.#prepared.hasSeen(context.threadId, messages))) return undefined;
    const base = boundedNoopReason(messages, plan, options.threshold ?? 0.8);
    if (plan.prepareAt !== undefined) this.#prepared.noteStep(context.threadId, messages);
    if (position === "under the mark") return { reason: base };
    const preparing = this.#preparingPastMark(history, plan);
    // What run gives: the preparation's part only when the exact count is past the mark too.
    return { reason: (tokens) => (preparing && pastMark(tokens, plan, systemTokensOf(messages, tokens)) ? `${base(tokens)}; ${preparing}` : base(tokens)) };
  }

  /**
   * Past the mark by the bound: what `#prepareAhead` would say, the decision (and the count it
   * needs) left to after the step; under the mark where summaries are prepared (by the count), only
   * the firing's hiding is made after the step.
   */
  #preparingPastMark(history: BoundedHistory, plan: AutoCompactionPlan): string | undefined {
    const { messages, context } = history;
    const scope = scopeOf(context);
    const key = keyOf(scope.threadId, messages);
    const prepared = this.#prepared.isPrepared(messages, plan.summarySignature, scope);
    const verdict = prepared ? undefined : this.#verdicts.reasonFor(key, messages);
    // Decided, or nothing to decide under the trigger (summaries start at the firing).
    if (prepared || verdict !== undefined || plan.prepareAt! >= 1) {
      // The firing's hiding is made after the step (under its own key: it never holds up a decision).
      if (plan.hiding) this.#background.startCountingAndDeciding(warmKey(key), history, this.tokenCounter, (counted) => warmHiding(plan, counted));
      return verdict;
    }
    this.#background.startCountingAndDeciding(key, history, this.tokenCounter, async (counted) => {
      const systemTokens = systemTokensOf(counted.messages, counted.tokens);
      if (pastMark(counted.tokens, plan, systemTokens)) return prepareAhead(this.#prepared, this.#verdicts, counted, plan, systemTokens);
      if (plan.hiding) this.#background.startDeciding(warmKey(key), counted, (copy) => warmHiding(plan, copy));
      return undefined;
    });
    return DECIDED_IN_BACKGROUND;
  }

  protected async run(history: PreparedHistory): Promise<StrategyOutcome> {
    const { messages, tokens, context } = history;
    let options: AutoCompactionOptions;
    if (typeof this.#options === "function") {
      try {
        options = parseOptions("autoCompaction", autoCompactionSchema, this.#options()) as AutoCompactionOptions;
      } catch (error) {
        return { status: "failed", reason: `the configuration provider failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    } else {
      options = this.#options;
    }
    const configModel = context.config?.configurable?.["summaryModel"] as SummaryModel | undefined;
    let plan: AutoCompactionPlan;
    try {
      plan = this.#plan = planFor(options, configModel, this.tokenCounter, this.#plan);
    } catch (error) {
      return { status: "failed", reason: error instanceof Error ? error.message : String(error) };
    }
    if (options.enabled === false) return { status: "noop", reason: "automatic compaction is disabled" };
    // A firing goes on while its summary is written only in a loop this policy has run before (one call to compact() summarizes at once).
    const continuing = plan.prepareAt !== undefined && this.#prepared.noteStep(context.threadId, messages);
    const fraction = options.threshold ?? 0.8;
    const threshold = plan.thresholdTokens;
    // The trigger measures the conversation: system messages are never compacted.
    const systemTokens = systemTokensOf(messages, tokens);
    const conversation = { tokens: tokens.total - systemTokens, messages: messageCountOf(messages) };
    const overThreshold = tokens.total >= threshold;
    const fired =
      context.force === true
        ? "forced"
        : overThreshold
          ? `${tokens.total} tokens >= ${threshold} tokens (${fraction} of a ${plan.window}-token window)`
          : evaluateTrigger(plan.trigger, conversation, plan.window, false);
    if (fired === undefined) {
      const reason = underThresholdReason(tokens, systemTokens, messages.length, plan, fraction);
      const preparing = plan.prepareAt === undefined ? undefined : await this.#prepareAhead(history, plan, systemTokens, continuing);
      return { status: "noop", reason: preparing ? `${reason}; ${preparing}` : reason };
    }
    const trigger = fired === "forced" || overThreshold ? fired : `conversation: ${fired}`;
    const targets = targetsFor(plan, systemTokens, context.force === true || overThreshold);
    // The summary of this prefix is still being written: while the history may stand, the step does not wait for it.
    if (continuing && mayStand(plan, tokens.total, context) && this.#prepared.isPending(messages, plan.summarySignature, scopeOf(context))) {
      return { status: "noop", trigger, reason: `the summary prepared ahead is still being written; the history stands (under ${standLimit(plan)} tokens) until it is ready` };
    }
    const settings: FiringSettings = { plan, targets, trigger, options, overThreshold, conversationTokens: conversation.tokens, continuing };
    return fire(this.#firingState, history, settings);
  }

  /** Past the mark: whether to prepare a summary, decided now at a policy's first call, else after the step (the dry run costs about a hiding). */
  async #prepareAhead(history: PreparedHistory, plan: AutoCompactionPlan, systemTokens: number, continuing: boolean): Promise<string | undefined> {
    if (!continuing) return prepareAhead(this.#prepared, this.#verdicts, history, plan, systemTokens);
    const needed = preparationNeeded(this.#prepared, this.#verdicts, history, plan, systemTokens);
    const key = keyOf(history.context.threadId, history.messages);
    if (needed !== true) {
      if (plan.hiding && pastWarmMark(history.tokens, plan, systemTokens)) this.#background.startDeciding(warmKey(key), history, (copy) => warmHiding(plan, copy));
      return needed;
    }
    this.#background.startDeciding(key, history, (copy) => prepareAhead(this.#prepared, this.#verdicts, copy, plan, systemTokens));
    return DECIDED_IN_BACKGROUND;
  }

  /**
   * Resolves once every summary being prepared ahead by this policy (and its store writes) has
   * settled: written, failed or dropped. Useful before a process exits, and in tests.
   */
  async settled(): Promise<void> {
    await this.#background.settled();
    await this.#prepared.settled();
  }
}

/**
 * Automatic compaction: batched tool-result hiding, a summary when hiding is not enough, a
 * hard-limit fallback.
 *
 * @example
 * const auto = autoCompaction({ contextWindow: 128_000, summaryModel: "gpt-4o-mini" });
 * // or read the configuration at every run:
 * const live = autoCompaction(() => ({ contextWindow: 128_000, threshold: settings.threshold }));
 * const { messages, status, reason } = await auto.compact(history);
 * @throws {InvalidOptionError} for invalid static options or an unknown context window (a function's options fail the run instead).
 * @throws {MissingPackageError} when `summaryModel` is a name whose package (`@langchain/openai`, or `langchain` and the provider's) is not installed.
 */
export function autoCompaction(options: AutoCompactionOptions | (() => AutoCompactionOptions) = {}): AutoCompaction {
  return new AutoCompaction(options);
}

/** The background key of a thread's warm hiding: apart from its decision on preparing, which it must not hold up. */
function warmKey(key: string): string {
  return `${key}\u0000warm`;
}

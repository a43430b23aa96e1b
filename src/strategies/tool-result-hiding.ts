import type { BaseMessage } from "@langchain/core/messages";
import { invalidOption } from "../option-errors.js";
import { isToolResultMessage } from "../messages/message-types.js";
import type { ReplacedMessage } from "../types.js";
import { parseOptions } from "../options.js";
import { CompactionStrategy, type BoundedHistory, type BoundedNoop, type PreparedHistory, type StrategyOutcome } from "./compaction-strategy.js";
import { evaluateTrigger, underTriggerReason, windowForSizes, type TriggerSize, messageCountOf } from "./context-size.js";
import { HidingPass, isHiddenResult, type HiddenCopy, type HidingSettings, type Receipt } from "./hiding-pass.js";
import { cannotFireAtBound, NOTHING_LEFT, reasonIfCannotFire, reasonWithoutLedger, tooLittleReason } from "./hiding-noop.js";
import { keepNeedsCounts, keptResults } from "./hiding-kept.js";
import { indexToolCallGroups } from "../messages/tool-call-groups.js";
import { receiptLimits, type ReceiptLimits } from "./hiding-receipts.js";
import { supersessionReader } from "./superseded-results.js";
import { HidingLedgers, type HidingLedger } from "./hiding-ledger.js";
import {
  DEFAULT_HIDDEN_RESULT_PLACEHOLDER,
  DEFAULT_HIDING_CLEAR_AT_LEAST,
  DEFAULT_HIDING_TRIGGER_CAP_TOKENS,
  DEFAULT_HIDING_TRIGGER_FRACTION,
  DEFAULT_HIDING_TRIGGER_TOKENS,
  defaultHidingTrigger,
  toolResultHidingSchema,
  type ClearAtLeastMode,
  type KeepRecentResults,
  type ToolResultHidingOptions,
} from "./tool-result-hiding-options.js";

/**
 * Tool result hiding, in batches: while the history is under the `trigger` (default: half the
 * `contextWindow` or 30,000 tokens, whichever is less; 10,000 tokens without a window), a run is a no-op and the history is returned
 * untouched, so a provider's cached prompt prefix holds. When the trigger fires (or the run is
 * forced), the newest `keepRecentGroups` tool-call groups keep their results and EVERY result of an
 * older group is replaced, at once, by a short stable placeholder followed by its receipt (see
 * `receipts`), unless that frees fewer than `clearAtLeast` tokens (see `clearAtLeastMode`). Hidden
 * results keep `tool_call_id`, `name`, `id` and every other field, and carry
 * `response_metadata.compaction.hidden` (with `originalTokens`, and `batch`: the id of the oldest
 * result the same run hid, which tells one run's results from another's for `cacheAnchorPositions`) and LangChain's marker
 * `response_metadata.context_editing` (`{ cleared: true, strategy: "clear_tool_uses" }`), so they are
 * never hidden twice; a result either marker flags is left as it is. With `hideToolInputs` the
 * assistant message lists the emptied calls in `compaction.hiddenToolInputs` and in LangChain's
 * `context_editing.cleared_tool_inputs`. A result whose hidden form is not smaller
 * is left as it is. Results sent as `tool_result` blocks in a human message (Anthropic's form) are
 * hidden in a copy of that message: each block keeps its `tool_use_id` (and `is_error`) with the
 * placeholder and its receipt as its content, the message's other content stays. Assistant and user
 * messages are untouched (unless `hideToolInputs`).
 *
 * Superseded results go first, in the same batch (see `supersession`, on by default): a result a
 * later call superseded is hidden even inside the kept groups, by a note naming that call, when the
 * superseding result stays in full after the firing; its marker records the call (`supersededBy`).
 *
 * A run over the trigger that cannot fire (the results it would hide hold fewer than `clearAtLeast`
 * tokens in all) makes no hidden copy; its result's `reason` is computed when first read. When even
 * every result not hidden yet holds fewer, it does not look for superseded results either, nor, when
 * that holds with the step's new messages at their upper bound, count them (as under the trigger).
 *
 * `force` (set by policies such as `hidingThenSummary` on the strategies they run) bypasses the
 * trigger only: `clearAtLeast` still applies.
 * @see toolResultHiding
 */
export class ToolResultHiding extends CompactionStrategy {
  readonly strategyName = "toolResultHiding";
  /** The groups kept; `undefined` when `keepRecentResults` is given. */
  readonly keepRecentGroups: number | undefined;
  readonly keepRecentResults: KeepRecentResults | undefined;
  readonly clearAtLeastMode: ClearAtLeastMode;
  readonly trigger: TriggerSize | TriggerSize[];
  readonly contextWindow: number | undefined;
  readonly clearAtLeast: number;
  readonly placeholder: string;
  readonly excludeTools: ReadonlySet<string>;
  readonly hideToolInputs: boolean;
  /** The receipt limits; `undefined` when receipts are off. */
  readonly receipts: ReceiptLimits | undefined;
  /** Whether superseded results are hidden first (see `supersession`). */
  readonly supersession: boolean;
  /** Results judged not worth hiding; messages are immutable, so the verdict stands. */
  readonly #notWorthHiding = new WeakSet<BaseMessage>();
  /** Hidden copies made, by original result: a later run that hides the same result takes its copy. */
  readonly #hiddenCopies = new WeakMap<BaseMessage, HiddenCopy>();
  /** Receipts made, by original result: a result hidden again (another note, another batch) is not read again. */
  readonly #receiptsMade = new WeakMap<BaseMessage, Receipt>();
  /** What the last history of each line held (results, settled ones, supersessions): a run reads only what changed. */
  readonly #ledgers: HidingLedgers;
  /** A new line of ledgers, for a reason worked out later from a history alone (see `reasonWithoutLedger`). */
  readonly #newLedgers: () => HidingLedgers;
  #settings: HidingSettings | undefined;

  constructor(options: ToolResultHidingOptions = {}) {
    const parsed = parseOptions("toolResultHiding", toolResultHidingSchema, options) as ToolResultHidingOptions;
    if (parsed.clearAtLeast !== undefined && parsed.minTokensSaved !== undefined) {
      throw invalidOption("toolResultHiding", "minTokensSaved", parsed.minTokensSaved, "no value when clearAtLeast is given", "it is a deprecated name of clearAtLeast: give only clearAtLeast");
    }
    if (parsed.keepRecentGroups !== undefined && parsed.keepRecentResults !== undefined) {
      throw invalidOption("toolResultHiding", "keepRecentResults", parsed.keepRecentResults, "no value when keepRecentGroups is given", "give keepRecentGroups or keepRecentResults, not both");
    }
    super(parsed);
    this.keepRecentResults = parsed.keepRecentResults;
    this.keepRecentGroups = this.keepRecentResults === undefined ? (parsed.keepRecentGroups ?? 3) : undefined;
    this.clearAtLeastMode = parsed.clearAtLeastMode ?? "skip";
    this.trigger = parsed.trigger ?? defaultHidingTrigger(parsed.contextWindow);
    const keepFraction = typeof this.keepRecentResults === "object" && "fraction" in this.keepRecentResults ? { fraction: this.keepRecentResults.fraction } : undefined;
    this.contextWindow = windowForSizes("toolResultHiding", [this.trigger, keepFraction], parsed.contextWindow, undefined, "the trigger or keepRecentResults is a fraction of the context window");
    this.clearAtLeast = parsed.clearAtLeast ?? parsed.minTokensSaved ?? DEFAULT_HIDING_CLEAR_AT_LEAST;
    this.placeholder = parsed.placeholder ?? DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
    this.excludeTools = new Set(parsed.excludeTools ?? []);
    this.hideToolInputs = parsed.hideToolInputs ?? false;
    this.receipts = receiptLimits(parsed.receipts);
    const reader = supersessionReader(parsed.supersession);
    this.supersession = reader !== undefined;
    // As the pass reads a result: a tool message hidden already, or judged not worth hiding, needs no work.
    const isSettled = (message: BaseMessage) => isToolResultMessage(message) && (isHiddenResult(message) || this.#notWorthHiding.has(message));
    this.#newLedgers = () => new HidingLedgers(reader, isSettled);
    this.#ledgers = this.#newLedgers();
  }

  /** @deprecated use `clearAtLeast`. */
  get minTokensSaved(): number {
    return this.clearAtLeast;
  }

  /** Under the trigger even at the bound: the no-op `run` gives, without counting the new messages. */
  protected override noopUnderBound({ messages, index, counted, upperTotal, upperAdded, context }: BoundedHistory): BoundedNoop | undefined {
    const sizeOf = (tokens: number) => ({ tokens, messages: messageCountOf(messages) });
    const triggerOf = (tokens: number) => evaluateTrigger(this.trigger, sizeOf(tokens), this.contextWindow, context.force);
    if (triggerOf(upperTotal) === undefined) return { reason: (tokens) => underTriggerReason(sizeOf(tokens.total)) };
    // Over the trigger at the bound: a no-op still when even every result not settled yet, the new ones at their bound, frees too little.
    if (this.clearAtLeastMode !== "skip" || this.hideToolInputs || upperAdded === undefined || keepNeedsCounts(this.keepRecentResults)) return undefined;
    const ledger = this.#ledgers.of(messages, index);
    const { unsettled, older } = this.#candidates(messages, index, counted.perMessage, ledger);
    const found = { messages, counted: counted.perMessage, upperAdded, positions: ledger, unsettled };
    const mayFree = (message: BaseMessage) => this.#mayFree(message);
    // Short even were every kept result superseded; else short given what the ledger finds superseded (the run's own candidates).
    const short = cannotFireAtBound(this.#passSettings, this.clearAtLeast, mayFree, found) || (this.supersession && cannotFireAtBound(this.#passSettings, this.clearAtLeast, mayFree, { ...found, older, superseded: this.#supersededToHide(messages, ledger, { older, unsettled }) }));
    if (!short) return undefined;
    return {
      reason: (tokens) => (triggerOf(tokens.total) === undefined ? underTriggerReason(sizeOf(tokens.total)) : this.#reasonFrom(messages, tokens.perMessage)),
      trigger: (tokens) => triggerOf(tokens.total),
    };
  }

  /** The reason of a run on `input` (counted `perMessage`) that cannot fire, from the history alone, as `run` gives it. */
  #reasonFrom(input: readonly BaseMessage[], perMessage: readonly number[]): string {
    const found = this.#plan(input, perMessage);
    const mayFree = (message: BaseMessage) => this.#mayFree(message);
    const late =
      reasonWithoutLedger(this.#passSettings, this.clearAtLeast, mayFree, { messages: input, perMessage, positions: found.positions, unsettled: found.unsettled }, (again) => this.#plan(again, perMessage)) ??
      reasonIfCannotFire(this.#passSettings, this.clearAtLeast, mayFree, { messages: input, perMessage, ...found });
    return late?.(input) ?? NOTHING_LEFT;
  }

  /** A run's candidates on `input`, found on a new ledger (nothing of the strategy's own moves). */
  #plan(input: readonly BaseMessage[], perMessage: readonly number[]) {
    const inputIndex = indexToolCallGroups(input);
    const fresh = this.#newLedgers().of(input, inputIndex);
    const found = this.#candidates(input, inputIndex, perMessage, fresh);
    return { ...found, positions: fresh, superseded: this.#supersededToHide(input, fresh, found) };
  }

  protected async run({ messages, index, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    const size = { tokens: tokens.total, messages: messageCountOf(messages) };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const ledger = this.#ledgers.of(messages, index);
    const { resultIndices, assistantIndices } = ledger;
    const { kept, older, last, unsettled } = this.#candidates(messages, index, tokens.perMessage, ledger);
    if (this.clearAtLeastMode === "skip" && !this.hideToolInputs && this.supersession) {
      // Short of clearAtLeast even were every kept result superseded: no supersession work now.
      const lateReason = reasonWithoutLedger(this.#passSettings, this.clearAtLeast, (message) => this.#mayFree(message), { messages, perMessage: tokens.perMessage, positions: ledger, unsettled }, (input) => this.#plan(input, tokens.perMessage));
      if (lateReason !== undefined) return { status: "noop", trigger, lateReason };
    }
    const superseded = this.#supersededToHide(messages, ledger, { older, unsettled });
    if (this.clearAtLeastMode === "skip" && !this.hideToolInputs) {
      const lateReason = reasonIfCannotFire(this.#passSettings, this.clearAtLeast, (message) => this.#mayFree(message), { messages, perMessage: tokens.perMessage, positions: ledger, unsettled, older, superseded });
      if (lateReason !== undefined) return { status: "noop", trigger, lateReason };
    }
    const pass = new HidingPass(this.#passSettings, messages, tokens.perMessage);
    let previousAssistant = -1;
    // Settled results need no work; with hideToolInputs each still marks its call's input to hide.
    for (const position of this.hideToolInputs ? Array.from({ length: last }, (_, position) => position) : unsettled) {
      const resultIndex = resultIndices[position]!;
      const supersession = superseded?.get(resultIndex);
      if (position >= older && supersession === undefined) continue;
      const assistantIndex = assistantIndices[position]!;
      if (assistantIndex !== previousAssistant && previousAssistant >= 0 && pass.hasInputsToHide(previousAssistant)) await pass.hideInputs(previousAssistant);
      previousAssistant = assistantIndex;
      // Most older results were hidden at earlier steps: checked without a promise each.
      if (!pass.settled(resultIndex, assistantIndex)) await pass.hideResult(resultIndex, assistantIndex, supersession);
    }
    if (previousAssistant >= 0 && pass.hasInputsToHide(previousAssistant)) await pass.hideInputs(previousAssistant);
    if (this.clearAtLeastMode === "extend") {
      // The results a superseded result's note names stay in full.
      const named = new Set<number>();
      for (const [resultIndex, supersession] of superseded ?? []) if (pass.replacements.has(resultIndex)) named.add(supersession.by);
      // LangChain's rule: short of clearAtLeast, the kept results go too, newest first.
      for (let position = resultIndices.length - 1; position >= resultIndices.length - kept; position--) {
        if (await this.freedEnough(pass, messages, tokens.total)) break;
        const resultIndex = resultIndices[position]!;
        // Superseded ones are hidden already; named ones stay.
        if (named.has(resultIndex) || pass.replacements.has(resultIndex)) continue;
        const assistantIndex = assistantIndices[position]!;
        await pass.hideResult(resultIndex, assistantIndex, superseded?.get(resultIndex));
        await pass.hideInputs(assistantIndex);
      }
    }
    const { replacements, saved } = pass;
    if (replacements.size === 0) return { status: "noop", trigger, reason: NOTHING_LEFT };
    if (this.clearAtLeastMode === "skip" && saved < this.clearAtLeast) return { status: "noop", trigger, reason: tooLittleReason(saved, this.clearAtLeast) };
    pass.stampBatch();
    const output = [...messages];
    const replaced: ReplacedMessage[] = [];
    for (const [position, after] of [...replacements].sort((a, b) => a[0] - b[0])) {
      output[position] = after;
      replaced.push({ index: position, before: messages[position]!, after });
    }
    return { status: "compacted", messages: output, replaced, preservesStructure: true, trigger };
  }

  /** The results a run may hide: older ones all, kept ones (from `older` on, `kept` of them) only when superseded, up to `last`; those not settled yet. */
  #candidates(messages: readonly BaseMessage[], index: PreparedHistory["index"], perMessage: readonly number[], ledger: HidingLedger) {
    const kept = keptResults(this, ledger.resultIndices, index, perMessage);
    const older = ledger.resultIndices.length - kept;
    const last = this.supersession ? ledger.resultIndices.length : older;
    return { kept, older, last, unsettled: ledger.unsettled(messages, last) };
  }

  /** The superseded results among `unsettled` a firing may hide (see `HidingLedger.supersededToHide`). */
  #supersededToHide(messages: readonly BaseMessage[], ledger: HidingLedger, { older, unsettled }: { older: number; unsettled: readonly number[] }) {
    return ledger.supersededToHide(messages, unsettled, ledger.resultIndices[older] ?? messages.length, this.excludeTools);
  }

  /**
   * At most how many tokens a forced run on `history` would free, without making any hidden copy:
   * the tokens of the older results it may hide, and of the superseded kept ones (not judged not worth hiding and, for tool messages,
   * not hidden or cleared yet and not of an excluded tool by their `name`), each hidden form costing
   * at least nothing. `history` must be measured with this strategy's counter. `undefined` when no
   * such bound holds (`clearAtLeastMode: "extend"`, `hideToolInputs`). `candidates` is how many
   * results were counted: with none, a run finds nothing left to hide. @internal
   */
  freeableAtMost({ messages, index, tokens }: PreparedHistory): { readonly tokens: number; readonly candidates: number } | undefined {
    if (this.clearAtLeastMode === "extend" || this.hideToolInputs) return undefined;
    const ledger = this.#ledgers.of(messages, index);
    const { resultIndices } = ledger;
    const { older, unsettled } = this.#candidates(messages, index, tokens.perMessage, ledger);
    const superseded = this.#supersededToHide(messages, ledger, { older, unsettled });
    let freeable = 0;
    let candidates = 0;
    for (const position of unsettled) {
      const resultIndex = resultIndices[position]!;
      if (position >= older && !superseded!.has(resultIndex)) continue;
      if (!this.#mayFree(messages[resultIndex]!)) continue;
      freeable += tokens.perMessage[resultIndex]!;
      candidates++;
    }
    return { tokens: freeable, candidates };
  }

  /** Whether hiding a result may free tokens: settled results (hidden already, or not worth hiding) and, as the pass reads them, tool messages of an excluded tool free nothing. */
  #mayFree(message: BaseMessage): boolean {
    if (this.#notWorthHiding.has(message)) return false;
    if (!isToolResultMessage(message)) return true;
    return !isHiddenResult(message) && !(this.excludeTools.size > 0 && message.name !== undefined && this.excludeTools.has(message.name));
  }

  /** What a hiding pass needs from this strategy. */
  get #passSettings(): HidingSettings {
    return (this.#settings ??= {
      strategyName: this.strategyName,
      placeholder: this.placeholder,
      excludeTools: this.excludeTools,
      hideToolInputs: this.hideToolInputs,
      receipts: this.receipts,
      tokenCounter: this.tokenCounter,
      notWorthHiding: this.#notWorthHiding,
      hiddenCopies: this.#hiddenCopies,
      receiptsMade: this.#receiptsMade,
    });
  }

  /**
   * Whether an `"extend"` firing has freed `clearAtLeast` tokens: by default, the sum of what each
   * replaced message's own count lost. `total` is the history's count before the firing. @internal
   */
  protected freedEnough(pass: HidingPass, _messages: readonly BaseMessage[], _total: number): boolean | Promise<boolean> {
    return pass.saved >= this.clearAtLeast;
  }
}

/**
 * Hide older tool results in batches, keeping the newest groups' results whole: nothing changes
 * until the trigger fires, then every older result is hidden at once.
 *
 * @example
 * const hiding = toolResultHiding({ keepRecentGroups: 3, trigger: { tokens: 50_000 }, excludeTools: ["read_plan"] });
 * const { messages, status, replaced } = await hiding.compact(history);
 * // or in LCEL: hiding.pipe(model)
 * @throws {InvalidOptionError} for an invalid option.
 */
export function toolResultHiding(options: ToolResultHidingOptions = {}): ToolResultHiding {
  return new ToolResultHiding(options);
}

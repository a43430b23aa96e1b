import { z } from "zod/v4";
import { parseOptions } from "../options.js";
import { CompactionStrategy, nestedContext, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import { evaluateTrigger, underTriggerReason, windowForSizes, withinTarget, type ContextSize, type TriggerSize, messageCountOf } from "../strategies/context-size.js";
import { ToolResultHiding } from "../strategies/tool-result-hiding.js";
import type { ToolResultHidingOptions } from "../strategies/tool-result-hiding-options.js";
import type { FullSummaryOptions } from "../summary/full-summary.js";
import { chainResults } from "./chain-results.js";
import { DEFAULT_POLICY_TRIGGER, defaultTarget, summaryStep, summaryStepSchema, triggeredPolicyShape, type TriggeredPolicyOptions } from "./policy-options.js";

export interface HidingThenSummaryOptions extends TriggeredPolicyOptions {
  /**
   * The hiding step: a `toolResultHiding` strategy or its options. It runs forced whenever this
   * policy's trigger fires: its own `trigger` is not consulted, its `clearAtLeast` still applies.
   * @default toolResultHiding()
   */
  hiding?: ToolResultHiding | ToolResultHidingOptions;
  /** The summary step: any strategy (e.g. `stateSnapshotSummary`) or `fullSummary` options. @default fullSummary() (keepRecent 2; no model: the no-model summarizer) */
  summary?: CompactionStrategy | FullSummaryOptions;
}

const optionsSchema = z
  .object({
    ...triggeredPolicyShape,
    hiding: z.union([z.custom<ToolResultHiding>((value) => value instanceof ToolResultHiding), z.record(z.string(), z.unknown())]).optional(),
    summary: summaryStepSchema,
  })
  .strict();

/**
 * Hide older tool results first; when hiding was a no-op, or left the history above the
 * target, summarize. Runs when the trigger fires (or when forced); the hiding step then runs
 * forced, whatever its own trigger.
 * @see hidingThenSummary
 */
export class HidingThenSummary extends CompactionStrategy {
  readonly strategyName = "hidingThenSummary";
  readonly trigger: TriggerSize | TriggerSize[];
  readonly target: ContextSize;
  readonly contextWindow: number | undefined;
  readonly hiding: ToolResultHiding;
  readonly summary: CompactionStrategy;

  constructor(options: HidingThenSummaryOptions = {}) {
    const parsed = parseOptions("hidingThenSummary", optionsSchema, options) as HidingThenSummaryOptions;
    super(parsed);
    this.trigger = parsed.trigger ?? DEFAULT_POLICY_TRIGGER;
    this.target = parsed.target ?? defaultTarget(this.trigger);
    const summary = summaryStep(parsed.summary, this.tokenCounter);
    this.contextWindow = windowForSizes("hidingThenSummary", [this.trigger, this.target], parsed.contextWindow, summary.model, "the trigger or target is a fraction of the context window");
    this.hiding = parsed.hiding instanceof ToolResultHiding ? parsed.hiding : new ToolResultHiding({ tokenCounter: this.tokenCounter, ...parsed.hiding });
    this.summary = summary.strategy;
  }

  protected async run({ messages, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    const size = { tokens: tokens.total, messages: messageCountOf(messages) };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const nested = nestedContext(context);
    const hidden = await this.hiding.compact(messages, nested);
    const hid = hidden.status === "compacted";
    if (hid && withinTarget(this.target, { tokens: hidden.tokensAfter, messages: hidden.messagesAfter }, this.contextWindow)) {
      return { status: "compacted", messages: hidden.messages, replaced: hidden.replaced, preservesStructure: true, trigger };
    }
    const summarized = await this.summary.compact(hidden.messages, nested);
    if (summarized.status === "noop" || summarized.status === "failed") {
      const why = `${summarized.strategy} ${summarized.status}: ${summarized.reason ?? "no reason given"}`;
      if (hid) return { status: "compacted", messages: hidden.messages, replaced: hidden.replaced, preservesStructure: true, trigger, reason: `hiding left the history above the target; ${why}`, ...(summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {}) };
      return { status: summarized.status, trigger, reason: `hiding was a no-op (${hidden.reason ?? ""}); ${why}`, ...(summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {}) };
    }
    const chained = chainResults(messages, hidden, summarized);
    return { status: summarized.status, ...chained, trigger, ...(summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {}) };
  }
}

/**
 * Hide older tool results; summarize when that is not enough.
 *
 * @example
 * const policy = hidingThenSummary({ contextWindow: 128_000, summary: { model: "gpt-4o-mini" } });
 * const { messages, status } = await policy.compact(history);
 * @throws {InvalidOptionError} for an invalid option, or a fraction trigger with an unknown context window.
 */
export function hidingThenSummary(options: HidingThenSummaryOptions = {}): HidingThenSummary {
  return new HidingThenSummary(options);
}

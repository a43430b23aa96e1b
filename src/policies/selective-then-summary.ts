import { z } from "zod/v4";
import { invalidOption } from "../option-errors.js";
import { parseOptions } from "../options.js";
import { CompactionStrategy, nestedContext, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import { evaluateTrigger, hasTokenSize, tokenLimit, underTriggerReason, windowForSizes, type ContextSize, type TriggerSize, messageCountOf } from "../strategies/context-size.js";
import { SelectiveCompact, type MessageClassifier, type SelectiveRule } from "../strategies/selective-compact.js";
import type { FullSummaryOptions } from "../summary/full-summary.js";
import { DEFAULT_POLICY_TRIGGER, defaultTarget, summaryStep, summaryStepSchema, triggeredPolicyShape, type TriggeredPolicyOptions } from "./policy-options.js";

export interface SelectiveThenSummaryOptions extends TriggeredPolicyOptions {
  /** The selective rules. @default DEFAULT_SELECTIVE_RULES */
  rules?: SelectiveRule[];
  /** Custom kinds for the rules, e.g. skill prompts. */
  classify?: MessageClassifier;
  /** The fallback: any strategy or `fullSummary` options. @default fullSummary() (keepRecent 2; no model: the no-model summarizer) */
  summary?: CompactionStrategy | FullSummaryOptions;
  /** Compact down to this; a `tokens` or `fraction` size (the rules stop at a token count). @default 0.6 of the trigger */
  target?: ContextSize;
}

const optionsSchema = z
  .object({
    ...triggeredPolicyShape,
    rules: z.array(z.record(z.string(), z.unknown())).optional(),
    classify: z.custom<MessageClassifier>((value) => typeof value === "function", "expected a function").optional(),
    summary: summaryStepSchema,
  })
  .strict();

/**
 * Selective compaction with a summary fallback: when the trigger fires, apply the selective rules (drop or keep the newest N
 * of each kind, lowest priority first) until the history is under the target; if the rules cannot
 * get there, summarize the conversation instead (the original, so the summary sees what the rules
 * would have dropped).
 * @see selectiveThenSummary
 */
export class SelectiveThenSummary extends CompactionStrategy {
  readonly strategyName = "selectiveThenSummary";
  readonly trigger: TriggerSize | TriggerSize[];
  readonly target: ContextSize;
  readonly contextWindow: number | undefined;
  readonly selective: SelectiveCompact;
  readonly summary: CompactionStrategy;

  constructor(options: SelectiveThenSummaryOptions = {}) {
    const parsed = parseOptions("selectiveThenSummary", optionsSchema, options) as SelectiveThenSummaryOptions;
    super(parsed);
    this.trigger = parsed.trigger ?? DEFAULT_POLICY_TRIGGER;
    const triggers = Array.isArray(this.trigger) ? this.trigger : [this.trigger];
    if (parsed.target === undefined && triggers.every((size) => !hasTokenSize(size))) {
      throw invalidOption("selectiveThenSummary", "target", parsed.target, "{ tokens } or { fraction } when the trigger counts only messages", "the selective rules stop at a token count");
    }
    this.target = parsed.target ?? defaultTarget(triggers.find(hasTokenSize) ?? triggers[0]!);
    if ("messages" in this.target) {
      throw invalidOption("selectiveThenSummary", "target", this.target, "{ tokens } or { fraction }", "the selective rules stop at a token count");
    }
    const summary = summaryStep(parsed.summary, this.tokenCounter);
    this.contextWindow = windowForSizes("selectiveThenSummary", [this.trigger, this.target], parsed.contextWindow, summary.model, "the trigger or target is a fraction of the context window");
    this.selective = new SelectiveCompact({
      tokenCounter: this.tokenCounter,
      target: tokenLimit(this.target, this.contextWindow),
      ...(parsed.rules ? { rules: parsed.rules } : {}),
      ...(parsed.classify ? { classify: parsed.classify } : {}),
    });
    this.summary = summary.strategy;
  }

  protected async run({ messages, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    const size = { tokens: tokens.total, messages: messageCountOf(messages) };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const nested = nestedContext(context);
    const selected = await this.selective.compact(messages, nested);
    if (selected.status === "compacted" && selected.tokensAfter <= this.selective.target) {
      return { status: "compacted", messages: selected.messages, removed: selected.removed, replaced: selected.replaced, trigger };
    }
    const summarized = await this.summary.compact(messages, nested);
    const summaryModel = summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {};
    if (summarized.status === "noop" || summarized.status === "failed") {
      const why = `the rules could not reach ${this.selective.target} tokens (${selected.tokensAfter}); ${summarized.strategy} ${summarized.status}: ${summarized.reason ?? "no reason given"}`;
      // The rules' partial result is still a valid, smaller history.
      if (selected.status === "compacted") {
        return { status: "compacted", messages: selected.messages, removed: selected.removed, replaced: selected.replaced, trigger, reason: why, ...summaryModel };
      }
      return { status: summarized.status, trigger, reason: why, ...summaryModel };
    }
    return { status: summarized.status, messages: summarized.messages, removed: summarized.removed, replaced: summarized.replaced, trigger, ...summaryModel };
  }
}

/**
 * Selective rules first, a full summary when they are not enough.
 *
 * @example
 * const policy = selectiveThenSummary({ contextWindow: 64_000, summary: { model: chatModel } });
 * const { messages, status } = await policy.compact(history);
 * @throws {InvalidOptionError} for an invalid option, a `messages` target, or a fraction size with an unknown context window.
 */
export function selectiveThenSummary(options: SelectiveThenSummaryOptions = {}): SelectiveThenSummary {
  return new SelectiveThenSummary(options);
}

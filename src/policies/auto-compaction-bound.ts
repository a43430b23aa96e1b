import type { BaseMessage } from "@langchain/core/messages";
import type { BoundedHistory, BoundedNoop } from "../strategies/compaction-strategy.js";
import { evaluateTrigger, messageCountOf } from "../strategies/context-size.js";
import type { TokenMeasurement } from "../tokens/token-counter.js";
import type { AutoCompactionPlan } from "./auto-compaction-plan.js";

/** The tokens of the system messages among the first `tokens.perMessage.length` messages. @internal */
export function systemTokensOf(messages: readonly BaseMessage[], tokens: TokenMeasurement): number {
  let systemTokens = 0;
  for (let position = 0; position < tokens.perMessage.length; position++) if (messages[position]!.type === "system") systemTokens += tokens.perMessage[position]!;
  return systemTokens;
}

/** System tokens of a counted prefix, per measurement: the prefix stays the same while steps are no-ops. */
const prefixSystemTokens = new WeakMap<TokenMeasurement, number>();

/** The reason of `autoCompaction`'s no-op under the trigger and the threshold. @internal */
export function underThresholdReason(tokens: TokenMeasurement, systemTokens: number, messages: number, plan: AutoCompactionPlan, fraction: number): string {
  return `${tokens.total} tokens (${tokens.total - systemTokens} besides system messages), ${messages} messages: under the trigger and the threshold ${plan.thresholdTokens} (${fraction} of ${plan.window})`;
}

/**
 * Where an upper bound of the history puts it, for `autoCompaction`: `"under the mark"` when even
 * the bound is under the threshold, does not fire the trigger (the conversation's bound: the
 * history's bound minus the counted system messages) and, preparing summaries, is under the mark
 * where work after the step starts (`warmAt`); `"past the mark"` when it is under the threshold
 * and the trigger but not under the mark (only preparing summaries); `undefined` when the history
 * must be counted. @internal
 */
export function boundedPosition(history: BoundedHistory, plan: AutoCompactionPlan): "under the mark" | "past the mark" | undefined {
  const { messages, counted, upperTotal } = history;
  if (upperTotal >= plan.thresholdTokens) return undefined;
  let systemTokens = prefixSystemTokens.get(counted);
  if (systemTokens === undefined) prefixSystemTokens.set(counted, (systemTokens = systemTokensOf(messages, counted)));
  // System messages among the uncounted ones are left in: the conversation's bound stays an upper bound.
  const conversation = { tokens: upperTotal - systemTokens, messages: messageCountOf(messages) };
  if (evaluateTrigger(plan.trigger, conversation, plan.window, false) !== undefined) return undefined;
  if (plan.warmAt === undefined) return "under the mark";
  // Work after the step (the firing's hiding, a summary prepared ahead) starts at the mark below
  // the size that fires: the bound must be under it too.
  const fireTokens = Math.min(plan.thresholdTokens, systemTokens + plan.triggerTokens);
  return upperTotal - systemTokens >= plan.warmAt * (fireTokens - systemTokens) ? "past the mark" : "under the mark";
}

/** The reason of `autoCompaction`'s no-op under the bound, from the exact measurement. @internal */
export function boundedNoopReason(messages: readonly BaseMessage[], plan: AutoCompactionPlan, fraction: number): (tokens: TokenMeasurement) => string {
  return (tokens) => underThresholdReason(tokens, systemTokensOf(messages, tokens), messages.length, plan, fraction);
}

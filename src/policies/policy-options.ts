import { z } from "zod/v4";
import { CompactionStrategy, baseOptionsShape, type BaseStrategyOptions } from "../strategies/compaction-strategy.js";
import { FullSummary, type FullSummaryOptions } from "../summary/full-summary.js";
import type { SummaryModel } from "../summary/summary-model.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { contextSizeSchema, triggerSchema, type ContextSize, type TriggerSize } from "../strategies/context-size.js";

/** Options every policy that triggers by itself accepts. */
export interface TriggeredPolicyOptions extends BaseStrategyOptions {
  /** When to compact. @default { fraction: 0.8 } */
  trigger?: TriggerSize | TriggerSize[];
  /**
   * Once triggered, compact down to this (hysteresis: the next compaction, and the prompt-cache break
   * it causes, comes later). @default 0.6 of the first trigger size, e.g. { fraction: 0.48 }
   */
  target?: ContextSize;
  /** The model's context window in tokens. @default the summary model's profile or known name */
  contextWindow?: number;
}

/** @internal */
export const triggeredPolicyShape = {
  ...baseOptionsShape,
  trigger: triggerSchema.optional(),
  target: contextSizeSchema.optional(),
  contextWindow: z.number().int().positive().optional(),
};

/** The schema of a policy's `summary` option, which {@link summaryStep} turns into its summary step. @internal */
export const summaryStepSchema = z.union([z.custom<CompactionStrategy>((value) => value instanceof CompactionStrategy), z.record(z.string(), z.unknown())]).optional();

/** The default trigger of the policies. */
export const DEFAULT_POLICY_TRIGGER: ContextSize = Object.freeze({ fraction: 0.8 });

/**
 * A policy's summary step: the strategy given, or a `fullSummary` built from the options given
 * (sharing the policy's token counter), with the summary model when the policy can see it (for the
 * context window).
 */
export function summaryStep(summary: CompactionStrategy | FullSummaryOptions | undefined, tokenCounter: TokenCounter): { strategy: CompactionStrategy; model: SummaryModel | undefined } {
  if (summary instanceof CompactionStrategy) return { strategy: summary, model: undefined };
  return { strategy: new FullSummary({ tokenCounter, ...summary }), model: summary?.model };
}

/** 0.6 of the first trigger size (of its fraction, else its tokens, else its messages). */
export function defaultTarget(trigger: TriggerSize | readonly TriggerSize[]): ContextSize {
  const first = (Array.isArray(trigger) ? trigger[0] : trigger) as TriggerSize;
  if (first.fraction !== undefined) return { fraction: first.fraction * 0.6 };
  if (first.tokens !== undefined) return { tokens: Math.floor(first.tokens * 0.6) };
  return { messages: Math.max(1, Math.floor((first.messages ?? 1) * 0.6)) };
}

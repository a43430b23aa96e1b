import { z } from "zod/v4";
import { baseOptionsShape, type BaseStrategyOptions } from "../strategies/compaction-strategy.js";
import { contextSizeSchema, triggerSchema, type ContextSize } from "../strategies/context-size.js";

/** Options every policy that triggers by itself accepts. */
export interface TriggeredPolicyOptions extends BaseStrategyOptions {
  /** When to compact. @default { fraction: 0.8 } (seeds 000 and 004) */
  trigger?: ContextSize | ContextSize[];
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

/** The default trigger of the policies. */
export const DEFAULT_POLICY_TRIGGER: ContextSize = Object.freeze({ fraction: 0.8 });

/** 0.6 of the first trigger size. */
export function defaultTarget(trigger: ContextSize | readonly ContextSize[]): ContextSize {
  const first = (Array.isArray(trigger) ? trigger[0] : trigger) as ContextSize;
  if ("fraction" in first) return { fraction: first.fraction * 0.6 };
  if ("tokens" in first) return { tokens: Math.floor(first.tokens * 0.6) };
  return { messages: Math.max(1, Math.floor(first.messages * 0.6)) };
}

import { getModelContextSize } from "@langchain/core/language_models/base";
import { contextWindowOf } from "../strategies/context-size.js";

/**
 * The window LangChain's `summarizationMiddleware` reads from its summary model: the profile's
 * `maxInputTokens`, else `getModelContextSize` of its `model` or `modelName` (whose table answers 4097
 * for a name it does not know, as in LangChain). `undefined` when the model has neither.
 */
export function langchainProfileLimits(model: unknown): number | undefined {
  if (typeof model !== "object" || model === null) return undefined;
  const candidate = model as { profile?: unknown; model?: unknown; modelName?: unknown };
  let profile: unknown;
  try {
    profile = candidate.profile;
  } catch {
    profile = undefined;
  }
  if (typeof profile === "object" && profile !== null && "maxInputTokens" in profile) {
    const max = (profile as { maxInputTokens?: unknown }).maxInputTokens;
    if (typeof max === "number" && max > 0) return max;
  }
  if (typeof candidate.model === "string") return getModelContextSize(candidate.model);
  if (typeof candidate.modelName === "string") return getModelContextSize(candidate.modelName);
  return undefined;
}

/**
 * The context window for `fraction` sizes: `contextWindow` when given; else what LangChain reads from
 * the summary model ({@link langchainProfileLimits}); else the agent model's profile or known name
 * (`contextWindowOf`), once the agent has called it. `undefined` when none knows.
 */
export function middlewareWindow(contextWindow: number | undefined, summaryModel: unknown, agentModel: unknown): number | undefined {
  if (contextWindow !== undefined) return contextWindow;
  return langchainProfileLimits(summaryModel) ?? (agentModel === undefined ? undefined : contextWindowOf(undefined, agentModel));
}

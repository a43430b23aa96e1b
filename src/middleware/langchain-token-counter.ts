import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { countTokensApproximately } from "langchain";
import { tokenCounterFromFunction, type TokenCounter, type TokenCounterFunction } from "../tokens/token-counter.js";

/** LangChain's token counter: a function from messages to their token count. */
export type LangChainTokenCounter = TokenCounterFunction;

/**
 * The token counter of LangChain's `contextEditingMiddleware` for one model call:
 * `"approx"` is LangChain's `countTokensApproximately` (characters / 4); `"model"` asks the model
 * (`getNumTokensFromMessages`, which only OpenAI chat models have), counting the system prompt
 * with the messages, and throws for a model without it. @internal
 */
export function contextEditingCounter(method: "approx" | "model", model: unknown, systemPrompt: string | undefined): LangChainTokenCounter {
  if (method === "approx") return countTokensApproximately;
  const system = systemPrompt ? [new SystemMessage(systemPrompt)] : [];
  return async (messages) => {
    const counting = model as { getName?: () => string; getNumTokensFromMessages?: (messages: BaseMessage[]) => Promise<{ totalCount: number }> };
    if (typeof counting.getNumTokensFromMessages !== "function") throw new Error(`Model "${counting.getName?.() ?? "unknown"}" does not support token counting`);
    return (await counting.getNumTokensFromMessages([...system, ...messages])).totalCount;
  };
}

/** Counters already wrapped, so every strategy built on one shares its per-message cache. */
const adapters = new WeakMap<LangChainTokenCounter, TokenCounter>();

/**
 * This package's `TokenCounter` over a LangChain token-counting function (`tokenCounterFromFunction`,
 * one per function), so the figures of a strategy (what a result costs, what hiding it frees) are the
 * ones LangChain's middleware computes. @internal
 */
export function langChainTokenCounter(count: LangChainTokenCounter): TokenCounter {
  let counter = adapters.get(count);
  if (counter === undefined) adapters.set(count, (counter = tokenCounterFromFunction(count)));
  return counter;
}

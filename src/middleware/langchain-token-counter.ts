import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { countTokensApproximately } from "langchain";
import { headOf } from "../text/code-points.js";
import type { TokenCounter, TokenMeasurement } from "../tokens/token-counter.js";

/** LangChain's token counter: a function from messages to their token count. */
export type LangChainTokenCounter = (messages: BaseMessage[]) => number | Promise<number>;

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

/** Counters already wrapped, so a strategy built on one keeps its per-message cache. */
const adapters = new WeakMap<LangChainTokenCounter, TokenCounter>();

/**
 * This package's `TokenCounter` over a LangChain token-counting function, so the figures of a
 * strategy (what a result costs, what hiding it frees) are the ones LangChain's middleware computes:
 * a message counts `count([message])` (cached per message object), a history `count(history)`.
 * No calibration; `truncateText` keeps 4 code units per token. @internal
 */
export function langChainTokenCounter(count: LangChainTokenCounter): TokenCounter {
  const existing = adapters.get(count);
  if (existing) return existing;
  const cache = new WeakMap<BaseMessage, number>();
  const countMessage = async (message: BaseMessage): Promise<number> => {
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens = await count([message]);
      cache.set(message, tokens);
    }
    return tokens;
  };
  const measure = async (messages: readonly BaseMessage[]): Promise<TokenMeasurement> => {
    const perMessage: number[] = [];
    for (const message of messages) perMessage.push(await countMessage(message));
    const estimated = await count([...messages]);
    return { perMessage, estimated, calibrationAnchors: [], calibrationOffset: 0, total: estimated };
  };
  const counter: TokenCounter = {
    mode: "approximate",
    encoding: undefined,
    calibrate: false,
    countText: async (text) => count([new HumanMessage(text)]),
    countMessage,
    countMessages: async (messages) => count([...messages]),
    measure,
    truncateText: async (text, maxTokens) => headOf(text, Math.max(0, maxTokens) * 4),
  };
  adapters.set(count, counter);
  return counter;
}

// MeteredChatModel: a chat model wrapper that records each summary call's tokens for its system.
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { type TokenCounter } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";

/** One summary call as metered. */
export interface SummaryCall {
  /** Tokens of the prompt as sent (every message, with the format overhead). */
  readonly inputTokens: number;
  /** Tokens of the answer's text. */
  readonly outputTokens: number;
  /** The prompt's messages, as sent: the replay compares them with the agent's previous call for the cached prefix. */
  readonly messages: readonly BaseMessage[];
  /** Tokens of each prompt message (`perMessage` of the counter's measurement). */
  readonly perMessage: readonly number[];
}

/** Options of {@link MeteredChatModel}. */
export interface MeteredChatModelParams extends BaseChatModelParams {
  /** The model that answers. */
  inner: BaseChatModel;
  /** Counts the prompt and the answer. */
  tokenCounter: TokenCounter;
}

/**
 * Wraps a chat model and records each call's tokens, counted with the evaluation's counter (the
 * same one that measures the agent's calls, whichever model answers). One per system, so each
 * system's summary calls are added to its own totals.
 *
 * @example
 * const model = new MeteredChatModel({ inner, tokenCounter });
 * await strategy.compact(history); // strategy built with model
 * const calls = model.drain();
 */
export class MeteredChatModel extends BaseChatModel {
  readonly inner: BaseChatModel;
  readonly tokenCounter: TokenCounter;
  #calls: SummaryCall[] = [];

  constructor(params: MeteredChatModelParams) {
    super(params);
    this.inner = params.inner;
    this.tokenCounter = params.tokenCounter;
  }

  _llmType(): string {
    return "metered";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const answer = await this.inner.invoke(messages, { ...(options.signal ? { signal: options.signal } : {}) });
    const text = messageText(answer);
    const prompt = [...messages];
    const measurement = await this.tokenCounter.measure(prompt);
    this.#calls.push({ inputTokens: measurement.total, outputTokens: await this.tokenCounter.countText(text), messages: prompt, perMessage: measurement.perMessage });
    return { generations: [{ message: new AIMessage(text), text }] };
  }

  /** The calls recorded since the last drain, oldest first; clears them. */
  drain(): SummaryCall[] {
    const calls = this.#calls;
    this.#calls = [];
    return calls;
  }
}

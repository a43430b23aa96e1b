/**
 * Measures what a model receives: the input tokens of every call, counted with the package's token
 * counter, and the largest context sent.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { type TokenCounter } from "../../src/index.js";
import { defaultTokenCounter } from "../../src/extend/index.js";

/** One model call as the model saw it. */
export interface ModelCallRecord {
  /** Messages in the request. */
  readonly messages: number;
  /** Tokens of the request (every message, the reply priming and any calibration). */
  readonly tokens: number;
  /** Id of the request's last message: which step of the session this call answered. */
  readonly lastMessageId: string | undefined;
}

/**
 * Records every model call. The agent's model node calls {@link ContextMeter.record} with exactly
 * the messages it sends, so the figures are what a provider would bill and what must fit the window.
 *
 * @example
 * const meter = new ContextMeter();
 * await meter.record(messages);
 * console.log(meter.modelCalls, meter.inputTokens, meter.peakContext);
 */
export class ContextMeter {
  readonly #tokenCounter: TokenCounter;
  readonly #calls: ModelCallRecord[] = [];

  /** @param tokenCounter counter for the figures. @default the package's exact o200k_base counter */
  constructor(tokenCounter: TokenCounter = defaultTokenCounter()) {
    this.#tokenCounter = tokenCounter;
  }

  /** Count one request and remember it. */
  async record(messages: readonly BaseMessage[]): Promise<ModelCallRecord> {
    const record: ModelCallRecord = {
      messages: messages.length,
      tokens: await this.#tokenCounter.countMessages(messages),
      lastMessageId: messages.at(-1)?.id,
    };
    this.#calls.push(record);
    return record;
  }

  /** Every call so far, in order. */
  get calls(): readonly ModelCallRecord[] {
    return this.#calls;
  }

  get modelCalls(): number {
    return this.#calls.length;
  }

  /** Input tokens summed over all calls: what the session cost in prompt tokens. */
  get inputTokens(): number {
    return this.#calls.reduce((sum, call) => sum + call.tokens, 0);
  }

  /** The largest request: what the context window had to hold. */
  get peakContext(): number {
    return this.#calls.reduce((peak, call) => Math.max(peak, call.tokens), 0);
  }
}

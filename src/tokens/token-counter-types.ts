import type { BaseMessage } from "@langchain/core/messages";
import type { TokenEncodingName } from "./encoding-for-model.js";

/** The types of token counters (see `createTokenCounter`). */

export type TokenCounterMode = "exact" | "approximate";

export interface TokenCounterOptions {
  /** Model name; chooses the encoding (see `encodingForModel`). Ignored when `encoding` is given. */
  model?: string;
  /** Encoding to use. @default encodingForModel(model), or "o200k_base" */
  encoding?: TokenEncodingName;
  /** `"exact"` counts js-tiktoken's tokens (see `BpeEncoder`); `"approximate"` counts characters / 4. @default "exact" */
  mode?: TokenCounterMode;
  /**
   * Use the provider's own count when an assistant message carries `usage_metadata.input_tokens`:
   * the prefix that call saw is counted as the provider reported it (tool schemas and formatting
   * included) and only later messages are estimated. The difference from our estimate is fixed when
   * the message is first seen and applies while that message (or a rewritten copy of it) is in the
   * history. A provider count below our estimate is ignored: that call saw another prefix (e.g. a
   * compacted view of a history stored in full). @default true
   */
  calibrate?: boolean;
  /** Tokens counted for each image, audio, video, PDF or file-by-reference part. @default 85 */
  nonTextPartTokens?: number;
}

/** Token counts of one history, from {@link TokenCounter.measure}. */
export interface TokenMeasurement {
  /** Estimated tokens of each message (format overhead included), in order. */
  readonly perMessage: readonly number[];
  /** `sum(perMessage)` plus the reply priming: the estimate with no calibration. */
  readonly estimated: number;
  /**
   * Every assistant message with `usage_metadata.input_tokens`, in order, with its offset: the
   * provider's count minus our estimate of the prefix that call saw (what the provider sees that we
   * do not: tool schemas, formatting). Empty without calibration.
   */
  readonly calibrationAnchors: readonly { readonly index: number; readonly offset: number }[];
  /** The offset of the newest anchor, which the total uses; 0 without one. */
  readonly calibrationOffset: number;
  /** `estimated + calibrationOffset`: the number to compare with a context window. */
  readonly total: number;
}

/**
 * Counts the tokens of messages. Each message is tokenized once (the count is cached by message
 * object, so messages are treated as immutable): counting a history that grew by k messages
 * tokenizes k messages and looks the others up; `extend` does not even look them up.
 */
export interface TokenCounter {
  readonly mode: TokenCounterMode;
  /** The encoding in use; `undefined` in approximate mode. */
  readonly encoding: TokenEncodingName | undefined;
  readonly calibrate: boolean;
  /** Tokens of a plain text. */
  countText(text: string): Promise<number>;
  /**
   * Tokens of `parts.join("")`: what `countText` gives for the joined text. The exact counter
   * tokenizes again only the lines around each join (a long part it counted before, such as a summary
   * counted when it was written, costs a lookup), and keeps the joined text's count, so a message
   * holding that text is counted without tokenizing it.
   */
  countJoined?(parts: readonly string[]): Promise<number>;
  /** Tokens of one message, format overhead included (cached). */
  countMessage(message: BaseMessage): Promise<number>;
  /** Tokens of a whole request: every message, the reply priming and the calibration. */
  countMessages(messages: readonly BaseMessage[]): Promise<number>;
  /** Per-message counts and the total, in one pass. */
  measure(messages: readonly BaseMessage[]): Promise<TokenMeasurement>;
  /**
   * The measurement of a history that grew: `previous` measured `messages.slice(0, n)` (the same
   * message objects), so only the messages from `n` on are counted. Costs O(k) for k new messages
   * plus copying the per-message array.
   */
  extend?(previous: TokenMeasurement, messages: readonly BaseMessage[]): Promise<TokenMeasurement>;
  /**
   * An upper bound of `extend(previous, messages).total`, computed without tokenizing the messages
   * after `previous` (`previous` measured `messages.slice(0, n)`, the same message objects), and the
   * exact measurement on demand. `undefined` when the counter cannot bound (its encoding is not
   * loaded yet). See {@link TokenUpperBound} for the bound.
   */
  upperBound?(previous: TokenMeasurement, messages: readonly BaseMessage[]): TokenUpperBound | undefined;
  /**
   * The longest prefix of `text` that fits in `maxTokens` tokens (approximate mode: `maxTokens * 4`
   * UTF-16 code units). The cut always lands on a code-point boundary: the result is a prefix of
   * `text`'s code points and never ends in half a surrogate pair.
   */
  truncateText(text: string, maxTokens: number): Promise<string>;
}

/**
 * A cheap upper bound of a grown history's tokens, from {@link TokenCounter.upperBound}.
 *
 * The bound: the previous measurement's exact sum, plus, for each new message, its exact count when
 * the counter already has it, else its structural tokens (the same per-message, per-call and media
 * figures the exact count adds) plus, for every text the exact count tokenizes, its count when the
 * counter counted the same text before (a message read back from a checkpoint is a new object with
 * the same texts), else its UTF-8 bytes. That is never below the exact count: `o200k_base` and `cl100k_base` are byte-level BPE encodings whose
 * tokens each stand for at least one byte, so a text has at most as many tokens as UTF-8 bytes (a
 * lone surrogate counts as the 3 bytes of U+FFFD, as the tokenizer encodes it). A new message's
 * provider usage record (calibration) is bounded with the smallest possible prefix sum, which gives
 * the largest possible offset. In approximate mode the new messages are counted exactly (no
 * tokenizer is involved): the bound is the total.
 */
export interface TokenUpperBound {
  /** At least the exact total `measure()` returns. */
  readonly total: number;
  /** Optional: at least the sum of the exact counts of the messages after `previous`'s (calibration aside). */
  readonly added?: number;
  /**
   * The exact measurement, synchronously: what `extend(previous, messages)` returns. Counts each
   * message once (the counter's cache) and fixes calibration offsets as `extend` does.
   */
  measure(): TokenMeasurement;
}

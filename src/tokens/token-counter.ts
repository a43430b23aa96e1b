import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { isAssistantMessage } from "../messages/message-types.js";
import { parseOptions } from "../options.js";
import { headOf } from "../text/code-points.js";
import { tallyMessage, utf8Length } from "./message-units.js";
import type { BpeEncoder } from "./bpe-encoder.js";
import { countText, encodeText, loadEncoder, tokenPrefix } from "./encoder.js";
import { encodingForModel, type TokenEncodingName } from "./encoding-for-model.js";
import { joinedCount } from "./joined-count.js";
import { TextUnitsCache } from "./text-units-cache.js";
import type { TokenCounter, TokenCounterMode, TokenCounterOptions, TokenMeasurement, TokenUpperBound } from "./token-counter-types.js";
import { tokenCounterFromFunction, type TokenCounterFunction } from "./function-token-counter.js";

export { tokenCounterFromFunction, type TokenCounterFunction } from "./function-token-counter.js";

export { TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TOKENS_PER_ROLE, TOKENS_PER_TOOL_CALL } from "./message-units.js";
/** Tokens that prime the model's reply, counted once per request. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * Default estimate for one image or other media part (audio, video, a PDF or a file by reference):
 * OpenAI's cost of a low-detail image. Override it with `nonTextPartTokens`.
 */
export const DEFAULT_NON_TEXT_PART_TOKENS = 85;
/** Characters per token in `approximate` mode. */
export const CHARACTERS_PER_TOKEN = 4;
/** Texts at least this long have their token count cached by content (exact mode). */
export const CACHED_TEXT_MIN_LENGTH = 256;
/** Total length, in UTF-16 code units, of the texts whose counts one exact counter keeps (least recently used leave first). */
export const CACHED_TEXT_MAX_CHARACTERS = 4_000_000;

export type { TokenCounter, TokenCounterMode, TokenCounterOptions, TokenMeasurement, TokenUpperBound } from "./token-counter-types.js";

const optionsSchema = z
  .object({
    model: z.string().min(1).optional(),
    encoding: z.enum(["o200k_base", "cl100k_base"]).optional(),
    mode: z.enum(["exact", "approximate"]).optional(),
    calibrate: z.boolean().optional(),
    nonTextPartTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

class MessageTokenCounter implements TokenCounter {
  readonly mode: TokenCounterMode;
  readonly encoding: TokenEncodingName | undefined;
  readonly calibrate: boolean;
  readonly #nonTextPartTokens: number;
  readonly #cache = new WeakMap<BaseMessage, number>();
  /** Upper bounds of messages not counted yet (see `upperBound`). */
  readonly #upperCache = new WeakMap<BaseMessage, number>();
  /**
   * Calibration offset per provider usage record, fixed the first time it is seen. Keyed by the
   * `usage_metadata` object, which `cloneMessage` shares, so a rewritten copy of an assistant message
   * keeps the offset its original had.
   */
  readonly #offsets = new WeakMap<object, number>();
  #encoder: BpeEncoder | undefined;
  readonly #texts = new TextUnitsCache(CACHED_TEXT_MIN_LENGTH, CACHED_TEXT_MAX_CHARACTERS);
  readonly #encodeUnits = (text: string) => countText(this.#encoder!, text);
  readonly #upperUnits = (text: string) => this.#texts.peek(text) ?? utf8Length(text);
  readonly #textUnits = (text: string) => this.#units(text);

  constructor(options: TokenCounterOptions) {
    this.mode = options.mode ?? "exact";
    this.encoding =
      this.mode === "approximate" ? undefined : (options.encoding ?? (options.model ? encodingForModel(options.model) : "o200k_base"));
    this.calibrate = options.calibrate ?? true;
    this.#nonTextPartTokens = options.nonTextPartTokens ?? DEFAULT_NON_TEXT_PART_TOKENS;
  }

  async #ready(): Promise<void> {
    if (this.encoding !== undefined && this.#encoder === undefined) this.#encoder = await loadEncoder(this.encoding);
  }

  /**
   * `work()` once the encoding is loaded, as a promise. Once it is, `work` runs now and the promise
   * is already settled: the caller's await is its only turn of the microtask queue (an async method
   * awaiting the load each time took three), and counting is called per message.
   */
  #whenReady<T>(work: () => T): Promise<T> {
    if (this.encoding !== undefined && this.#encoder === undefined) return this.#ready().then(work);
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Cost of a text in units: tokens (exact) or characters (approximate). */
  #units(text: string): number {
    if (text === "") return 0;
    return this.#encoder ? this.#texts.unitsOf(text, this.#encodeUnits) : text.length;
  }

  #countLoaded(message: BaseMessage): number {
    const cached = this.#cache.get(message);
    if (cached !== undefined) return cached;
    const { units, fixedTokens } = tallyMessage(message, (text) => this.#units(text), this.#nonTextPartTokens);
    const tokens = fixedTokens + (this.#encoder ? units : Math.ceil(units / CHARACTERS_PER_TOKEN));
    this.#cache.set(message, tokens);
    return tokens;
  }

  /**
   * At least the message's exact count, without tokenizing: its structural tokens plus, for each
   * text, its count when the text was counted before (a message read back from a checkpoint, or
   * another thread's copy), else its UTF-8 bytes (see `utf8Length`), where the count has a token.
   */
  #upperOf(message: BaseMessage): number {
    const cached = this.#upperCache.get(message);
    if (cached !== undefined) return cached;
    const { units, fixedTokens } = tallyMessage(message, this.#upperUnits, this.#nonTextPartTokens);
    this.#upperCache.set(message, fixedTokens + units);
    return fixedTokens + units;
  }

  countText(text: string): Promise<number> {
    return this.#whenReady(() => {
      const units = this.#units(text);
      return this.#encoder ? units : Math.ceil(units / CHARACTERS_PER_TOKEN);
    });
  }

  countJoined(parts: readonly string[]): Promise<number> {
    return this.#whenReady(() => {
      const joined = parts.join("");
      if (!this.#encoder || joined === "") return Math.ceil(joined.length / CHARACTERS_PER_TOKEN);
      return this.#texts.unitsOf(joined, () => joinedCount(parts, this.#textUnits, joined));
    });
  }

  countMessage(message: BaseMessage): Promise<number> {
    return this.#whenReady(() => this.#countLoaded(message));
  }

  countMessages(messages: readonly BaseMessage[]): Promise<number> {
    return this.#whenReady(() => this.#measureFrom([], [], 0, messages).total);
  }

  measure(messages: readonly BaseMessage[]): Promise<TokenMeasurement> {
    return this.#whenReady(() => this.#measureFrom([], [], 0, messages));
  }

  extend(previous: TokenMeasurement, messages: readonly BaseMessage[]): Promise<TokenMeasurement> {
    return this.#whenReady(() => this.#measureFrom([...previous.perMessage], [...previous.calibrationAnchors], previous.estimated - REPLY_PRIMING_TOKENS, messages));
  }

  upperBound(previous: TokenMeasurement, messages: readonly BaseMessage[]): TokenUpperBound | undefined {
    // The exact measurement must be possible synchronously later: the encoding has to be loaded.
    if (this.encoding !== undefined && !this.#encoder) return undefined;
    let upper = previous.estimated - REPLY_PRIMING_TOKENS;
    // Every count is at least the message's structural tokens: a lower bound of each prefix's sum.
    let lower = upper;
    let offset = previous.calibrationOffset;
    for (let index = previous.perMessage.length; index < messages.length; index++) {
      const message = messages[index]!;
      const usage = this.calibrate && isAssistantMessage(message) ? message.usage_metadata : undefined;
      if (usage && usage.input_tokens > 0) {
        // The offset is the provider's count minus the prefix's sum (at least `lower`): at most this.
        const anchor = this.#offsets.get(usage) ?? Math.max(0, usage.input_tokens - (lower + REPLY_PRIMING_TOKENS));
        // An offset of 0 leaves the newest anchor's offset in force; a positive one replaces it.
        if (anchor > 0) offset = this.#offsets.has(usage) ? anchor : Math.max(offset, anchor);
      }
      // Approximate mode prices a message without a tokenizer: its exact count is as cheap as a bound.
      const exact = this.#cache.get(message) ?? (this.#encoder ? undefined : this.#countLoaded(message));
      upper += exact ?? this.#upperOf(message);
      lower += exact ?? 0;
    }
    const total = Math.max(0, upper + REPLY_PRIMING_TOKENS + offset);
    return { total, added: upper - (previous.estimated - REPLY_PRIMING_TOKENS), measure: () => this.#measureFrom([...previous.perMessage], [...previous.calibrationAnchors], previous.estimated - REPLY_PRIMING_TOKENS, messages) };
  }

  /** Count `messages` from `perMessage.length` on, continuing the given counts. */
  #measureFrom(
    perMessage: number[],
    calibrationAnchors: { index: number; offset: number }[],
    sumSoFar: number,
    messages: readonly BaseMessage[],
  ): TokenMeasurement {
    let sum = sumSoFar;
    for (let index = perMessage.length; index < messages.length; index++) {
      const message = messages[index]!;
      const usage = this.calibrate && isAssistantMessage(message) ? message.usage_metadata : undefined;
      if (usage && usage.input_tokens > 0) {
        let offset = this.#offsets.get(usage);
        if (offset === undefined) {
          // The provider counted the prefix this call saw. What it saw beyond our estimate (tool
          // schemas, formatting) is fixed when the usage record is first seen, and holds while the
          // record is in the history, even after a compaction changes the prefix. A provider count
          // below our estimate means the call saw another prefix (a compacted view of a history
          // stored in full, say): no calibration then, our estimate stands.
          offset = Math.max(0, usage.input_tokens - (sum + REPLY_PRIMING_TOKENS));
          this.#offsets.set(usage, offset);
        }
        if (offset > 0) calibrationAnchors.push({ index, offset });
      }
      const tokens = this.#countLoaded(message);
      perMessage.push(tokens);
      sum += tokens;
    }
    const estimated = sum + REPLY_PRIMING_TOKENS;
    const calibrationOffset = calibrationAnchors.at(-1)?.offset ?? 0;
    return { perMessage, estimated, calibrationAnchors, calibrationOffset, total: Math.max(0, estimated + calibrationOffset) };
  }

  truncateText(text: string, maxTokens: number): Promise<string> {
    return this.#whenReady(() => {
      const budget = Math.max(0, Math.floor(maxTokens));
      if (!this.#encoder) return headOf(text, budget * CHARACTERS_PER_TOKEN);
      const tokens = encodeText(this.#encoder, text);
      if (tokens.length <= budget) {
        // Kept like a counted text: the text is often counted next (a summary placed in its message).
        this.#texts.unitsOf(text, () => tokens.length);
        return text;
      }
      return tokenPrefix(this.#encoder, text, tokens, budget);
    });
  }
}

/**
 * Create a token counter.
 *
 * - `mode: "exact"` (default) gives js-tiktoken's tokens, from this package's encoder on
 *   js-tiktoken's rank files, loading only the encoding in use, lazily:
 *   `o200k_base` for gpt-4o, gpt-4.1, gpt-5 and o-series models and for unknown models,
 *   `cl100k_base` for gpt-4 and gpt-3.5. Each message costs {@link TOKENS_PER_MESSAGE} +
 *   {@link TOKENS_PER_ROLE} plus its name, tool-call names, arguments and ids, tool-call id, and the
 *   text of every content block, nested ones included: `text`, `tool_result` (its id and content,
 *   string or blocks), `document` (title, context, a text or content source), `search_result`,
 *   `thinking` / `reasoning` / `redacted_thinking`, `refusal`, `compaction`, tool-call blocks that
 *   `tool_calls` does not list (name, input, id), and the JSON of any other block. A text block
 *   costs what the same string costs; `input_json_delta` and blocks restating a listed tool call
 *   cost nothing. Each image, audio, video, PDF or file by reference costs
 *   {@link DEFAULT_NON_TEXT_PART_TOKENS}; a request adds {@link REPLY_PRIMING_TOKENS}.
 *   Counts are cached per message object and, for texts of at least {@link CACHED_TEXT_MIN_LENGTH}
 *   code units, by content (up to {@link CACHED_TEXT_MAX_CHARACTERS} code units of text, least
 *   recently used first out), so a history read back from a checkpoint is not tokenized again.
 * - `mode: "approximate"` counts characters / 4 with the same structural overheads: no tokenizer.
 * - Calibration (on by default): see {@link TokenCounterOptions.calibrate}.
 *
 * @throws {InvalidOptionError} when an option is invalid (the error names it).
 * @example
 * const counter = createTokenCounter({ model: "gpt-4o-mini" });
 * const tokens = await counter.countMessages(messages);
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  return new MessageTokenCounter(parseOptions("createTokenCounter", optionsSchema, options));
}

let sharedCounter: TokenCounter | undefined;

/**
 * The counter every strategy uses when given none: exact, o200k_base, calibrated, one per process
 * (so its per-message cache is shared).
 *
 * @example
 * const tokens = await defaultTokenCounter().countMessages(messages);
 */
export function defaultTokenCounter(): TokenCounter {
  sharedCounter ??= createTokenCounter();
  return sharedCounter;
}

/** Whether a value is a {@link TokenCounter} (an object with `measure` and `countMessage`). @internal */
export function isTokenCounter(value: unknown): value is TokenCounter {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as TokenCounter).measure === "function" &&
    typeof (value as TokenCounter).countMessage === "function"
  );
}

/**
 * Zod schema accepting a {@link TokenCounter}, or a plain counting function (LangChain's shape,
 * e.g. `countTokensApproximately`), which becomes a counter with `tokenCounterFromFunction`. The
 * parsed value is always a `TokenCounter`. @internal
 */
export const tokenCounterSchema = z
  .custom<TokenCounter | TokenCounterFunction>((value) => isTokenCounter(value) || typeof value === "function", {
    message: "expected a TokenCounter from createTokenCounter() or a function (messages) => number",
  })
  .transform((value): TokenCounter => (typeof value === "function" ? tokenCounterFromFunction(value) : value));

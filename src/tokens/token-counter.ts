import type { BaseMessage } from "@langchain/core/messages";
import type { Tiktoken } from "js-tiktoken/lite";
import { z } from "zod/v4";
import { TOOL_CALL_BLOCK_TYPES, isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { parseOptions } from "../options.js";
import { encodingForModel, type TokenEncodingName } from "./encoding-for-model.js";

/** Tokens the chat format adds around every message (OpenAI's documented count). */
export const TOKENS_PER_MESSAGE = 3;
/** Tokens for the role name of a message. */
export const TOKENS_PER_ROLE = 1;
/** Extra tokens when a message carries a `name`. */
export const TOKENS_PER_NAME = 1;
/** Tokens the format adds around each tool call (besides its name, arguments and id). */
export const TOKENS_PER_TOOL_CALL = 3;
/** Tokens that prime the model's reply, counted once per request. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * Default estimate for one image or other non-text content part (audio, files): OpenAI's cost of a
 * low-detail image. Override it with `nonTextPartTokens`.
 */
export const DEFAULT_NON_TEXT_PART_TOKENS = 85;
/** Characters per token in `approximate` mode. */
export const CHARACTERS_PER_TOKEN = 4;

export type TokenCounterMode = "exact" | "approximate";

export interface TokenCounterOptions {
  /** Model name; chooses the encoding (see `encodingForModel`). Ignored when `encoding` is given. */
  model?: string;
  /** Encoding to use. @default encodingForModel(model), or "o200k_base" */
  encoding?: TokenEncodingName;
  /** `"exact"` tokenizes with js-tiktoken; `"approximate"` counts characters / 4. @default "exact" */
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
  /** Tokens counted for each image or other non-text content part. @default 85 */
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
  /** The longest prefix of `text` that fits in `maxTokens` tokens. */
  truncateText(text: string, maxTokens: number): Promise<string>;
}

const optionsSchema = z
  .object({
    model: z.string().min(1).optional(),
    encoding: z.enum(["o200k_base", "cl100k_base"]).optional(),
    mode: z.enum(["exact", "approximate"]).optional(),
    calibrate: z.boolean().optional(),
    nonTextPartTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

/** Length of the pieces a long run of non-space characters is encoded in (see `#encode`). */
export const LONG_RUN_PIECE = 64;
const LONG_RUN = new RegExp(`\\S{${LONG_RUN_PIECE + 1}}`);
const LONG_RUNS = new RegExp(`\\S{${LONG_RUN_PIECE + 1},}`, "g");

const encoderLoads = new Map<TokenEncodingName, Promise<Tiktoken>>();

/** Load one encoding's rank file, once per process, only when first needed. */
function loadEncoder(encoding: TokenEncodingName): Promise<Tiktoken> {
  let load = encoderLoads.get(encoding);
  if (!load) {
    load = (async () => {
      const { Tiktoken } = await import("js-tiktoken/lite");
      const ranks =
        encoding === "cl100k_base"
          ? (await import("js-tiktoken/ranks/cl100k_base")).default
          : (await import("js-tiktoken/ranks/o200k_base")).default;
      return new Tiktoken(ranks);
    })();
    encoderLoads.set(encoding, load);
    load.catch(() => encoderLoads.delete(encoding));
  }
  return load;
}

const IMAGE_OR_FILE_TYPES = new Set([
  "image_url",
  "image",
  "input_image",
  "file",
  "input_file",
  "audio",
  "input_audio",
  "document",
  "video",
]);

class MessageTokenCounter implements TokenCounter {
  readonly mode: TokenCounterMode;
  readonly encoding: TokenEncodingName | undefined;
  readonly calibrate: boolean;
  readonly #nonTextPartTokens: number;
  readonly #cache = new WeakMap<BaseMessage, number>();
  /**
   * Calibration offset per provider usage record, fixed the first time it is seen. Keyed by the
   * `usage_metadata` object, which `cloneMessage` shares, so a rewritten copy of an assistant message
   * keeps the offset its original had.
   */
  readonly #offsets = new WeakMap<object, number>();
  #encoder: Tiktoken | undefined;

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

  /** Cost of a text in units: tokens (exact) or characters (approximate). */
  #units(text: string): number {
    if (text === "") return 0;
    return this.#encoder ? this.#encode(this.#encoder, text).length : text.length;
  }

  /**
   * Tokens of a text. js-tiktoken's merge step is quadratic in the length of one pre-token, so a
   * long run of non-space characters (a 6 400-character "=====" line takes seconds) is encoded in
   * pieces of {@link LONG_RUN_PIECE} characters: linear, and off by at most a token per piece.
   */
  #encode(encoder: Tiktoken, text: string): number[] {
    // An empty disallowed list: text such as "<|endoftext|>" is ordinary text here, not an error.
    if (!LONG_RUN.test(text)) return encoder.encode(text, [], []);
    const tokens: number[] = [];
    let last = 0;
    for (const match of text.matchAll(LONG_RUNS)) {
      const start = match.index;
      if (start > last) tokens.push(...encoder.encode(text.slice(last, start), [], []));
      for (let piece = 0; piece < match[0].length; piece += LONG_RUN_PIECE) {
        tokens.push(...encoder.encode(match[0].slice(piece, piece + LONG_RUN_PIECE), [], []));
      }
      last = start + match[0].length;
    }
    if (last < text.length) tokens.push(...encoder.encode(text.slice(last), [], []));
    return tokens;
  }

  #contentUnits(content: unknown): { units: number; fixedTokens: number } {
    if (typeof content === "string") return { units: this.#units(content), fixedTokens: 0 };
    let units = 0;
    let fixedTokens = 0;
    if (!Array.isArray(content)) return { units, fixedTokens };
    for (const part of content) {
      if (typeof part === "string") {
        units += this.#units(part);
        continue;
      }
      if (typeof part !== "object" || part === null) continue;
      const block = part as Record<string, unknown>;
      const type = String(block["type"] ?? "");
      // Blocks restating a tool call are counted once, from `tool_calls`.
      if (TOOL_CALL_BLOCK_TYPES.has(type)) continue;
      const text = block["text"] ?? block["thinking"] ?? block["reasoning"];
      if (typeof text === "string" && !IMAGE_OR_FILE_TYPES.has(type)) units += this.#units(text);
      else fixedTokens += this.#nonTextPartTokens;
    }
    return { units, fixedTokens };
  }

  #countLoaded(message: BaseMessage): number {
    const cached = this.#cache.get(message);
    if (cached !== undefined) return cached;
    const { units: contentUnits, fixedTokens } = this.#contentUnits(message.content);
    let units = contentUnits;
    let overhead = TOKENS_PER_MESSAGE + TOKENS_PER_ROLE + fixedTokens;
    if (typeof message.name === "string" && message.name !== "") {
      units += this.#units(message.name);
      overhead += TOKENS_PER_NAME;
    }
    if (isAssistantMessage(message)) {
      for (const call of message.tool_calls ?? []) {
        overhead += TOKENS_PER_TOOL_CALL;
        units += this.#units(call.name ?? "") + this.#units(JSON.stringify(call.args ?? {})) + this.#units(call.id ?? "");
      }
    } else if (isToolResultMessage(message)) {
      units += this.#units(message.tool_call_id ?? "");
    }
    const tokens = overhead + (this.#encoder ? units : Math.ceil(units / CHARACTERS_PER_TOKEN));
    this.#cache.set(message, tokens);
    return tokens;
  }

  async countText(text: string): Promise<number> {
    await this.#ready();
    const units = this.#units(text);
    return this.#encoder ? units : Math.ceil(units / CHARACTERS_PER_TOKEN);
  }

  async countMessage(message: BaseMessage): Promise<number> {
    await this.#ready();
    return this.#countLoaded(message);
  }

  async countMessages(messages: readonly BaseMessage[]): Promise<number> {
    return (await this.measure(messages)).total;
  }

  async measure(messages: readonly BaseMessage[]): Promise<TokenMeasurement> {
    await this.#ready();
    return this.#measureFrom([], [], 0, messages);
  }

  async extend(previous: TokenMeasurement, messages: readonly BaseMessage[]): Promise<TokenMeasurement> {
    await this.#ready();
    const sum = previous.estimated - REPLY_PRIMING_TOKENS;
    return this.#measureFrom([...previous.perMessage], [...previous.calibrationAnchors], sum, messages);
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

  async truncateText(text: string, maxTokens: number): Promise<string> {
    await this.#ready();
    const budget = Math.max(0, Math.floor(maxTokens));
    if (!this.#encoder) return text.slice(0, budget * CHARACTERS_PER_TOKEN);
    const tokens = this.#encode(this.#encoder, text);
    if (tokens.length <= budget) return text;
    let prefix = this.#encoder.decode(tokens.slice(0, budget));
    // Decoding a cut multi-byte character leaves a replacement character; drop it.
    while (prefix.endsWith("\uFFFD")) prefix = prefix.slice(0, -1);
    return prefix;
  }
}

/**
 * Create a token counter.
 *
 * - `mode: "exact"` (default) tokenizes with js-tiktoken, loading only the encoding in use, lazily:
 *   `o200k_base` for gpt-4o, gpt-4.1, gpt-5 and o-series models and for unknown models,
 *   `cl100k_base` for gpt-4 and gpt-3.5. Each message costs {@link TOKENS_PER_MESSAGE} +
 *   {@link TOKENS_PER_ROLE} plus its text, name, tool-call names, arguments and ids, tool-call id,
 *   and {@link DEFAULT_NON_TEXT_PART_TOKENS} per image or other non-text part; a request adds
 *   {@link REPLY_PRIMING_TOKENS}.
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

/** Zod schema accepting a {@link TokenCounter}, for strategy options. @internal */
export const tokenCounterSchema = z.custom<TokenCounter>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as TokenCounter).measure === "function" &&
    typeof (value as TokenCounter).countMessage === "function",
  { message: "expected a TokenCounter from createTokenCounter()" },
);

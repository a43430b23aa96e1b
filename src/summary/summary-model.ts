import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { CompactionError } from "../errors.js";
import { messageText } from "../messages/message-text.js";

/**
 * What a summary model needs: an `invoke()` that takes messages and resolves to the answer. Every
 * LangChain chat model fits (`ChatOpenAI`, `ChatAnthropic`, a fake model...), and so does any object
 * with such an `invoke` (a model wrapped in `withRetry()`, a stub): nothing else is called on it
 * without checking that it exists.
 */
export interface SummaryChatModel {
  invoke(input: BaseMessage[], options?: RunnableConfig): Promise<BaseMessage>;
}

/**
 * A chat model, or a model name: a provider-prefixed name (`"anthropic:claude-sonnet-4-5"`,
 * `"openai:gpt-4o-mini"`) or a bare name LangChain infers another provider for (`"claude-..."`,
 * `"gemini-..."`) goes through LangChain's `initChatModel`, as `createAgent` does; any other bare
 * name becomes `ChatOpenAI` from `@langchain/openai` (so an OpenAI-compatible server's model names work).
 */
export type SummaryModel = SummaryChatModel | string;

/** Tags every summary call carries: `nostream` keeps its tokens out of LangGraph's `streamMode: "messages"`. */
export const SUMMARY_CALL_TAGS: readonly string[] = Object.freeze(["compaction", "nostream"]);

/** The default time a summary call may take: 30 s. */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 30_000;

/** The default cap on a summary's length, in tokens. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 1000;

/** Why a summary call produced no usable summary. */
export type SummaryFailureKind = "error" | "timeout" | "empty";

/** A summary call failed; strategies turn it into a `failed` result that changes nothing. */
export class SummaryCallError extends CompactionError {
  readonly kind: SummaryFailureKind;

  constructor(kind: SummaryFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SummaryCallError";
    this.kind = kind;
  }

  static override isInstance(error: unknown): error is SummaryCallError {
    return CompactionError.isInstance(error) && error.name === "SummaryCallError";
  }
}

/**
 * The name a model reports, for events: `model`, `modelName`, else `getName()` (a LangChain
 * runnable's name) when it has one, else its class name; `undefined` for a plain object.
 */
export function modelNameOf(model: SummaryModel | undefined): string | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") return model;
  const named = model as unknown as { model?: unknown; modelName?: unknown; getName?: unknown };
  if (typeof named.model === "string") return named.model;
  if (typeof named.modelName === "string") return named.modelName;
  if (typeof named.getName === "function") {
    try {
      const name: unknown = named.getName();
      if (typeof name === "string" && name !== "") return name;
    } catch {
      // A name is only for the record.
    }
  }
  const className = (Object.getPrototypeOf(model) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof className === "string" && className !== "" && className !== "Object" ? className : undefined;
}

/** The providers `initChatModel` knows, read from LangChain (`undefined` when `langchain` is not installed). */
async function loadUniversal(): Promise<typeof import("langchain/chat_models/universal") | undefined> {
  try {
    return await import("langchain/chat_models/universal");
  } catch {
    return undefined;
  }
}

/**
 * Whether a model name goes through `initChatModel`: it has a `provider:` prefix LangChain knows, or
 * it is a bare name LangChain infers a provider other than OpenAI for.
 */
function usesInitChatModel(universal: typeof import("langchain/chat_models/universal"), name: string): boolean {
  const colon = name.indexOf(":");
  if (colon > 0 && Object.hasOwn(universal.MODEL_PROVIDER_CONFIG, name.slice(0, colon))) return true;
  const inferred = universal._inferModelProvider(name);
  return inferred !== undefined && inferred !== "openai";
}

/**
 * The chat model for a summary model option. A provider-prefixed name (`"anthropic:claude-sonnet-4-5"`,
 * `"openai:gpt-4o-mini"`), or a bare name LangChain infers a provider other than OpenAI for
 * (`"claude-sonnet-4-5"`), goes through LangChain's `initChatModel` (from `langchain`, with the
 * provider's package installed), as `createAgent` does, with `maxTokens` set to the summary cap and
 * `modelOptions` as its fields (e.g. `{ configuration: { baseURL } }` for OpenAI). Any other name
 * becomes `ChatOpenAI` (imported on first use, so `@langchain/openai` is only needed by those who
 * name a model), with the same cap and options. Strategies resolve once and keep the model; nothing
 * is cached across strategies (options may hold functions, e.g. a custom `fetch`).
 * @throws {CompactionError} when the package the name needs is not installed.
 */
export async function resolveSummaryModel(
  model: SummaryModel,
  maxTokens: number,
  modelOptions: Readonly<Record<string, unknown>> = {},
): Promise<SummaryChatModel> {
  if (typeof model !== "string") return model;
  const universal = await loadUniversal();
  if (universal !== undefined && usesInitChatModel(universal, model)) {
    try {
      return (await universal.initChatModel(model, { maxTokens, ...modelOptions })) as unknown as SummaryChatModel;
    } catch (cause) {
      throw new CompactionError(`summary model "${model}": LangChain's initChatModel could not build it: ${cause instanceof Error ? cause.message : String(cause)}`, {
        cause,
      });
    }
  }
  if (universal === undefined && /^[\w-]+:/.test(model)) {
    throw new CompactionError(`summary model "${model}" names a provider, which needs langchain's initChatModel: install langchain or pass a chat model object`);
  }
  let openai: typeof import("@langchain/openai");
  try {
    openai = await import("@langchain/openai");
  } catch (cause) {
    throw new CompactionError(
      `summary model "${model}" is a name, which needs @langchain/openai: install it (npm install @langchain/openai) or pass a chat model object`,
      { cause },
    );
  }
  return new openai.ChatOpenAI({ model, maxTokens, ...modelOptions });
}

const cappedModels = new WeakMap<SummaryChatModel, Map<number, SummaryChatModel>>();

/**
 * The model with its answer capped at `maxTokens`. Chat models have no per-call cap, so a model that
 * exposes its constructor fields and a `maxTokens` field (`ChatOpenAI`, `ChatAnthropic`...) is rebuilt
 * once with the cap (cached); a model already capped at or below it, or one that cannot be rebuilt,
 * is used as it is (the prompt states the limit and the answer is cut at it). The call options bound
 * to the model (`defaultOptions`, e.g. the tools `ChatOpenAI.bindTools` binds) are bound to the copy
 * too, with its `withConfig`; a model that has some but no `withConfig` is used as it is.
 */
export function withMaxTokens(model: SummaryChatModel, maxTokens: number): SummaryChatModel {
  const candidate = model as unknown as { maxTokens?: unknown; fields?: unknown; defaultOptions?: unknown; constructor: new (fields: object) => SummaryChatModel };
  if (!("maxTokens" in candidate)) return model;
  if (typeof candidate.maxTokens === "number" && candidate.maxTokens > 0 && candidate.maxTokens <= maxTokens) return model;
  if (typeof candidate.fields !== "object" || candidate.fields === null) return model;
  let byCap = cappedModels.get(model);
  if (!byCap) cappedModels.set(model, (byCap = new Map()));
  let capped = byCap.get(maxTokens);
  if (!capped) {
    const fields = candidate.fields as Record<string, unknown>;
    try {
      // ChatOpenAI prefers maxCompletionTokens over maxTokens: cap both when the model has it.
      capped = new candidate.constructor({ ...fields, maxTokens, ...("maxCompletionTokens" in fields ? { maxCompletionTokens: maxTokens } : {}) });
      // The constructor fields leave out what was bound after construction (tools, tool_choice...).
      const bound = candidate.defaultOptions;
      if (typeof bound === "object" && bound !== null && Object.keys(bound).length > 0) {
        const rebind = (capped as unknown as { withConfig?: unknown }).withConfig;
        if (typeof rebind !== "function") return model;
        capped = rebind.call(capped, bound) as SummaryChatModel;
      }
    } catch {
      return model;
    }
    // A constructor that ignored the cap gains nothing from the copy.
    if ((capped as unknown as { maxTokens?: unknown }).maxTokens !== maxTokens) return model;
    byCap.set(maxTokens, capped);
  }
  return capped;
}

/** Options of one summary call. */
export interface SummaryCallOptions {
  readonly timeoutMs: number;
  /** The calling run's config: the call becomes its child (callbacks), with its own tags. */
  readonly config?: RunnableConfig;
  /** The caller's signal: when it aborts, the call is aborted and the abort reason thrown. */
  readonly signal?: AbortSignal;
  /** Which strategy asks, for the call's metadata. */
  readonly strategy: string;
  /**
   * Send a prompt (a string request) to `invoke` as the string itself, as LangChain's summarization
   * middleware does, not as one human message. Chat models read both alike. @default false
   */
  readonly promptAsText?: boolean;
}

/**
 * Ask the model for a summary. `request` is either the filled prompt, sent as one human message (or
 * as the string itself with `promptAsText`), or
 * the request's messages, sent as they are (a new array holding the same message objects, in order).
 * Resolves to the answer's text, trimmed.
 * @throws {SummaryCallError} on an error, a timeout or an empty answer.
 * @throws the caller's abort reason when `signal` aborts.
 */
export async function callSummaryModel(model: SummaryChatModel, request: string | readonly BaseMessage[], options: SummaryCallOptions): Promise<string> {
  const input = typeof request === "string" ? (options.promptAsText ? request : [new HumanMessage(request)]) : [...request];
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new SummaryCallError("timeout", `the summary call timed out after ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  // The caller's abort is forwarded by a listener removed afterwards (AbortSignal.any would keep a
  // reference per call on a long-lived caller signal).
  const forward = () => timeout.abort(options.signal!.reason);
  if (options.signal?.aborted) forward();
  else options.signal?.addEventListener("abort", forward, { once: true });
  const signal = timeout.signal;
  const parentTags = options.config?.tags ?? [];
  const config: RunnableConfig = {
    ...(options.config?.callbacks ? { callbacks: options.config.callbacks } : {}),
    tags: [...new Set([...parentTags, ...SUMMARY_CALL_TAGS])],
    // lc_source: what LangChain's own summarization call carries, for tracers and UIs that look for it.
    metadata: { ...options.config?.metadata, compaction: true, compaction_strategy: options.strategy, lc_source: "summarization" },
    runName: "compaction_summary",
    signal,
  };
  let answer: unknown;
  try {
    // Also raced here: a model that ignores the signal must not hold the agent past the timeout.
    answer = await new Promise<unknown>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      // Through a promise: an invoke() that throws, or returns a plain value, is handled alike.
      Promise.resolve()
        .then(() => model.invoke(input as BaseMessage[], config))
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.signal.aborted) throw timeout.signal.reason;
    const message = error instanceof Error ? error.message : String(error);
    throw new SummaryCallError("error", `the summary call failed: ${message}`, { cause: error });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", forward);
  }
  const text = answerText(answer)?.trim();
  if (text === undefined) throw new SummaryCallError("error", `the summary model returned no message: got ${answer === null ? "null" : typeof answer}`);
  if (text === "") throw new SummaryCallError("empty", "the summary model returned an empty answer");
  return text;
}

/** The text of a model's answer: a message's (or message-like object's) content, or a plain string. */
function answerText(answer: unknown): string | undefined {
  if (typeof answer === "string") return answer;
  if (typeof answer !== "object" || answer === null) return undefined;
  const content = (answer as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  // Only the blocks messageText can read: strings and objects.
  const blocks = content.filter((block: unknown) => typeof block === "string" || (typeof block === "object" && block !== null));
  return messageText({ content: blocks } as BaseMessage);
}

/** The content between `<tag>` and `</tag>` when the answer has it, else the whole answer. */
export function unwrapTag(text: string, tag: string): string {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return match ? match[1]!.trim() : text.trim();
}

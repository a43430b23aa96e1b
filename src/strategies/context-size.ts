import { getModelContextSize } from "@langchain/core/language_models/base";
import { z } from "zod/v4";
import { invalidOption } from "../option-errors.js";

/**
 * A size relative to the context window, in the shape LangChain's `summarizationMiddleware` uses:
 * exactly one of a `fraction` of the window, a number of `tokens`, or a number of `messages`.
 *
 * @example
 * const trigger: ContextSize = { fraction: 0.8 };
 * const target: ContextSize = { tokens: 40_000 };
 */
export type ContextSize = { readonly fraction: number } | { readonly tokens: number } | { readonly messages: number };

/** The fields of a size: a target takes exactly one of them, a trigger size one or more. */
const sizeFields = z
  .object({
    fraction: z.number().gt(0).max(1).optional(),
    tokens: z.number().int().positive().optional(),
    messages: z.number().int().positive().optional(),
  })
  .strict();

/** How many of fraction, tokens and messages a size gives. */
const keysGiven = (size: z.output<typeof sizeFields>) => [size.fraction, size.tokens, size.messages].filter((value) => value !== undefined).length;

/** @internal */
export const contextSizeSchema = sizeFields.refine((size) => keysGiven(size) === 1, {
  message: "expected a size with exactly one of fraction, tokens or messages",
}) as unknown as z.ZodType<ContextSize>;

/**
 * How much of a history a summary keeps, in the shape of LangChain's `summarizationMiddleware`
 * `keep`: exactly one of the newest `messages` (a count, 0 keeps none), the newest messages within
 * `tokens`, or within a `fraction` of the context window.
 *
 * @example
 * const keep: KeepSize = { messages: 20 };
 */
export type KeepSize = { readonly messages: number } | { readonly tokens: number } | { readonly fraction: number };

/** @internal */
export const keepSizeSchema = z
  .object({
    fraction: z.number().min(0).max(1).optional(),
    tokens: z.number().min(0).optional(),
    messages: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((size) => [size.fraction, size.tokens, size.messages].filter((value) => value !== undefined).length === 1, {
    message: "expected a size with exactly one of fraction, tokens or messages",
  }) as unknown as z.ZodType<KeepSize>;

/**
 * One size of a trigger, in LangChain's shape: one or more of a `fraction` of the window, a number of
 * `tokens`, a number of `messages`. Several in one object must all be reached (AND); a list of sizes
 * fires when any of them is (OR), e.g. `[{ messages: 30 }, { tokens: 3000, messages: 6 }]`.
 */
export interface TriggerSize {
  readonly fraction?: number;
  readonly tokens?: number;
  readonly messages?: number;
}

/** What a trigger option takes, for its error. @internal */
export const TRIGGER_TAKES = "expected a size such as { tokens: 12000 }, { messages: 40 } or { fraction: 0.8 }, or a list of sizes";

/** @internal */
export const triggerSizeSchema = sizeFields.refine((size) => keysGiven(size) >= 1, {
  message: "expected a size with at least one of fraction, tokens or messages",
}) as unknown as z.ZodType<TriggerSize>;

/** @internal */
export const triggerSchema = z.union([triggerSizeSchema, z.array(triggerSizeSchema).min(1)], { error: TRIGGER_TAKES });

/** Whether a trigger size has a token figure (`tokens` or `fraction`), not only a message count. */
export function hasTokenSize(size: TriggerSize): boolean {
  return size.tokens !== undefined || size.fraction !== undefined;
}

/** What a history measures, for a trigger. */
export interface HistorySize {
  readonly tokens: number;
  readonly messages: number;
}

/** True when the size needs the context window to be known. */
export function needsContextWindow(sizes: TriggerSize | readonly TriggerSize[] | undefined): boolean {
  if (sizes === undefined) return false;
  return (Array.isArray(sizes) ? sizes : [sizes]).some((size: TriggerSize) => size.fraction !== undefined);
}

/**
 * Whether a trigger fires for a history: any of the sizes reached (every part of a size that has
 * several). Returns a description of what fired (for events and logs), or `undefined`.
 *
 * @example
 * fires({ fraction: 0.8 }, { tokens: 13_000, messages: 40 }, 16_000); // "13000 tokens >= 12800 tokens (0.8 of a 16000-token window)"
 * fires([{ messages: 30 }, { tokens: 3000, messages: 6 }], { tokens: 3500, messages: 8 }, undefined); // "8 messages >= 6 messages and 3500 tokens >= 3000 tokens"
 */
export function fires(trigger: TriggerSize | readonly TriggerSize[], size: HistorySize, window: number | undefined): string | undefined {
  for (const each of Array.isArray(trigger) ? trigger : [trigger as TriggerSize]) {
    const parts: string[] = [];
    let reached = true;
    if (each.messages !== undefined) {
      reached = size.messages >= each.messages;
      parts.push(`${size.messages} messages >= ${each.messages} messages`);
    }
    if (reached && each.tokens !== undefined) {
      reached = size.tokens >= each.tokens;
      parts.push(`${size.tokens} tokens >= ${each.tokens} tokens`);
    }
    if (reached && each.fraction !== undefined) {
      const limit = Math.floor(each.fraction * window!);
      reached = size.tokens >= limit;
      parts.push(`${size.tokens} tokens >= ${limit} tokens (${each.fraction} of a ${window}-token window)`);
    }
    if (reached && parts.length > 0) return parts.join(" and ");
  }
  return undefined;
}

/**
 * The trigger check of a strategy or policy that triggers by itself: `"forced"` when told to run,
 * what fired, `"always (no trigger set)"` without a trigger, or `undefined` when it did not fire.
 */
export function evaluateTrigger(
  trigger: TriggerSize | readonly TriggerSize[] | undefined,
  size: HistorySize,
  window: number | undefined,
  force: boolean | undefined,
): string | undefined {
  if (force) return "forced";
  if (trigger === undefined) return "always (no trigger set)";
  return fires(trigger, size, window);
}

/** The reason of a run the trigger did not fire for. */
export function underTriggerReason(size: HistorySize): string {
  return `${size.tokens} tokens, ${size.messages} messages: under the trigger`;
}

/**
 * The token figure of a size: its `tokens`, or its `fraction` of the window (the larger when it has
 * both, as both must be reached). A `messages` size alone has none: `Infinity`.
 */
export function tokenLimit(size: TriggerSize, window: number | undefined): number {
  const tokens = size.tokens;
  const fraction = size.fraction === undefined ? undefined : Math.floor(size.fraction * window!);
  if (tokens === undefined && fraction === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(tokens ?? 0, fraction ?? 0);
}

/** Whether a history is at or under a target. */
export function withinTarget(target: ContextSize, size: HistorySize, window: number | undefined): boolean {
  if ("messages" in target) return size.messages <= target.messages;
  return size.tokens <= tokenLimit(target, window);
}

/** What a model may tell about its context window. @internal */
interface ModelLike {
  readonly profile?: { readonly maxInputTokens?: number };
  readonly model?: unknown;
  readonly modelName?: unknown;
}

/**
 * The window of a model name from LangChain's table; `undefined` for a name it does not know. A
 * `provider:` prefix (`"openai:gpt-4o"`, as `initChatModel` takes) is ignored.
 */
function windowOfModelName(qualified: string): number | undefined {
  const name = qualified.replace(/^[a-z][\w-]*:(?!\/)/, "");
  const size = getModelContextSize(name);
  // 4097 is the table's fallback for names it does not know.
  return size === 4097 && !name.startsWith("text-davinci-003") ? undefined : size;
}

/**
 * The context window in tokens: `contextWindow` when given, else the model's profile
 * (`profile.maxInputTokens`), else LangChain's `getModelContextSize` for the model's name.
 * `undefined` when none of them knows.
 */
export function contextWindowOf(contextWindow: number | undefined, model: unknown): number | undefined {
  if (contextWindow !== undefined) return contextWindow;
  if (typeof model === "string") return windowOfModelName(model);
  if (typeof model !== "object" || model === null) return undefined;
  const candidate = model as ModelLike;
  let profileWindow: number | undefined;
  try {
    profileWindow = candidate.profile?.maxInputTokens;
  } catch {
    // Some models compute the profile lazily and may throw when it is unknown.
  }
  if (typeof profileWindow === "number" && profileWindow > 0) return profileWindow;
  const name = typeof candidate.model === "string" ? candidate.model : typeof candidate.modelName === "string" ? candidate.modelName : undefined;
  return name ? windowOfModelName(name) : undefined;
}

/**
 * The context window of a strategy whose sizes are these: required (see `requireContextWindow`)
 * when one of them is a fraction of the window, else whatever `contextWindowOf` knows.
 * @throws {InvalidOptionError}
 */
export function windowForSizes(
  component: string,
  sizes: readonly (TriggerSize | readonly TriggerSize[] | undefined)[],
  contextWindow: number | undefined,
  model: unknown,
  why: string,
): number | undefined {
  return sizes.some((size) => needsContextWindow(size))
    ? requireContextWindow(component, contextWindow, model, why)
    : contextWindowOf(contextWindow, model);
}

/**
 * The context window, or an `InvalidOptionError` naming `contextWindow` when it is needed and no
 * source knows it.
 * @throws {InvalidOptionError}
 */
export function requireContextWindow(component: string, contextWindow: number | undefined, model: unknown, why: string): number {
  const window = contextWindowOf(contextWindow, model);
  if (window === undefined) {
    throw invalidOption(
      component,
      "contextWindow",
      contextWindow,
      `a number of tokens, as ${why}`,
      "no model tells the window: pass contextWindow, or a model whose profile states maxInputTokens or whose name LangChain's getModelContextSize knows",
    );
  }
  return window;
}

/** The id of the system message `compactionMiddleware` puts first for the request's system message and tools' schemas. @internal */
export const REQUEST_OVERHEAD_ID = "langchain-compaction-request-overhead";

/**
 * The number of messages a message trigger counts: the history's, without the message that stands
 * for a model request's overhead (which counts toward tokens only). @internal
 */
export function messageCountOf(messages: readonly { readonly id?: string | undefined }[]): number {
  return messages.length > 0 && messages[0]!.id === REQUEST_OVERHEAD_ID ? messages.length - 1 : messages.length;
}

import { z } from "zod/v4";
import { TRIGGER_TAKES, keepSizeSchema, type KeepSize, type TriggerSize } from "../strategies/context-size.js";
import { summaryPromptSchema } from "../summary/prompt-placeholders.js";
import type { SummaryChatModel, SummaryModel } from "../summary/summary-model.js";
import { tokenCounterSchema, type TokenCounter, type TokenCounterFunction } from "../tokens/token-counter.js";
import { graphOptionsShapeWithoutRecall, type GraphCompactionOptions } from "../langgraph/run-compaction.js";

/** LangChain's default summary prompt (`summarizationMiddleware`), with its `{messages}` placeholder. */
export const LANGCHAIN_SUMMARY_PROMPT = `<role>
Context Extraction Assistant
</role>

<primary_objective>
Your sole objective in this task is to extract the highest quality/most relevant context from the conversation history below.
</primary_objective>

<objective_information>
You're nearing the total number of input tokens you can accept, so you must extract the highest quality/most relevant pieces of information from your conversation history.
This context will then overwrite the conversation history presented below. Because of this, ensure the context you extract is only the most important information to your overall goal.
</objective_information>

<instructions>
The conversation history below will be replaced with the context you extract in this step. Because of this, you must do your very best to extract and record all of the most important context from the conversation history.
You want to ensure that you don't repeat any actions you've already completed, so the context you extract from the conversation history should be focused on the most important information to your overall goal.
</instructions>

The user will message you with the full message history you'll be extracting context from, to then replace. Carefully read over it all, and think deeply about what information is most important to your overall goal that should be saved:

With all of this in mind, please carefully read over the entire conversation history, and extract the most important and relevant context to replace it so that you can free up space in the conversation history.
Respond ONLY with the extracted context. Do not include any additional information, or text before or after the extracted context.

<messages>
Messages to summarize:
{messages}
</messages>`;

/** LangChain's default `summaryPrefix`. */
export const LANGCHAIN_SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

/** LangChain's default `keep`: the newest 20 messages. */
export const LANGCHAIN_DEFAULT_KEEP: KeepSize = Object.freeze({ messages: 20 });

/** LangChain's default `trimTokensToSummarize`: the newest 4000 tokens of the part being replaced are sent. */
export const LANGCHAIN_TRIM_TOKENS_TO_SUMMARIZE = 4000;

/** The options `summarizationMiddleware` reads per run from the agent's `runtime.context`, as LangChain's does. */
export type SummarizationRunContext = Pick<
  SummarizationMiddlewareOptions,
  "trigger" | "keep" | "tokenCounter" | "summaryPrompt" | "summaryPrefix" | "trimTokensToSummarize"
>;

/**
 * Options of {@link summarizationMiddleware}: LangChain's `summarizationMiddleware` options (same
 * names, shapes and defaults), plus this package's graph options and a few of its summary options.
 */
export interface SummarizationMiddlewareOptions extends Omit<GraphCompactionOptions, "recall"> {
  /**
   * The model that writes the summary: a chat model, or a name. A provider-prefixed name
   * (`"anthropic:claude-sonnet-4-5"`) goes through LangChain's `initChatModel`, as in LangChain.
   */
  model: SummaryModel;
  /**
   * When to summarize: one size (all of its `fraction`, `tokens` and `messages` must be reached) or a
   * list of sizes (any of them). Tokens are counted by `tokenCounter` over the agent's messages.
   * @default none: never summarize (as in LangChain)
   */
  trigger?: TriggerSize | TriggerSize[];
  /** What stays verbatim after the summary: exactly one of `messages`, `tokens`, `fraction`. @default { messages: 20 } */
  keep?: KeepSize;
  /** Counts tokens for `trigger` and `keep`: a function `(messages) => number` or a `TokenCounter`. @default LangChain's countTokensApproximately */
  tokenCounter?: TokenCounterFunction | TokenCounter;
  /** The summary prompt; `{messages}` (or `{history}`) is filled with the conversation. A prompt with neither is rejected. @default LANGCHAIN_SUMMARY_PROMPT */
  summaryPrompt?: string;
  /** The text the summary message starts with. @default "Here is a summary of the conversation to date:" */
  summaryPrefix?: string;
  /** Cap, in tokens, on the part being replaced as sent to the summary model (its newest messages). @default 4000 */
  trimTokensToSummarize?: number;
  /** @deprecated Use `trigger: { tokens: value }`. Used when `trigger` is not given. */
  maxTokensBeforeSummary?: number;
  /** @deprecated Use `keep: { messages: value }`. Used when `keep` is not given (or is LangChain's default). */
  messagesToKeep?: number;
  /**
   * The context window in tokens, for a `fraction` trigger or keep. @default the summary model's
   * profile (`maxInputTokens`) or name, as LangChain reads it, else the agent model's profile once
   * the agent has called it
   */
  contextWindow?: number;
  /** Cap on the summary message in tokens, prefix and artifact index included (see `SummaryStrategyOptions.summaryMaxTokens`). @default 1000 */
  summaryMaxTokens?: number;
  /** Time the summary call may take; then nothing changes. @default 30000 */
  timeoutMs?: number;
  /** Fields for the model built from a name (e.g. `{ configuration: { baseURL } }`). */
  modelOptions?: Record<string, unknown>;
  /** The middleware's name. @default "SummarizationMiddleware" */
  name?: string;
}

/** A trigger size as LangChain validates it (tokens need not be whole). */
const triggerSizeSchema = z
  .object({
    fraction: z.number().gt(0).max(1).optional(),
    tokens: z.number().positive().optional(),
    messages: z.number().int().positive().optional(),
  })
  .strict()
  .refine((size) => size.fraction !== undefined || size.tokens !== undefined || size.messages !== undefined, {
    message: "expected a size with at least one of fraction, tokens or messages",
  });

/** @internal */
export const middlewareTriggerSchema = z.union([triggerSizeSchema, z.array(triggerSizeSchema)], { error: TRIGGER_TAKES });

const chatModelSchema = z.custom<SummaryChatModel>(
  (value) => typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function",
  "expected a chat model or a model name",
);

/** The options `runtime.context` may override. @internal */
export const runContextShape = {
  trigger: middlewareTriggerSchema.optional(),
  keep: keepSizeSchema.optional(),
  tokenCounter: tokenCounterSchema.optional(),
  summaryPrompt: summaryPromptSchema.optional(),
  summaryPrefix: z.string().trim().min(1).optional(),
  trimTokensToSummarize: z.number().positive().optional(),
};

/** @internal */
export const middlewareOptionsSchema = z
  .object({
    ...graphOptionsShapeWithoutRecall,
    ...runContextShape,
    model: z.union([z.string().min(1), chatModelSchema]),
    maxTokensBeforeSummary: z.number().positive().optional(),
    messagesToKeep: z.number().int().min(0).optional(),
    contextWindow: z.number().int().positive().optional(),
    summaryMaxTokens: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    modelOptions: z.record(z.string(), z.unknown()).optional(),
    name: z.string().min(1).optional(),
  })
  .strict();

/**
 * The agent's context schema for this middleware: the per-run overrides. Not strict (the agent's
 * context holds other middleware's keys too); each value is checked when it is read. @internal
 */
export const runContextSchema = z.object({
  trigger: z.unknown().optional(),
  keep: z.unknown().optional(),
  tokenCounter: z.unknown().optional(),
  summaryPrompt: z.unknown().optional(),
  summaryPrefix: z.unknown().optional(),
  trimTokensToSummarize: z.unknown().optional(),
});

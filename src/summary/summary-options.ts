import { z } from "zod/v4";
import type { ArtifactIndexLimits } from "../messages/artifact-index.js";
import { baseOptionsShape, type BaseStrategyOptions } from "../strategies/compaction-strategy.js";
import { summaryRequestSchema, type SummaryRequestMode } from "./shared-prefix-request.js";
import type { SummaryChatModel, SummaryModel } from "./summary-model.js";

/** Options every summary strategy accepts. */
export interface SummaryStrategyOptions extends BaseStrategyOptions {
  /**
   * The model that writes the summary: any chat model, or a name resolved as {@link SummaryModel}
   * says (`"anthropic:claude-sonnet-4-5"` through LangChain's `initChatModel`, a bare `"gpt-4o-mini"`
   * as `ChatOpenAI`). Without one, the deterministic no-model summarizer writes the summary from the
   * artifact index and the messages, offline.
   */
  model?: SummaryModel;
  /** Constructor fields for the model made from a model name (`ChatOpenAI`'s, e.g. `{ configuration: { baseURL } }`, or `initChatModel`'s). */
  modelOptions?: Record<string, unknown>;
  /**
   * Cap on the summary message in tokens (the token counter's count of the whole message: the
   * prefix, the summary and the `<artifact_index>` block). The index is sure of a quarter of it
   * and takes whatever the summary leaves; a long index leaves out what the
   * summary names and shows its newest and most used files with a count of the others
   * (`… and 5940 more files`); its metadata keeps all of it.
   * The summary gets the rest: a model's (the call's `maxTokens` is the cap) is cut to it with a note,
   * the no-model snapshot is fitted to it by leaving out its oldest items. A prefix that leaves no
   * room fails the run and changes nothing.
   * @default 1000
   */
  summaryMaxTokens?: number;
  /** Time the summary call may take; then the run fails and changes nothing. @default 30000 */
  timeoutMs?: number;
  /**
   * Tool outputs in the part being summarized are sent whole up to this many tokens (newest first);
   * older ones beyond it are cut to their head and tail with a marker before the summary call.
   * @default 20000
   */
  toolOutputBudgetTokens?: number;
  /**
   * Cap, in tokens (the token counter's per-message counts), on the part being summarized as sent to
   * the summary model: its newest messages are sent whole while they fit (the newest one always); the
   * older ones are left out of the prompt, and one line saying how many, followed by their artifact
   * index, stands in their place. An earlier summary among them is always sent whole and does not
   * count against the cap (it carries everything before it). Tool outputs sent are still cut to
   * `toolOutputBudgetTokens`. The summary message's artifact index covers every replaced message either
   * way; the no-model summarizer (no prompt) is unaffected. LangChain's summarization middleware sends
   * the newest 4000 tokens (`trimTokensToSummarize`).
   * @default unlimited: the whole part is sent
   * @example
   * // A summary call of about 8000 tokens, however long the part it replaces:
   * fullSummary({ model: "gpt-4o-mini", keepRecent: 10, summaryInputTokens: 8000 });
   */
  summaryInputTokens?: number;
  /**
   * LangChain's name for `summaryInputTokens` (its `summarizationMiddleware` option): the same cap,
   * with the same behaviour here. Give one or the other. @default unlimited
   */
  trimTokensToSummarize?: number;
  /**
   * The text the summary message starts with, before a blank line and the summary: it frames what
   * follows as a record of the earlier conversation. @default SUMMARY_MESSAGE_PREFIX
   * @example
   * fullSummary({ model, summaryPrefix: "Here is a summary of the conversation to date:" }); // LangChain's
   */
  summaryPrefix?: string;
  /** How many files, commands, identifiers, URLs and error lines the artifact index keeps (the message shows what fits, see `summaryMaxTokens`). */
  artifactLimits?: ArtifactIndexLimits;
  /**
   * How the summary call sends the conversation.
   *
   * `"standalone"`: one human message, the strategy's prompt with the part being replaced formatted
   * as text (tool outputs cut to `toolOutputBudgetTokens`, older messages left out by
   * `summaryInputTokens`). It shares no prefix with the agent's own calls, so the provider bills all
   * of it as uncached input.
   *
   * `"shared-prefix"`: the history's own message objects, in order (system messages, earlier
   * summaries, the part being replaced and the part kept), up to but not including a last assistant
   * message whose tool calls are pending; then one human message with the instruction
   * (`SHARED_PREFIX_SUMMARY_INSTRUCTION` or `SHARED_PREFIX_SNAPSHOT_INSTRUCTION`): summarize all but
   * the last K non-system messages, which stay verbatim, in the strategy's format, treating the
   * conversation as data. That start is what the agent's model received at its previous call plus
   * what was added since, so a provider with prompt caching serves it from its cache. Nothing is cut:
   * `toolOutputBudgetTokens` and `summaryInputTokens` do not apply, and a strategy's `prompt` is used
   * only by the standalone request. The answer is read, and fails, exactly as the standalone one.
   * When the request's tokens (the token counter's count) plus `summaryMaxTokens` exceed the context
   * window (the strategy's `contextWindow`, else the model's profile or name), the standalone request
   * is sent instead, silently; with an unknown window the shared-prefix request is always sent.
   * `stateSnapshotSummary`'s `verify` pass stays standalone. Without `model` (the no-model
   * summarizer) nothing is sent and the option changes nothing.
   *
   * The cache serves the prefix only if the request's start matches the agent's call: `model` must be
   * the agent's own chat model (same provider and model name), with the same tools bound (tool
   * definitions are part of the cached prefix; pass the model returned by `bindTools`; one bound to
   * force a tool call, `tool_choice` `"required"` or `"any"`, answers with a call and the summary
   * fails as empty), and the same system prompt in the messages. `createAgent` keeps its
   * `systemPrompt` outside the state, so the history has no system message: the request differs
   * from the agent's from the system prompt on, so at most the tool definitions before it come from
   * the cache, and the rest (the whole history, kept part and uncut tool outputs included) is billed
   * as uncached input, more than a standalone request (there, put the system prompt in the
   * messages, or use `"standalone"`). Likewise in a
   * policy, the summary step receives the history as the earlier step left it (e.g. older tool
   * results hidden): the match ends at the first message that step changed.
   * @default "standalone"
   * @example
   * // The agent's model, tools bound, summarizes through the provider's prompt cache:
   * const agentModel = new ChatOpenAI({ model: "gpt-4o" }).bindTools(tools);
   * fullSummary({ model: agentModel, keepRecent: 6, summaryRequest: "shared-prefix", contextWindow: 128_000 });
   */
  summaryRequest?: SummaryRequestMode;
}

/** @internal */
export const summaryOptionsShape = {
  ...baseOptionsShape,
  model: z
    .union([
      z.string().min(1),
      z.custom<SummaryChatModel>((value) => typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function", "expected a chat model"),
    ])
    .optional(),
  modelOptions: z.record(z.string(), z.unknown()).optional(),
  summaryMaxTokens: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  toolOutputBudgetTokens: z.number().int().nonnegative().optional(),
  summaryInputTokens: z.number().int().positive().optional(),
  trimTokensToSummarize: z.number().int().positive().optional(),
  summaryPrefix: z.string().trim().min(1).optional(),
  summaryRequest: summaryRequestSchema.optional(),
  artifactLimits: z
    .object({
      files: z.number().int().nonnegative().optional(),
      commands: z.number().int().nonnegative().optional(),
      identifiers: z.number().int().nonnegative().optional(),
      urls: z.number().int().nonnegative().optional(),
      errors: z.number().int().nonnegative().optional(),
    })
    .strict()
    .optional(),
};


import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { extractArtifacts, renderArtifacts, type ArtifactIndex, type ArtifactIndexLimits } from "../messages/artifact-index.js";
import { messageText } from "../messages/message-text.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type PreparedHistory,
  type StrategyOutcome,
} from "../strategies/compaction-strategy.js";
import { replaceLoneSurrogates } from "../text/code-points.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionContext, type CompactionMarker, type RemovedMessage } from "../types.js";
import type { LeftOutMessages } from "./format-history.js";
import { noModelSnapshot } from "./no-model-summarizer.js";
import { SUMMARY_MESSAGE_PREFIX } from "./prompts.js";
import { sharedPrefixRequest, summaryRequestSchema, type SummaryRequestMode } from "./shared-prefix-request.js";
import { cutToolOutputs, leftOutMessages } from "./standalone-input.js";
import { summaryBody } from "./summary-text.js";
import {
  DEFAULT_SUMMARY_MAX_TOKENS,
  DEFAULT_SUMMARY_TIMEOUT_MS,
  SummaryCallError,
  callSummaryModel,
  modelNameOf,
  resolveSummaryModel,
  withMaxTokens,
  type SummaryChatModel,
  type SummaryModel,
} from "./summary-model.js";

/** Options every summary strategy accepts. */
export interface SummaryStrategyOptions extends BaseStrategyOptions {
  /**
   * The model that writes the summary: any chat model, or a name (e.g. `"gpt-4o-mini"`) that becomes
   * `ChatOpenAI` from `@langchain/openai`. Without one, the deterministic no-model summarizer writes
   * the summary from the artifact index and the messages, offline.
   */
  model?: SummaryModel;
  /** Constructor fields for the `ChatOpenAI` made from a model name (e.g. `{ configuration: { baseURL } }`). */
  modelOptions?: Record<string, unknown>;
  /** Cap on the summary's length in tokens: the model's `maxTokens`, and the summary is cut at it. @default 1000 */
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
  /** How many commands, identifiers, URLs and error lines the artifact index keeps. */
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
  summaryRequest: summaryRequestSchema.optional(),
  artifactLimits: z
    .object({
      commands: z.number().int().nonnegative().optional(),
      identifiers: z.number().int().nonnegative().optional(),
      urls: z.number().int().nonnegative().optional(),
      errors: z.number().int().nonnegative().optional(),
    })
    .strict()
    .optional(),
};

/** What a summary writer gets: the messages being replaced and what they touched. */
export interface SummaryInput {
  /** The non-system messages being replaced, oldest first; earlier summaries among them. */
  readonly messages: readonly BaseMessage[];
  /** Texts of tool outputs cut to the budget, by position in `messages`. */
  readonly textOverrides: ReadonlyMap<number, string>;
  /** The older messages left out of the prompt by `summaryInputTokens`, if any, and the note for them. */
  readonly leftOut: LeftOutMessages | undefined;
  /** The latest earlier summary among `messages`, if any. */
  readonly previousSummary: string | undefined;
  /** The artifact index of `messages`, earlier indexes merged. */
  readonly artifacts: ArtifactIndex;
  /**
   * With `summaryRequest: "shared-prefix"`, when it fits the context window: the whole request to
   * send in place of the standalone prompt (the history's messages, then the strategy's instruction).
   */
  readonly sharedPrefixRequest?: readonly BaseMessage[];
}

/**
 * Base of the LLM summary strategies: replaces the older part of a history with one summary message
 * that carries the merged artifact index, and guarantees a failure changes nothing.
 * @internal
 */
export abstract class SummaryStrategy extends CompactionStrategy {
  readonly model: SummaryModel | undefined;
  readonly summaryMaxTokens: number;
  readonly timeoutMs: number;
  readonly toolOutputBudgetTokens: number;
  readonly summaryInputTokens: number | undefined;
  readonly summaryRequest: SummaryRequestMode;
  /** The summary model's context window in tokens, when known: a shared-prefix request must fit it. */
  abstract readonly contextWindow: number | undefined;
  /** The instruction, with a `{kept}` placeholder, that ends a shared-prefix request. */
  protected abstract readonly sharedPrefixInstruction: string;
  protected readonly modelOptions: Record<string, unknown>;
  protected readonly artifactLimits: ArtifactIndexLimits;
  /** The model, resolved (and capped) on first use and kept; a failed resolution is retried next run. */
  #resolved: Promise<SummaryChatModel> | undefined;

  protected constructor(options: SummaryStrategyOptions) {
    super(options);
    this.model = options.model;
    this.modelOptions = options.modelOptions ?? {};
    this.summaryMaxTokens = options.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    this.toolOutputBudgetTokens = options.toolOutputBudgetTokens ?? 20_000;
    this.summaryInputTokens = options.summaryInputTokens;
    this.summaryRequest = options.summaryRequest ?? "standalone";
    this.artifactLimits = options.artifactLimits ?? {};
  }

  /** The summary's text (without the artifact index) from a model; called only when `model` is set. */
  protected abstract writeWithModel(model: SummaryChatModel, input: SummaryInput, context: CompactionContext): Promise<string>;

  /** The model's summary call: a prompt (one human message) or a request's messages. @throws {SummaryCallError} */
  protected async ask(model: SummaryChatModel, request: string | readonly BaseMessage[], context: CompactionContext): Promise<string> {
    return callSummaryModel(model, request, {
      timeoutMs: this.timeoutMs,
      strategy: this.strategyName,
      ...(context.config ? { config: context.config } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
  }

  /**
   * Replace the non-system messages before `cut` by one summary message (system messages among them
   * move before it, in order), keeping `messages.slice(cut)`.
   */
  protected async summarizeBefore(history: PreparedHistory, cut: number, trigger: string): Promise<StrategyOutcome> {
    const { messages, tokens, context } = history;
    const systems: BaseMessage[] = [];
    const removed: RemovedMessage[] = [];
    for (let position = 0; position < cut; position++) {
      const message = messages[position]!;
      if (message.type === "system") systems.push(message);
      else removed.push({ index: position, message });
    }
    const replaced = removed.map(({ message }) => message);
    if (replaced.every((message) => compactionMarkerOf(message)?.summary)) {
      return { status: "noop", trigger, reason: "nothing but an earlier summary lies before the part to keep" };
    }
    const artifacts = extractArtifacts(replaced, [], this.artifactLimits);
    const previousSummary = [...replaced].reverse().find((message) => compactionMarkerOf(message)?.summary);
    const summaryModel = this.model === undefined ? "none" : (modelNameOf(this.model) ?? "unknown");
    let text: string;
    try {
      if (this.model === undefined) {
        text = noModelSnapshot({ messages: replaced, artifacts });
      } else {
        const request =
          this.summaryRequest === "shared-prefix"
            ? await sharedPrefixRequest(history, cut, this.sharedPrefixInstruction, {
                contextWindow: this.contextWindow,
                answerTokens: this.summaryMaxTokens,
                tokenCounter: this.tokenCounter,
              })
            : undefined;
        // The standalone prompt's cuts are worked out only when it is the one sent.
        const perMessage = request ? [] : removed.map(({ index }) => tokens.perMessage[index]!);
        const leftOut = request ? undefined : leftOutMessages(replaced, perMessage, this.summaryInputTokens, this.artifactLimits);
        const input: SummaryInput = {
          ...(request ? { sharedPrefixRequest: request } : {}),
          messages: replaced,
          textOverrides: request ? new Map() : await cutToolOutputs(replaced, perMessage, leftOut?.before ?? 0, this.toolOutputBudgetTokens, this.tokenCounter),
          leftOut,
          previousSummary: previousSummary ? summaryBody(messageText(previousSummary)) : undefined,
          artifacts,
        };
        text = await this.writeWithModel(await this.#summaryModel(this.model), input, context);
      }
    } catch (error) {
      if (context.signal?.aborted) throw error;
      const reason = SummaryCallError.isInstance(error) || error instanceof Error ? error.message : String(error);
      return { status: "failed", trigger, summaryModel, reason: `${reason}; the history is unchanged` };
    }
    if (text.trim() === "") return { status: "failed", trigger, summaryModel, reason: "the summary is empty; the history is unchanged" };
    if ((await this.tokenCounter.countText(text)) > this.summaryMaxTokens) {
      text = `${await this.tokenCounter.truncateText(text, this.summaryMaxTokens)}\n[summary cut at ${this.summaryMaxTokens} tokens]`;
    }
    const summary = this.#summaryMessage(text, artifacts, replaced, summaryModel);
    const output = [...systems, summary, ...messages.slice(cut)];
    const tokensAfter = (await this.tokenCounter.measure(output)).total;
    if (tokensAfter >= tokens.total) {
      return {
        status: "failed",
        trigger,
        summaryModel,
        reason: `inflated: the summarized history would have ${tokensAfter} tokens, not fewer than the ${tokens.total} before; the history is unchanged`,
      };
    }
    return { status: "summarized", messages: output, removed, trigger, summaryModel };
  }

  #summaryModel(model: SummaryModel): Promise<SummaryChatModel> {
    if (!this.#resolved) {
      const resolving = resolveSummaryModel(model, this.summaryMaxTokens, this.modelOptions).then((resolved) => withMaxTokens(resolved, this.summaryMaxTokens));
      resolving.catch(() => {
        if (this.#resolved === resolving) this.#resolved = undefined;
      });
      this.#resolved = resolving;
    }
    return this.#resolved;
  }

  #summaryMessage(text: string, artifacts: ArtifactIndex, replaced: readonly BaseMessage[], summaryModel: string): HumanMessage {
    const summarizedMessages = replaced.reduce((count, message) => count + (compactionMarkerOf(message)?.summarizedMessages ?? 1), 0);
    const marker: CompactionMarker = { strategy: this.strategyName, summary: true, artifacts, summarizedMessages, summaryModel };
    const index = renderArtifacts(artifacts);
    return new HumanMessage({
      // Lone surrogates (from the input, or a token cut of the summary) would make providers reject it.
      content: replaceLoneSurrogates(`${SUMMARY_MESSAGE_PREFIX}\n\n${text}${index ? `\n\n${index}` : ""}`),
      response_metadata: { [COMPACTION_METADATA_KEY]: marker },
    });
  }
}

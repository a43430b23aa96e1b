/**
 * The summary model of the evaluation: one deterministic chat model that every system which
 * summarizes (ours and LangChain's summarization middleware) calls with its own prompt, so the
 * comparison does not depend on which system happened to use a better summarizer. With an API key,
 * a real model takes its place (see run.ts). Both are wrapped in {@link MeteredChatModel}, which
 * counts every summary call's tokens for the system that made it.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { type TokenCounter } from "../../src/index.js";
import { COMPACTION_METADATA_KEY, extractArtifacts, messageText, noModelSnapshot, renderArtifacts } from "../../src/extend/index.js";
import { messagesOfPrompt, messagesOfSharedPrefixRequest, parseRenderedArtifacts, sharedPrefixKept } from "./summary-prompt.js";

export { messagesOfPrompt, messagesOfSharedPrefixRequest, parseRenderedArtifacts, sharedPrefixKept } from "./summary-prompt.js";
export { MeteredChatModel, type MeteredChatModelParams, type SummaryCall } from "./metered-model.js";

/** The cap on a deterministic summary, in tokens: under the 1000-token summary cap of our strategies once they wrap it in tags. */
export const DETERMINISTIC_SUMMARY_MAX_TOKENS = 980;

/** The share of the cap the artifact index may take; the snapshot gets the rest. */
const INDEX_SHARE = 0.6;

/**
 * The deterministic summary of a summary prompt: the prompt's conversation rebuilt as messages
 * ({@link messagesOfPrompt}), then {@link deterministicSummaryOf} them.
 *
 * @example
 * const text = await deterministicSummary(prompt, createTokenCounter());
 */
export async function deterministicSummary(prompt: string, tokenCounter: TokenCounter, maxTokens = DETERMINISTIC_SUMMARY_MAX_TOKENS): Promise<string> {
  return deterministicSummaryOf(messagesOfPrompt(prompt), tokenCounter, maxTokens);
}

/**
 * The deterministic summary of messages: the package's no-model `<state_snapshot>` of them, and
 * their artifact index (earlier summaries' indexes merged) rendered after it. Capped at `maxTokens`:
 * the index keeps up to 60% of the cap, the snapshot is cut to the rest.
 */
export async function deterministicSummaryOf(messages: readonly BaseMessage[], tokenCounter: TokenCounter, maxTokens = DETERMINISTIC_SUMMARY_MAX_TOKENS): Promise<string> {
  const earlier = messages.filter((message) => (message.response_metadata as Record<string, unknown>)[COMPACTION_METADATA_KEY] !== undefined).map((message) => parseRenderedArtifacts(messageText(message)));
  const artifacts = extractArtifacts(messages, earlier);
  const snapshot = noModelSnapshot({ messages, artifacts }).replace("see <artifact_index> below", "see the index below");
  let index = renderArtifacts(artifacts);
  const indexBudget = Math.floor(maxTokens * INDEX_SHARE);
  if ((await tokenCounter.countText(index)) > indexBudget) index = `${await tokenCounter.truncateText(index, indexBudget)}\n</artifact_index>`;
  const indexTokens = index === "" ? 0 : (await tokenCounter.countText(index)) + 2;
  let text = snapshot;
  if ((await tokenCounter.countText(snapshot)) + indexTokens > maxTokens) text = await tokenCounter.truncateText(snapshot, Math.max(0, maxTokens - indexTokens));
  return index === "" ? text : `${text}\n\n${index}`;
}

/** Options of {@link DeterministicSummaryModel}. */
export interface DeterministicSummaryModelParams extends BaseChatModelParams {
  /** Counts and caps the summary. */
  tokenCounter: TokenCounter;
  /** @default DETERMINISTIC_SUMMARY_MAX_TOKENS */
  maxTokens?: number;
}

/**
 * A chat model that answers a summary prompt with {@link deterministicSummary} of the prompt's text:
 * offline, free and the same for every system. A shared-prefix request (more than one message, or a
 * last message that is a shared-prefix instruction) is answered from its messages directly
 * ({@link messagesOfSharedPrefixRequest}), with the same summary logic.
 *
 * @example
 * const model = new DeterministicSummaryModel({ tokenCounter: createTokenCounter() });
 * const answer = await model.invoke([new HumanMessage(prompt)]);
 */
export class DeterministicSummaryModel extends BaseChatModel {
  readonly tokenCounter: TokenCounter;
  readonly summaryMaxTokens: number;

  constructor(params: DeterministicSummaryModelParams) {
    super(params);
    this.tokenCounter = params.tokenCounter;
    this.summaryMaxTokens = params.maxTokens ?? DETERMINISTIC_SUMMARY_MAX_TOKENS;
  }

  _llmType(): string {
    return "deterministic-summary";
  }

  async _generate(messages: BaseMessage[], _options: this["ParsedCallOptions"], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const shared = messages.length > 1 || (messages.length === 1 && sharedPrefixKept(messageText(messages[0]!)) !== undefined);
    const text = shared
      ? await deterministicSummaryOf(messagesOfSharedPrefixRequest(messages), this.tokenCounter, this.summaryMaxTokens)
      : await deterministicSummary(messages.map(messageText).join("\n\n"), this.tokenCounter, this.summaryMaxTokens);
    return { generations: [{ message: new AIMessage(text), text }] };
  }
}

import type { BaseMessage } from "@langchain/core/messages";
import { invalidOption } from "../option-errors.js";
import { extractArtifacts, type ArtifactIndex, type ArtifactIndexLimits } from "../messages/artifact-index.js";
import { messageText } from "../messages/message-text.js";
import { CompactionStrategy, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import { compactionMarkerOf, type CompactionContext, type RemovedMessage } from "../types.js";
import type { LeftOutMessages } from "./format-history.js";
import { noModelSnapshotFitter } from "./no-model-summarizer.js";
import { SUMMARY_MESSAGE_PREFIX } from "./prompts.js";
import { SummaryMessages } from "./summary-message.js";
import { sharedPrefixRequest, type SummaryRequestMode } from "./shared-prefix-request.js";
import type { SummaryStrategyOptions } from "./summary-options.js";
import { cutToolOutputs, leftOutMessages } from "./standalone-input.js";
import { summaryBody } from "./summary-text.js";
import { assertModelPackages } from "./model-packages.js";
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

export { summaryOptionsShape, type SummaryStrategyOptions } from "./summary-options.js";

/** `text` without `prefix` (and the blank line after it) when it starts with it. */
function withoutPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length).trimStart() : text;
}

/** The factory name of a strategy's class (`FullSummary` -> `fullSummary`), for errors raised before its fields are set. */
function componentName(strategy: object): string {
  const name = strategy.constructor.name;
  return name.charAt(0).toLowerCase() + name.slice(1);
}

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

/** A summary written for the part of a history before a cut, not yet placed in a history. @internal */
export interface WrittenSummary {
  /** The summary's text, without the prefix and the artifact index: cut (with a note) to what the summary message's cap leaves it. */
  readonly text: string;
  /** The artifact index of the messages it replaces. */
  readonly artifacts: ArtifactIndex;
  /** Who wrote it: the model's name, `"none"` for the no-model summarizer. */
  readonly summaryModel: string;
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
  readonly summaryPrefix: string;
  /** The summary model's context window in tokens, when known: a shared-prefix request must fit it. */
  abstract readonly contextWindow: number | undefined;
  /** The instruction, with a `{kept}` placeholder, that ends a shared-prefix request. */
  protected abstract readonly sharedPrefixInstruction: string;
  protected readonly modelOptions: Record<string, unknown>;
  protected readonly artifactLimits: ArtifactIndexLimits;
  /** Send a standalone prompt to the model as a string, not as one human message (see `callSummaryModel`). */
  protected readonly promptAsText: boolean = false;
  /** The model, resolved (and capped) on first use and kept; a failed resolution is retried next run. */
  #resolved: Promise<SummaryChatModel> | undefined;
  /** Summary messages made, by written summary (see `prepareSummaryMessage`). */
  #summaryMessages: SummaryMessages | undefined;

  protected constructor(options: SummaryStrategyOptions) {
    super(options);
    assertModelPackages(componentName(this), "model", options.model);
    this.model = options.model;
    this.modelOptions = options.modelOptions ?? {};
    this.summaryMaxTokens = options.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    this.toolOutputBudgetTokens = options.toolOutputBudgetTokens ?? 20_000;
    if (options.summaryInputTokens !== undefined && options.trimTokensToSummarize !== undefined) {
      throw invalidOption(componentName(this), "trimTokensToSummarize", options.trimTokensToSummarize, "no value when summaryInputTokens is given", "it is another name for summaryInputTokens: give one of them");
    }
    this.summaryInputTokens = options.summaryInputTokens ?? options.trimTokensToSummarize;
    this.summaryPrefix = options.summaryPrefix ?? SUMMARY_MESSAGE_PREFIX;
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
      promptAsText: this.promptAsText,
      ...(context.config ? { config: context.config } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
  }

  /**
   * Replace the non-system messages before `cut` by one summary message (system messages among them
   * move before it, in order), keeping `messages.slice(cut)`: {@link writeSummary}, then
   * {@link placeSummary} on the same history.
   */
  protected async summarizeBefore(history: PreparedHistory, cut: number, trigger: string): Promise<StrategyOutcome> {
    const written = await this.writeSummary(history, cut);
    if (!("text" in written)) return { ...written, trigger };
    const { tokensAfter: _measured, ...outcome } = await this.placeSummary(history, cut, written, trigger);
    return outcome;
  }

  /**
   * The summary of the non-system messages before `cut` (the model call, or the no-model
   * summarizer): its final text (fitted so that its summary message, prefix and artifact index
   * included, is within `summaryMaxTokens`), the artifact index of what it replaces
   * and who wrote it. It reads only `messages.slice(0, cut)` (a shared-prefix request also sends the
   * rest, up to the pending calls). A failure is returned, never thrown, except the caller's abort.
   * @internal
   */
  async writeSummary(history: PreparedHistory, cut: number): Promise<WrittenSummary | { status: "noop" | "failed"; reason: string; summaryModel?: string; summaryError?: string }> {
    const { messages, tokens, context } = history;
    const removed: RemovedMessage[] = [];
    for (let position = 0; position < cut; position++) if (messages[position]!.type !== "system") removed.push({ index: position, message: messages[position]! });
    const replaced = removed.map(({ message }) => message);
    if (replaced.every((message) => compactionMarkerOf(message)?.summary)) {
      return { status: "noop", reason: "nothing but an earlier summary lies before the part to keep" };
    }
    const artifacts = extractArtifacts(replaced, [], this.artifactLimits);
    const previousSummary = [...replaced].reverse().find((message) => compactionMarkerOf(message)?.summary);
    const summaryModel = this.model === undefined ? "none" : (modelNameOf(this.model) ?? "unknown");
    let text: string;
    try {
      if (this.model === undefined) {
        const snapshot = await this.#messages().fitSnapshot(noModelSnapshotFitter({ messages: replaced, artifacts }), artifacts);
        text = snapshot.text;
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
          previousSummary: previousSummary ? summaryBody(withoutPrefix(messageText(previousSummary), this.summaryPrefix)) : undefined,
          artifacts,
        };
        text = await this.writeWithModel(await this.#summaryModel(this.model), input, context);
      }
    } catch (error) {
      if (context.signal?.aborted) throw error;
      const reason = SummaryCallError.isInstance(error) || error instanceof Error ? error.message : String(error);
      return { status: "failed", summaryModel, reason: `${reason}; the history is unchanged`, summaryError: reason };
    }
    if (text.trim() === "") return { status: "failed", summaryModel, reason: "the summary is empty; the history is unchanged", summaryError: "the summary is empty" };
    // Cut (with a note) to what the summary message's cap leaves beside the prefix and the index.
    const fitted = await this.#messages().fitText(text, artifacts);
    if (fitted === undefined) return { status: "failed", summaryModel, reason: this.#messages().noRoomReason() };
    text = fitted;
    return { text, artifacts, summaryModel };
  }

  /**
   * `history` with its non-system messages before `cut` replaced by the summary `written` of them
   * (system messages among them move before it), `messages.slice(cut)` kept as it is: exactly what
   * {@link summarizeBefore} returns when the model wrote `written`. A result not smaller than the
   * history fails and changes nothing.
   * @internal
   */
  async placeSummary(history: PreparedHistory, cut: number, written: WrittenSummary, trigger: string): Promise<StrategyOutcome & { tokensAfter?: number }> {
    const { messages, tokens } = history;
    const { summaryModel } = written;
    const systems: BaseMessage[] = [];
    const removed: RemovedMessage[] = [];
    for (let position = 0; position < cut; position++) {
      const message = messages[position]!;
      if (message.type === "system") systems.push(message);
      else removed.push({ index: position, message });
    }
    const summary = await this.#messages().countedMessageOf(written, removed.map(({ message }) => message));
    if (typeof summary === "string") return { status: "failed", trigger, summaryModel, reason: summary };
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
    return { status: "summarized", messages: output, removed, trigger, summaryModel, tokensAfter };
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

  /**
   * Make and count the summary message of `written` for the messages it replaces ahead of the step
   * that places it: made once per written summary and number of messages summarized, so that step
   * finds it made and counted. @internal
   */
  async prepareSummaryMessage(written: WrittenSummary, replaced: readonly BaseMessage[]): Promise<void> {
    await this.#messages().countedMessageOf(written, replaced);
  }

  #messages(): SummaryMessages {
    return (this.#summaryMessages ??= new SummaryMessages(this.strategyName, this.summaryPrefix, this.tokenCounter, this.summaryMaxTokens));
  }
}

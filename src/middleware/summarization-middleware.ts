import type { BaseMessage } from "@langchain/core/messages";
import { pickRunnableConfigKeys, type RunnableConfig } from "@langchain/core/runnables";
import { countTokensApproximately, createMiddleware } from "langchain";
import { z } from "zod/v4";
import { assertModelPackages } from "../summary/model-packages.js";
import { invalidOption } from "../option-errors.js";
import { CheckedHistories } from "../langgraph/checked-histories.js";
import { threadIdOf } from "../langgraph/compaction-archive.js";
import { CompactionStateSchema } from "../langgraph/compaction-state.js";
import { runGraphCompaction, type GraphCompactionOptions } from "../langgraph/run-compaction.js";
import { parseOptions } from "../options.js";
import type { KeepSize, TriggerSize } from "../strategies/context-size.js";
import { DEFAULT_SUMMARY_MAX_TOKENS, resolveSummaryModel, type SummaryChatModel } from "../summary/summary-model.js";
import { tokenCounterFromFunction, type TokenCounter } from "../tokens/token-counter.js";
import { currentConfig } from "./current-config.js";
import { LangChainSummary } from "./langchain-summary.js";
import {
  LANGCHAIN_DEFAULT_KEEP,
  LANGCHAIN_SUMMARY_PREFIX,
  LANGCHAIN_SUMMARY_PROMPT,
  LANGCHAIN_TRIM_TOKENS_TO_SUMMARIZE,
  middlewareOptionsSchema,
  runContextSchema,
  runContextShape,
  type SummarizationMiddlewareOptions,
} from "./summarization-options.js";
import { middlewareWindow } from "./summarization-window.js";

const COMPONENT = "summarizationMiddleware";
const runContextParser = z.object(runContextShape).strict();

/** What one run summarizes with, after the run's `runtime.context` overrides. */
interface RunSettings {
  trigger: TriggerSize | TriggerSize[] | undefined;
  keep: KeepSize;
  tokenCounter: TokenCounter;
  summaryPrompt: string;
  summaryPrefix: string;
  trimTokensToSummarize: number;
}

/** LangChain's error for a fraction size whose window no model tells. */
const windowUnknown = () =>
  invalidOption(
    COMPONENT,
    "contextWindow",
    undefined,
    "a number of tokens, as a size is a fraction of the context window",
    "Model profile information is required to use fractional token limits: pass contextWindow, a summary or agent model whose profile states maxInputTokens, or absolute token counts",
  );

/** A trigger's token figures rounded up (token counts are whole: reaching 1000.5 is reaching 1001). */
function wholeTokens(trigger: TriggerSize | TriggerSize[] | undefined): TriggerSize | TriggerSize[] | undefined {
  if (trigger === undefined) return undefined;
  const round = (size: TriggerSize): TriggerSize => (size.tokens === undefined ? size : { ...size, tokens: Math.ceil(size.tokens) });
  return Array.isArray(trigger) ? trigger.map(round) : round(trigger as TriggerSize);
}

const usesFraction = (trigger: TriggerSize | TriggerSize[] | undefined, keep: KeepSize) =>
  "fraction" in keep || (trigger !== undefined && (Array.isArray(trigger) ? trigger : [trigger as TriggerSize]).some((size) => size.fraction !== undefined));

/**
 * A drop-in for LangChain's `summarizationMiddleware`: the same options, names, shapes and defaults
 * (`model` as a chat model or a name, `trigger` as one size or a list, `keep` default
 * `{ messages: 20 }`, `tokenCounter` default LangChain's `countTokensApproximately`, `summaryPrompt`
 * with `{messages}`, `summaryPrefix`, `trimTokensToSummarize` default 4000, the deprecated
 * `maxTokensBeforeSummary` and `messagesToKeep`), the same per-run overrides from the agent's
 * `runtime.context` (`trigger`, `keep`, `tokenCounter`, `summaryPrompt`, `summaryPrefix`,
 * `trimTokensToSummarize`), and the summary written as LangChain writes it (a `HumanMessage`
 * `"<summaryPrefix>\n\n<summary>"` with `additional_kwargs.lc_source: "summarization"`, the call's
 * metadata `lc_source: "summarization"`). Without a `trigger` it never summarizes, as in LangChain.
 *
 * It runs on this package's `fullSummary` and graph step, so it also: repairs tool pairing instead of
 * ever sending a broken history; leaves the history unchanged when the summary call fails, times out,
 * answers nothing or would not shrink the history (LangChain writes "Error generating summary" into
 * it); archives the replaced messages (`restoreHistory` gives them back); logs each compaction in
 * the `compactionLog` channel; carries this package's compaction marker and artifact index in the
 * summary message; caps the summary message, index included, at `summaryMaxTokens` (1000). A `fraction` reads the window from
 * `contextWindow`, else from the summary model as LangChain does, else from the agent model's profile
 * (`profile.maxInputTokens`, else its name in LangChain's table); when none is known the run throws,
 * as in LangChain. The agent model is seen at its calls: before the first one of a middleware
 * instance, a window only it can tell is read at that call, and a summary due then applies to that
 * call's request, the state being compacted from the next call on.
 *
 * Imported from `langchain-compaction/middleware`.
 *
 * @example
 * import { summarizationMiddleware } from "langchain-compaction/middleware"; // was: from "langchain"
 * const agent = createAgent({
 *   model: "openai:gpt-4o",
 *   middleware: [summarizationMiddleware({ model: "openai:gpt-4o-mini", trigger: { tokens: 4000 }, keep: { messages: 20 } })],
 * });
 * @throws {InvalidOptionError} for an invalid option, e.g. a `summaryPrompt` with neither `{messages}` nor `{history}`.
 */
export function summarizationMiddleware(options: SummarizationMiddlewareOptions) {
  const parsed = parseOptions(COMPONENT, middlewareOptionsSchema, options);
  const checked = new CheckedHistories();
  const { name, onError, archive, namespace, invalidHistory } = parsed;
  const graphOptions: GraphCompactionOptions = { onError, archive, namespace, invalidHistory };
  if (parsed.maxTokensBeforeSummary !== undefined) console.warn("maxTokensBeforeSummary is deprecated. Use `trigger: { tokens: value }` instead.");
  if (parsed.messagesToKeep !== undefined) console.warn("messagesToKeep is deprecated. Use `keep: { messages: value }` instead.");
  const trigger = parsed.trigger ?? (parsed.maxTokensBeforeSummary === undefined ? undefined : { tokens: parsed.maxTokensBeforeSummary });
  const keep: KeepSize =
    parsed.messagesToKeep !== undefined && (parsed.keep === undefined || ("messages" in parsed.keep && parsed.keep.messages === 20))
      ? { messages: parsed.messagesToKeep }
      : (parsed.keep ?? LANGCHAIN_DEFAULT_KEEP);
  const base: RunSettings = {
    trigger,
    keep,
    tokenCounter: parsed.tokenCounter ?? tokenCounterFromFunction(countTokensApproximately),
    summaryPrompt: parsed.summaryPrompt ?? LANGCHAIN_SUMMARY_PROMPT,
    summaryPrefix: parsed.summaryPrefix ?? LANGCHAIN_SUMMARY_PREFIX,
    trimTokensToSummarize: parsed.trimTokensToSummarize ?? LANGCHAIN_TRIM_TOKENS_TO_SUMMARIZE,
  };
  const summaryMaxTokens = parsed.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS;
  assertModelPackages("summarizationMiddleware", "model", parsed.model);

  // A name is resolved (initChatModel or ChatOpenAI) once, when first needed; a failure is retried.
  let resolving: Promise<SummaryChatModel> | undefined;
  const resolveModel = (): Promise<SummaryChatModel> => {
    resolving ??= resolveSummaryModel(parsed.model, summaryMaxTokens, parsed.modelOptions).catch((error: unknown) => {
      resolving = undefined;
      throw error;
    });
    return resolving;
  };
  const modelName = parsed.model;
  const summaryModel: SummaryChatModel =
    typeof modelName === "string"
      ? ({ model: modelName, invoke: async (input, config) => (await resolveModel()).invoke(input, config) } as SummaryChatModel & { model: string })
      : modelName;
  // The agent's own model, seen at its calls: the window of last resort for fraction sizes.
  let agentModel: unknown;
  // The settings of a run whose window only the agent model can tell, before the agent's first call.
  let deferred: RunSettings | undefined;
  // The strategy of runs without overrides, rebuilt only when the window changes.
  let cached: { window: number | undefined; strategy: LangChainSummary } | undefined;

  const settingsFor = (context: unknown): { settings: RunSettings; overridden: boolean } => {
    const given: Record<string, unknown> = {};
    if (typeof context === "object" && context !== null) {
      for (const key of Object.keys(runContextShape)) {
        const value = (context as Record<string, unknown>)[key];
        if (value !== undefined) given[key] = value;
      }
    }
    if (Object.keys(given).length === 0) return { settings: base, overridden: false };
    const run = parseOptions(`${COMPONENT} (runtime.context)`, runContextParser, given);
    const settings: RunSettings = {
      trigger: run.trigger ?? base.trigger,
      keep: run.keep ?? base.keep,
      tokenCounter: run.tokenCounter ?? base.tokenCounter,
      // As in LangChain: a context prompt equal to LangChain's default leaves the configured prompt.
      summaryPrompt: run.summaryPrompt === undefined || run.summaryPrompt === LANGCHAIN_SUMMARY_PROMPT ? base.summaryPrompt : run.summaryPrompt,
      summaryPrefix: run.summaryPrefix ?? base.summaryPrefix,
      trimTokensToSummarize: run.trimTokensToSummarize ?? base.trimTokensToSummarize,
    };
    return { settings, overridden: true };
  };

  const strategyFor = (settings: RunSettings, window: number | undefined) =>
    new LangChainSummary({
      model: summaryModel,
      trigger: wholeTokens(settings.trigger)!,
      keep: settings.keep,
      tokenCounter: settings.tokenCounter,
      prompt: settings.summaryPrompt,
      summaryPrefix: settings.summaryPrefix,
      summaryInputTokens: Math.max(1, Math.floor(settings.trimTokensToSummarize)),
      summaryMaxTokens,
      ...(parsed.timeoutMs !== undefined ? { timeoutMs: parsed.timeoutMs } : {}),
      ...(window !== undefined ? { contextWindow: window } : {}),
    });

  return createMiddleware({
    name: name ?? "SummarizationMiddleware",
    stateSchema: CompactionStateSchema,
    contextSchema: runContextSchema,
    beforeModel: async (state, runtime) => {
      const { settings, overridden } = settingsFor(runtime.context);
      // No trigger: never summarize (LangChain's behaviour).
      if (settings.trigger === undefined) return undefined;
      let window: number | undefined;
      if (usesFraction(settings.trigger, settings.keep)) {
        window = middlewareWindow(parsed.contextWindow, typeof modelName === "string" ? await resolveModel() : modelName, agentModel);
        if (window === undefined && agentModel === undefined) {
          // The agent's model is known at its first call: wrapModelCall compacts that call's request.
          deferred = settings;
          return undefined;
        }
        if (window === undefined) throw windowUnknown();
      }
      let strategy: LangChainSummary;
      if (overridden) strategy = strategyFor(settings, window);
      else {
        if (cached === undefined || cached.window !== window) cached = { window, strategy: strategyFor(settings, window) };
        strategy = cached.strategy;
      }
      const update = await runGraphCompaction({
        component: COMPONENT,
        compactor: strategy,
        messages: (state as { messages?: BaseMessage[] }).messages,
        log: (state as { compactionLog?: unknown }).compactionLog,
        options: graphOptions,
        config: currentConfig() ?? pickRunnableConfigKeys(runtime as RunnableConfig),
        signal: runtime.signal,
        store: runtime.store,
        threadId: threadIdOf(runtime.configurable),
        keepPendingCalls: false,
        checked,
      });
      return Object.keys(update).length === 0 ? undefined : update;
    },
    wrapModelCall: async (request, handler) => {
      agentModel = request.model;
      const settings = deferred;
      deferred = undefined;
      if (settings === undefined) return handler(request);
      const window = middlewareWindow(parsed.contextWindow, typeof modelName === "string" ? await resolveModel() : modelName, agentModel);
      if (window === undefined) throw windowUnknown();
      // This call only: the state is compacted by beforeModel from the next call on.
      let messages = request.messages;
      try {
        const result = await strategyFor(settings, window).compact(request.messages, { ...(currentConfig() ? { config: currentConfig()! } : {}) });
        if (result.status === "summarized") messages = result.messages;
      } catch (error) {
        if (request.runtime?.signal?.aborted) throw error;
      }
      return handler(messages === request.messages ? request : { ...request, messages });
    },
  });
}

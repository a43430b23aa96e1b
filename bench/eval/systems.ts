/**
 * The systems the evaluation compares, each run the way an agent runs it before a model call:
 * ours through the compaction node's path (compact, `compactionUpdate`, LangGraph's messages
 * reducer: persisted), LangChain's context editing through its middleware's `wrapModelCall` (twice:
 * as a view of every call, and persisted in place as `createAgent` does), LangChain's summarization through its middleware's
 * `beforeModel` hook and the same reducer (persisted).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer } from "@langchain/langgraph";
import { ClearToolUsesEdit, contextEditingMiddleware, summarizationMiddleware } from "langchain";
import {
  autoCompaction,
  hidingThenSummary,
  selectiveThenSummary,
  stateSnapshotSummary,
  toolResultHiding,
  type TokenCounter,
} from "../../src/index.js";
import { compactionUpdate, messageText, type CompactionStrategy } from "../../src/extend/index.js";
import { MeteredChatModel, type SummaryCall } from "./summary-model.js";

/** The trigger of both LangChain peers, as a share of the window. */
export const PEER_TRIGGER_FRACTION = 0.8;
/** ClearToolUsesEdit keeps the newest 3 tool results. */
export const CLEAR_TOOL_USES_KEEP = 3;
/** summarizationMiddleware keeps the newest 20 messages. */
export const SUMMARIZATION_KEEP_MESSAGES = 20;
/**
 * summarizationMiddleware's `trimTokensToSummarize` default (its `DEFAULT_TRIM_TOKEN_LIMIT`): it sends
 * only the newest this many tokens of the part it summarizes. Left at the default here.
 */
export const SUMMARIZATION_TRIM_TOKENS = 4000;

/** A LangChain peer's settings: its trigger as a share of the window, and what it keeps (results for ClearToolUsesEdit, messages for summarizationMiddleware). */
export interface PeerSettings {
  readonly trigger: number;
  readonly keep: number;
}

/** What one step of a system produced. */
export interface SystemStep {
  /** The history the system keeps for the next step. */
  readonly persisted: BaseMessage[];
  /** What the model receives at this step. */
  readonly input: BaseMessage[];
  /** Whether the system changed the history (or, for a view, the request) at this step. */
  readonly compacted: boolean;
  /** When compacted: the messages of the history that are not in the model's input any more. */
  readonly originals: readonly BaseMessage[];
  /**
   * What this step wrote to the thread's archive (ours only: LangChain's keep none): the ids of the
   * originals, and the summary it put in, with the ids of the history it stands for, in order.
   */
  readonly archive?: { readonly ids: readonly string[]; readonly summary?: { readonly id: string; readonly covers: readonly string[] } };
}

/** One system, ready to replay one trace. */
export interface EvalSystem {
  readonly name: string;
  /**
   * Before a model call: the persisted history with the messages added since the last call goes in,
   * what is persisted and what the model receives come out.
   */
  step(history: BaseMessage[]): Promise<SystemStep>;
  /** The summary calls made since the last drain. */
  drainSummaryCalls(): SummaryCall[];
  /**
   * Called after each step, outside its timing, while the agent's model would be answering: work the
   * system started in the background (a summary prepared ahead) finishes there, as it would during
   * a real model call, which takes longer than a summary call.
   */
  idle?(): Promise<void>;
}

/** What a system is built with. */
export interface SystemContext {
  /** The model's context window, in tokens. */
  readonly window: number;
  /** The counter every system triggers with (and the evaluation measures with). */
  readonly tokenCounter: TokenCounter;
  /** The summary model every summarizing system shares; each system meters its own calls. */
  readonly summaryModel: BaseChatModel;
}

/** Who wrote a system. */
export type SystemKind = "baseline" | "peer" | "ours";

/** A system of the comparison. */
export interface SystemSpec {
  readonly name: string;
  readonly kind: SystemKind;
  /** A fresh instance (fresh state, fresh meter) for one trace at one window. */
  create(context: SystemContext): EvalSystem;
}

/** The messages of `before` that `after` no longer holds (by object). */
function leftOut(before: readonly BaseMessage[], after: readonly BaseMessage[]): BaseMessage[] {
  const kept = new Set(after);
  return before.filter((message) => !kept.has(message));
}

const noSummaryCalls = (): SummaryCall[] => [];

/** No compaction: the whole history goes to the model. */
export const noCompaction: SystemSpec = {
  name: "no compaction",
  kind: "baseline",
  create: () => ({
    name: "no compaction",
    step: async (history) => ({ persisted: history, input: history, compacted: false, originals: [] }),
    drainSummaryCalls: noSummaryCalls,
  }),
};

type WrapModelCall = (request: Record<string, unknown>, handler: (request: { messages: BaseMessage[] }) => Promise<unknown>) => Promise<unknown>;

/**
 * The leading system message apart from the rest: `createAgent` keeps its system prompt out of the
 * state's messages and adds it to each request, and LangChain's middleware is written for that (the
 * summarization middleware would otherwise summarize the system prompt away).
 */
function splitSystemPrompt(history: BaseMessage[]): { systemMessage: BaseMessage | undefined; messages: BaseMessage[] } {
  const first = history[0];
  return first?.type === "system" ? { systemMessage: first, messages: history.slice(1) } : { systemMessage: undefined, messages: history };
}

/** How `contextEditingMiddleware`'s edit reaches the next call. */
export type ContextEditingMode = "view" | "createAgent";

/**
 * LangChain's `ClearToolUsesEdit` inside `contextEditingMiddleware`, called through the middleware's
 * own `wrapModelCall` with the system prompt apart, as `createAgent` calls it. Its token counting goes
 * through the request's model (`tokenCountMethod: "model"`), here an object answering with the shared
 * counter.
 *
 * Two readings of what the edit does to the history, reported side by side:
 * - `"view"`: the middleware gets a copy of the state's messages at every call,
 *   so the history stays whole and the edit is redone at every call.
 * - `"createAgent"` (what `createAgent` does): its agent node passes the state's own array as
 *   `request.messages` and `ClearToolUsesEdit.apply` replaces its elements in place, so the cleared
 *   results are what the checkpoint holds and what every later call starts from.
 *
 * `settings`: the trigger as a share of the window and the results kept (default 0.8 and 3).
 */
export function contextEditing(mode: ContextEditingMode, settings: PeerSettings = { trigger: PEER_TRIGGER_FRACTION, keep: CLEAR_TOOL_USES_KEEP }, name = `ClearToolUsesEdit (${mode})`): SystemSpec {
  return {
    name,
    kind: "peer",
    create: ({ window, tokenCounter }) => {
      const middleware = contextEditingMiddleware({
        edits: [new ClearToolUsesEdit({ trigger: { tokens: Math.floor(settings.trigger * window) }, keep: { messages: settings.keep } })],
        tokenCountMethod: "model",
      });
      const wrapModelCall = middleware.wrapModelCall as unknown as WrapModelCall;
      let systemMessage: BaseMessage | undefined;
      const counterModel = {
        getName: () => "eval-token-counter",
        // The middleware rebuilds the system message from its text for every count; counting the
        // original object instead (same text, same count) keeps the counter's per-message cache useful.
        getNumTokensFromMessages: async (messages: BaseMessage[]) => {
          const first = messages[0];
          const counted = systemMessage && first?.type === "system" && first.content === systemMessage.content ? [systemMessage, ...messages.slice(1)] : messages;
          return { totalCount: await tokenCounter.countMessages(counted) };
        },
      };
      return {
        name,
        async step(history) {
          const split = splitSystemPrompt(history);
          systemMessage = split.systemMessage;
          // `split.messages` is a fresh array (the replay builds a new history for every call): as the
          // state's array in createAgent, it is what the edit changes in place.
          const state = split.messages;
          let sent: BaseMessage[] = state;
          const systemPrompt = systemMessage ? messageText(systemMessage) : "";
          await wrapModelCall(
            { model: counterModel, messages: mode === "view" ? [...state] : state, systemPrompt, ...(systemMessage ? { systemMessage } : {}), state: { messages: state }, runtime: { context: {} } },
            async (request) => {
              sent = request.messages;
              return undefined;
            },
          );
          const input = systemMessage ? [systemMessage, ...sent] : sent;
          const compacted = input.length !== history.length || input.some((message, position) => message !== history[position]);
          const persisted = mode === "view" ? history : input;
          return { persisted, input, compacted, originals: compacted ? leftOut(history, input) : [] };
        },
        drainSummaryCalls: noSummaryCalls,
      };
    },
  };
}

/** `ClearToolUsesEdit` read as a view of every call, the history unchanged. */
export const clearToolUsesView: SystemSpec = contextEditing("view");
/** `ClearToolUsesEdit` as `createAgent` runs it: the clearing persisted in the state. */
export const clearToolUsesCreateAgent: SystemSpec = contextEditing("createAgent");

type BeforeModel = (state: { messages: BaseMessage[] }, runtime: Record<string, unknown>) => Promise<{ messages?: BaseMessage[] } | undefined | void>;

/**
 * LangChain's `summarizationMiddleware`, called through its own `beforeModel` hook with the state's
 * messages (the system prompt apart, as in `createAgent`); its update is applied with LangGraph's
 * messages reducer, as the agent's graph applies it (persisted). `settings`: its trigger as a share
 * of the window and the messages it keeps.
 */
export function summarizationWith(settings: PeerSettings, name = "summarizationMiddleware"): SystemSpec {
  return {
    name,
    kind: "peer",
    create: ({ window, tokenCounter, summaryModel }) => {
      const meter = new MeteredChatModel({ inner: summaryModel, tokenCounter });
      const middleware = summarizationMiddleware({
        model: meter,
        trigger: { tokens: Math.floor(settings.trigger * window) },
        keep: { messages: settings.keep },
        tokenCounter: (messages: BaseMessage[]) => tokenCounter.countMessages(messages),
      });
      const hook = middleware.beforeModel as unknown as BeforeModel | { hook: BeforeModel };
      const beforeModel = typeof hook === "function" ? hook : hook.hook;
      return {
        name,
        async step(history) {
          const { systemMessage, messages } = splitSystemPrompt(history);
          const update = await beforeModel({ messages }, { context: {} });
          if (!update || !update.messages) return { persisted: history, input: history, compacted: false, originals: [] };
          const reduced = messagesStateReducer(messages, update.messages);
          const persisted = systemMessage ? [systemMessage, ...reduced] : reduced;
          return { persisted, input: persisted, compacted: true, originals: leftOut(history, persisted) };
        },
        drainSummaryCalls: () => meter.drain(),
      };
    },
  };
}

/** `summarizationMiddleware` as the report's headline rows run it: trigger 0.8 of the window, keep 20 messages. */
export const summarization: SystemSpec = summarizationWith({ trigger: PEER_TRIGGER_FRACTION, keep: SUMMARIZATION_KEEP_MESSAGES });

/**
 * One of our strategies, run as the compaction node runs it: `compact`, then `compactionUpdate`
 * and LangGraph's messages reducer apply the result to the persisted history.
 */
export function ours(name: string, build: (context: SystemContext & { model: BaseChatModel }) => CompactionStrategy): SystemSpec {
  return {
    name,
    kind: "ours",
    create: (context) => {
      const meter = new MeteredChatModel({ inner: context.summaryModel, tokenCounter: context.tokenCounter });
      const strategy = build({ ...context, model: meter });
      return {
        name,
        async step(history) {
          const result = await strategy.compact(history);
          if (result.status === "noop" || result.status === "failed") return { persisted: history, input: history, compacted: false, originals: [] };
          const update = compactionUpdate(history, result);
          if (!update.changed) return { persisted: history, input: history, compacted: false, originals: [] };
          const persisted = messagesStateReducer(history, update.messages);
          const ids = update.archive.messages.flatMap(({ message }) => (typeof message.data.id === "string" ? [message.data.id] : []));
          const { summaryId, removedIds } = update.record;
          const removed = new Set(removedIds);
          const summary = summaryId === null ? undefined : { id: summaryId, covers: history.flatMap((message) => (message.id === summaryId || removed.has(message.id!) ? [message.id!] : [])) };
          return { persisted, input: persisted, compacted: true, originals: leftOut(history, persisted), archive: { ids, ...(summary ? { summary } : {}) } };
        },
        drainSummaryCalls: () => meter.drain(),
        idle: async () => {
          if ("settled" in strategy && typeof strategy.settled === "function") await (strategy.settled as () => Promise<void>).call(strategy);
        },
      };
    },
  };
}

/** The name of our recommended default. */
export const RECOMMENDED_DEFAULT = "autoCompaction";
/** The recommended default when the summary model is the agent's own model (`summaryRequest: "shared-prefix"`). */
export const SHARED_PREFIX_DEFAULT = "autoCompaction (agent's model, shared prefix)";

/** The recommended default with its summaries written at the firing, in the step (`prepare: false`). */
export const BLOCKING_SUMMARIES = "autoCompaction (summaries at the firing)";

/** The recommended default with its summaries prepared from 0.9 of the way to the size that fires (`prepare: { at: 0.9 }`): ready at the firing. */
export const EARLY_PREPARATION = "autoCompaction (prepared from 0.9 of the way)";

/**
 * The frugal setting, autoCompaction's default before the re-read pricing chose the current one:
 * compact at 14,000 tokens of conversation (or 0.8 of the window if less), the hiding keeping 2
 * tool-call groups.
 */
export const FRUGAL_SETTING = "autoCompaction (frugal: trigger 14,000 tokens, 2 groups kept)";

/** The systems whose rows are also reported with recall on (`<system> + recall`, see recall.ts): the default and the frugal setting. */
export const RECALL_SYSTEMS: readonly string[] = [RECOMMENDED_DEFAULT, FRUGAL_SETTING];

/**
 * Per system of {@link RECALL_SYSTEMS}, the system its row with recall on replays: the same options
 * with `withRecall: true`, as `autoCompactionMiddleware({ recall: true })` runs the policy.
 */
export const RECALL_REPLAYS: ReadonlyMap<string, SystemSpec> = new Map([
  [RECOMMENDED_DEFAULT, ours(`${RECOMMENDED_DEFAULT} (with recall)`, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, withRecall: true }))],
  [
    FRUGAL_SETTING,
    ours(`${FRUGAL_SETTING} (with recall)`, ({ window, tokenCounter, model }) =>
      autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, trigger: { tokens: 14_000 }, hiding: { keepRecentGroups: 2 }, withRecall: true }),
    ),
  ],
]);

/** Our strategies with their defaults (the window as the context window, the shared summary model). */
export const OUR_SYSTEMS: readonly SystemSpec[] = [
  ours("toolResultHiding", ({ window, tokenCounter }) => toolResultHiding({ contextWindow: window, tokenCounter })),
  ours("hidingThenSummary", ({ window, tokenCounter, model }) => hidingThenSummary({ contextWindow: window, tokenCounter, summary: { model } })),
  ours("selectiveThenSummary", ({ window, tokenCounter, model }) => selectiveThenSummary({ contextWindow: window, tokenCounter, summary: { model } })),
  ours("stateSnapshotSummary", ({ window, tokenCounter, model }) => stateSnapshotSummary({ contextWindow: window, tokenCounter, model })),
  ours("autoCompaction", ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model })),
  ours(BLOCKING_SUMMARIES, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, prepare: false })),
  ours(EARLY_PREPARATION, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, prepare: { at: 0.9 } })),
  // The summary model is the agent's own: the summary call reuses the previous call's cached prefix.
  ours(SHARED_PREFIX_DEFAULT, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, summaryRequest: "shared-prefix" })),
  ours(FRUGAL_SETTING, ({ window, tokenCounter, model }) =>
    autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, trigger: { tokens: 14_000 }, hiding: { keepRecentGroups: 2 } }),
  ),
];


/** Every system of the evaluation, in report order: the baseline, LangChain's (context editing in both readings), ours. */
export const ALL_SYSTEMS: readonly SystemSpec[] = [noCompaction, clearToolUsesView, clearToolUsesCreateAgent, summarization, ...OUR_SYSTEMS];

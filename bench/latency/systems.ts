/**
 * The agents the latency scenario replays a recorded session through, one per thread, each timing
 * what runs before every model call:
 * - ours: a LangGraph ReAct loop, START → compact → model → (tools → compact → model)* → END, the
 *   compaction node `createCompactionNode(autoCompaction({ contextWindow, summaryModel, prepare }))`
 *   timed from the inside (the same pattern as bench/scale/graph.ts);
 * - LangChain: `createAgent` with its own `summarizationMiddleware`, whose `beforeModel` hook is timed
 *   from the inside.
 * The agent's model replays the recording after a fixed think time, as a hosted model takes time to
 * answer; the tools answer with the recorded results at once. Both run on MemorySaver and
 * InMemoryStore, as a deployed agent runs on a checkpointer and a store.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent, summarizationMiddleware } from "langchain";
import { autoCompaction, createCompactionNode, type CompactionContext, type CompactionResult, type TokenCounter } from "../../src/index.js";
import { messageText, type AutoCompaction } from "../../src/extend/index.js";
import { ReplayChatModel, replayTools, type ReplaySession } from "../../examples/replay/index.js";
import { ReactAgentState } from "../../examples/react-agent.js";

/** LangChain's summarizationMiddleware fires at this share of the window (as in `npm run eval`). */
export const PEER_TRIGGER_FRACTION = 0.8;
/** LangChain's summarizationMiddleware keeps the newest 20 messages (as in `npm run eval`). */
export const PEER_KEEP_MESSAGES = 20;

/** What the step before one model call did. */
export type StepKind = "noop" | "compacted" | "summarized" | "truncated" | "failed" | "repaired";

/** One step: the compaction node (or the middleware's hook) run before a model call. */
export interface StepSample {
  /** `performance.now()` when the node (hook) was entered. */
  readonly startMs: number;
  /** Its wall time: the latency it added to the model call. */
  nodeMs: number;
  kind: StepKind;
  /** Ours: the wall time of the policy's `compact()` inside the node. */
  compactMs: number | undefined;
  /** `performance.now()` when the agent's model was called after it. */
  modelCalledAt: number | undefined;
  /** Ours: the history's tokens as the policy counted them (a no-op under its bound may report a bound). */
  tokensBefore?: number;
  /** Ours: a no-op that counted the history exactly (its upper bound did not decide it). */
  counted?: boolean;
  /** Ours, when the node logged a compaction: its token figures and reason. */
  record?: { readonly tokensBefore: number | null; readonly tokensAfter: number | null; readonly reason?: string };
}

/** The steps of one thread, in order: one per model call. */
export class ThreadProbe {
  readonly steps: StepSample[] = [];

  constructor(readonly system: string, readonly thread: string) {}

  /** The node (hook) is entered; returns its step. */
  enter(): StepSample {
    const step: StepSample = { startMs: performance.now(), nodeMs: Number.NaN, kind: "noop", compactMs: undefined, modelCalledAt: undefined };
    this.steps.push(step);
    return step;
  }

  exit(step: StepSample, kind: StepKind): void {
    step.nodeMs = performance.now() - step.startMs;
    step.kind = kind;
  }

  /** The agent's model is called: the end of the latest step's added latency. */
  modelCalled(): void {
    const step = this.steps.at(-1);
    if (step && step.modelCalledAt === undefined) step.modelCalledAt = performance.now();
  }
}

/** The replay model with a fixed think time per call, reporting each call to the thread's probe. */
class ThinkingReplayModel extends ReplayChatModel {
  constructor(
    session: ReplaySession,
    readonly thinkMs: number,
    readonly probe: ThreadProbe,
  ) {
    super(session);
  }

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    this.probe.modelCalled();
    await sleep(this.thinkMs, undefined, options.signal ? { signal: options.signal } : {});
    return super._generate(messages, options, runManager);
  }
}

/** What every agent of one run shares. */
export interface AgentContext {
  readonly replay: ReplaySession;
  readonly probe: ThreadProbe;
  readonly thinkMs: number;
  readonly window: number;
  readonly summaryModel: BaseChatModel;
  readonly tokenCounter: TokenCounter;
  readonly checkpointer: BaseCheckpointSaver;
  readonly store: BaseStore;
}

/** One thread's agent: run the recording's turns, then wait for background work. */
export interface ReplayAgent {
  run(): Promise<void>;
  /** Resolves once background work (summaries prepared ahead) has settled. */
  settled(): Promise<void>;
}

function configOf(thread: string) {
  return { configurable: { thread_id: thread }, recursionLimit: 10_000 };
}

const route = (state: { messages: BaseMessage[] }) => (((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ?? 0) > 0 ? "tools" : END);

/** Ours: the ReAct graph with the timed compaction node; `prepare` on or off; `passThrough`: the node compacts nothing (the floor). */
export function oursAgent(context: AgentContext, prepare: boolean, passThrough = false): ReplayAgent & { policy: AutoCompaction } {
  const { replay, probe } = context;
  const model = new ThinkingReplayModel(replay, context.thinkMs, probe);
  const policy = autoCompaction({ contextWindow: context.window, summaryModel: context.summaryModel, prepare, tokenCounter: context.tokenCounter });
  const results = new WeakMap<StepSample, CompactionResult>();
  // The policy's own time, apart from the node's (the update, the record, the archive write).
  const timedPolicy = {
    strategyName: policy.strategyName,
    compact: async (messages: readonly BaseMessage[], compactionContext?: CompactionContext) => {
      const started = performance.now();
      const result = await policy.compact(messages, compactionContext);
      const step = probe.steps.at(-1)!;
      step.compactMs = performance.now() - started;
      // A no-op decided under the bound reports its exact figures through getters, computed when read.
      step.counted = result.status === "noop" && Object.getOwnPropertyDescriptor(result, "tokensBefore")?.get === undefined;
      results.set(step, result);
      return result;
    },
  };
  const node = createCompactionNode(timedPolicy);
  const timedNode = async (state: typeof ReactAgentState.State, config: LangGraphRunnableConfig) => {
    const step = probe.enter();
    if (passThrough) {
      // The floor: a node that does nothing but yield once, in the same graph, under the same load.
      await Promise.resolve();
      probe.exit(step, "noop");
      return {};
    }
    const update = await node(state, config);
    const record = update.compactionLog?.at(-1);
    probe.exit(step, record?.status ?? "noop");
    // Read after the step's time is taken: a no-op under the bound counts its new messages only when its figures are read.
    const result = results.get(step);
    if (result && (prepare || result.status !== "noop")) step.tokensBefore = result.tokensBefore;
    if (record) step.record = { tokensBefore: record.tokensBefore, tokensAfter: record.tokensAfter, ...(record.reason !== undefined ? { reason: record.reason } : {}) };
    return update;
  };
  const callModel = async (state: typeof ReactAgentState.State, config: LangGraphRunnableConfig) => ({ messages: [await model.invoke(state.messages, config)] });
  const graph = new StateGraph(ReactAgentState)
    .addNode("compact", timedNode)
    .addNode("model", callModel)
    .addNode("tools", new ToolNode(replayTools(replay)))
    .addEdge(START, "compact")
    .addEdge("compact", "model")
    .addConditionalEdges("model", route, ["tools", END])
    .addEdge("tools", "compact")
    .compile({ checkpointer: context.checkpointer, store: context.store });
  return {
    policy,
    async run() {
      for (const turn of replay.turns) await graph.invoke({ messages: turn }, configOf(probe.thread));
    },
    settled: () => policy.settled(),
  };
}

type BeforeModel = (state: { messages: BaseMessage[] }, runtime: unknown) => Promise<{ messages?: BaseMessage[] } | undefined | void>;

/**
 * LangChain: `createAgent` with `summarizationMiddleware` (trigger at 0.8 of the window, the newest
 * 20 messages kept, the shared token counter, as in `npm run eval`), its hook timed. The recording's
 * leading system message is the agent's `systemPrompt` (createAgent keeps it out of the state, and the
 * middleware would summarize it away otherwise).
 */
export function langChainAgent(context: AgentContext): ReplayAgent {
  const { replay, probe, tokenCounter } = context;
  const model = new ThinkingReplayModel(replay, context.thinkMs, probe);
  const middleware = summarizationMiddleware({
    model: context.summaryModel,
    trigger: { tokens: Math.floor(PEER_TRIGGER_FRACTION * context.window) },
    keep: { messages: PEER_KEEP_MESSAGES },
    tokenCounter: (messages: BaseMessage[]) => tokenCounter.countMessages(messages),
  });
  const beforeModel = middleware.beforeModel as unknown as BeforeModel;
  const timed: typeof middleware = {
    ...middleware,
    beforeModel: (async (state: { messages: BaseMessage[] }, runtime: unknown) => {
      const step = probe.enter();
      const update = await beforeModel(state, runtime);
      probe.exit(step, update?.messages ? "summarized" : "noop");
      return update;
    }) as unknown as typeof middleware.beforeModel,
  };
  const first = replay.turns[0]?.[0];
  const systemPrompt = first?.type === "system" ? messageText(first) : undefined;
  const turns = replay.turns.map((turn, index) => (index === 0 && systemPrompt !== undefined ? turn.slice(1) : turn));
  const agent = createAgent({
    model,
    tools: replayTools(replay),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    middleware: [timed],
    checkpointer: context.checkpointer,
    store: context.store,
  });
  return {
    async run() {
      for (const turn of turns) await agent.invoke({ messages: turn }, configOf(probe.thread));
    },
    settled: async () => {},
  };
}

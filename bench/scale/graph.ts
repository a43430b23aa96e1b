/**
 * The graph the scale benchmark and the fault tests run: a ReAct loop replaying a recorded session,
 * START → compact → model → (tools → compact → model)* → END, with the compaction node
 * (`createCompactionNode(autoCompaction(...))`, offline no-model summarizer) timed from the inside and
 * the model node checking tool pairing of exactly what it sends. Without compaction the same graph
 * has no compact node (START → model), for the throughput and storage baselines.
 */
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { performance } from "node:perf_hooks";
import { autoCompaction, createCompactionNode, validateToolPairing, type CompactionNodeOptions, type TokenCounter } from "../../src/index.js";
import { ReplayChatModel, replayTools, type ReplaySession } from "../../examples/replay/index.js";
import { ReactAgentState } from "../../examples/react-agent.js";

/** The state of the scale graph: `messages` and the compaction channels. */
export const ScaleState = ReactAgentState;
export type ScaleStateValues = typeof ScaleState.State;

/** What the graph reports while it runs (all optional). */
export interface ScaleGraphHooks {
  /** Time spent inside the compaction node, in ms, once per node run, and whether it compacted (returned an update). */
  onCompactionNode?: (ms: number, threadId: string, compacted: boolean) => void;
  /** Once per model call, before the reply: the thread, the number of messages sent and the pairing problems found in them. */
  onModelCall?: (call: { threadId: string; messages: number; pairingProblems: number; lastMessageId: string | undefined }) => void | Promise<void>;
}

/** Options of {@link buildScaleGraph}. */
export interface ScaleGraphOptions {
  readonly replay: ReplaySession;
  readonly checkpointer: BaseCheckpointSaver;
  /** The graph's store; with one, the compaction node archives originals there. */
  readonly store?: BaseStore | undefined;
  /** Context window for autoCompaction; `undefined`: no compaction node at all (the baseline). */
  readonly window: number | undefined;
  /** Shared token counter (its per-message cache is per process). */
  readonly tokenCounter: TokenCounter;
  readonly hooks?: ScaleGraphHooks;
  /** Options of the compaction node. @default its defaults */
  readonly compactionOptions?: CompactionNodeOptions;
}

function threadOf(config: LangGraphRunnableConfig | undefined): string {
  return String(config?.configurable?.["thread_id"] ?? "");
}

/**
 * Build the replay graph for one recorded session (the scripted model and the recorded tools are
 * the session's; any number of threads may run that session through the same compiled graph).
 */
export function buildScaleGraph(options: ScaleGraphOptions) {
  const { replay, hooks } = options;
  const model = new ReplayChatModel(replay);
  const tools = replayTools(replay);
  const callModel = async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
    const messages: BaseMessage[] = state.messages;
    await hooks?.onModelCall?.({
      threadId: threadOf(config),
      messages: messages.length,
      pairingProblems: validateToolPairing(messages).length,
      lastMessageId: messages.at(-1)?.id,
    });
    return { messages: [await model.invoke(messages, config)] };
  };
  const route = (state: ScaleStateValues) => (((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ?? 0) > 0 ? "tools" : END);
  const graph = new StateGraph(ScaleState).addNode("model", callModel).addNode("tools", new ToolNode(tools));
  const compile = { checkpointer: options.checkpointer, ...(options.store ? { store: options.store } : {}) };
  if (options.window === undefined) {
    return graph.addEdge(START, "model").addConditionalEdges("model", route, ["tools", END]).addEdge("tools", "model").compile(compile);
  }
  const node = createCompactionNode(autoCompaction({ contextWindow: options.window, tokenCounter: options.tokenCounter }), options.compactionOptions);
  const timedNode = async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
    const started = performance.now();
    const update = await node(state, config);
    hooks?.onCompactionNode?.(performance.now() - started, threadOf(config), update.compactionLog !== undefined);
    return update;
  };
  return graph
    .addNode("compact", timedNode)
    .addEdge(START, "compact")
    .addEdge("compact", "model")
    .addConditionalEdges("model", route, ["tools", END])
    .addEdge("tools", "compact")
    .compile(compile);
}

export type ScaleGraph = ReturnType<typeof buildScaleGraph>;

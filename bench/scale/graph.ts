/**
 * The graph the scale benchmark and the fault tests run: a ReAct loop replaying a recorded session,
 * START → compact → model → (tools → compact → model)* → END, with the compaction node
 * (`createCompactionNode(autoCompaction(...))`, offline no-model summarizer) timed from the inside
 * (wall time, the process's CPU time, and the part spent in the compactor's `compact()`) and the
 * model node checking tool pairing of exactly what it sends. Without compaction the same graph
 * has no compact node (START → model), for the throughput and storage baselines. With `inModel`
 * the compaction runs inside the model node (`compactingNode`, START → model ⇄ tools), timed from
 * the start of the model node to the model call. Every graph reports the wait between the end of
 * the tools node and the start of the model node.
 */
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { performance } from "node:perf_hooks";
import { autoCompaction, compactingNode, createCompactionNode, validateToolPairing, type CompactionNodeOptions, type Compactor, type TokenCounter } from "../../src/index.js";
import { settledValue } from "../../src/strategies/settled-promise.js";
import { passThroughResult, summaryModelOf } from "./compactors.js";
import { ReplayChatModel, replayTools, type ReplaySession } from "../../examples/replay/index.js";
import { ReactAgentState } from "../../examples/react-agent.js";

/** The state of the scale graph: `messages` and the compaction channels. */
export const ScaleState = ReactAgentState;
export type ScaleStateValues = typeof ScaleState.State;

/** One run of the compaction node, as timed from the inside. */
export interface NodeRun {
  /** Wall time inside the node, ms: what the target is about. */
  readonly wallMs: number;
  /**
   * CPU time of the whole process (user + system) while the node ran, ms: the node's own work plus
   * whatever other unit of work of the process ran in its awaits, without the time the process
   * waited for a CPU or for the database.
   */
  readonly cpuMs: number;
  /** Wall time inside the compactor's `compact()`; the rest of `wallMs` is the graph adapter (checks, update, archive write). */
  readonly compactorMs: number;
  /** Whether it compacted (or logged a failure): it returned an update. */
  readonly compacted: boolean;
  /**
   * Whether the compaction was decided without an await: the node's promise was already resolved
   * (`createCompactionNode`), or the model was called before the model node's function returned
   * (in the model node). Its wall time is then the node's own work and the waits for a CPU.
   */
  readonly atOnce: boolean;
}

/** What the graph reports while it runs (all optional). */
export interface ScaleGraphHooks {
  /** Once per run of the compaction node. */
  onCompactionNode?: (run: NodeRun, threadId: string) => void;
  /**
   * Once per model call that follows a tool call: the time from the end of the tools node to the
   * model call (the start of the model node; with `inModel`, after the compaction in it), ms. It
   * holds whatever runs between them (LangGraph's own work, the
   * compaction node if there is one, and the previous checkpoint's write, which LangGraph's default
   * `durability: "async"` runs alongside the next step): what the agent waits for between a tool
   * result and the model call that reads it, with and without the node.
   */
  onModelWait?: (ms: number, threadId: string) => void;
  /**
   * Once per model call after the first of a unit: the time since the thread's previous model call,
   * ms. The replayed model and tools take no time, so it is a whole step's overhead: the tools node,
   * the checkpoints and the compaction, wherever LangGraph runs them.
   */
  onModelInterval?: (ms: number, threadId: string) => void;
  /**
   * Once per model call that follows a tool call: the time from the end of the tools node to the end
   * of the model node, the model call's own delay (`modelMs`) left out, ms, and whether the step
   * compacted. It holds the compaction wherever it runs, the model node and whatever the node waits
   * for after the model call (`compactingNode`'s archive write), so both placements are timed alike.
   */
  onModelTurnaround?: (ms: number, threadId: string, compacted: boolean) => void;
  /** Once per model call, before the reply: the thread, the number of messages sent and the pairing problems found in them. */
  onModelCall?: (call: { threadId: string; messages: number; pairingProblems: number; lastMessageId: string | undefined }) => void | Promise<void>;
}

/** Options of {@link buildScaleGraph}. */
export interface ScaleGraphOptions {
  readonly replay: ReplaySession;
  readonly checkpointer: BaseCheckpointSaver;
  /** The graph's store; with one, the compaction node archives originals there. */
  readonly store?: BaseStore | undefined;
  /**
   * Context window for autoCompaction; `undefined`: no compaction node at all (the baseline);
   * {@link PASS_THROUGH}: a node that returns no update in its place, timed the same way (the floor
   * any node before the model meets in this process and on this database).
   */
  readonly window: number | undefined;
  /** Shared token counter (its per-message cache is per process). */
  readonly tokenCounter: TokenCounter;
  readonly hooks?: ScaleGraphHooks;
  /** Options of the compaction node. @default its defaults */
  readonly compactionOptions?: CompactionNodeOptions;
  /**
   * Compact inside the model node (`compactingNode(callModel, ...)`: START → model ⇄ tools, one
   * step and one checkpoint per model call) instead of in a node of its own before it. Timed the
   * same way. @default false
   */
  readonly inModel?: boolean;
  /**
   * How long each model call takes, ms: the replayed model answers after this delay, as a hosted
   * model answers after its own. Work left to after a step (LangGraph's checkpoint writes,
   * autoCompaction's) then runs while the model is called, as in a deployment; the step times
   * reported leave the delay out. @default 0 (the model answers at once)
   */
  readonly modelMs?: number;
}

/** The `window` of a run with a pass-through node in the compaction node's place. */
export const PASS_THROUGH = 0;

function threadOf(config: LangGraphRunnableConfig | undefined): string {
  return String(config?.configurable?.["thread_id"] ?? "");
}

/**
 * Build the replay graph for one recorded session (the scripted model and the recorded tools are
 * the session's; any number of threads may run that session through the same compiled graph).
 */
export function buildScaleGraph(options: ScaleGraphOptions) {
  const { replay, hooks } = options;
  const modelMs = options.modelMs ?? 0;
  const model = new ReplayChatModel(replay);
  const tools = replayTools(replay);
  // When each thread's tools node last ended (a thread runs one node at a time; the process runs several threads).
  const toolsEnded = new Map<string, number>();
  // The same, kept until the model node ends (the turnaround), and whether the step's compaction changed anything.
  const turnFrom = new Map<string, number>();
  const stepCompacted = new Map<string, boolean>();
  /** The model node of a thread's step has ended: report its turnaround, if the step followed a tool call. */
  const endTurn = (thread: string) => {
    const from = turnFrom.get(thread);
    turnFrom.delete(thread);
    const compacted = stepCompacted.get(thread) ?? false;
    stepCompacted.delete(thread);
    if (from !== undefined) hooks?.onModelTurnaround?.(performance.now() - from - modelMs, thread, compacted);
  };
  /** `node` as the model node: the same, and its end timed (see endTurn). */
  const turnTimed =
    <Node extends (state: ScaleStateValues, config: LangGraphRunnableConfig) => Promise<unknown>>(node: Node) =>
    async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
      const output = await node(state, config);
      endTurn(threadOf(config));
      return output as Awaited<ReturnType<Node>>;
    };
  // When each thread's model was last called, in this unit.
  const lastCall = new Map<string, number>();
  const callModel = async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
    const thread = threadOf(config);
    const now = performance.now();
    const previous = lastCall.get(thread);
    lastCall.set(thread, now);
    if (previous !== undefined) hooks?.onModelInterval?.(now - previous - modelMs, thread);
    const ended = toolsEnded.get(thread);
    if (ended !== undefined) {
      toolsEnded.delete(thread);
      hooks?.onModelWait?.(now - ended, thread);
    }
    const messages: BaseMessage[] = state.messages;
    await hooks?.onModelCall?.({
      threadId: thread,
      messages: messages.length,
      pairingProblems: validateToolPairing(messages).length,
      lastMessageId: messages.at(-1)?.id,
    });
    if (modelMs > 0) await new Promise((resolve) => setTimeout(resolve, modelMs));
    return { messages: [await model.invoke(messages, config)] };
  };
  const route = (state: ScaleStateValues) => (((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ?? 0) > 0 ? "tools" : END);
  // A unit that failed after its tools node leaves the time behind: the next unit forgets it (see forgetWait).
  const withWaits = <Compiled extends object>(compiled: Compiled) => Object.assign(compiled, {
      forgetWait: (threadId: string) => {
        toolsEnded.delete(threadId);
        turnFrom.delete(threadId);
        stepCompacted.delete(threadId);
        lastCall.delete(threadId);
      },
    });
  const toolNode = new ToolNode(tools);
  const callTools = async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
    const update: unknown = await toolNode.invoke(state, config);
    const ended = performance.now();
    toolsEnded.set(threadOf(config), ended);
    turnFrom.set(threadOf(config), ended);
    return update as Partial<ScaleStateValues>;
  };
  const graph = new StateGraph(ScaleState).addNode("model", turnTimed(callModel)).addNode("tools", callTools);
  const compile = { checkpointer: options.checkpointer, ...(options.store ? { store: options.store } : {}) };
  if (options.window === undefined) {
    return withWaits(graph.addEdge(START, "model").addConditionalEdges("model", route, ["tools", END]).addEdge("tools", "model").compile(compile));
  }
  const compactor: Compactor =
    options.window === PASS_THROUGH
      ? { compact: async (messages) => passThroughResult(messages) }
      : autoCompaction({ contextWindow: options.window, tokenCounter: options.tokenCounter, ...summaryModelOf(options.tokenCounter) });
  // Time in compact(), by thread (a thread runs one node at a time; the process runs several threads).
  const compactorMs = new Map<string, number>();
  // The status of each thread's last compaction (for the in-model run, whose node cannot see the update).
  const lastStatus = new Map<string, string>();
  const timedCompactor: Compactor = {
    compact(messages, context) {
      const started = performance.now();
      const thread = context?.threadId ?? "";
      const done = (status: string | undefined) => {
        if (status !== undefined) lastStatus.set(thread, status);
        compactorMs.set(thread, (compactorMs.get(thread) ?? 0) + performance.now() - started);
      };
      const compacting = compactor.compact(messages, context);
      // A run decided at once is handed on as it is, so the adapters can go on without an await.
      const decided = settledValue(compacting);
      if (decided) {
        done(decided.value.status);
        return compacting;
      }
      return compacting.then(
        (result) => {
          done(result.status);
          return result;
        },
        (error: unknown) => {
          done(undefined);
          throw error;
        },
      );
    },
  };
  // One run of the compaction, timed from `begin` to `end`: wall time, the process's CPU, the part in compact().
  const begin = (thread: string) => {
    compactorMs.delete(thread);
    lastStatus.delete(thread);
    return { at: performance.now(), cpu: process.cpuUsage() };
  };
  const end = (thread: string, start: ReturnType<typeof begin>, compacted: boolean, atOnce: boolean) => {
    const wallMs = performance.now() - start.at;
    const used = process.cpuUsage(start.cpu);
    stepCompacted.set(thread, compacted);
    hooks?.onCompactionNode?.({ wallMs, cpuMs: (used.user + used.system) / 1000, compactorMs: compactorMs.get(thread) ?? 0, compacted, atOnce }, thread);
    compactorMs.delete(thread);
    lastStatus.delete(thread);
  };
  const compactionNode = createCompactionNode(timedCompactor, options.compactionOptions);
  // The floor: one await, no update (the compactor's no-op, without the adapter's work).
  // SCALE_FLOOR_AWAITS more awaits of a settled promise (bench/README: what lands in a node's awaits).
  const floorAwaits = Number(process.env["SCALE_FLOOR_AWAITS"] ?? 0);
  const passThroughNode = async (state: ScaleStateValues, config: LangGraphRunnableConfig): Promise<{ compactionLog?: unknown }> => {
    await timedCompactor.compact(state.messages, { threadId: threadOf(config) });
    for (let index = 0; index < floorAwaits; index++) await undefined;
    return {};
  };
  // Chosen once: the compaction node is called as it is, without a wrapper of its own.
  const node: (state: ScaleStateValues, config: LangGraphRunnableConfig) => Promise<{ compactionLog?: unknown }> = options.window === PASS_THROUGH ? passThroughNode : compactionNode;
  const timedNode = async (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
    const thread = threadOf(config);
    const start = begin(thread);
    const pending = node(state, config);
    const atOnce = settledValue(pending) !== undefined;
    const update = await pending;
    end(thread, start, update.compactionLog !== undefined, atOnce);
    return update;
  };
  if (options.inModel && options.window !== PASS_THROUGH) {
    // Timed from the start of the model node to the call of the model: the compaction's part of it.
    const begun = new Map<string, { start: ReturnType<typeof begin>; messages: unknown }>();
    // The threads whose model node's function is running its synchronous part.
    const inCall = new Set<string>();
    const afterCompaction = (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
      const thread = threadOf(config);
      const { start, messages } = begun.get(thread)!;
      begun.delete(thread);
      // As the separate node's: a compaction, a failure or a repair (compactingNode hands the model a new list only when the messages changed).
      end(thread, start, (lastStatus.get(thread) ?? "noop") !== "noop" || state.messages !== messages, inCall.has(thread));
      return callModel(state, config);
    };
    const inModel = compactingNode(afterCompaction, timedCompactor, options.compactionOptions);
    const modelNode = (state: ScaleStateValues, config: LangGraphRunnableConfig) => {
      const thread = threadOf(config);
      begun.set(thread, { start: begin(thread), messages: state.messages });
      inCall.add(thread);
      try {
        return inModel(state, config);
      } finally {
        inCall.delete(thread);
      }
    };
    return withWaits(
      new StateGraph(ScaleState)
        .addNode("model", turnTimed(modelNode))
        .addNode("tools", callTools)
        .addEdge(START, "model")
        .addConditionalEdges("model", route, ["tools", END])
        .addEdge("tools", "model")
        .compile(compile),
    );
  }
  return withWaits(
    graph
      .addNode("compact", timedNode)
      .addEdge(START, "compact")
      .addEdge("compact", "model")
      .addConditionalEdges("model", route, ["tools", END])
      .addEdge("tools", "compact")
      .compile(compile),
  );
}

export type ScaleGraph = ReturnType<typeof buildScaleGraph>;

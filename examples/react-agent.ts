/**
 * A ReAct agent graph (model node, ToolNode, and a compaction node before the model) persisted with a
 * checkpointer, replaying a real recorded session offline. With OPENAI_API_KEY set, the model is
 * ChatOpenAI instead (the tools still answer with the recorded results).
 *
 *   npx tsx examples/react-agent.ts                         # replay the bundled SWE-bench session
 *   npx tsx examples/react-agent.ts --session tau-bench-airline/task2-trial1 --window 4000
 *   npx tsx examples/react-agent.ts --thread <id>           # reopen a thread from the SQLite file
 *
 * The state (the compacted messages, the compaction log and the archive of what left the context)
 * is checkpointed to a SQLite file; run it again with the printed `--thread` and a new process
 * resumes the thread from that file and restores its full history.
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  Annotation,
  END,
  MessagesAnnotation,
  START,
  StateGraph,
  type BaseCheckpointSaver,
  type BaseStore,
  type LangGraphRunnableConfig,
} from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  CompactionState,
  autoCompaction,
  createCompactionNode,
  restoreHistory,
  type CompactionNodeOptions,
  type Compactor,
  type TokenCounter,
} from "../src/index.js";
import { ContextMeter, ReplayChatModel, ReplaySession, replayTools } from "./replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "./traces.js";

/** Where the examples keep their SQLite checkpoints unless told otherwise. */
export const DEFAULT_SQLITE_PATH = join(tmpdir(), "langchain-compaction-examples", "react-agent.sqlite");

/** Options of {@link buildReactAgent}. */
export interface ReactAgentOptions {
  /** The model; tools are bound to it with `bindTools`. */
  readonly model: BaseChatModel;
  readonly tools: readonly StructuredToolInterface[];
  /** Runs in the compaction node before every model call. Without it the graph has no compaction node. */
  readonly compaction?: Compactor;
  /** Options of the compaction node (where the archive goes, what a failure does). */
  readonly compactionOptions?: CompactionNodeOptions;
  /** Persists the thread. @default a SqliteSaver on {@link DEFAULT_SQLITE_PATH} */
  readonly checkpointer?: BaseCheckpointSaver;
  /**
   * The LangGraph store. With one, the compaction node archives the originals there (per thread);
   * without, in the checkpointed `compactionArchive` channel. @default none
   */
  readonly store?: BaseStore;
  /** Called with exactly the messages of each model call, before the call (e.g. a ContextMeter). */
  readonly observe?: (messages: readonly BaseMessage[]) => unknown;
  /**
   * Stop before these nodes; `invoke(null, config)` (by this process or another) goes on from the
   * checkpoint. The tests use it to hand a thread from one worker to another at every step.
   * @default []
   */
  readonly interruptBefore?: readonly ("compact" | "model" | "tools")[];
}

/** The graph's state: the messages and the compaction channels (`compactionLog`, `compactionArchive`). */
export const ReactAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  ...CompactionState.spec,
});

/**
 * A SQLite checkpointer on a file, creating its directory. The file is put in WAL mode: a checkpoint
 * is committed at every step, and WAL appends each commit to a log instead of journaling and
 * rewriting pages of the database file (it also lets another process read while a run writes).
 *
 * @example
 * const agent = buildReactAgent({ model, tools, compaction, checkpointer: sqliteCheckpointer("./agent.sqlite") });
 */
export function sqliteCheckpointer(path: string = DEFAULT_SQLITE_PATH): SqliteSaver {
  mkdirSync(dirname(path), { recursive: true });
  const saver = SqliteSaver.fromConnString(path);
  saver.db.pragma("journal_mode = WAL");
  return saver;
}

/**
 * Build the ReAct graph: START → compact → model → (tools → compact → model)* → END. The compaction
 * node rewrites the persisted history when the strategy compacts, so the model node sends the
 * compacted history and the checkpoint holds it.
 *
 * @example
 * const replay = new ReplaySession(session);
 * const agent = buildReactAgent({ model: new ReplayChatModel(replay), tools: replayTools(replay), compaction });
 * for (const input of replay.turns) await agent.invoke({ messages: input }, { configurable: { thread_id: "t1" } });
 */
export function buildReactAgent(options: ReactAgentOptions) {
  const { model, tools, compaction, observe } = options;
  const boundModel = model.bindTools ? model.bindTools([...tools]) : model;
  const callModel = async (state: typeof ReactAgentState.State, config: LangGraphRunnableConfig) => {
    await observe?.(state.messages);
    const reply = await boundModel.invoke(state.messages, config);
    return { messages: [reply] };
  };
  const route = (state: typeof ReactAgentState.State) => (((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ?? 0) > 0 ? "tools" : END);
  const graph = new StateGraph(ReactAgentState).addNode("model", callModel).addNode("tools", new ToolNode([...tools]));
  const compileOptions = {
    checkpointer: options.checkpointer ?? sqliteCheckpointer(),
    ...(options.store ? { store: options.store } : {}),
    ...(options.interruptBefore ? { interruptBefore: [...options.interruptBefore] } : {}),
  };
  if (!compaction) {
    return graph
      .addEdge(START, "model")
      .addConditionalEdges("model", route, ["tools", END])
      .addEdge("tools", "model")
      .compile(compileOptions as typeof compileOptions & { interruptBefore?: ("model" | "tools")[] });
  }
  return graph
    .addNode("compact", createCompactionNode(compaction, options.compactionOptions))
    .addEdge(START, "compact")
    .addEdge("compact", "model")
    .addConditionalEdges("model", route, ["tools", END])
    .addEdge("tools", "compact")
    .compile(compileOptions as typeof compileOptions & { interruptBefore?: ("compact" | "model" | "tools")[] });
}

/**
 * The compaction the examples use for a context window of `window` tokens: `autoCompaction`, which
 * summarizes all but the newest messages at 80% of the window and truncates to the window if that is
 * not enough. Without a summary model it uses the deterministic no-model summarizer (offline); with
 * one (e.g. the agent's ChatOpenAI) the summary is the model's.
 *
 * @example
 * const compaction = exampleCompaction(8_000); // offline
 * const live = exampleCompaction(128_000, { summaryModel: new ChatOpenAI({ model: "gpt-4o-mini" }) });
 */
export function exampleCompaction(window: number, options: { tokenCounter?: TokenCounter; summaryModel?: BaseChatModel } = {}): Compactor {
  return autoCompaction({
    contextWindow: window,
    ...(options.tokenCounter ? { tokenCounter: options.tokenCounter } : {}),
    ...(options.summaryModel ? { summaryModel: options.summaryModel } : {}),
  });
}

/** Where {@link exampleModel} finds a live model. */
export interface LiveModelSettings {
  /** @default process.env.OPENAI_API_KEY */
  readonly apiKey?: string | undefined;
  /** An OpenAI-compatible endpoint. @default process.env.OPENAI_BASE_URL, else OpenAI's */
  readonly baseURL?: string | undefined;
  /** @default process.env.OPENAI_MODEL, else "gpt-4o-mini" */
  readonly model?: string | undefined;
}

/**
 * The examples' model: `ChatOpenAI` when an API key is set (it also writes the summaries), else the
 * session's replay (and the offline no-model summarizer).
 *
 * @example
 * const { model, summaryModel } = await exampleModel(replay); // summaryModel: undefined offline
 */
export async function exampleModel(
  replay: ReplaySession,
  settings: LiveModelSettings = { apiKey: process.env["OPENAI_API_KEY"], baseURL: process.env["OPENAI_BASE_URL"], model: process.env["OPENAI_MODEL"] },
): Promise<{ model: BaseChatModel; summaryModel: BaseChatModel | undefined }> {
  if (!settings.apiKey) return { model: new ReplayChatModel(replay), summaryModel: undefined };
  // Loaded only here: @langchain/openai is an optional peer dependency.
  const { ChatOpenAI } = await import("@langchain/openai");
  const live = new ChatOpenAI({
    model: settings.model ?? "gpt-4o-mini",
    apiKey: settings.apiKey,
    ...(settings.baseURL ? { configuration: { baseURL: settings.baseURL } } : {}),
  });
  return { model: live, summaryModel: live };
}

async function main(): Promise<void> {
  const flag = (name: string) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const sessions = loadTraceSessions(BUNDLED_TRACES_PATH);
  const wanted = flag("--session") ?? sessions[0]!.id;
  const session = sessions.find((each) => each.id === wanted);
  if (!session) throw new Error(`no session ${wanted} in ${BUNDLED_TRACES_PATH}; there are: ${sessions.map((each) => each.id).join(", ")}`);
  const window = Number(flag("--window") ?? 8_000);
  const path = flag("--sqlite") ?? DEFAULT_SQLITE_PATH;
  const threadId = flag("--thread") ?? `${session.id}@${Date.now()}`;
  const replay = new ReplaySession(session);
  const tools = replayTools(replay);
  const { model, summaryModel } = await exampleModel(replay);
  // A live model drives its own loop: give it the task, not the recorded user's later turns.
  const turns = summaryModel ? replay.turns.slice(0, 1) : replay.turns;
  const meter = new ContextMeter();
  const checkpointer = sqliteCheckpointer(path);
  const agent = buildReactAgent({ model, tools, compaction: exampleCompaction(window, summaryModel ? { summaryModel } : {}), checkpointer, observe: (messages) => meter.record(messages) });
  const config = { configurable: { thread_id: threadId }, recursionLimit: 1_000 };
  const stored = (await agent.getState(config)).values as Partial<typeof ReactAgentState.State>;
  const resuming = (stored.messages?.length ?? 0) > 0;
  if (!resuming) {
    for (const input of turns) await agent.invoke({ messages: input }, config);
    console.log(`${session.id}: ${meter.modelCalls} model calls, ${meter.inputTokens} input tokens, peak context ${meter.peakContext} (window ${window})`);
  }
  const state = (await agent.getState(config)).values as typeof ReactAgentState.State;
  const full = await restoreHistory(state);
  console.log(
    `thread ${threadId}${resuming ? " (resumed from the file)" : ""}: ${state.messages.length} messages in context, ` +
      `${state.compactionLog.length} compactions in the log, ${full.length} messages in the restored history`,
  );
  console.log(`SQLite checkpoint: ${path}${resuming ? "" : ` (reopen with: npx tsx examples/react-agent.ts --thread '${threadId}')`}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

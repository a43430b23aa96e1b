import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { parseOptions } from "../options.js";
import { CheckedHistories } from "./checked-histories.js";
import { threadIdOf } from "./compaction-archive.js";
import {
  assertCompactor,
  graphCompactionOptionsShape,
  runGraphCompaction,
  type CompactionStateUpdate,
  type GraphCompactionOptions,
} from "./run-compaction.js";

/** Options of {@link createCompactionNode}. */
export type CompactionNodeOptions = GraphCompactionOptions;

/**
 * The state a compaction node reads: `messages`, and the {@link CompactionState} channels, which must
 * exist in the graph (their content is not read).
 */
export interface CompactionNodeInput {
  messages: BaseMessage[];
  compactionLog?: unknown;
  compactionArchive?: unknown;
  compactionSummary?: unknown;
}

/** What a compaction node returns: the minimal update of `messages`, the log record and (without a store) the archive. */
export type CompactionNodeUpdate = CompactionStateUpdate;

/** A LangGraph node function that compacts the state's `messages`. */
export type CompactionNode = (state: CompactionNodeInput, config?: LangGraphRunnableConfig) => Promise<CompactionNodeUpdate>;

const optionsSchema = z.object(graphCompactionOptionsShape).strict();

/**
 * A LangGraph node that compacts the graph's `messages` with `compactor` (any strategy or policy of
 * this package). Put it before the model node, e.g. on the edges into the model of a ReAct loop.
 *
 * The state must have a `messages` channel reduced by LangGraph's messages reducer
 * (`MessagesAnnotation`, `MessagesZodState`, `MessagesValue`) and the {@link CompactionState}
 * channels (`compactionLog`, `compactionArchive`). The node returns the minimal update: rewritten
 * messages under their own id (replaced in place), removed ones as `RemoveMessage(id)`, a summary
 * under the id of one of the messages it replaces (the newest assistant message, so an app that edits
 * the user's message or redacts a tool result does not overwrite it; it stays in position), and
 * `RemoveMessage(REMOVE_ALL_MESSAGES)` plus the whole history only when nothing else can express the
 * result (a compactor that reordered messages, or a history without unique ids, which first gets ids).
 * Each compaction appends a record to `compactionLog` and archives the originals that left the
 * context (see the `archive` option) so {@link restoreHistory} can give back the full history.
 * A no-op returns no update at all; one decided without counting (see `CompactionStrategy.compact`)
 * returns a promise already resolved, so the node adds a single microtask turn to the step.
 *
 * The node's config is passed to the compactor, so summary calls nest under the node in traces, and
 * its abort signal stops the compactor.
 *
 * A history whose tool calls and results do not pair up as ChatOpenAI and ChatAnthropic require is
 * repaired first (option `invalidHistory`, default `"repair"`): the compactor gets the repaired
 * history, the state gets it even when the compactor has nothing to do or throws (a `"repaired"`
 * record), and what the repair dropped, rewrote or moved is archived, so the model never gets a
 * history its provider would reject and {@link restoreHistory} still gives the history as stored.
 * When results had to be moved next to their calls, the update replaces the whole history (the
 * reducer cannot move a message by id). The calls of a last assistant message are left as they are:
 * they are pending, not broken (the node may run between the model and the tools).
 *
 * When the compactor throws (e.g. a summary model that is down, or, with `invalidHistory: "leave"`,
 * an `InvalidHistoryError` for broken pairing), by default the messages are left as they are (only
 * repaired, see above), a `failed` record with the reason is logged (`repaired` when the history
 * was repaired) and the graph goes on; `onError: "throw"`
 * fails the step instead.
 *
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
 * const graph = new StateGraph(State)
 *   .addNode("compact", createCompactionNode(toolResultHiding({ keepRecentGroups: 3 })))
 *   .addNode("model", callModel)
 *   .addNode("tools", new ToolNode(tools))
 *   .addEdge(START, "compact")
 *   .addEdge("compact", "model")
 *   .addConditionalEdges("model", toolsCondition, ["tools", END])
 *   .addEdge("tools", "compact")
 *   .compile({ checkpointer, store });
 * @throws {InvalidOptionError} at construction, for an invalid option or a compactor without `compact()`.
 * The node itself throws {@link CompactionArchiveError} when the state lacks the compaction channels
 * (`compactionLog`, and `compactionArchive` when archiving in the state) or with `archive: "store"` and
 * no store or thread id,
 * `InvalidHistoryError` when `messages` is not an array, and the compactor's error with `onError: "throw"`.
 */
export function createCompactionNode(compactor: Compactor, options: CompactionNodeOptions = {}): CompactionNode {
  const run = compactionNodeRun("createCompactionNode", compactor, options);
  return function compactionNode(state: CompactionNodeInput, config?: LangGraphRunnableConfig): Promise<CompactionNodeUpdate> {
    return run(state, config);
  };
}

/**
 * The compaction node's step, which also hands `onHistory` the history its update leaves when it
 * changes `messages`, and, given `deferArchive`, hands it the store's archive write instead of waiting
 * for it (for `compactingNode`, which runs the model on that history meanwhile). @internal
 */
export function compactionNodeRun(
  component: string,
  compactor: Compactor,
  options: CompactionNodeOptions,
): (
  state: CompactionNodeInput,
  config?: LangGraphRunnableConfig,
  onHistory?: (history: BaseMessage[]) => void,
  deferArchive?: (written: Promise<CompactionNodeUpdate | undefined>) => void,
) => Promise<CompactionNodeUpdate> {
  assertCompactor(component, compactor);
  const parsed = parseOptions(component, optionsSchema, options);
  const checked = new CheckedHistories();
  // Not async itself: the step's promise is runGraphCompaction's (an extra async layer would add turns in which other work runs first).
  return (state, config, onHistory, deferArchive) =>
    runGraphCompaction({
      component,
      compactor,
      messages: state?.messages,
      options: parsed,
      config,
      signal: config?.signal,
      store: config?.store,
      threadId: threadIdOf(config?.configurable),
      log: state?.compactionLog,
      channels: { log: "compactionLog" in (state ?? {}), archive: "compactionArchive" in (state ?? {}) },
      keepPendingCalls: true,
      checked,
      // A summary the app overwrites is logged and written back (the model reads the state this step writes).
      summaries: state?.compactionSummary,
      writeBack: true,
      onHistory,
      deferArchive,
    });
}

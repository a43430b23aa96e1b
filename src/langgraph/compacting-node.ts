import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES, messagesStateReducer, type LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { CompactionError, InvalidOptionError } from "../errors.js";
import { createCompactionNode, type CompactionNodeInput, type CompactionNodeOptions, type CompactionNodeUpdate } from "./compaction-node.js";

/**
 * The node {@link compactingNode} wraps returned an update the compaction's own update cannot be
 * added to: not an object, a `Command` for another graph or with a list `update`, or an update that
 * writes the compaction's channels itself. The step fails; nothing is written.
 */
export class CompactingNodeError extends CompactionError {
  constructor(message: string) {
    super(message);
    this.name = "CompactingNodeError";
  }

  static override isInstance(error: unknown): error is CompactingNodeError {
    return CompactionError.isInstance(error) && error.name === "CompactingNodeError";
  }
}

/** Options of {@link compactingNode}: those of {@link createCompactionNode}. */
export type CompactingNodeOptions = CompactionNodeOptions;

/** The node {@link compactingNode} wraps: a LangGraph node function that returns a state update (or nothing). */
export type WrappedNode<State extends CompactionNodeInput, Update> = (state: State, config: LangGraphRunnableConfig) => Update | Promise<Update>;

/**
 * `node` (usually the model node) with compaction in front of it, in the same graph step: the node
 * compacts the state's `messages` as {@link createCompactionNode} does, runs `node` on the compacted
 * state, and returns one update: the compaction's messages update followed by `node`'s messages (so
 * LangGraph's messages reducer applies both in order), the compaction's `compactionLog` record and,
 * without a store, its `compactionArchive` entry, and the rest of `node`'s update as it is.
 *
 * Why: every node is a step of its own, and each step ends with a checkpoint. A separate compaction
 * node before the model adds a checkpoint per model call; with a checkpointer that writes the whole
 * state into every checkpoint (`SqliteSaver`, `MemorySaver`), that write costs more than the
 * compaction itself. In one step there is no extra checkpoint.
 *
 * The compaction behaves exactly as the node's: same options, a broken history repaired first, a
 * failing compactor logged as `failed` and `node` run on the history as it was (`onError: "throw"`
 * fails the step instead, and `node` does not run). When nothing is compacted, `node`'s update is
 * returned as it is. `node` gets the same config (store, signal, thread id). The state is never
 * mutated: `node` gets a copy with the compacted `messages`.
 *
 * `node` may return a plain update object, `undefined`, or a `Command` for this graph whose
 * `update` is an object (its `goto` and `resume` are kept); its `messages` may be one message or an
 * array.
 *
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
 * const graph = new StateGraph(State)
 *   .addNode("model", compactingNode(callModel, autoCompaction({ contextWindow: 128_000 })))
 *   .addNode("tools", new ToolNode(tools))
 *   .addEdge(START, "model")
 *   .addConditionalEdges("model", toolsCondition, ["tools", END])
 *   .addEdge("tools", "model")
 *   .compile({ checkpointer, store });
 * @throws {InvalidOptionError} at construction, for an invalid option, a compactor without
 * `compact()` or a `node` that is not a function.
 * @throws {CompactingNodeError} when run, when `node` returns something other than an object,
 * `undefined` or a `Command` for this graph with an object `update`, or an update that writes
 * `compactionLog` or `compactionArchive` itself while the compaction writes them too.
 * Otherwise what {@link createCompactionNode}'s node and `node` throw.
 */
export function compactingNode<State extends CompactionNodeInput, Update extends object | undefined | void>(
  node: WrappedNode<State, Update>,
  compactor: Compactor,
  options: CompactingNodeOptions = {},
): (state: State, config?: LangGraphRunnableConfig) => Promise<Update | CompactionNodeUpdate | Command> {
  if (typeof node !== "function") throw new InvalidOptionError("compactingNode", "node", `must be a node function (got ${node === null ? "null" : typeof node})`);
  const compaction = createCompactionNode(compactor, options);
  return async function compactingNodeRun(state: State, config: LangGraphRunnableConfig = {}) {
    const compacted = await compaction(state, config);
    const delta = compacted.messages ?? [];
    const input = delta.length > 0 ? ({ ...state, messages: afterUpdate(state.messages, delta) } as State) : state;
    const output = await node(input, config);
    if (Object.keys(compacted).length === 0) return output;
    return mergeUpdates(compacted, output);
  };
}

/**
 * The messages once LangGraph's messages reducer has applied the compaction's update. A whole-list
 * update (`REMOVE_ALL_MESSAGES`, e.g. for messages without ids) is the new list as it stands: the
 * reducer would give ids to the state's own messages in place.
 */
function afterUpdate(messages: BaseMessage[], delta: BaseMessage[]): BaseMessage[] {
  for (let position = delta.length - 1; position >= 0; position--) {
    if (delta[position]!.getType() === "remove" && delta[position]!.id === REMOVE_ALL_MESSAGES) return delta.slice(position + 1);
  }
  return messagesStateReducer(messages, delta);
}

/** The compaction's update followed by the wrapped node's (`Command`s keep their routing). */
function mergeUpdates(compacted: CompactionNodeUpdate, output: unknown): CompactionNodeUpdate | Command {
  if (output === undefined || output === null) return compacted;
  if (output instanceof Command) {
    if (output.graph !== undefined) throw new CompactingNodeError("compactingNode: the node returned a Command for another graph; the compaction's update belongs to this one");
    const update = output.update;
    if (update !== undefined && (typeof update !== "object" || update === null || Array.isArray(update))) {
      throw new CompactingNodeError("compactingNode: the node returned a Command whose update is not an object; compaction cannot add its own update to it");
    }
    return new Command({ ...commandFields(output), update: mergeObjects(compacted, update ?? {}) as Record<string, unknown> });
  }
  if (typeof output !== "object" || Array.isArray(output) || isBaseMessage(output)) {
    throw new CompactingNodeError(`compactingNode: the node returned ${Array.isArray(output) ? "an array" : isBaseMessage(output) ? "a message" : typeof output}, not a state update object`);
  }
  return mergeObjects(compacted, output as Record<string, unknown>);
}

function mergeObjects(compacted: CompactionNodeUpdate, update: Record<string, unknown>): CompactionNodeUpdate {
  for (const channel of ["compactionLog", "compactionArchive"] as const) {
    if (channel in compacted && channel in update) {
      throw new CompactingNodeError(`compactingNode: the node's update writes ${channel}, which the compaction writes in the same step`);
    }
  }
  const own = update["messages"];
  const messages = [...(compacted.messages ?? []), ...(own === undefined || own === null ? [] : Array.isArray(own) ? (own as BaseMessage[]) : [own as BaseMessage])];
  return { ...update, ...compacted, ...(messages.length > 0 ? { messages } : {}) } as CompactionNodeUpdate;
}

/** A Command's fields other than `update`, to build the merged one. */
function commandFields(command: Command): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (command.goto !== undefined && !(Array.isArray(command.goto) && command.goto.length === 0)) fields["goto"] = command.goto;
  if (command.resume !== undefined) fields["resume"] = command.resume;
  return fields;
}

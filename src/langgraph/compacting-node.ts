import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, Overwrite, REMOVE_ALL_MESSAGES, Send, isCommand, type LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { CompactionError } from "../errors.js";
import { invalidOption } from "../option-errors.js";
import { settledValue } from "../strategies/settled-promise.js";
import { compactionNodeRun, type CompactionNodeInput, type CompactionNodeOptions, type CompactionNodeUpdate } from "./compaction-node.js";

/**
 * The node {@link compactingNode} wraps returned what it cannot add the compaction's update to: an
 * array, a message or another non-object, or a `Command` for the parent graph. Checked at every
 * step, compacting or not; the step fails.
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

/** The node {@link compactingNode} wraps: a LangGraph node function that returns a state update, a `Command`, or nothing. */
export type WrappedNode<State extends CompactionNodeInput, Update, Config extends LangGraphRunnableConfig> = (state: State, config: Config) => Update | Promise<Update>;

/**
 * `node` (usually the model node) with compaction in front of it, in the same graph step: it
 * compacts the state's `messages` as {@link createCompactionNode} does, runs `node` on the compacted
 * state and returns both updates in one `Command`, the compaction's writes first: LangGraph's
 * reducers apply them in that order, so the state is what the compaction node and then `node`
 * would give as two steps.
 *
 * Why: every node is a step of its own, and each step ends with a checkpoint. A separate compaction
 * node before the model adds a checkpoint per model call; with a checkpointer that writes the whole
 * state into every checkpoint (`SqliteSaver`, `MemorySaver`), that write costs more than the
 * compaction itself. In one step there is no extra checkpoint.
 *
 * The compaction behaves as the node's: same options, a broken history repaired first, a failing
 * compactor logged as `failed` and `node` run on the history as it was (`onError: "throw"` fails the
 * step instead, and `node` does not run). When nothing is compacted, `node`'s return value is
 * returned as it is. A step the compactor leaves alone without counting (`toolResultHiding`,
 * `hardTruncate` or `autoCompaction` with static options, given directly, when an upper bound of
 * the history is under its trigger and the history needs no repair) calls `node` before the node
 * function returns: no microtask turn, in which the process's other queued work (other threads'
 * steps, a checkpoint's write) would run first, comes between the step's start and the model call.
 * `node` gets the same config (store, signal, thread id) and a copy of the state with the compacted
 * `messages` (the new `compactionLog` record is not in it yet), or the state as
 * it is when it runs again (see below); the state is never mutated. When `node` throws, the step fails with its error and the compaction's update is not
 * written: the retry compacts again (a new summary call, for a summarizing compactor). With
 * `archive: "store"` the archive entry may then be in the store already, referenced by nothing.
 *
 * With the archive in the store, the archive write runs while `node` does (the model call hides
 * it), and the step returns only once the entry is written, so no checkpoint names an entry that is
 * not there. When the write fails, the compaction changes nothing: a `failed` record says why and
 * `node`'s update is kept, as it was computed on the compacted history. A `node` whose update could
 * put compacted messages in place of the originals is run again on the history as it is: one that
 * names a message the compaction rewrote or removed (one that returns the whole history, as
 * messages or serialized), removes every message, overwrites the list (`Overwrite`), or routes with
 * a `Send` (which hands the compacted state to another node). Its side effects then happen twice
 * (two model calls, both streamed; an `interrupt()` in it asks twice): return only new messages to
 * avoid this. With `onError: "throw"` the step fails with the `CompactionArchiveError`, after `node`
 * has run.
 *
 * `node` may return an update object, nothing, or a `Command` for this graph (its `goto` and
 * `resume` kept, its `update` added after the compaction's).
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
 * @throws {CompactingNodeError} when `node` returns an array, a message or another non-object, or a
 * `Command` for the parent graph (at every step, compacting or not).
 * Otherwise what {@link createCompactionNode}'s node and `node` throw.
 */
export function compactingNode<State extends CompactionNodeInput, Update, Config extends LangGraphRunnableConfig = LangGraphRunnableConfig>(
  node: WrappedNode<State, Update, Config>,
  compactor: Compactor,
  options: CompactingNodeOptions = {},
): (state: State, config: Config) => Promise<Update | CompactionNodeUpdate | Command> {
  if (typeof node !== "function") throw invalidOption("compactingNode", "node", node, "a node function");
  const compaction = compactionNodeRun("compactingNode", compactor, options);
  return async function compactingNodeRun(state: State, config: Config) {
    // The history the compaction's update leaves, as the compaction built it (a copy with ids where the state's messages had none).
    let history: BaseMessage[] | undefined;
    // The archive write to the store, which runs while `node` does.
    let archived: Promise<CompactionNodeUpdate | undefined> | undefined;
    const compacting = compaction(
      state,
      config,
      (compactedHistory) => (history = compactedHistory),
      (written) => {
        archived = written;
        // Waited for below; until then a failure must not count as unhandled.
        written.catch(() => undefined);
      },
    );
    // A step decided at once (nothing to do under the bound): `node` runs now, with no microtask
    // turn in which other queued work of the process would run first.
    const compacted = settledValue(compacting)?.value ?? (await compacting);
    let output: Update;
    let own: NodeWrites;
    try {
      output = await node(history ? ({ ...state, messages: history } as State) : state, config);
      own = writesOf(output);
    } catch (error) {
      // The step fails either way; it still ends after the write, as every compacting step does.
      await archived?.catch(() => undefined);
      throw error;
    }
    if (Object.keys(compacted).length === 0) return output;
    let writes = Object.entries(compacted);
    const failed = await archived;
    if (failed) {
      // The originals could not be archived: the compaction changes nothing, the `failed` record says why.
      writes = Object.entries(failed);
      // A node that wrote back messages the compaction changed would put them in place of the originals: it runs again on the history as it is.
      if (touches(own, compacted.messages ?? [])) {
        output = await node(state, config);
        own = writesOf(output);
      }
    }
    const update = [...writes, ...own.writes] as [string, unknown][];
    return own.command ? new Command({ ...routingOf(own.command), update }) : new Command({ update });
  };
}

/**
 * Whether the node's output may carry messages the compaction changed into the thread: a `messages`
 * write that names a message the compaction's update rewrote or removed, removes every message, or
 * replaces the whole list (`Overwrite`), or a `Send` that hands the state to another node.
 */
function touches(own: NodeWrites, changed: readonly BaseMessage[]): boolean {
  const ids = new Set(changed.map((message) => message.id));
  ids.add(REMOVE_ALL_MESSAGES);
  const goto = own.command?.goto;
  if ((Array.isArray(goto) ? goto : [goto]).some((target) => target instanceof Send)) return true;
  return own.writes.some(
    ([channel, value]) =>
      channel === "messages" && (isOverwrite(value) || (Array.isArray(value) ? value : [value]).some((item) => idsOf(item).some((id) => ids.has(id)))),
  );
}

/** An `Overwrite` of a channel, in any of the forms LangGraph's channels accept. */
function isOverwrite(value: unknown): boolean {
  return Overwrite.isInstance(value) || (typeof value === "object" && value !== null && (value as { type?: unknown }).type === "__overwrite__");
}

/** The ids a message or message-like object written to `messages` may carry (its own, or a serialized message's `kwargs.id`). */
function idsOf(item: unknown): string[] {
  if (typeof item !== "object" || item === null) return [];
  const { id, kwargs, lc_kwargs } = item as { id?: unknown; kwargs?: { id?: unknown }; lc_kwargs?: { id?: unknown } };
  return [id, kwargs?.id, lc_kwargs?.id].filter((candidate): candidate is string => typeof candidate === "string");
}

/** The node's writes, in order, as `[channel, value]` pairs, and its `Command` if it returned one. */
interface NodeWrites {
  writes: [string, unknown][];
  command?: Command;
}

/** The wrapped node's return value as {@link NodeWrites}, or a `CompactingNodeError` for one that cannot take the compaction's update. */
function writesOf(output: unknown): NodeWrites {
  if (output === undefined || output === null) return { writes: [] };
  if (isCommand(output)) {
    if (output.graph !== undefined) throw new CompactingNodeError("compactingNode: the node returned a Command for another graph; the compaction's update belongs to this one");
    const update = output.update;
    const writes: [string, unknown][] = update === undefined || update === null ? [] : Array.isArray(update) ? update : Object.entries(update);
    return { writes, command: output };
  }
  if (typeof output !== "object" || Array.isArray(output) || isBaseMessage(output)) {
    throw new CompactingNodeError(`compactingNode: the node returned ${Array.isArray(output) ? "an array" : isBaseMessage(output) ? "a message" : typeof output}, not a state update object or a Command`);
  }
  return { writes: Object.entries(output) };
}

/** A Command's routing: its `goto` and `resume`. */
function routingOf(command: Command): { goto?: Command["goto"]; resume?: unknown } {
  return {
    ...(command.goto !== undefined && !(Array.isArray(command.goto) && command.goto.length === 0) ? { goto: command.goto } : {}),
    ...(command.resume !== undefined ? { resume: command.resume } : {}),
  };
}

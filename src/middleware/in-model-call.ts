import { AIMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, isCommand, type BaseStore } from "@langchain/langgraph";
import type { CheckedHistories } from "../langgraph/checked-histories.js";
import { threadIdOf } from "../langgraph/compaction-archive.js";
import { runGraphCompaction, type CompactionStateUpdate, type GraphCompactionOptions } from "../langgraph/run-compaction.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { currentConfig } from "./current-config.js";

/** What a `wrapModelCall` hook gets of LangChain's model request (the fields this package reads). */
export interface ModelCallRequest {
  readonly messages?: unknown;
  readonly state?: unknown;
  readonly responseFormat?: unknown;
  readonly runtime: { readonly signal?: AbortSignal; readonly store?: unknown; readonly configurable?: unknown };
}

/** One compaction inside a `createAgent` model call: the compactor, and what `runGraphCompaction` needs besides the messages. @internal */
export interface InModelCompaction {
  readonly component: string;
  readonly compactor: Compactor;
  readonly options: GraphCompactionOptions;
  readonly checked: CheckedHistories;
}

/**
 * A `wrapModelCall` body that compacts the agent state's messages inside the model node's step and
 * calls the model on the result. The update is written by message id only (rewrites and
 * `RemoveMessage`s, a moved message written position by position), returned as a `Command` that
 * LangChain applies after the answer and the other middleware's updates of the step without
 * overriding them. When a middleware before this one gave the model other messages than the
 * state's, the update is applied to those by id, or, when a message it changes is not there, they
 * go to the model as they are (the state is compacted for the next call either way). A result that
 * cannot be written in place (more messages than the history) goes to the model for this call only
 * and nothing is written. The archive write to the store runs while the model is called; a request
 * that may end in a structured response (`responseFormat`) writes it after the call, and not at all
 * when it does end so (the agent then writes the state itself and drops the hooks' updates).
 * @internal
 */
export async function compactInModelCall<Request extends ModelCallRequest, Response>(
  { component, compactor, options, checked }: InModelCompaction,
  request: Request,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Response | Command> {
  const state = (request.state as { messages?: unknown } | undefined)?.messages ?? request.messages;
  if (!Array.isArray(state) || state.length === 0) return handler(request);
  const mayEndStructured = request.responseFormat !== undefined && request.responseFormat !== null;
  let write: (() => Promise<CompactionStateUpdate | undefined>) | undefined;
  let view: BaseMessage[] | undefined;
  let viewOnly = false;
  const update: CompactionStateUpdate = await runGraphCompaction({
    component,
    compactor,
    messages: state,
    options,
    config: currentConfig(),
    signal: request.runtime.signal,
    store: request.runtime.store as BaseStore | undefined,
    threadId: threadIdOf(request.runtime.configurable as Record<string, unknown> | undefined),
    // Right before the model: calls without results, even in the last message, would be rejected.
    keepPendingCalls: false,
    checked,
    inPlace: true,
    holdArchive: (start) => (write = start),
    onHistory: (history) => (view = history),
    onViewOnly: (history) => {
      view = history;
      viewOnly = true;
    },
  });
  let archived: Promise<CompactionStateUpdate | undefined> | undefined;
  const startWrite = () => {
    archived ??= write?.();
    // Waited for below; until then a failure must not count as unhandled.
    archived?.catch(() => undefined);
    return archived;
  };
  if (!mayEndStructured) startWrite();
  const messages = modelMessages(request.messages, state, view, viewOnly ? undefined : update.messages);
  let response: Response;
  try {
    response = await handler(messages === request.messages ? request : { ...request, messages });
  } catch (error) {
    // The call fails either way; it still ends after the write, as every compacting step does.
    await archived?.catch(() => undefined);
    throw error;
  }
  // A structured response: the agent writes the state from its own copy and drops hooks' updates.
  if (Object.keys(update).length === 0 || !(AIMessage.isInstance(response) || isCommand(response))) return response;
  // The originals could not be archived: the state keeps them, and the `failed` record says why.
  const written = (await startWrite()) ?? update;
  return new Command({ update: { ...written } });
}

/**
 * The messages the model gets: the compacted history when the request holds the state's own; the
 * request's messages with the update applied by id when a middleware before gave other ones, or
 * those as they are when a message the update changes is not among them (or nothing can be written).
 */
function modelMessages(requested: unknown, state: readonly BaseMessage[], view: BaseMessage[] | undefined, update: BaseMessage[] | undefined): unknown {
  if (view === undefined) return requested;
  if (requested === state) return view;
  if (!Array.isArray(requested) || update === undefined || update.length === 0) return requested;
  const present = new Set((requested as BaseMessage[]).map((message) => message?.id));
  if (!update.every((message) => present.has(message.id))) return requested;
  const removed = new Set<string>();
  const rewritten = new Map<string, BaseMessage>();
  for (const message of update) {
    if (RemoveMessage.isInstance(message)) removed.add(message.id!);
    else rewritten.set(message.id!, message);
  }
  return (requested as BaseMessage[]).filter((message) => !removed.has(message.id!)).map((message) => rewritten.get(message.id!) ?? message);
}

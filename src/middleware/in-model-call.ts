import { AIMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES, messagesStateReducer, type BaseStore } from "@langchain/langgraph";
import type { CheckedHistories } from "../langgraph/checked-histories.js";
import { threadIdOf } from "../langgraph/compaction-archive.js";
import { runGraphCompaction, type CompactionStateUpdate, type GraphCompactionOptions } from "../langgraph/run-compaction.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { currentConfig } from "./current-config.js";

/** `messages` with a compaction's `messages` update applied, as LangGraph's reducer applies it. */
function applyUpdate(messages: BaseMessage[], update: BaseMessage[] | undefined): BaseMessage[] {
  if (update === undefined || update.length === 0) return messages;
  if (replacesAll(update)) return update.slice(1);
  return messagesStateReducer(messages, update) as BaseMessage[];
}

/** What a `wrapModelCall` hook gets of LangChain's model request (the fields this package reads). */
export interface ModelCallRequest {
  readonly messages?: unknown;
  readonly state?: unknown;
  readonly runtime: { readonly signal?: AbortSignal; readonly store?: unknown; readonly configurable?: unknown };
}

/** One compaction inside a `createAgent` model call: the compactor, and what `runGraphCompaction` needs besides the messages. @internal */
export interface InModelCompaction {
  readonly component: string;
  readonly compactor: Compactor;
  readonly options: GraphCompactionOptions;
  readonly checked: CheckedHistories;
  /** Called when the compaction changed the messages of a request that are not the state's own: it applies to that call only. */
  readonly onViewOnly?: () => void;
}

/**
 * A `wrapModelCall` body that compacts the request's messages before the model is called, in the
 * model node's own step: the model gets the compacted messages, and the update (messages, log,
 * archive channel) is written to the agent's state with the model's answer. The archive write to
 * the store runs while the model is called and is waited for before the hook returns, so no record
 * names an entry that is not written; a failed write leaves the state as it was (a `failed` record),
 * the model having answered the compacted view (with `onError: "throw"` the step then fails, after
 * the model call). The compaction applies to that call only, and nothing is written to the state,
 * when the request's messages are not the state's own (a middleware before this one gave other
 * ones) or when the answer is not an `AIMessage` (a structured response; the archive entry may then
 * be in the store already, named by no record). An update that replaces the whole history (a
 * repair that moves a message, a compactor that reorders) is written with the answer last:
 * LangChain applies a hook's update after the step's other writes, so it replaces what another
 * middleware's own update wrote in the same step (a structured-output retry, a rewritten answer).
 * @internal
 */
export async function compactInModelCall<Request extends ModelCallRequest, Response>(
  { component, compactor, options, checked, onViewOnly }: InModelCompaction,
  request: Request,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Response | Command> {
  const messages = request.messages as BaseMessage[] | undefined;
  if (!Array.isArray(messages) || messages.length === 0) return handler(request);
  // Only the state's own messages can be edited in the state: another middleware may have given other ones.
  const persist = messages === (request.state as { messages?: unknown } | undefined)?.messages;
  let archived: Promise<CompactionStateUpdate | undefined> | undefined;
  const update: CompactionStateUpdate = await runGraphCompaction({
    component,
    compactor,
    messages,
    options: persist ? options : { ...options, archive: "state" },
    config: currentConfig(),
    signal: request.runtime.signal,
    store: persist ? (request.runtime.store as BaseStore | undefined) : undefined,
    threadId: persist ? threadIdOf(request.runtime.configurable as Record<string, unknown> | undefined) : undefined,
    // Right before the model: calls without results, even in the last message, would be rejected.
    keepPendingCalls: false,
    checked,
    deferArchive: (written) => {
      archived = written;
      // Waited for below; until then a failure must not count as unhandled.
      written.catch(() => undefined);
    },
  });
  const edited = applyUpdate(messages, update.messages);
  if (!persist && edited !== messages) onViewOnly?.();
  let response: Response;
  try {
    response = await handler(edited === messages ? request : { ...request, messages: edited });
  } catch (error) {
    // The call fails either way; it still ends after the write, as every compacting step does.
    await archived?.catch(() => undefined);
    throw error;
  }
  // The originals could not be archived: the state keeps them, and the `failed` record says why.
  const written = (await archived) ?? update;
  if (!persist || Object.keys(written).length === 0 || !AIMessage.isInstance(response)) return response;
  // The agent writes the answer before this update: a replace-everything update must keep it.
  return new Command({ update: replacesAll(written.messages) ? { ...written, messages: [...written.messages!, response] } : { ...written } });
}

/** Whether a `messages` update replaces the whole history (`REMOVE_ALL_MESSAGES` first). */
function replacesAll(update: readonly BaseMessage[] | undefined): boolean {
  const first = update?.[0];
  return first !== undefined && RemoveMessage.isInstance(first) && first.id === REMOVE_ALL_MESSAGES;
}

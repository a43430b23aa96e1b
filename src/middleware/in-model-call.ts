import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, isCommand } from "@langchain/langgraph";
import type { CheckedHistories } from "../langgraph/checked-histories.js";
import type { CompactionStateUpdate, GraphCompactionOptions } from "../langgraph/run-compaction.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { withOverwrittenSummaries } from "../langgraph/live-summary.js";
import { modelMessages, prepare, summariesOf, type Prepared } from "./in-model-prepare.js";
import { isContextOverflow, retryAfterOverflow } from "./overflow-retry.js";
import type { RequestOverheadFields } from "./request-overhead.js";

/** What a `wrapModelCall` hook gets of LangChain's model request (the fields this package reads). */
export interface ModelCallRequest extends RequestOverheadFields {
  readonly messages?: unknown;
  readonly state?: unknown;
  readonly responseFormat?: unknown;
  readonly runtime: { readonly signal?: AbortSignal; readonly store?: unknown; readonly configurable?: unknown };
}

/** One compaction inside a `createAgent` model call: the compactor, and what `runGraphCompaction` needs besides the messages. @internal */
export interface InModelCompaction {
  readonly component: string;
  /** The middleware's name: compactions of several middleware in one step get different ids. */
  readonly name: string;
  readonly compactor: Compactor;
  readonly options: GraphCompactionOptions;
  readonly checked: CheckedHistories;
  /** The step's compaction by state messages array, shared by the hook's calls within one step. */
  readonly prepared: WeakMap<object, Promise<Prepared>>;
}

/**
 * A `wrapModelCall` body that compacts the agent state's messages inside the model node's step and
 * calls the model on the result. The update is written by message id only (rewrites and
 * `RemoveMessage`s; a moved message is moved for the model only), returned as a `Command` that
 * LangChain applies after the answer and the other middleware's updates of the step without
 * overriding them. When a middleware before this one gave the model other messages than the
 * state's, the update is applied to those by id, or, when a message it changes is not there, they
 * go to the model as they are (the state is compacted for the next call either way). A result that
 * cannot be written in place (more messages than the history) goes to the model for this call only
 * and nothing is written. The archive write to the store runs while the model is called; a request
 * that may end in a structured response (`responseFormat`) writes it after the call, and not at all
 * when it does end so (the agent then writes the state itself and drops the hooks' updates).
 * Called again on the same state in one step (a retry or fallback listed before it), it reuses the
 * step's compaction and returns its update once. Listed after another middleware that compacted the
 * same state in the step, it compacts that one's result, and that one writes both updates in order. The model never gets the state's own array (a
 * middleware after this one may edit the request's in place).
 * @internal
 */
export async function compactInModelCall<Request extends ModelCallRequest, Response>(
  compaction: InModelCompaction,
  request: Request,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Response | Command> {
  const state = (request.state as { messages?: unknown } | undefined)?.messages ?? request.messages;
  if (!Array.isArray(state) || state.length === 0) return handler(request);
  const mayEndStructured = request.responseFormat !== undefined && request.responseFormat !== null;
  // A middleware listed before this one that calls the model again (a retry, a fallback) calls this
  // hook again on the same state: the compaction is worked out, and its archive written, once.
  let preparing = compaction.prepared.get(state);
  if (preparing === undefined) {
    // Another middleware listed before this one compacted this state in this step: this one compacts
    // its result, and its update is written after that one's, in the same write (see `StepCompaction`).
    const outer = stepCompactions.get(state);
    const nestedIn = outer !== undefined && outer.owner !== compaction.prepared ? outer : undefined;
    const log = stepLogs.get(state) ?? (request.state as { compactionLog?: unknown } | undefined)?.compactionLog;
    preparing = prepare(compaction, request, nestedIn?.history ?? state, log).then((prepared) => {
      if (prepared.update.compactionLog !== undefined) stepLogs.set(state, prepared.update.compactionLog);
      if (prepared.view !== undefined && !prepared.viewOnly && (prepared.update.messages?.length ?? 0) > 0) {
        if (nestedIn === undefined) stepCompactions.set(state, { owner: compaction.prepared, history: prepared.view, nested: [] });
        else {
          nestedIn.nested.push(prepared);
          nestedIn.history = prepared.view;
          prepared.nested = true;
        }
      }
      return prepared;
    });
    compaction.prepared.set(state, preparing);
  }
  const prepared = await preparing;
  const { update, view, viewOnly, startWrite } = prepared;
  if (!mayEndStructured) startWrite();
  const chosen = modelMessages(request.messages, prepared.input, view, viewOnly ? undefined : update.messages);
  // A summary the app overwrote or removed goes to the model still, next to what took its place.
  const summaries = update.compactionSummary ?? summariesOf(request);
  const messages = Array.isArray(chosen) ? withOverwrittenSummaries(chosen as BaseMessage[], summaries) : chosen;
  let response: Response;
  try {
    response = await handler(messages === request.messages ? request : { ...request, messages });
  } catch (error) {
    const step = stepCompactions.get(state);
    // A compaction composed with another middleware's in this step is not retried (see `StepCompaction`).
    const alone = !prepared.nested && (step === undefined || (step.owner === compaction.prepared && step.nested.length === 0));
    if (!isContextOverflow(error) || !alone || request.runtime.signal?.aborted) {
      // The call fails either way; it still ends after the write, as every compacting step does.
      await startWrite(false)?.catch(() => undefined);
      throw error;
    }
    const { response: retried, retry } = await retryAfterOverflow(compaction, request, handler, { prepared, sent: messages, mayEndStructured }, error);
    if (!(AIMessage.isInstance(retried) || isCommand(retried)) || prepared.returned) return retried;
    prepared.returned = true;
    // The retry's compaction was worked out on the first one's history: written after it, if that one is.
    const first = Object.keys(update).length === 0 ? {} : ((await startWrite()) ?? update);
    if (first !== update && Object.keys(update).length > 0) return new Command({ update: { ...first } });
    return new Command({ update: { ...(await withNested(first, [retry])) } });
  }
  // A structured response: the agent writes the state from its own copy and drops hooks' updates.
  if (Object.keys(update).length === 0 || !(AIMessage.isInstance(response) || isCommand(response))) return response;
  // LangChain applies every Command a hook returns, even one an outer middleware then discards: once.
  if (prepared.returned || prepared.nested) return response;
  prepared.returned = true;
  // The originals could not be archived: the state keeps them, and the `failed` record says why.
  const written = (await startWrite()) ?? update;
  const step = stepCompactions.get(state);
  return new Command({ update: { ...(written === update && step?.owner === compaction.prepared ? await withNested(written, step.nested) : written) } });
}

/**
 * The compactions of one state in one model step by several middleware (two compactionMiddleware,
 * or one and this package's contextEditingMiddleware): the first that changes it (the outermost)
 * writes the update; each one listed after it compacts the history the previous ones made, and its
 * update goes in the same write, after theirs. Written separately, each worked out on the state,
 * LangChain would apply the inner one's first and the reducer would then fail on a message both
 * remove, or append one that one removes and the other rewrites.
 */
interface StepCompaction {
  /** The `prepared` map of the middleware that writes the step's update. */
  readonly owner: object;
  /** The history the latest compaction of the step made, which the next one compacts. */
  history: BaseMessage[];
  /** The compactions nested in the owner's, in order. */
  readonly nested: Prepared[];
}

/** The step's in-step compactions, by the state's messages array (as `InModelCompaction.prepared`). */
const stepCompactions = new WeakMap<object, StepCompaction>();

/** The newest log record of the step's compactions so far, by the state's messages array: the next one's goes after it. */
const stepLogs = new WeakMap<object, unknown>();

/** The owner's update followed by its nested compactions' (each written only if the ones before it are). */
export async function withNested(written: CompactionStateUpdate, nested: readonly Prepared[]): Promise<CompactionStateUpdate> {
  const messages = [...(written.messages ?? [])];
  const compactionLog = [...(written.compactionLog ?? [])];
  const compactionArchive = [...(written.compactionArchive ?? [])];
  let compactionSummary = written.compactionSummary;
  for (const inner of nested) {
    const own = (await inner.startWrite()) ?? inner.update;
    compactionLog.push(...(own.compactionLog ?? []));
    // Its originals could not be archived: it and the ones nested in it (built on its result) are not written.
    if (own !== inner.update) break;
    messages.push(...(own.messages ?? []));
    compactionArchive.push(...(own.compactionArchive ?? []));
    compactionSummary = own.compactionSummary ?? compactionSummary;
  }
  return { messages, compactionLog, ...(compactionArchive.length > 0 ? { compactionArchive } : {}), ...(compactionSummary ? { compactionSummary } : {}) };
}

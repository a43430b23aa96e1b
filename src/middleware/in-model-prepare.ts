import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import { threadIdOf } from "../langgraph/compaction-archive.js";
import { runGraphCompaction, type CompactionStateUpdate } from "../langgraph/run-compaction.js";
import { currentConfig } from "./current-config.js";
import type { InModelCompaction, ModelCallRequest } from "./in-model-call.js";
import { requestOverhead } from "./request-overhead.js";

/** A step's compaction, worked out once per state. */
export interface Prepared {
  readonly update: CompactionStateUpdate;
  /** The compacted history (undefined when nothing changed). */
  readonly view: BaseMessage[] | undefined;
  /** True when the result cannot be written in place: the view is for the call only. */
  readonly viewOnly: boolean;
  /** Starts the archive write (once; `start` false: only returns it if started), or undefined without one. */
  readonly startWrite: (start?: boolean) => Promise<CompactionStateUpdate | undefined> | undefined;
  /** Set once the update was returned in a `Command`. */
  returned: boolean;
  /** The history it compacted: the state's, or the one a compaction listed before it made in the step. */
  readonly input: BaseMessage[];
  /** The log its record was chained after (the state's `compactionLog`, or the step's newest record). */
  readonly log: unknown;
  /** Set when it is nested in another middleware's compaction of the step, which writes its update. */
  nested: boolean;
}

/** The state's `compactionSummary` channel (see `LiveSummary`). @internal */
export function summariesOf(request: ModelCallRequest): unknown {
  return (request.state as { compactionSummary?: unknown } | undefined)?.compactionSummary;
}

/**
 * Works out one compaction of `state` for a model call (its archive write held until started).
 * With `overflow`, the compactor runs forced after the provider reported an overflow. `summaries`:
 * the live summaries to check and keep (the state's, or the first compaction's of the step). @internal
 */
export async function prepare(
  { component, name, compactor, options, checked }: InModelCompaction,
  request: ModelCallRequest,
  state: BaseMessage[],
  log: unknown,
  overflow?: { readonly shrink: number | undefined },
  summaries: unknown = summariesOf(request),
): Promise<Prepared> {
  let write: (() => Promise<CompactionStateUpdate | undefined>) | undefined;
  let view: BaseMessage[] | undefined;
  let viewOnly = false;
  const update: CompactionStateUpdate = await runGraphCompaction({
    component,
    compactor,
    messages: state,
    log,
    options,
    config: currentConfig(),
    signal: request.runtime.signal,
    store: request.runtime.store as BaseStore | undefined,
    threadId: threadIdOf(request.runtime.configurable as Record<string, unknown> | undefined),
    // Right before the model: calls without results, even in the last message, would be rejected.
    keepPendingCalls: false,
    // The retry compacts the history the model was given, not one of the state's: nothing to note.
    checked: overflow ? undefined : checked,
    inPlace: true,
    idScope: overflow ? `${component}:${name}:overflow` : `${component}:${name}`,
    overflow,
    summaries,
    // The system message and the tools' schemas count toward the window from the first call.
    overhead: requestOverhead(request),
    holdArchive: (start) => (write = start),
    onHistory: (history) => (view = history),
    onViewOnly: (history) => {
      view = history;
      viewOnly = true;
    },
  });
  let archived: Promise<CompactionStateUpdate | undefined> | undefined;
  const startWrite = (start = true) => {
    if (start) archived ??= write?.();
    // Waited for by the hook; until then a failure must not count as unhandled.
    archived?.catch(() => undefined);
    return archived;
  };
  return { update, view, viewOnly, startWrite, returned: false, input: state, log, nested: false };
}

/**
 * The messages the model gets, never the state's own array: the compacted history (or a copy of
 * the state's) when the request holds the state's own; the
 * request's messages with the update applied by id when a middleware before gave other ones, or
 * those as they are when a message the update changes is not among them (or nothing can be written).
 */
export function modelMessages(requested: unknown, state: readonly BaseMessage[], view: BaseMessage[] | undefined, update: BaseMessage[] | undefined): unknown {
  // A copy: a middleware after this one that edits the request's array in place (LangChain's
  // contextEditingMiddleware) must not edit the state's.
  if (view === undefined) return requested === state ? [...state] : requested;
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

import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { v4 as uuidv4, v5 as uuidv5 } from "@langchain/core/utils/uuid";
import type { BaseStore } from "@langchain/langgraph";
import { z } from "zod/v4";
import { InvalidHistoryError } from "../errors.js";
import { invalidOption } from "../option-errors.js";
import { CompactionStrategy, type Compactor } from "../strategies/compaction-strategy.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "./compaction-archive.js";
import { chainedRecord, logOnly, writeArchiveAndRecord } from "./log-writes.js";
import { describeError, failedCompactionRecord, strategyNameOf, type ArchivedCompaction, type CompactionRecord } from "../compaction-record.js";
import type { CompactionResult } from "../types.js";
import { settledPromise, settledValue } from "../strategies/settled-promise.js";
import { assignMessageIds, compactionUpdate, lastIdOf, type CompactionUpdate } from "./compaction-update.js";
import type { CheckedHistories } from "./checked-histories.js";
import { checkedOutput, withOverhead } from "./checked-output.js";
import { chainSummaryCheck, withCheckRecords } from "./summary-check-log.js";
import { checkLiveSummaries, summariesAfter, withSummaryCheck, type LiveSummary, type SummaryCheck } from "./live-summary.js";
import { adapterInvalidHistorySchema, repairBeforeCompaction, repairOnlyResult, withRepair, type AdapterInvalidHistoryHandling } from "./invalid-history.js";

/** What the compaction node (and middleware) does when the compactor throws. */
export type CompactionErrorHandling = "continue" | "throw";

/** Where the originals of a compaction are archived. */
export type CompactionArchiveMode = "auto" | "store" | "state";

/** Options of `createCompactionNode` and `compactionMiddleware`. */
export interface GraphCompactionOptions {
  /**
   * When the compactor throws (or the archive cannot be written): `"continue"` leaves the messages
   * unchanged, appends a `failed` record with the reason to `compactionLog` and lets the graph go
   * on; `"throw"` rethrows, failing the step. An aborted run always rethrows.
   * @default "continue"
   */
  onError?: CompactionErrorHandling;
  /**
   * Where originals that leave the context are archived. `"auto"`: in the graph's store
   * (`config.store`) under a namespace per thread when the run has a store and a
   * `configurable.thread_id`, else in the `compactionArchive` state channel. `"store"`: always the
   * store; a run without a store or thread id throws a `CompactionArchiveError`. `"state"`: always
   * the state channel.
   * @default "auto"
   */
  archive?: CompactionArchiveMode;
  /** Namespace prefix of the archive in the store; the thread id is appended. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: string[];
  /**
   * A history whose tool calls and results do not pair up as providers require (an orphan result, a
   * call never answered, a result separated from its call...), whose text holds a lone surrogate, or
   * with a message that has nothing to send.
   * `"repair"`: it is repaired (see {@link AdapterInvalidHistoryHandling}) before the compactor runs, and the repaired history replaces it in the state
   * even when the compactor has nothing to do (status `"repaired"`) or throws: the model never gets a
   * history its provider rejects. What the repair dropped, rewrote or moved is archived like any
   * compaction's originals (`restoreHistory` gives the history back as it was stored) and the
   * record's `repair` names it. `"leave"`: the compactor gets the history as it is; a strategy
   * rejects it with `InvalidHistoryError`, which `onError` handles (by default a `failed` record and
   * the history passed on unchanged). The node leaves the calls of a last assistant message as they
   * are (pending: it may run between the model and the tools); the middleware, right before the
   * model, repairs them too.
   * @default "repair"
   */
  invalidHistory?: AdapterInvalidHistoryHandling;
}

/** @internal */
export const graphCompactionOptionsShape = {
  onError: z.enum(["continue", "throw"]).optional(),
  archive: z.enum(["auto", "store", "state"]).optional(),
  namespace: z
    .array(z.string().min(1).regex(/^[^.:%_\\\0]+$/, "expected labels without '.', ':', '%', '_', '\\' or NUL, which stores such as PostgresStore reject"))
    .min(1)
    .optional(),
  invalidHistory: adapterInvalidHistorySchema,
};

/** The state update of one compaction step. @internal */
export interface CompactionStateUpdate {
  messages?: BaseMessage[];
  compactionLog?: CompactionRecord[];
  compactionArchive?: ArchivedCompaction[];
  compactionSummary?: LiveSummary[];
}

/** @internal */
export function assertCompactor(component: string, compactor: unknown): asserts compactor is Compactor {
  if (typeof compactor !== "object" || compactor === null || typeof (compactor as Compactor).compact !== "function") {
    throw invalidOption(component, "compactor", compactor, "a strategy (an object with a compact() method)");
  }
}

/** Namespace of the compaction ids derived from a LangGraph task (a UUID v5 namespace of this package's own). */
const TASK_COMPACTION_ID_NAMESPACE = "6f1b3c52-8d0e-4f7a-9a51-2c4e8b7d9e10";

/**
 * The id of this step's compaction: derived from the LangGraph task running it (its checkpoint
 * namespace holds the task id, which LangGraph derives from the checkpoint the step started from), so
 * a step retried from the same checkpoint (a worker that died before the next checkpoint was
 * written) rewrites the same archive entry instead of leaving one that no record names. Outside a
 * graph task, a random UUID. @internal
 */
export function compactionIdOf(config: RunnableConfig | undefined, component: string, messages: readonly BaseMessage[]): string {
  const namespace = config?.configurable?.["checkpoint_ns"];
  const threadId = config?.configurable?.["thread_id"];
  if (typeof namespace !== "string" || !namespace.includes(":")) return uuidv4();
  // The input too: two compactions in one task (two middlewares around one model call) differ by it or by component.
  return uuidv5(JSON.stringify([component, String(threadId ?? ""), namespace, messages.length, lastIdOf(messages)]), TASK_COMPACTION_ID_NAMESPACE);
}

function failedRecord(compactor: Compactor, messages: readonly BaseMessage[], reason: string, durationMs: number, id: string): CompactionRecord {
  return {
    ...failedCompactionRecord(strategyNameOf(compactor), messages.length, reason, { id, at: new Date(), durationMs }),
    archive: "none",
    lastMessageId: lastIdOf(messages),
  };
}

/** What {@link runGraphCompaction} is given. @internal */
export interface GraphCompactionRun {
  component: string;
  compactor: Compactor;
  messages: unknown;
  options: GraphCompactionOptions;
  config?: RunnableConfig | undefined;
  signal?: AbortSignal | undefined;
  store?: BaseStore | undefined;
  threadId?: string | undefined;
  /** The state's `compactionLog` (or an array ending with the record this step's follows): where the record goes in the log. */
  log?: unknown;
  /** Which compaction channels the graph's state has (LangGraph silently drops writes to others). */
  channels?: { log: boolean; archive: boolean };
  /**
   * Leave the calls of a last assistant message unrepaired: the node may run between the model and
   * the tools. The middleware runs right before the model, which would reject them.
   */
  keepPendingCalls: boolean;
  /** The adapter's histories already checked, by thread: a step then checks only the messages it added. */
  checked?: CheckedHistories | undefined;
  /** Called, when the step changes `messages`, with the history LangGraph's reducer makes of them (for `compactingNode`). */
  onHistory?: ((history: BaseMessage[]) => void) | undefined;
  /**
   * Given: the archive write to the store is started and handed over instead of awaited, and the
   * update returned at once (`compactingNode` runs the model meanwhile). The promise resolves to
   * `undefined` once the entry is written, to the update to use instead (the `failed` record) when
   * the write failed, and rejects as the step would have thrown (`onError: "throw"`, an aborted run).
   * The caller must wait for it before its step returns the update.
   */
  deferArchive?: ((written: Promise<CompactionStateUpdate | undefined>) => void) | undefined;
  /**
   * Given: as `deferArchive`, but the write is not started: the caller gets the function that
   * starts it, and may never call it (a call that ends in a structured response writes nothing).
   */
  holdArchive?: ((write: () => Promise<CompactionStateUpdate | undefined>) => void) | undefined;
  /**
   * Write the update in place (see `CompactionUpdateOptions.inPlace`): for an update written in the
   * model's own step. A result that cannot be written so updates nothing and archives nothing; it
   * is handed to `onViewOnly`, for the model call alone.
   */
  inPlace?: boolean | undefined;
  /** With `inPlace`: called with the history a result that cannot be written in place makes. */
  onViewOnly?: ((history: BaseMessage[]) => void) | undefined;
  /**
   * What tells this compaction's id from another's in the same task, in place of `component`: the
   * middleware's name, for several middleware that compact in one model step. @default component
   */
  idScope?: string | undefined;
  /** What the model request adds (system message, tools' schemas): a strategy's first message (taken out of its result), else `context.requestOverhead`. */
  overhead?: BaseMessage | undefined;
  /** Run the compactor with `force`, `overflow` and `overflowShrink`: the provider rejected the request as too long. */
  overflow?: { readonly shrink: number | undefined } | undefined;
  /** The state's `compactionSummary`: given, a summary the app overwrote is logged, and a new one is kept there. */
  summaries?: unknown;
}

/**
 * One compaction step of a graph: shared by the node and the `createAgent` middleware.
 *
 * A step the compactor decides synchronously to leave alone (a no-op under the bound, on a history
 * already checked) returns a promise made by `settledPromise`: the caller can read its empty update
 * without an await and go on in the same synchronous stretch (`compactingNode` calls the model
 * there). @internal
 */
export function runGraphCompaction(run: GraphCompactionRun): Promise<CompactionStateUpdate> {
  let begun: Begun;
  try {
    begun = beginGraphCompaction(run);
  } catch (error) {
    return Promise.reject(error);
  }
  const decided = settledValue(begun.compacting);
  // A summary the app overwrote since the last step: one lookup, most often finding it in place.
  const check = checkLiveSummaries(begun.messages, run.summaries);
  const noop = decided?.value?.status === "noop" && !begun.repair;
  const chained = chainSummaryCheck(check, run.log);
  if (chained === undefined) {
    // Nothing to repair and nothing to do: no update, and no microtask turn.
    if (noop) return settledPromise(withSummaryCheck({}, check));
    return finishGraphCompaction(run, begun, check).then((update) => withSummaryCheck(update, check));
  }
  // An overwrite to log: its records go in the full log first, and the step's own record after them.
  const quiet = { ...check!, records: [] };
  const where = begun.useStore ? { store: run.store!, namespace: archiveNamespace(run.threadId!, run.options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE) } : ("state" as const);
  const step = noop ? Promise.resolve<CompactionStateUpdate>({}) : finishGraphCompaction({ ...run, log: chained.log }, begun, quiet);
  return step.then((update) => withCheckRecords(withSummaryCheck(update, quiet), chained.records, where));
}

/** A step's synchronous start: its checks, the history to compact and the compactor's promise. */
interface Begun {
  readonly messages: BaseMessage[];
  readonly assigned: number;
  readonly repair: ReturnType<typeof repairBeforeCompaction>;
  readonly useStore: boolean;
  readonly started: number;
  readonly compacting: Promise<CompactionResult>;
  /** The overhead message the compactor got first, taken out of its result. */
  readonly leading: BaseMessage | undefined;
}

function beginGraphCompaction(run: GraphCompactionRun): Begun {
  const { component, compactor, options, config, signal, store, threadId, channels, keepPendingCalls, checked } = run;
  if (!Array.isArray(run.messages)) {
    throw new InvalidHistoryError(`${component}: the state's \`messages\` is not an array (got ${typeof run.messages}); is it a messages channel?`);
  }
  const mode = options.archive ?? "auto";
  const useStore = mode === "store" || (mode === "auto" && store !== undefined && threadId !== undefined);
  if (useStore && (store === undefined || threadId === undefined)) {
    throw new CompactionArchiveError(
      `${component}: archive "store" needs a store (compile the graph with { store }) and a configurable.thread_id; this run has ${store ? "no thread id" : "no store"}`,
    );
  }
  if (channels && (!channels.log || (!useStore && !channels.archive))) {
    // Without the channels the log (and, archiving in the state, the originals) would be dropped silently.
    throw new CompactionArchiveError(
      `${component}: the graph's state has no \`${channels.log ? "compactionArchive" : "compactionLog"}\` channel; ` +
        "spread CompactionState.spec (or CompactionStateSchema.fields) into it",
    );
  }
  // A history grown from one already checked needs its new messages checked only, and mostly nothing done.
  const clean = checked?.isClean(threadId ?? "", run.messages, options.invalidHistory ?? "repair", keepPendingCalls) === true;
  // The messages reducer gives every message an id; histories from elsewhere may lack them.
  const { messages, assigned } = clean ? { messages: run.messages as BaseMessage[], assigned: 0 } : assignMessageIds(run.messages as BaseMessage[]);
  // Providers reject broken tool pairing: by default the compactor, and so the model, get it repaired.
  const repair = clean ? undefined : repairBeforeCompaction(messages, options.invalidHistory, { keepPendingCalls });
  const started = performance.now();
  let compacting: Promise<CompactionResult>;
  const leading = run.overhead !== undefined && compactor instanceof CompactionStrategy ? run.overhead : undefined;
  try {
    // Promise.resolve: a native promise (a settled one with its tag) as it is; anything else a
    // compactor wrongly returns (undefined) fails in the step like a rejection would.
    compacting = Promise.resolve(compactor.compact(withOverhead(repair?.messages ?? messages, leading), {
      ...(run.overhead !== undefined && leading === undefined ? { requestOverhead: run.overhead } : {}),
      ...(run.overflow ? { force: true, overflow: true, ...(run.overflow.shrink !== undefined ? { overflowShrink: run.overflow.shrink } : {}) } : {}),
      ...(signal ? { signal } : {}),
      ...(config ? { config } : {}),
      // Per-thread state (summaries prepared ahead) lives in the store, for whichever worker runs next.
      ...(threadId !== undefined ? { threadId, ...(store ? { store } : {}) } : {}),
    }));
  } catch (error) {
    // A compactor of the user's that throws instead of rejecting: handled as a rejection.
    compacting = Promise.reject(error);
  }
  return { messages, assigned, repair, useStore, started, compacting, leading };
}

/** The rest of a step that compacts, repairs or may do either (the compactor's promise not settled when made). */
async function finishGraphCompaction(run: GraphCompactionRun, begun: Begun, check: SummaryCheck | undefined): Promise<CompactionStateUpdate> {
  const { component, compactor, options, config, signal, store, threadId } = run;
  const { messages, assigned, repair, useStore, started } = begun;
  // Worked out only for a step that records something (a no-op records nothing).
  let id: string | undefined;
  const idOf = () => (id ??= compactionIdOf(config, run.idScope ?? component, messages));
  const namespace = () => archiveNamespace(threadId!, options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE);
  // The record alone (nothing archived) goes to the full log too: the store, or the archive channel.
  const logged = (record: CompactionRecord, archived?: ArchivedCompaction) => logOnly(record, useStore ? { store: store!, namespace: namespace() } : "state", archived);
  // Not logged: it says the store could not be written.
  const fail = (error: unknown, reason: string): CompactionStateUpdate => {
    if (signal?.aborted || options.onError === "throw") throw error;
    return { compactionLog: [chainedRecord(failedRecord(compactor, messages, reason, performance.now() - started, idOf()), run.log)] };
  };
  const failLogged = (error: unknown, reason: string) => logged(fail(error, reason).compactionLog![0]!);

  const updateFor = (result: CompactionResult) => compactionUpdate(messages, result, { id: idOf(), archive: useStore ? "store" : "state", replaceAll: assigned > 0, inPlace: run.inPlace === true });

  let update: CompactionUpdate;
  try {
    // A custom compactor's output is checked as the strategies check theirs, before anything is written.
    const result = checkedOutput({ component, compactor, invalidHistory: options.invalidHistory, keepPendingCalls: run.keepPendingCalls, overhead: begun.leading }, await begun.compacting);
    if (repair) update = updateFor(withRepair(result, repair, messages.length));
    // A no-op changes nothing, not even to give the messages ids (the reducer gives added messages ids).
    else if (result.status === "noop") return {};
    else update = updateFor(result);
  } catch (error) {
    if (!repair || signal?.aborted || options.onError === "throw") return failLogged(error, describeError(error));
    // The compactor failed, but the model still must not get the broken history: the repair alone.
    const repaired = updateFor(repairOnlyResult(strategyNameOf(compactor), repair, messages.length, describeError(error)));
    update = { ...repaired, record: { ...repaired.record, tokensBefore: null, tokensAfter: null } };
  }
  const { changed, archive } = update;
  if (!update.expressible) {
    // Not written: the model gets it for this call, the state keeps the history as it is.
    run.onViewOnly?.(update.history);
    return {};
  }
  // The duration leaves out the archive write: the store's copy of the record is written with it.
  const record = chainedRecord({ ...update.record, durationMs: performance.now() - started }, run.log);
  if (!changed) {
    // A strategy that reports a failure changed nothing; the log still says why.
    return record.status === "failed" ? logged(record) : {};
  }
  if (record.archive === "store") {
    const write = () => writeArchiveAndRecord(store!, namespace(), archive, { ...record, logged: "store" }).then(
      () => undefined,
      (error: unknown) => {
        const failure = new CompactionArchiveError(`${component}: could not archive compaction ${record.id}: ${describeError(error)}`, {
          compactionId: record.id,
          cause: error,
        });
        return fail(failure, failure.message);
      },
    );
    if (run.holdArchive) run.holdArchive(write);
    else if (run.deferArchive) run.deferArchive(write());
    else {
      const failed = await write();
      if (failed) return failed;
    }
  }
  run.onHistory?.(update.history);
  const summaries = summariesAfter(run.summaries, check, update, record);
  const written = record.archive === "store" ? { compactionLog: [{ ...record, logged: "store" as const }] } : await logged(record, record.archive === "state" ? archive : undefined);
  return { ...(summaries ? { compactionSummary: summaries } : {}), messages: update.messages, ...written };
}

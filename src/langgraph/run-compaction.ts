import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseStore } from "@langchain/langgraph";
import { InvalidHistoryError } from "../errors.js";
import { CompactionStrategy, type Compactor } from "../strategies/compaction-strategy.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "./compaction-archive.js";
import { chainedRecord, logOnly, writeArchiveAndRecord } from "./log-writes.js";
import { describeError, failedCompactionRecord, strategyNameOf, type ArchivedCompaction, type CompactionRecord } from "../compaction-record.js";
import type { CompactionResult } from "../types.js";
import { settledPromise, settledValue } from "../strategies/settled-promise.js";
import { assignMessageIds, compactionUpdate, lastIdOf, type CompactionUpdate } from "./compaction-update.js";
import type { CheckedHistories } from "./checked-histories.js";
import { withRecallNotes } from "./recall-refs.js";
import { checkedOutput, withOverhead } from "./checked-output.js";
import { chainSummaryCheck, withCheckRecords } from "./summary-check-log.js";
import { runWithWriteBack, writeBackSummaries } from "./summary-write-back.js";
import { checkLiveSummaries, summariesAfter, withSummaryCheck, type SummaryCheck } from "./live-summary.js";
import { repairBeforeCompaction, repairOnlyResult, withRepair } from "./invalid-history.js";
import { compactionIdOf, type CompactionStateUpdate, type GraphCompactionOptions } from "./graph-compaction-options.js";

export {
  assertCompactor,
  compactionIdOf,
  graphCompactionOptionsShape,
  graphOptionsShapeWithoutRecall,
  type CompactionArchiveMode,
  type CompactionErrorHandling,
  type CompactionStateUpdate,
  type GraphCompactionOptions,
} from "./graph-compaction-options.js";

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
  /** A summary the app overwrote is written back into the state (a step of its own, whose state the model reads). */
  writeBack?: boolean;
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
  if (run.writeBack === true && Array.isArray(run.messages)) {
    const back = writeBackSummaries(run.messages as BaseMessage[], run.summaries);
    if (back !== undefined) return runWithWriteBack(run, back, runGraphCompaction, () => logWhere(run, usesStore(run)));
  }
  let begun: Begun;
  try {
    begun = beginGraphCompaction(run);
  } catch (error) {
    return Promise.reject(error);
  }
  const decided = settledValue(begun.compacting);
  // A summary the app overwrote since the last step: one lookup, most often finding it in place
  // (already made by `writeBackSummaries` when writing back, which found nothing to write back).
  const check = run.writeBack === true ? undefined : checkLiveSummaries(begun.messages, run.summaries);
  const noop = decided?.value?.status === "noop" && !begun.repair;
  const chained = chainSummaryCheck(check, run.log);
  if (chained === undefined) {
    // Nothing to repair and nothing to do: no update, and no microtask turn.
    if (noop) return settledPromise(withSummaryCheck({}, check));
    return finishGraphCompaction(run, begun, check).then((update) => withSummaryCheck(update, check));
  }
  // An overwrite to log: its records go in the full log first, and the step's own record after them.
  const quiet = { ...check!, records: [] };
  const where = logWhere(run, begun.useStore);
  const step = noop ? Promise.resolve<CompactionStateUpdate>({}) : finishGraphCompaction({ ...run, log: chained.log }, begun, quiet);
  return step.then((update) => withCheckRecords(withSummaryCheck(update, quiet), chained.records, where));
}

/** Whether the step archives in the store (see the `archive` option). */
function usesStore(run: GraphCompactionRun): boolean {
  const mode = run.options.archive ?? "auto";
  return mode === "store" || (mode === "auto" && run.store !== undefined && run.threadId !== undefined);
}

/** Where a step's records go besides the state: the store's log namespace, or the archive channel. */
function logWhere(run: GraphCompactionRun, useStore: boolean): "state" | { store: BaseStore; namespace: string[] } {
  return useStore ? { store: run.store!, namespace: archiveNamespace(run.threadId!, run.options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE) } : "state";
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
  const useStore = usesStore(run);
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

  const updateFor = (result: CompactionResult) => {
    const made = compactionUpdate(messages, result, { id: idOf(), archive: useStore ? "store" : "state", replaceAll: assigned > 0, inPlace: run.inPlace === true });
    return options.recall === true ? withRecallNotes(made, messages) : made;
  };

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

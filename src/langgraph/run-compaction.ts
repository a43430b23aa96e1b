import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { v4 as uuidv4 } from "@langchain/core/utils/uuid";
import type { BaseStore } from "@langchain/langgraph";
import { z } from "zod/v4";
import { InvalidHistoryError, InvalidOptionError } from "../errors.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace, writeArchive } from "./compaction-archive.js";
import { describeError, failedCompactionRecord, strategyNameOf, type ArchivedCompaction, type CompactionRecord } from "../compaction-record.js";
import { assignMessageIds, compactionUpdate, lastIdOf } from "./compaction-update.js";


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
}

/** @internal */
export const graphCompactionOptionsShape = {
  onError: z.enum(["continue", "throw"]).optional(),
  archive: z.enum(["auto", "store", "state"]).optional(),
  namespace: z
    .array(z.string().min(1).regex(/^[^.:%_\\\0]+$/, "labels may not contain '.', ':', '%', '_', '\\' or NUL (stores such as PostgresStore reject them)"))
    .min(1)
    .optional(),
};

/** The state update of one compaction step. @internal */
export interface CompactionStateUpdate {
  messages?: BaseMessage[];
  compactionLog?: CompactionRecord[];
  compactionArchive?: ArchivedCompaction[];
}

/** @internal */
export function assertCompactor(component: string, compactor: unknown): asserts compactor is Compactor {
  if (typeof compactor !== "object" || compactor === null || typeof (compactor as Compactor).compact !== "function") {
    throw new InvalidOptionError(component, "compactor", "expected a strategy (an object with a compact() method)");
  }
}

function failedRecord(compactor: Compactor, messages: readonly BaseMessage[], reason: string, durationMs: number): CompactionRecord {
  return {
    ...failedCompactionRecord(strategyNameOf(compactor), messages.length, reason, { id: uuidv4(), at: new Date(), durationMs }),
    archive: "none",
    lastMessageId: lastIdOf(messages),
  };
}

/** One compaction step of a graph: shared by the node and the `createAgent` middleware. @internal */
export async function runGraphCompaction(run: {
  component: string;
  compactor: Compactor;
  messages: unknown;
  options: GraphCompactionOptions;
  config?: RunnableConfig | undefined;
  signal?: AbortSignal | undefined;
  store?: BaseStore | undefined;
  threadId?: string | undefined;
  /** Which compaction channels the graph's state has (LangGraph silently drops writes to others). */
  channels?: { log: boolean; archive: boolean };
}): Promise<CompactionStateUpdate> {
  const { component, compactor, options, config, signal, store, threadId, channels } = run;
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
  // The messages reducer gives every message an id; histories from elsewhere may lack them.
  const { messages, assigned } = assignMessageIds(run.messages as BaseMessage[]);
  const started = performance.now();
  const fail = (error: unknown, reason: string): CompactionStateUpdate => {
    if (signal?.aborted || options.onError === "throw") throw error;
    return { compactionLog: [failedRecord(compactor, messages, reason, performance.now() - started)] };
  };

  let update;
  try {
    const result = await compactor.compact(messages, { ...(signal ? { signal } : {}), ...(config ? { config } : {}) });
    // A no-op changes nothing, not even to give the messages ids (the reducer gives added messages ids).
    if (result.status === "noop") return {};
    update = compactionUpdate(messages, result, { archive: useStore ? "store" : "state", replaceAll: assigned > 0 });
  } catch (error) {
    return fail(error, describeError(error));
  }
  const { changed, record, archive } = update;
  if (!changed) {
    // A strategy that reports a failure changed nothing; the log still says why.
    return record.status === "failed" ? { compactionLog: [{ ...record, durationMs: performance.now() - started }] } : {};
  }
  if (record.archive === "store") {
    try {
      await writeArchive(store!, archiveNamespace(threadId!, options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE), archive);
    } catch (error) {
      const failure = new CompactionArchiveError(`${component}: could not archive compaction ${record.id}: ${describeError(error)}`, {
        compactionId: record.id,
        cause: error,
      });
      return fail(failure, failure.message);
    }
  }
  return {
    messages: update.messages,
    compactionLog: [{ ...record, durationMs: performance.now() - started }],
    ...(record.archive === "state" ? { compactionArchive: [archive] } : {}),
  };
}

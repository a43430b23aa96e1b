import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { v4 as uuidv4, v5 as uuidv5 } from "@langchain/core/utils/uuid";
import { z } from "zod/v4";
import type { CompactionRecord } from "../compaction-record.js";
import type { StateArchivedCompaction } from "./packed-archive.js";
import { invalidOption } from "../option-errors.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { lastIdOf } from "./compaction-update.js";
import { adapterInvalidHistorySchema, type AdapterInvalidHistoryHandling } from "./invalid-history.js";
import type { LiveSummary } from "./live-summary.js";

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
  /** Name a recall reference (` [recall 04417296]`) in every message a compaction rewrites, for `recallTool`. @default false */
  recall?: boolean;
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
  recall: z.boolean().optional(),
};

/** {@link graphCompactionOptionsShape} without `recall`: for the LangChain-compatible middleware, which do not take it. @internal */
export const { recall: _recall, ...graphOptionsShapeWithoutRecall } = graphCompactionOptionsShape;

/** The state update of one compaction step. @internal */
export interface CompactionStateUpdate {
  messages?: BaseMessage[];
  compactionLog?: CompactionRecord[];
  compactionArchive?: StateArchivedCompaction[];
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

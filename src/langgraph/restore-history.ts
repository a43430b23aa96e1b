import { mapStoredMessagesToChatMessages, type BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import { InvalidHistoryError } from "../errors.js";
import { fromPlainMessages, type MessageInput } from "../messages/from-plain.js";
import { ArchiveAnchors } from "./archive-anchors.js";
import { PLACE, appWritesOf, fingerprintOf } from "./app-writes.js";
import { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace, readArchive } from "./compaction-archive.js";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";
import { unpackArchive, type StateArchivedCompaction } from "./packed-archive.js";
import { asBaseStore, type SdkClientWithStore, type SdkStoreClient } from "./sdk-store.js";
import { readLogFor } from "./compaction-log.js";
import { writtenBackIds } from "./summary-write-back.js";

/**
 * The state {@link restoreHistory} reads: `messages` and the {@link CompactionState} channels. The
 * messages may be `BaseMessage`s or their plain JSON form (a thread's state read through
 * `@langchain/langgraph-sdk`, see `PlainMessage`).
 */
export interface RestorableState {
  messages: readonly MessageInput[];
  compactionLog?: readonly CompactionRecord[];
  compactionArchive?: readonly StateArchivedCompaction[];
}

/** Options of {@link restoreHistory}. */
export interface RestoreHistoryOptions {
  /**
   * The graph's store, for compactions archived there: a LangGraph `BaseStore`, or, for a thread
   * served by a LangGraph API server, an `@langchain/langgraph-sdk` `Client` (or its `client.store`),
   * read through `sdkStore`.
   */
  store?: BaseStore | SdkClientWithStore | SdkStoreClient;
  /** The thread whose archive to read (only that thread's namespace is read). */
  threadId?: string;
  /** The namespace prefix the node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: string[];
}

async function archivesOf(
  state: RestorableState,
  options: RestoreHistoryOptions & { store?: BaseStore | undefined },
): Promise<{ archives: { sequence: number; archive: ArchivedCompaction }[]; writtenBack: Set<string> }> {
  const inState = new Map((state.compactionArchive ?? []).map((archive) => [archive.compactionId, archive] as const));
  const archives: { sequence: number; archive: ArchivedCompaction }[] = [];
  const log = await readLogFor("restoreHistory", state, options);
  for (let sequence = 0; sequence < log.length; sequence++) {
    const record = log[sequence]!;
    if (record.archive === "none") continue;
    let archive: ArchivedCompaction | undefined;
    if (record.archive === "state") {
      const entry = inState.get(record.id);
      archive = entry === undefined ? undefined : unpackArchive(entry);
    } else {
      if (!options.store || options.threadId === undefined) {
        throw new CompactionArchiveError(`restoreHistory: compaction ${record.id} archived its originals in a store; pass { store, threadId }`, {
          compactionId: record.id,
        });
      }
      archive = await readArchive(options.store, archiveNamespace(options.threadId, options.namespace ?? DEFAULT_ARCHIVE_NAMESPACE), record.id);
    }
    if (!archive) {
      throw new CompactionArchiveError(`restoreHistory: the archive of compaction ${record.id} (${record.archive}) is missing`, { compactionId: record.id });
    }
    archives.push({ sequence, archive });
  }
  return { archives, writtenBack: writtenBackIds(log) };
}

/**
 * The full original history of a graph thread: every message that ever entered `messages`, in
 * order, with hidden content restored and summaries (also summaries of summaries) expanded into the
 * messages they replaced. Messages that compactions added (summaries) are left out.
 *
 * Reads the `compactionLog` and `compactionArchive` channels of `state` (e.g.
 * `(await graph.getState(config)).values`, or `(await client.threads.getState(threadId)).values`
 * from `@langchain/langgraph-sdk`) and, for compactions archived in a store, that store under the
 * given thread's namespace only. Always returns real `BaseMessage`s: plain messages (the SDK's JSON)
 * are converted with LangChain's own conversion (see `fromPlainMessages`), ids, tool calls and
 * metadata kept; for a thread served by a LangGraph API server pass the SDK `Client` as `store`
 * (or use `restoreThreadHistory`). Linear in the history and the archive (a binary search per
 * message among the compactions that touched it). What the app wrote under an id after a
 * compaction wins: a message that differs from what the compaction wrote under its id (an edit, a
 * redaction), or that reuses the id of an archived original (a resend), takes that original's place;
 * a message the app removed (`RemoveMessage`) does not come back, and the originals archived
 * around it stay where it was.
 *
 * @example
 * const config = { configurable: { thread_id: "t1" } };
 * const { values } = await graph.getState(config);
 * const history = await restoreHistory(values, { store, threadId: "t1" });
 * @throws {CompactionArchiveError} when an archive the log names is missing, or is in a store and no
 *   `store` and `threadId` were given.
 * @throws {InvalidHistoryError} when `state.messages` is not an array, or holds something that is
 *   not a message.
 * @throws {InvalidOptionError} when `store` is neither a `BaseStore` nor an SDK client.
 */
export async function restoreHistory(state: RestorableState, options: RestoreHistoryOptions = {}): Promise<BaseMessage[]> {
  const { messages, anchors } = await loadAnchors("restoreHistory", state, options);
  return expandHistory(messages, anchors);
}

/**
 * The state's messages (as `BaseMessage`s) and the anchors of every archive its log names, read
 * from the state and the given thread's namespace of the store only; originals anchored to a
 * message the app removed already moved to its neighbours. @internal
 */
export async function loadAnchors(component: string, state: RestorableState, options: RestoreHistoryOptions): Promise<{ messages: BaseMessage[]; anchors: ArchiveAnchors }> {
  if (!Array.isArray(state?.messages)) throw new InvalidHistoryError(`${component}: state.messages is not an array`);
  const messages = fromPlainMessages(state.messages, component);
  const store = asBaseStore(component, options.store);
  const anchors = new ArchiveAnchors();
  const { archives, writtenBack } = await archivesOf(state, { ...options, store });
  for (const id of writtenBack) anchors.writtenBack.add(id);
  for (const { sequence, archive } of archives) {
    anchors.addArchive(sequence, archive, mapStoredMessagesToChatMessages(archive.messages.map((entry) => entry.message)));
  }
  // Originals anchored to a message the app removed go to its neighbours.
  const live = new Set(messages.map((message) => message.id));
  anchors.reanchorUnreached((id, sequence) => live.has(id) || (anchors.originalAt.get(id) ?? -1) > sequence);
  return { messages, anchors };
}

/** The full original history of `messages`, expanded with `anchors` (see {@link restoreHistory}). @internal */
export function expandHistory(messages: readonly BaseMessage[], anchors: ArchiveAnchors): BaseMessage[] {
  /**
   * Messages still to expand, each with the compaction before which to look (LIFO; an explicit stack,
   * since a summary of summaries of summaries nests as deep as the thread is long). Expanding a
   * message undoes, newest first, the compactions before its bound that touched it: what was removed
   * around it comes back, and a message a compaction produced gives way to what it stands for.
   */
  const pending: [BaseMessage, number][] = [];
  const pushInOrder = (messages: readonly BaseMessage[], bound: number) => {
    for (let position = messages.length - 1; position >= 0; position--) pending.push([messages[position]!, bound]);
  };
  pushInOrder(messages, Number.POSITIVE_INFINITY);
  // A compaction that kept nothing put its originals before everything that came after it.
  const { starts } = anchors;
  for (let position = starts.length - 1; position >= 0; position--) pushInOrder(starts[position]!.messages, starts[position]!.sequence);
  const appWrites = appWritesOf(messages, anchors);
  const output: (BaseMessage | undefined)[] = [];
  const placeholders = new Map<BaseMessage, number>();
  while (pending.length > 0) {
    const [message, bound] = pending.pop()!;
    let appWrite = typeof message.id === "string" ? appWrites.get(message.id) : undefined;
    if (appWrite !== undefined && message !== appWrite.message && bound === appWrite.sequence) {
      // The original the app's write replaced: the app's version takes its place, as it is.
      if (!appWrite.placed) output.push(appWrite.message);
      appWrite.placed = true;
      continue;
    }
    const anchor = anchors.lastBefore(message.id, bound);
    if (anchor?.replacedBy && bound !== Number.POSITIVE_INFINITY && bound !== PLACE && appWrite?.message !== message) {
      // An app's write that a later compaction archived: it differs from what this one wrote under its id.
      const wrote = anchors.writtenFingerprint(anchor.sequence, message.id!);
      if (wrote !== undefined && wrote !== fingerprintOf(message)) appWrites.set(message.id!, (appWrite = { message, sequence: anchor.sequence, placed: false }));
    }
    const isAppWrite = appWrite !== undefined && message === appWrite.message;
    if (bound === PLACE || (!anchor && isAppWrite)) {
      // Where the app's write goes unless its id's original comes out later (above).
      placeholders.set(message, output.length);
      output.push(undefined);
      continue;
    }
    if (!anchor) {
      output.push(message);
      continue;
    }
    const { sequence, before, replacedBy, after } = anchor;
    // Pushed last-first, so they come out as: before, the message (or its originals), after.
    pushInOrder(after, sequence);
    if (replacedBy) {
      // The app overwrote what this compaction wrote: its originals, the app's version in its id's.
      if (isAppWrite && sequence === appWrite!.sequence) pending.push([message, PLACE]);
      pushInOrder(replacedBy, sequence);
    } else pending.push([message, sequence]);
    pushInOrder(before, sequence);
  }
  for (const [message, position] of placeholders) if (!appWrites.get(message.id!)!.placed) output[position] = message;
  // A summary written back after the app overwrote its id was added by a compaction, as summaries are.
  return output.filter((message): message is BaseMessage => message !== undefined && !(typeof message.id === "string" && anchors.writtenBack.has(message.id)));
}

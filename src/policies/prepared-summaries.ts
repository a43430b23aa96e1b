import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import { underlyingStore } from "../langgraph/compaction-archive.js";
import { preparedSummariesNamespace } from "./prepared-namespace.js";
import type { PreparedHistory } from "../strategies/compaction-strategy.js";
import type { FullSummary } from "../summary/full-summary.js";
import type { WrittenSummary } from "../summary/summary-strategy.js";
import { removeAhead, storeAhead } from "../messages/stored-messages.js";
import { conversationKey, prefixFingerprint } from "./prefix-fingerprint.js";

function sameNamespace(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((label, position) => label === b[position]);
}

/** Why `take` found nothing: no preparation for this thread, here or in the store. */
export const NO_PREPARATION = "no summary was prepared";
/** Why `take` found nothing: a message the preparation covers was removed or rewritten. */
export const STALE_PREPARATION = "the history changed before the prepared summary's cut";

/** At most this many threads' preparations are kept in one process; the oldest is dropped first. */
const MAX_THREADS = 256;
/** At most this many threads (or conversations) are remembered as seen by one policy; the oldest is forgotten first. */
const MAX_SEEN = 4096;
/** Store entries read for one thread at a firing. */
const STORE_SEARCH_LIMIT = 20;

/** A prepared summary as kept in the store. */
interface StoredPrepared {
  readonly version: 1;
  readonly cut: number;
  readonly fingerprint: string;
  readonly signature: string;
  readonly text: string;
  readonly artifacts: WrittenSummary["artifacts"];
  readonly summaryModel: string;
}

/** One thread's preparation in this process. */
interface Entry {
  readonly signature: string;
  readonly cut: number;
  /** The messages the summary covers, as they were (same objects: the fast check). */
  readonly prefix: readonly BaseMessage[];
  readonly controller: AbortController;
  readonly stored: { store: BaseStore; namespace: string[]; key: string } | undefined;
  fingerprint: string | undefined;
  state: "pending" | "ready" | "failed" | "discarded";
  written: WrittenSummary | undefined;
  /** Settles when the summary call (not the store write) is over. */
  done: Promise<void> | undefined;
}

/** A prepared summary ready to be placed in a history: the cut it was written for and its text. */
export interface TakenSummary {
  readonly cut: number;
  readonly written: WrittenSummary;
  readonly source: "process" | "store";
}

/** Where a thread's preparation lives: its key in this process and, in a graph, the store. */
export interface PreparationScope {
  readonly threadId: string | undefined;
  readonly store: BaseStore | undefined;
}

/**
 * The summaries autoCompaction prepares ahead, by thread: started without waiting, applied at a
 * firing only while the messages they cover are still the history's prefix (same ids, same
 * content), kept in the graph's store when there is one so another worker can apply them.
 * @internal
 */
export class PreparedSummaries {
  readonly #entries = new Map<string, Entry>();
  readonly #work = new Set<Promise<unknown>>();
  /** Threads (or conversations) this policy has run a step of, oldest first. */
  readonly #seen = new Set<string>();

  /** Whether {@link noteStep} would say this policy ran an earlier step of this loop, without noting one. */
  hasSeen(threadId: string | undefined, messages: readonly BaseMessage[]): boolean {
    return this.#seen.has(keyOf(threadId, messages));
  }

  /**
   * Note a step of this thread (or, without a thread id, of the conversation of `messages`). Returns
   * whether this policy ran an earlier step of it: an agent loop that will run a next step, where a
   * firing may go on while its summary is written.
   */
  noteStep(threadId: string | undefined, messages: readonly BaseMessage[]): boolean {
    const key = keyOf(threadId, messages);
    const seen = this.#seen.delete(key);
    this.#seen.add(key);
    if (this.#seen.size > MAX_SEEN) this.#seen.delete(this.#seen.values().next().value!);
    return seen;
  }

  /** Resolves once every preparation started (and every store write or delete) has settled. */
  async settled(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /**
   * Whether this thread has a preparation (pending, ready or failed: one attempt per prefix) whose
   * messages are still the first messages of `messages`.
   */
  isPrepared(messages: readonly BaseMessage[], signature: string, { threadId }: PreparationScope): boolean {
    const existing = this.#entries.get(keyOf(threadId, messages));
    return existing !== undefined && existing.signature === signature && this.#matches(existing, messages);
  }

  /** Whether this thread's preparation in this process is still being written and covers the first messages of `messages`. */
  isPending(messages: readonly BaseMessage[], signature: string, scope: PreparationScope): boolean {
    return this.#entries.get(keyOf(scope.threadId, messages))?.state === "pending" && this.isPrepared(messages, signature, scope);
  }

  /** Whether this thread's preparation in this process is written and still covers the first messages of `messages`. */
  isReady(messages: readonly BaseMessage[], signature: string, scope: PreparationScope): boolean {
    return this.#entries.get(keyOf(scope.threadId, messages))?.state === "ready" && this.isPrepared(messages, signature, scope);
  }

  /**
   * Start preparing the summary of `history` before `cut` with `summary`, unless this thread has a
   * preparation whose messages are still the history's prefix (pending, ready or failed: one
   * attempt per prefix). Returns at once; the summary call runs in the background.
   */
  start(history: PreparedHistory, cut: number, summary: FullSummary, signature: string, { threadId, store: given }: PreparationScope): void {
    // Not LangGraph's per-run batching wrapper: a preparation outlives the step that started it, and the wrapper stops serving when the run ends.
    const scope = { threadId, store: given && underlyingStore(given) };
    const thread = keyOf(scope.threadId, history.messages);
    const existing = this.#entries.get(thread);
    if (existing && this.isPrepared(history.messages, signature, scope)) return;
    if (existing) this.#discard(thread, existing);
    const { messages, tokens } = history;
    const controller = new AbortController();
    const lastId = messages[cut - 1]?.id;
    const entry: Entry = {
      signature,
      cut,
      prefix: messages.slice(0, cut),
      controller,
      stored: scope.store && scope.threadId !== undefined && lastId ? { store: scope.store, namespace: preparedSummariesNamespace(scope.threadId), key: lastId } : undefined,
      fingerprint: undefined,
      state: "pending",
      written: undefined,
      done: undefined,
    };
    this.#entries.delete(thread);
    this.#entries.set(thread, entry);
    if (this.#entries.size > MAX_THREADS) {
      const [oldest, dropped] = this.#entries.entries().next().value as [string, Entry];
      this.#discard(oldest, dropped);
    }
    // A copy: the caller may push onto its array, and counts may be extended in place.
    const snapshot: PreparedHistory = {
      messages: messages.slice(),
      index: history.index,
      tokens: { ...tokens, perMessage: tokens.perMessage.slice() },
      context: { signal: controller.signal },
      pending: history.pending,
    };
    entry.done = this.#write(entry, summary, snapshot);
    this.#track(entry.done.then(() => this.#store(entry)));
  }

  async #write(entry: Entry, summary: FullSummary, snapshot: PreparedHistory): Promise<void> {
    try {
      // The next turn of the event loop: the fingerprint and the prompt are built after the step has returned, not in its microtasks.
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      // Discarded in the meantime: no call at all.
      if (entry.state !== "pending") return;
      entry.fingerprint = prefixFingerprint(entry.prefix, entry.cut);
      const written = await summary.writeSummary(snapshot, entry.cut);
      if (entry.state !== "pending") return;
      if (!("text" in written)) {
        entry.state = "failed";
        return;
      }
      entry.written = written;
      entry.state = "ready";
      // The step that applies it places its message, archives these messages and removes them from the state: all three are made (and the message counted) now, off that step.
      storeAhead(entry.prefix);
      removeAhead(entry.prefix);
      await summary.prepareSummaryMessage(written, entry.prefix.filter((message) => message.type !== "system"));
    } catch {
      // A preparation that fails (or is discarded mid-call) changes nothing.
      if (entry.state === "pending") entry.state = "failed";
    }
  }

  /** Keep a written summary in the store, for whichever worker runs the thread's firing. */
  async #store(entry: Entry): Promise<void> {
    if (entry.state !== "ready" || !entry.stored) return;
    const value: StoredPrepared = { version: 1, cut: entry.cut, fingerprint: entry.fingerprint!, signature: entry.signature, ...entry.written! };
    await entry.stored.store.put(entry.stored.namespace, entry.stored.key, { ...value }, false);
  }

  /**
   * At a firing: the prepared summary whose covered messages are still the history's prefix, from
   * this process or (in a graph) the store, consumed; `undefined` and why not otherwise. One still
   * being written in this process for this prefix is waited for (it started earlier than a call made
   * now would; `signal` stops the wait), and dropped if it fails.
   */
  async take(messages: readonly BaseMessage[], signature: string, scope: PreparationScope, signal?: AbortSignal): Promise<TakenSummary | string> {
    const thread = keyOf(scope.threadId, messages);
    const entry = this.#entries.get(thread);
    let note: string = NO_PREPARATION;
    if (entry?.state === "pending" && entry.done && this.isPrepared(messages, signature, scope)) await untilSettledOrAborted(entry.done, signal);
    if (entry) {
      this.#entries.delete(thread);
      const state = entry.state;
      this.#discard(undefined, entry);
      if (state === "pending") note = "the prepared summary was not ready";
      else if (state === "failed") note = "the prepared summary failed";
      else if (entry.signature !== signature || !this.#matches(entry, messages)) note = STALE_PREPARATION;
      else return { cut: entry.cut, written: entry.written!, source: "process" };
    }
    if (!scope.store || scope.threadId === undefined) return note;
    return (await this.#takeStored(messages, signature, underlyingStore(scope.store), preparedSummariesNamespace(scope.threadId))) ?? note;
  }

  /** The latest stored preparation that still covers a prefix of `messages`; every one read is deleted. */
  async #takeStored(messages: readonly BaseMessage[], signature: string, store: BaseStore, namespace: string[]): Promise<TakenSummary | undefined> {
    let best: StoredPrepared | undefined;
    for (const item of await store.search(namespace, { limit: STORE_SEARCH_LIMIT })) {
      // Another namespace under the prefix (a store that matches prefixes loosely): not this thread's.
      if (!sameNamespace(item.namespace, namespace)) continue;
      // Read once: consumed when it applies, useless for good when it does not.
      this.#track(store.delete(namespace, item.key));
      const value = item.value as Partial<StoredPrepared>;
      if (value.version !== 1 || value.signature !== signature || typeof value.cut !== "number" || typeof value.text !== "string") continue;
      const cut = value.cut;
      if (cut < 1 || cut > messages.length || messages[cut - 1]!.id !== item.key || (best && best.cut >= cut)) continue;
      if (prefixFingerprint(messages, cut) === value.fingerprint) best = value as StoredPrepared;
    }
    return best && { cut: best.cut, written: { text: best.text, artifacts: best.artifacts, summaryModel: best.summaryModel }, source: "store" };
  }

  /** Drop the preparation of this thread (or, without one, of the conversation of `messages`): its history was compacted. A pending call is aborted on the next turn of the event loop. */
  forget(threadId: string | undefined, messages: readonly BaseMessage[]): void {
    const thread = keyOf(threadId, messages);
    const entry = this.#entries.get(thread);
    if (entry) this.#discard(thread, entry);
  }

  /** Whether the messages `entry` covers are still the first messages of `messages`. */
  #matches(entry: Entry, messages: readonly BaseMessage[]): boolean {
    const { cut, prefix } = entry;
    if (messages.length < cut) return false;
    let same = true;
    for (let position = 0; position < cut && same; position++) same = messages[position] === prefix[position];
    if (same) return true;
    if (messages[cut - 1]!.id !== prefix[cut - 1]!.id) return false;
    // Not the same objects (e.g. read back from a checkpoint): same ids and content.
    return (entry.fingerprint ?? (entry.fingerprint = prefixFingerprint(prefix, cut))) === prefixFingerprint(messages, cut);
  }

  #discard(thread: string | undefined, entry: Entry): void {
    if (thread !== undefined && this.#entries.get(thread) === entry) this.#entries.delete(thread);
    if (entry.state === "pending") {
      // Aborted on the next turn: the abort's listeners (the HTTP client tearing its request down) run after the step that compacted, not in it. The state says "discarded" at once, so a summary that lands before is not used.
      const { controller } = entry;
      setTimeout(() => controller.abort(new Error("the prepared summary was discarded")), 0);
    }
    entry.state = "discarded";
    if (entry.stored) this.#track(entry.stored.store.delete(entry.stored.namespace, entry.stored.key));
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }
}

/** A preparation's key in this process: its thread, or without one its conversation (see `conversationKey`). @internal */
export function keyOf(threadId: string | undefined, messages: readonly BaseMessage[]): string {
  return threadId ?? conversationKey(messages);
}

/** Resolves when `work` settles, or rejects with the abort reason when `signal` aborts first. */
function untilSettledOrAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void work.finally(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

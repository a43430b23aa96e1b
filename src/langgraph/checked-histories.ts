import type { BaseMessage } from "@langchain/core/messages";
import { assistantCalls } from "../messages/assistant-calls.js";
import { checkHistory } from "../messages/history-check.js";
import { isAssistantMessage, isBaseMessage } from "../messages/message-types.js";
import { ToolCallIndexBuilder } from "../messages/tool-call-groups.js";
import type { AdapterInvalidHistoryHandling } from "./invalid-history.js";

/** A thread's last history that needed nothing, and what checking it built. */
interface CheckedHistory {
  /** Its messages (a copy of the array: the caller's may change). */
  readonly messages: readonly BaseMessage[];
  /** Their ids, all distinct. */
  readonly ids: Set<string>;
  /** Their tool-call index, to push the next messages on; undefined when pairing was not checked (`"leave"`). */
  readonly pairing: ToolCallIndexBuilder | undefined;
}

/** True when `messages` starts with exactly the message objects of `previous`. */
function startsWith(messages: readonly unknown[], previous: readonly BaseMessage[]): boolean {
  if (messages.length < previous.length) return false;
  for (let position = 0; position < previous.length; position++) if (messages[position] !== previous[position]) return false;
  return true;
}

/**
 * Which histories the graph adapter (node, middleware) found needing nothing before the compactor:
 * every message has an id of its own (`assignMessageIds` would assign none) and, with
 * `invalidHistory: "repair"`, no repair (`repairBeforeCompaction` would return undefined). One entry per
 * thread, the least recently used dropped past `maxThreads`.
 *
 * At the next step of a thread the history is the last one plus the messages the model and the
 * tools added, the same message objects first: only the new messages are checked, their ids against
 * the known ones and their tool calls and results pushed onto the known tool-call index, so a step
 * costs the new messages (and a pointer comparison per old one) instead of the whole history. A
 * history that does not start with the remembered objects (read back from a checkpoint, rewritten,
 * a message replaced or removed) is checked whole. Like the strategies' own memo, this assumes
 * messages are not mutated in place. @internal
 */
export class CheckedHistories {
  readonly #entries = new Map<string, CheckedHistory>();

  /** @param maxThreads threads remembered at most; the least recently used is forgotten first. */
  constructor(readonly maxThreads = 128) {}

  /** Threads remembered now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * True when `messages` needs neither ids nor (with `mode` `"repair"`) a repair, as
   * `assignMessageIds` and `repairBeforeCompaction` would find: every message has a distinct id, and
   * with `"repair"` `checkHistory` finds no problem and the tool calls and results pair up, but for
   * the calls of a last assistant message when `keepPendingCalls`. Remembers `messages` for `thread`
   * when true, forgets the thread otherwise (the caller then checks and repairs it the full way).
   * Synchronous, so concurrent runs never share an entry.
   */
  isClean(thread: string, messages: readonly unknown[], mode: AdapterInvalidHistoryHandling, keepPendingCalls: boolean): boolean {
    const previous = this.#entries.get(thread);
    this.#entries.delete(thread);
    const checkPairing = mode === "repair";
    const reuse = previous !== undefined && (previous.pairing !== undefined || !checkPairing) && startsWith(messages, previous.messages);
    const from = reuse ? previous.messages.length : 0;
    if (checkPairing) {
      if (checkHistory(messages, from).length > 0) return false;
    } else {
      for (let position = from; position < messages.length; position++) if (!isBaseMessage(messages[position])) return false;
    }
    const history = messages as readonly BaseMessage[];
    // Taken from the map: extended in place, then remembered again under the longer history.
    const ids = reuse ? previous.ids : new Set<string>();
    for (let position = from; position < history.length; position++) {
      const id = history[position]!.id;
      if (typeof id !== "string" || id === "" || ids.has(id)) return false;
      ids.add(id);
    }
    let pairing: ToolCallIndexBuilder | undefined;
    if (checkPairing) {
      pairing = reuse ? previous.pairing! : new ToolCallIndexBuilder();
      for (let position = from; position < history.length; position++) pairing.push(history[position]!);
      if (!this.#paired(history, pairing, keepPendingCalls)) return false;
    }
    this.#entries.set(thread, { messages: history.slice(), ids, pairing });
    if (this.#entries.size > this.maxThreads) this.#entries.delete(this.#entries.keys().next().value!);
    return true;
  }

  /**
   * Whether the index finds no pairing problem but, when `keepPendingCalls`, the unanswered calls of
   * a last assistant message (then the history before it has none, as the adapter's repair requires).
   */
  #paired(history: readonly BaseMessage[], pairing: ToolCallIndexBuilder, keepPendingCalls: boolean): boolean {
    const { problems } = pairing.view();
    if (problems.length === 0) return true;
    const last = history.length - 1;
    const pending = keepPendingCalls && last >= 0 && isAssistantMessage(history[last]!) && assistantCalls(history[last]!).length > 0;
    return pending && problems.every((problem) => problem.kind === "unanswered-call" && problem.index === last);
  }
}

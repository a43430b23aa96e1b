import type { BaseMessage } from "@langchain/core/messages";

/** At most this many threads' verdicts are kept by one policy; the oldest leaves first. */
const MAX_VERDICTS = 4096;

interface Verdict {
  /** The history's length when the dry run ran, and its last message then. */
  readonly length: number;
  readonly last: BaseMessage;
  readonly reason: string;
}

/**
 * The threads (or conversations) whose dry run of the hiding, past the mark where summaries are
 * prepared, foresaw that hiding will be enough at the firing. The verdict is not worked out again
 * while the history only grew from the one it judged (its message at that length is still there);
 * a compaction of the thread forgets it. (The hiding itself is made again after each such step, to
 * have the firing's hidden copies ready: see `warmHiding`.) A verdict that
 * turns out wrong costs no wait: a firing that finds no summary prepared starts one and goes on
 * (see `startAtFiring`). @internal
 */
export class HidingVerdicts {
  readonly #verdicts = new Map<string, Verdict>();

  /** The reason of the verdict on this thread when the history grew from the one it judged. */
  reasonFor(key: string, messages: readonly BaseMessage[]): string | undefined {
    const verdict = this.#verdicts.get(key);
    if (!verdict || messages.length < verdict.length) return undefined;
    const at = messages[verdict.length - 1];
    const same = at === verdict.last || (at !== undefined && typeof at.id === "string" && at.id !== "" && at.id === verdict.last.id);
    return same ? verdict.reason : undefined;
  }

  /** Remember that hiding will be enough for this thread at the firing, judged on `messages`. */
  remember(key: string, messages: readonly BaseMessage[], reason: string): void {
    if (messages.length === 0) return;
    this.#verdicts.delete(key);
    this.#verdicts.set(key, { length: messages.length, last: messages[messages.length - 1]!, reason });
    if (this.#verdicts.size > MAX_VERDICTS) this.#verdicts.delete(this.#verdicts.keys().next().value!);
  }

  forget(key: string): void {
    this.#verdicts.delete(key);
  }
}

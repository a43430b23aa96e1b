import { indexToolCallGroups } from "../messages/tool-call-groups.js";
import type { BoundedHistory, PreparedHistory } from "../strategies/compaction-strategy.js";
import type { TokenCounter } from "../tokens/token-counter.js";

/**
 * autoCompaction's work moved off the agent's path, by thread (or conversation): the dry run of the
 * hiding that decides whether to prepare a summary (it costs about what a hiding does) and, once
 * that is decided, the hiding the firing will make (its copies kept for it). It starts on a timer,
 * once the step has returned, on a copy of the step's history. @internal
 */
export class BackgroundWork {
  readonly #deciding = new Set<string>();
  readonly #work = new Set<Promise<unknown>>();

  /** Resolves once all work started has settled. */
  async settled(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /**
   * Work out after this step whether to prepare a summary (`decide` gets a copy of the history),
   * unless this thread's decision is being worked out already.
   */
  startDeciding(key: string, history: PreparedHistory, decide: (history: PreparedHistory) => Promise<unknown>): void {
    if (this.#deciding.has(key)) return;
    const snapshot = snapshotLater(history);
    this.#start(key, () => decide(snapshot()));
  }

  /**
   * {@link startDeciding} for a step decided under the upper bound: its new messages are counted
   * after the step too, before `decide` gets the copy.
   */
  startCountingAndDeciding(key: string, history: BoundedHistory, counter: TokenCounter, decide: (history: PreparedHistory) => Promise<unknown>): void {
    if (this.#deciding.has(key) || !counter.extend) return;
    const extend = counter.extend.bind(counter);
    const snapshot = snapshotLater({ ...history, tokens: history.counted });
    this.#start(key, async () => {
      const copy = snapshot();
      return decide({ ...copy, tokens: await extend(copy.tokens, copy.messages) });
    });
  }

  #start(key: string, work: () => Promise<unknown>): void {
    this.#deciding.add(key);
    this.#track(
      nextTurn()
        .then(work)
        .finally(() => this.#deciding.delete(key)),
    );
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }
}

/** The next turn of the event loop: after the step that started the work has returned. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/** The arrays are copied now (cheap); the tool-call index is rebuilt later, off the step. */
function snapshotLater(history: PreparedHistory): () => PreparedHistory {
  const messages = history.messages.slice();
  const tokens = { ...history.tokens, perMessage: history.tokens.perMessage.slice(), calibrationAnchors: [...history.tokens.calibrationAnchors] };
  const context = { ...(history.context.threadId !== undefined ? { threadId: history.context.threadId } : {}), ...(history.context.store ? { store: history.context.store } : {}) };
  return () => ({ messages, index: indexToolCallGroups(messages), tokens, context, pending: history.pending });
}

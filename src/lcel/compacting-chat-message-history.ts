import { randomUUID } from "node:crypto";
import { BaseChatMessageHistory, InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, HumanMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { InvalidHistoryError } from "../errors.js";
import type { AdapterInvalidHistoryHandling } from "../langgraph/invalid-history.js";
import { cloneMessage } from "../messages/clone-message.js";
import { parseOptions } from "../options.js";
import type { CompactionContext } from "../types.js";
import { optionsSchema, type AnyChatMessageHistory, type CompactingChatMessageHistoryOptions } from "./chat-history-options.js";
import type { HistoryCompactionRecord, RecordIdentity } from "./history-compaction-record.js";
import { compactView, openToolCallsStart } from "./view-compaction.js";

export type { AnyChatMessageHistory, CompactingChatMessageHistoryOptions } from "./chat-history-options.js";

/**
 * A chat message history for `RunnableWithMessageHistory` that keeps everything and reads compacted.
 *
 * Writes go to the wrapped `history`, which keeps every message (`getAllMessages()` returns them),
 * and to the view. `getMessages()` returns the view, compacted: the last compacted view plus the
 * messages added since, handed to the compactor only when something was added, so a summary strategy
 * summarises the new part into the previous summary instead of the whole conversation on each read.
 * A compaction that changed the view rewrites `viewHistory` and is recorded in `compactions`; one
 * that failed leaves the view as it was and is recorded with its reason.
 *
 * A view whose tool calls and results do not pair up as providers require is repaired before the
 * compactor runs (`invalidHistory`, default `"repair"`): `getMessages()` never returns a history
 * ChatOpenAI or ChatAnthropic would reject, even when the compactor has nothing to do or throws
 * (a `"repaired"` record then). The calls of the last assistant message that have no result yet are
 * left as they are (their results come with the next turn). The originals stay in the wrapped
 * history.
 *
 * Reads and writes run one at a time, so two `getMessages()` at once compact once and return the
 * same view. Messages added without an id get one (on a copy), so records can name them.
 *
 * When the view is empty and the wrapped history is not (an existing conversation, or a view that
 * was lost), the view starts from the whole wrapped history.
 *
 * @example
 * const histories = new Map<string, CompactingChatMessageHistory>();
 * const chain = new RunnableWithMessageHistory({
 *   runnable: prompt.pipe(model),
 *   getMessageHistory: (sessionId) => {
 *     let history = histories.get(sessionId);
 *     if (!history) {
 *       history = new CompactingChatMessageHistory({
 *         history: new InMemoryChatMessageHistory(),
 *         compactor: slidingWindow({ keepTurns: 4 }),
 *       });
 *       histories.set(sessionId, history);
 *     }
 *     return history;
 *   },
 *   inputMessagesKey: "question",
 *   historyMessagesKey: "history",
 * });
 * @throws {InvalidOptionError} at construction, for a missing or invalid option.
 */
export class CompactingChatMessageHistory extends BaseChatMessageHistory {
  lc_namespace = ["langchain_compaction", "lcel"];
  /** The wrapped history: every message ever added. */
  readonly history: AnyChatMessageHistory;
  /** The compacted view followed by the messages added since its last compaction. */
  readonly viewHistory: AnyChatMessageHistory;
  readonly #compactor: Compactor;
  readonly #onCompaction: CompactingChatMessageHistoryOptions["onCompaction"];
  readonly #onError: "continue" | "throw";
  readonly #invalidHistory: AdapterInvalidHistoryHandling;
  readonly #createId: () => string;
  readonly #now: () => Date;
  readonly #compactions: HistoryCompactionRecord[] = [];
  /** Messages were added since the view was last compacted (or this instance has not compacted yet). */
  #pending = true;
  /** The view has been checked against the wrapped history (see the class notes on an empty view). */
  #viewReady = false;
  /** The tail of the queue that runs reads and writes one at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  static override lc_name() {
    return "CompactingChatMessageHistory";
  }

  /** @throws {InvalidOptionError} for a missing or invalid option. */
  constructor(options: CompactingChatMessageHistoryOptions) {
    super();
    const parsed = parseOptions("CompactingChatMessageHistory", optionsSchema, options) as CompactingChatMessageHistoryOptions;
    this.history = parsed.history;
    this.viewHistory = parsed.viewHistory ?? new InMemoryChatMessageHistory();
    this.#compactor = parsed.compactor;
    this.#onCompaction = parsed.onCompaction;
    this.#onError = parsed.onError ?? "continue";
    this.#invalidHistory = parsed.invalidHistory ?? "repair";
    this.#createId = parsed.createId ?? randomUUID;
    this.#now = parsed.now ?? (() => new Date());
  }

  /**
   * Every compaction so far, oldest first: those that changed the view, those that failed and those
   * whose compactor threw (`status: "failed"`, `reason` naming the error). No-ops are not recorded.
   */
  get compactions(): readonly HistoryCompactionRecord[] {
    return [...this.#compactions];
  }

  /**
   * The compacted view: what a model should see. Compacts first when messages were added since the
   * last compaction.
   *
   * @example
   * const forModel = await history.getMessages();
   * @throws with `onError: "throw"`, whatever the compactor throws (recorded as failed first); in any
   *   case what a store or `onCompaction` throws. With the default `"continue"`, a throwing compactor is
   *   recorded as failed, the view is returned unchanged and the next read tries again.
   */
  async getMessages(): Promise<BaseMessage[]> {
    return this.#exclusive(async () => {
      const view = await this.#readView();
      if (!this.#pending) return view;
      const open = openToolCallsStart(view);
      if (open === 0) return view;
      const started = this.#now();
      const outcome = await compactView(view, open, {
        compactor: this.#compactor,
        invalidHistory: this.#invalidHistory,
        onError: this.#onError,
        context: this.#context(),
        withId: (message) => this.#withId(message),
        identity: () => this.#identity(started),
      });
      if (outcome.kind === "thrown") {
        // Recorded like the graph's log records it; the view stays and the next read retries.
        if (this.#onError === "throw") {
          await this.#record(outcome.record).catch(() => undefined);
          throw outcome.error;
        }
        await this.#record(outcome.record);
        return view;
      }
      this.#pending = false;
      if (outcome.kind === "unchanged") {
        if (outcome.record) await this.#record(outcome.record);
        return view;
      }
      try {
        await this.viewHistory.clear();
        await this.viewHistory.addMessages(outcome.next);
      } catch (error) {
        // The view store may now be empty or partial: the next read starts again from the full history.
        this.#viewReady = false;
        this.#pending = true;
        await this.viewHistory.clear().catch(() => undefined);
        throw error;
      }
      // Only repaired, because the compactor threw: the next read tries the compactor again.
      if (outcome.retry) this.#pending = true;
      await this.#record(outcome.record);
      return [...outcome.next];
    });
  }

  /**
   * Every message ever added, uncompacted, in order.
   *
   * @example
   * const transcript = await history.getAllMessages();
   */
  async getAllMessages(): Promise<BaseMessage[]> {
    return this.#exclusive(async () => [...(await this.history.getMessages())]);
  }

  /**
   * Append messages to the full history and to the view. A message without an id is stored as a copy
   * with a new id; the given objects are never changed.
   *
   * @example
   * await history.addMessages([new HumanMessage({ id: "u1", content: "hi" })]);
   * @throws {InvalidHistoryError} when `messages` is not an array of LangChain messages.
   */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (!Array.isArray(messages)) throw new InvalidHistoryError(`CompactingChatMessageHistory: expected an array of messages, got ${typeof messages}`);
    messages.forEach((message, position) => {
      if (!isBaseMessage(message)) throw new InvalidHistoryError(`CompactingChatMessageHistory: element ${position} is not a LangChain message`);
    });
    const stored = messages.map((message) => this.#withId(message));
    return this.#exclusive(async () => {
      if (!this.#viewReady) await this.#readView();
      await this.history.addMessages(stored);
      await this.viewHistory.addMessages(stored);
      this.#pending = true;
    });
  }

  /**
   * Append one message (see {@link addMessages}).
   * @throws {InvalidHistoryError} when `message` is not a LangChain message.
   */
  async addMessage(message: BaseMessage): Promise<void> {
    return this.addMessages([message]);
  }

  /** Append a user message with this text. */
  async addUserMessage(message: string): Promise<void> {
    return this.addMessages([new HumanMessage(message)]);
  }

  /** Append an assistant message with this text. */
  async addAIMessage(message: string): Promise<void> {
    return this.addMessages([new AIMessage(message)]);
  }

  /** Clear the full history, the view and the compaction records. */
  async clear(): Promise<void> {
    return this.#exclusive(async () => {
      await this.history.clear();
      await this.viewHistory.clear();
      this.#compactions.length = 0;
      this.#pending = false;
      this.#viewReady = true;
    });
  }

  /** Run `task` after every earlier read and write has settled, failed ones included. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The stored view (a new array). An empty view over a non-empty history starts from all of it. */
  async #readView(): Promise<BaseMessage[]> {
    const stored = await this.viewHistory.getMessages();
    if (stored.length > 0 || this.#viewReady) {
      this.#viewReady = true;
      return [...stored];
    }
    const all = [...(await this.history.getMessages())];
    if (all.length > 0) {
      await this.viewHistory.addMessages(all);
      this.#pending = true;
    }
    this.#viewReady = true;
    return all;
  }

  /** The calling run's config (e.g. `RunnableWithMessageHistory`'s `loadHistory`), so summary calls nest in it. */
  #context(): CompactionContext {
    const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as RunnableConfig | undefined;
    if (!config) return {};
    return { config, ...(config.signal ? { signal: config.signal } : {}) };
  }

  #withId(message: BaseMessage): BaseMessage {
    return typeof message.id === "string" && message.id !== "" ? message : cloneMessage(message, { id: this.#createId() });
  }

  #identity(started: Date): RecordIdentity {
    return { id: this.#createId(), at: started, durationMs: this.#now().getTime() - started.getTime() };
  }

  async #record(record: HistoryCompactionRecord): Promise<void> {
    this.#compactions.push(record);
    await this.#onCompaction?.(record);
  }
}

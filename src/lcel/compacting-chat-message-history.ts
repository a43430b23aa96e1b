import { randomUUID } from "node:crypto";
import { BaseChatMessageHistory, InMemoryChatMessageHistory, type BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, HumanMessage, ToolMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { InvalidHistoryError } from "../errors.js";
import { cloneMessage } from "../messages/clone-message.js";
import { parseOptions } from "../options.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import {
  historyCompactionRecord,
  insertedMessages,
  thrownCompactionRecord,
  type HistoryCompactionRecord,
  type RecordIdentity,
} from "./history-compaction-record.js";
import { callbackSchema, messageCompactorSchema } from "./message-compactor.js";

/** Any LangChain chat message history (`InMemoryChatMessageHistory`, a Redis or SQL one...). */
export type AnyChatMessageHistory = BaseChatMessageHistory | BaseListChatMessageHistory;

export interface CompactingChatMessageHistoryOptions {
  /** The full record of the conversation. Append-only: every message ever added stays in it. */
  history: AnyChatMessageHistory;
  /** The strategy (or policy) that compacts the view. Its own trigger decides when to act. */
  compactor: Compactor;
  /**
   * Where the compacted view is kept: the last compacted view followed by the messages added since.
   * Pass a persistent history (one per conversation) so a restart keeps the view instead of
   * compacting the whole record again.
   * @default a new InMemoryChatMessageHistory
   */
  viewHistory?: AnyChatMessageHistory;
  /**
   * When the compactor throws (e.g. `InvalidHistoryError` for a tool call that was never answered):
   * `"continue"` records the failure and returns the current view, so the chain keeps running (and
   * the next read tries again); `"throw"` rethrows after recording. For chat histories, a compactor
   * with `invalidHistory: "repair"` fixes broken pairing instead of failing. @default "continue"
   */
  onError?: "continue" | "throw";
  /** Called with each compaction record, after the view was rewritten. Persist records here. @default undefined */
  onCompaction?: (record: HistoryCompactionRecord) => void | Promise<void>;
  /** Ids for messages added without one, for inserted messages without one, and for records. @default crypto.randomUUID */
  createId?: () => string;
  /** The clock for record timestamps and durations. @default () => new Date() */
  now?: () => Date;
}

// Structural, not `instanceof`: InMemoryChatMessageHistory does not extend BaseChatMessageHistory,
// and a second copy of @langchain/core would fail the check.
const chatMessageHistorySchema = z.custom<AnyChatMessageHistory>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    ["getMessages", "addMessages", "clear"].every((method) => typeof (value as unknown as Record<string, unknown>)[method] === "function"),
  { message: "expected a chat message history (getMessages, addMessages, clear)" },
);

const optionsSchema = z
  .object({
    history: chatMessageHistorySchema,
    compactor: messageCompactorSchema,
    viewHistory: chatMessageHistorySchema.optional(),
    onCompaction: callbackSchema.optional(),
    onError: z.enum(["continue", "throw"]).optional(),
    createId: callbackSchema.optional(),
    now: callbackSchema.optional(),
  })
  .strict();

/**
 * Where the open tool calls at the end of a history start: the last assistant message, if some of its
 * calls have no result after it yet (a tool-calling chain stores the call one turn and its results
 * the next). Held back from compaction, which rejects unanswered calls, and kept after the view.
 */
function openToolCallsStart(messages: readonly BaseMessage[]): number {
  const answered = new Set<string>();
  for (let position = messages.length - 1; position >= 0; position--) {
    const message = messages[position]!;
    if (ToolMessage.isInstance(message)) {
      answered.add(message.tool_call_id);
      continue;
    }
    const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) return messages.length;
    return calls.every((call) => call.id !== undefined && answered.has(call.id)) ? messages.length : position;
  }
  return messages.length;
}

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
      const settled = view.slice(0, open);
      if (settled.length === 0) return view;
      const started = this.#now();
      let result: CompactionResult;
      try {
        result = await this.#compactor.compact(settled, this.#context());
      } catch (error) {
        // Recorded like the graph's log records it; the view stays and the next read retries.
        const record = thrownCompactionRecord(this.#compactor, settled.length, error, this.#identity(started));
        if (this.#onError === "throw") {
          await this.#record(record).catch(() => undefined);
          throw error;
        }
        await this.#record(record);
        return view;
      }
      this.#pending = false;
      if (result.status === "noop") return view;
      if (result.status === "failed") {
        await this.#record(historyCompactionRecord(result, [], this.#identity(started)));
        return view;
      }
      // Inserted messages (summaries) get an id if they lack one, so the record can name them.
      const inserted = new Set(insertedMessages(settled, result));
      const withIds = result.messages.map((message) => (inserted.has(message) ? this.#withId(message) : message));
      const insertedWithIds = withIds.filter((message, position) => inserted.has(result.messages[position]!));
      const next = [...withIds, ...view.slice(open)];
      try {
        await this.viewHistory.clear();
        await this.viewHistory.addMessages(next);
      } catch (error) {
        // The view store may now be empty or partial: the next read starts again from the full history.
        this.#viewReady = false;
        this.#pending = true;
        await this.viewHistory.clear().catch(() => undefined);
        throw error;
      }
      await this.#record(historyCompactionRecord(result, insertedWithIds, this.#identity(started)));
      return [...next];
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

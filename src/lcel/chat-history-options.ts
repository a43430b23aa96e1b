import type { BaseChatMessageHistory, BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { adapterInvalidHistorySchema, type AdapterInvalidHistoryHandling } from "../langgraph/invalid-history.js";
import type { HistoryCompactionRecord } from "./history-compaction-record.js";
import { callbackSchema, messageCompactorSchema } from "./message-compactor.js";

// The options of CompactingChatMessageHistory and their schema.

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
   * When the compactor throws (e.g. a summary model that is down, or, with `invalidHistory: "leave"`,
   * `InvalidHistoryError` for broken tool pairing):
   * `"continue"` records the failure and returns the current view, so the chain keeps running (and
   * the next read tries again); `"throw"` rethrows after recording. @default "continue"
   */
  onError?: "continue" | "throw";
  /**
   * A view whose tool calls and results do not pair up as providers require (an orphan result, a
   * call never answered, a result separated from its call; the open calls of the last assistant
   * message are not a problem: their results come next), or whose text holds a lone surrogate.
   * `"repair"`: it is repaired (see {@link AdapterInvalidHistoryHandling}) before the compactor runs, and the repaired view is stored and returned even
   * when the compactor has nothing to do or throws (a `"repaired"` record, whose `repair` names what
   * changed). The wrapped `history` keeps the originals (`getAllMessages()`). `"leave"`: the
   * compactor gets the view as it is; a strategy rejects it with `InvalidHistoryError`, which
   * `onError` handles.
   * @default "repair"
   */
  invalidHistory?: AdapterInvalidHistoryHandling;
  /** Called with each compaction record, after the view was rewritten. Persist records here. @default undefined */
  onCompaction?: (record: HistoryCompactionRecord) => void | Promise<void>;
  /** Ids for messages added without one, for inserted messages without one, and for records. @default crypto.randomUUID */
  createId?: () => string;
  /** The clock for record timestamps and durations. @default () => new Date() */
  now?: () => Date;
}

// Structural, not `instanceof`: InMemoryChatMessageHistory does not extend BaseChatMessageHistory,
// and a second copy of @langchain/core would fail the check.
export const chatMessageHistorySchema = z.custom<AnyChatMessageHistory>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    ["getMessages", "addMessages", "clear"].every((method) => typeof (value as unknown as Record<string, unknown>)[method] === "function"),
  { message: "expected a chat message history (getMessages, addMessages, clear)" },
);

/** @internal */
export const optionsSchema = z
  .object({
    history: chatMessageHistorySchema,
    compactor: messageCompactorSchema,
    viewHistory: chatMessageHistorySchema.optional(),
    onCompaction: callbackSchema.optional(),
    onError: z.enum(["continue", "throw"]).optional(),
    invalidHistory: adapterInvalidHistorySchema,
    createId: callbackSchema.optional(),
    now: callbackSchema.optional(),
  })
  .strict();

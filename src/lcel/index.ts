// LCEL integration: withCompaction and CompactingChatMessageHistory. Re-exported from the package root.
export { withCompaction, type MessagesInput, type WithCompactionOptions } from "./with-compaction.js";
export {
  CompactingChatMessageHistory,
  type AnyChatMessageHistory,
  type CompactingChatMessageHistoryOptions,
} from "./compacting-chat-message-history.js";
export type { HistoryCompactionRecord } from "./history-compaction-record.js";

// The package's main entry: what the README and docs/reference.md teach. Building blocks for custom
// strategies are in `langchain-compaction/extend` (src/extend/index.ts); the createAgent middleware in
// `langchain-compaction/middleware`. api/index.api.md lists every name (node scripts/api-report.mjs).
export {
  CompactionError,
  InvalidHistoryError,
  InvalidOptionError,
  MissingPackageError,
  type MessageProblem,
} from "./errors.js";
export {
  compactionMarkerOf,
  type CompactionContext,
  type CompactionMarker,
  type CompactionResult,
  type CompactionStatus,
  type RemovedMessage,
  type ReplacedMessage,
} from "./types.js";
export { cloneMessage } from "./messages/clone-message.js";
export { fromPlainMessages, type MessageInput, type PlainMessage } from "./messages/from-plain.js";
export { assistantCalls, isEmptyAssistantMessage, type AssistantCall, type AssistantCallSource } from "./messages/assistant-calls.js";
export { editToolCalls, type ToolCallEdit } from "./messages/edit-tool-calls.js";
export { indexToolCallGroups, safeCutPoints, userTurnStarts } from "./messages/tool-call-groups.js";
export { type ToolCallGroup, type ToolCallIndex, type ToolPairingProblem } from "./messages/tool-call-index-types.js";
export { repairToolPairing, validateToolPairing, type ToolPairingRepair } from "./messages/tool-pairing.js";
export { checkHistory, type HistoryProblem } from "./messages/history-check.js";
export { type HistoryRepair, type MovedMessage } from "./messages/history-repair.js";
export { type TokenEncodingName } from "./tokens/encoding-for-model.js";
export { createTokenCounter } from "./tokens/token-counter.js";
export { tokenCounterFromFunction, type TokenCounterFunction } from "./tokens/function-token-counter.js";
export {
  type TokenCounter,
  type TokenCounterMode,
  type TokenCounterOptions,
  type TokenMeasurement,
} from "./tokens/token-counter-types.js";
export { type BaseStrategyOptions } from "./strategies/strategy-options.js";
export { type Compactor } from "./strategies/compaction-strategy.js";
export { type InvalidHistoryHandling } from "./strategies/prepare-history.js";
export { toolResultHiding } from "./strategies/tool-result-hiding.js";
export { type ClearAtLeastMode, type KeepRecentResults, type ToolResultHidingOptions } from "./strategies/tool-result-hiding-options.js";
export { type SupersessionOptions } from "./strategies/superseded-results.js";
export { type ToolCallReading, type ToolCallRef } from "./messages/tool-call-reading.js";
export { anthropicCacheAnchors, anthropicCacheAnchorsRunnable, type CacheAnchorOptions } from "./cache/cache-anchors.js";
export { assistantTextTrimming, type AssistantTextTrimmingOptions } from "./strategies/assistant-text-trimming.js";
export { type HidingReceiptOptions } from "./strategies/hiding-receipts.js";
export { selectiveCompact, type SelectiveCompactOptions } from "./strategies/selective-compact.js";
export { type MessageClassifier, type MessageKind, type SelectiveRule } from "./strategies/selective-rules.js";
export { hardTruncate, type HardTruncateOptions } from "./strategies/hard-truncate.js";
export { slidingWindow, type SlidingWindowOptions } from "./strategies/sliding-window.js";
export { type ContextSize, type HistorySize, type TriggerSize } from "./strategies/context-size.js";
export { priceRatesOf, type PricePreset, type PricePresetId, type PriceRates } from "./cost/prices.js";
export {
  judgeCompactionCost,
  type CompactionCostInput,
  type CompactionCostVerdict,
  type CostModel,
} from "./cost/cost-model.js";
export {
  COMPACTION_EVENT_NAME,
  type CompactionEvent,
  type CompactionEventSinks,
  type CompactionLogger,
} from "./observability.js";
export { type ArtifactIndex, type ArtifactIndexLimits } from "./messages/artifact-index.js";
export { type RenderArtifactsOptions } from "./messages/artifact-render.js";
export { type FormatHistoryOptions, type LeftOutMessages } from "./summary/format-history.js";
export { type NoModelSummaryInput } from "./summary/no-model-summarizer.js";
export { SummaryCallError, type SummaryChatModel, type SummaryFailureKind, type SummaryModel } from "./summary/summary-model.js";
export { type SummaryInput } from "./summary/summary-strategy.js";
export { type SummaryStrategyOptions } from "./summary/summary-options.js";
export { type SummaryRequestMode } from "./summary/shared-prefix-request.js";
export { stateSnapshotSummary, type StateSnapshotSummaryOptions } from "./summary/state-snapshot-summary.js";
export { fullSummary, type FullSummaryOptions } from "./summary/full-summary.js";
export { type TriggeredPolicyOptions } from "./policies/policy-options.js";
export { hidingThenSummary, type HidingThenSummaryOptions } from "./policies/hiding-then-summary.js";
export { selectiveThenSummary, type SelectiveThenSummaryOptions } from "./policies/selective-then-summary.js";
export { autoCompaction } from "./policies/auto-compaction.js";
export { type AutoCompactionHidingOptions, type AutoCompactionOptions } from "./policies/auto-compaction-options.js";
export {
  createCompactionNode,
  type CompactionNode,
  type CompactionNodeInput,
  type CompactionNodeOptions,
  type CompactionNodeUpdate,
} from "./langgraph/compaction-node.js";
export { compactingNode, CompactingNodeError, type CompactingNodeOptions, type WrappedNode } from "./langgraph/compacting-node.js";
export { CompactionState, CompactionStateSchema } from "./langgraph/compaction-state.js";
export {
  type ArchiveAnchor,
  type ArchivedCompaction,
  type ArchivedMessage,
  type CompactionArchiveLocation,
  type CompactionRecord,
  type CompactionRepairSummary,
} from "./compaction-record.js";
export { type AdapterInvalidHistoryHandling } from "./langgraph/invalid-history.js";
export { type CompactionUpdate, type CompactionUpdateOptions } from "./langgraph/compaction-update.js";
export { CompactionArchiveError } from "./langgraph/compaction-archive.js";
export { type PackedArchivedCompaction, type StateArchivedCompaction } from "./langgraph/packed-archive.js";
export { restoreHistory, type RestorableState, type RestoreHistoryOptions } from "./langgraph/restore-history.js";
export { restoreThreadHistory, type RestoreThreadHistoryOptions, type SdkThreadClient } from "./langgraph/restore-thread.js";
export { readCompactionLog, type CompactionLogState, type ReadCompactionLogOptions } from "./langgraph/compaction-log.js";
export { clearArchivedState, deleteThreadArchive, type ArchiveStore, type ThreadArchiveOptions } from "./langgraph/archive-erasure.js";
export { redactArchived, redactArchivedState, type RedactArchivedOptions, type RedactArchivedResult } from "./langgraph/archive-redaction.js";
export { sdkStore, type SdkClientWithStore, type SdkStoreClient, type SdkStoreItem } from "./langgraph/sdk-store.js";
export {
  type CompactionArchiveMode,
  type CompactionErrorHandling,
  type GraphCompactionOptions,
} from "./langgraph/run-compaction.js";
export { withCompaction, type MessagesInput, type WithCompactionOptions } from "./lcel/with-compaction.js";
export { CompactingChatMessageHistory } from "./lcel/compacting-chat-message-history.js";
export { type AnyChatMessageHistory, type CompactingChatMessageHistoryOptions } from "./lcel/chat-history-options.js";
export { type HistoryCompactionRecord } from "./lcel/history-compaction-record.js";

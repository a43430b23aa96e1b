export { CompactionError, InvalidHistoryError, InvalidOptionError, MissingPackageError, type MessageProblem } from "./errors.js";
export {
  COMPACTION_METADATA_KEY,
  COMPACTION_STATUSES,
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
export {
  assistantCalls,
  hasSendableContent,
  isEmptyAssistantMessage,
  type AssistantCall,
  type AssistantCallSource,
} from "./messages/assistant-calls.js";
export { editToolCalls, type ToolCallEdit } from "./messages/edit-tool-calls.js";
export {
  indexToolCallGroups,
  safeCutPoints,
  userTurnStarts,
  type ToolCallGroup,
  type ToolCallIndex,
  type ToolPairingProblem,
} from "./messages/tool-call-groups.js";
export { repairToolPairing, validateToolPairing, type ToolPairingRepair } from "./messages/tool-pairing.js";
export { checkHistory, type HistoryProblem } from "./messages/history-check.js";
export { EMPTY_MESSAGE_TEXT, type HistoryRepair, type MovedMessage } from "./messages/history-repair.js";

export { encodingForModel, type TokenEncodingName } from "./tokens/encoding-for-model.js";
export {
  CACHED_TEXT_MAX_CHARACTERS,
  CACHED_TEXT_MIN_LENGTH,
  CHARACTERS_PER_TOKEN,
  DEFAULT_NON_TEXT_PART_TOKENS,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOKENS_PER_ROLE,
  TOKENS_PER_TOOL_CALL,
  createTokenCounter,
  defaultTokenCounter,
  tokenCounterFromFunction,
  type TokenCounter,
  type TokenCounterFunction,
  type TokenCounterMode,
  type TokenCounterOptions,
  type TokenMeasurement,
} from "./tokens/token-counter.js";

export {
  CompactionStrategy,
  type BaseStrategyOptions,
  type Compactor,
  type InvalidHistoryHandling,
} from "./strategies/compaction-strategy.js";
export {
  DEFAULT_HIDDEN_RESULT_PLACEHOLDER,
  DEFAULT_HIDING_CLEAR_AT_LEAST,
  DEFAULT_HIDING_TRIGGER_CAP_TOKENS,
  DEFAULT_HIDING_TRIGGER_FRACTION,
  DEFAULT_HIDING_TRIGGER_TOKENS,
  ToolResultHiding,
  defaultHidingTrigger,
  toolResultHiding,
  type ClearAtLeastMode,
  type KeepRecentResults,
  type SupersessionOptions,
  type ToolCallReading,
  type ToolCallRef,
  type ToolResultHidingOptions,
} from "./strategies/tool-result-hiding.js";
export { CONTEXT_EDITING_METADATA_KEY, LANGCHAIN_CLEARED_MARKER, isLangChainCleared } from "./strategies/hiding-pass.js";
export {
  ANTHROPIC_MAX_BREAKPOINTS,
  EPHEMERAL_CACHE_CONTROL,
  anthropicCacheAnchors,
  anthropicCacheAnchorsRunnable,
  type CacheAnchorOptions,
} from "./cache/cache-anchors.js";
export { cacheAnchorPositions } from "./cache/cache-anchor-positions.js";
export {
  AssistantTextTrimming,
  DEFAULT_TRIM_KEEP_CHARS,
  assistantTextTrimming,
  type AssistantTextTrimmingOptions,
} from "./strategies/assistant-text-trimming.js";
export {
  DEFAULT_RECEIPT_ERRORS,
  DEFAULT_RECEIPT_FILES,
  RECEIPT_LINE_MAX,
  type HidingReceiptOptions,
} from "./strategies/hiding-receipts.js";
export {
  DEFAULT_SELECTIVE_RULES,
  PROTECTED_KINDS,
  SelectiveCompact,
  defaultMessageKind,
  selectiveCompact,
  type MessageClassifier,
  type MessageKind,
  type SelectiveCompactOptions,
  type SelectiveRule,
} from "./strategies/selective-compact.js";
export { HardTruncate, hardTruncate, type HardTruncateOptions } from "./strategies/hard-truncate.js";
export { SlidingWindow, slidingWindow, type SlidingWindowOptions } from "./strategies/sliding-window.js";
export { fires, tokenLimit, withinTarget, contextWindowOf, type ContextSize, type HistorySize, type TriggerSize } from "./strategies/context-size.js";
export { PRICE_PRESETS, priceRatesOf, type PricePreset, type PricePresetId, type PriceRates } from "./cost/prices.js";
export {
  MAX_COST_HORIZON_STEPS,
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
export {
  EMPTY_ARTIFACT_INDEX,
  artifactsOf,
  extractArtifacts,
  filesOf,
  filesOfCommand,
  type ArtifactIndex,
  type ArtifactIndexLimits,
} from "./messages/artifact-index.js";
export { ARTIFACT_INDEX_SHARE, renderArtifacts, type RenderArtifactsOptions } from "./messages/artifact-render.js";
export { messageText } from "./messages/message-text.js";

export * from "./summary/index.js";
export * from "./policies/index.js";

export * from "./langgraph/index.js";
export * from "./lcel/index.js";

// `langchain-compaction/extend`: building blocks for custom strategies and tools (the strategy base
// class and the strategies' classes, token and trigger helpers, the artifact index, the summary
// prompts and their helpers, archive namespaces and state reducers). docs/reference.md
// ("Building your own strategy") says what each is for; api/extend.api.md lists them.
export { COMPACTION_METADATA_KEY, COMPACTION_STATUSES } from "../types.js";
export { encodingForModel } from "../tokens/encoding-for-model.js";
export { defaultTokenCounter } from "../tokens/token-counter.js";
export { CompactionStrategy } from "../strategies/compaction-strategy.js";
export { DEFAULT_HIDDEN_RESULT_PLACEHOLDER } from "../strategies/tool-result-hiding-options.js";
export { ToolResultHiding } from "../strategies/tool-result-hiding.js";
export { CONTEXT_EDITING_METADATA_KEY, isLangChainCleared, LANGCHAIN_CLEARED_MARKER } from "../strategies/hidden-markers.js";
export { cacheAnchorPositions } from "../cache/cache-anchor-positions.js";
export { AssistantTextTrimming } from "../strategies/assistant-text-trimming.js";
export { DEFAULT_SELECTIVE_RULES, defaultMessageKind } from "../strategies/selective-rules.js";
export { SelectiveCompact } from "../strategies/selective-compact.js";
export { HardTruncate } from "../strategies/hard-truncate.js";
export { SlidingWindow } from "../strategies/sliding-window.js";
export { contextWindowOf, fires, tokenLimit, withinTarget } from "../strategies/context-size.js";
export { PRICE_PRESETS } from "../cost/prices.js";
export { artifactsOf, EMPTY_ARTIFACT_INDEX, extractArtifacts, filesOf } from "../messages/artifact-index.js";
export { renderArtifacts } from "../messages/artifact-render.js";
export { messageText } from "../messages/message-text.js";
export {
  DEFAULT_SUMMARY_PROMPT,
  NO_PREVIOUS_SNAPSHOT,
  PREVIOUS_SNAPSHOT_TEMPLATE,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  STATE_SNAPSHOT_PROMPT,
  SUMMARY_MESSAGE_PREFIX,
  VERIFY_SNAPSHOT_PROMPT,
} from "../summary/prompts.js";
export { formatHistory } from "../summary/format-history.js";
export { noModelSnapshot } from "../summary/no-model-summarizer.js";
export { SUMMARY_CALL_TAGS } from "../summary/summary-model.js";
export { fenceData, fillPrompt } from "../summary/data-fence.js";
export { StateSnapshotSummary } from "../summary/state-snapshot-summary.js";
export { FullSummary } from "../summary/full-summary.js";
export { HidingThenSummary } from "../policies/hiding-then-summary.js";
export { SelectiveThenSummary } from "../policies/selective-then-summary.js";
export { AutoCompaction } from "../policies/auto-compaction.js";
export { DEFAULT_PREPARED_NAMESPACE, preparedSummariesNamespace } from "../policies/prepared-namespace.js";
export { mergeCompactionArchive, mergeCompactionLog } from "../langgraph/compaction-state.js";
export { compactionUpdate } from "../langgraph/compaction-update.js";
export { archiveNamespace, DEFAULT_ARCHIVE_NAMESPACE } from "../langgraph/compaction-archive.js";
export { unpackArchive, type PackedArchivedCompaction, type StateArchivedCompaction } from "../langgraph/packed-archive.js";
export { compactionLogNamespace } from "../langgraph/compaction-log.js";
export { SdkStore } from "../langgraph/sdk-store.js";
export { recallTool, type RecallToolOptions } from "../langgraph/recall-tool.js";

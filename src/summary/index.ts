export {
  DEFAULT_SUMMARY_PROMPT,
  NO_PREVIOUS_SNAPSHOT,
  PREVIOUS_SNAPSHOT_TEMPLATE,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  STATE_SNAPSHOT_PROMPT,
  SUMMARY_MESSAGE_PREFIX,
  VERIFY_SNAPSHOT_PROMPT,
} from "./prompts.js";
export { fillTemplate, formatHistory, type FormatHistoryOptions, type LeftOutMessages } from "./format-history.js";
export { NO_MODEL_SNAPSHOT_NOTE, noModelSnapshot, type NoModelSummaryInput } from "./no-model-summarizer.js";
export {
  DEFAULT_SUMMARY_MAX_TOKENS,
  DEFAULT_SUMMARY_TIMEOUT_MS,
  SUMMARY_CALL_TAGS,
  SummaryCallError,
  type SummaryChatModel,
  type SummaryFailureKind,
  type SummaryModel,
} from "./summary-model.js";
export { type SummaryInput, type SummaryStrategyOptions } from "./summary-strategy.js";
export { type SummaryRequestMode } from "./shared-prefix-request.js";
export { extractBlock, summaryBody, tagContent } from "./summary-text.js";
export { DATA_FENCE_TAGS, fenceData, fenceTags, fillPrompt } from "./data-fence.js";
export { StateSnapshotSummary, stateSnapshotSummary, type StateSnapshotSummaryOptions } from "./state-snapshot-summary.js";
export { FullSummary, fullSummary, type FullSummaryOptions } from "./full-summary.js";

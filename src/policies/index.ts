export { DEFAULT_POLICY_TRIGGER, type TriggeredPolicyOptions } from "./policy-options.js";
export { HidingThenSummary, hidingThenSummary, type HidingThenSummaryOptions } from "./hiding-then-summary.js";
export { SelectiveThenSummary, selectiveThenSummary, type SelectiveThenSummaryOptions } from "./selective-then-summary.js";
export { AutoCompaction, autoCompaction } from "./auto-compaction.js";
export {
  DEFAULT_AUTO_HIDING_CLEAR_AT_LEAST,
  DEFAULT_AUTO_HIDING_KEEP_GROUPS,
  DEFAULT_AUTO_HIDING_TARGET_SHARE,
  DEFAULT_AUTO_SUMMARY_INPUT_TOKENS,
  DEFAULT_AUTO_TARGET_SHARE,
  DEFAULT_AUTO_SUMMARY_MAX_TOKENS,
  DEFAULT_AUTO_TRIGGER_TOKENS,
  type AutoCompactionHidingOptions,
  type AutoCompactionOptions,
} from "./auto-compaction-options.js";
export { DEFAULT_PREPARE_AT, DEFAULT_PREPARED_NAMESPACE, preparedSummariesNamespace } from "./prepared-namespace.js";

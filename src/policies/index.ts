export { DEFAULT_POLICY_TRIGGER, type TriggeredPolicyOptions } from "./policy-options.js";
export { HidingThenSummary, hidingThenSummary, type HidingThenSummaryOptions } from "./hiding-then-summary.js";
export { SelectiveThenSummary, selectiveThenSummary, type SelectiveThenSummaryOptions } from "./selective-then-summary.js";
export { AutoCompaction, DEFAULT_AUTO_SUMMARY_INPUT_TOKENS, autoCompaction, type AutoCompactionOptions } from "./auto-compaction.js";

export { DEFAULT_POLICY_TRIGGER, type TriggeredPolicyOptions } from "./policy-options.js";
export { HidingThenSummary, hidingThenSummary, type HidingThenSummaryOptions } from "./hiding-then-summary.js";
export { SelectiveThenSummary, selectiveThenSummary, type SelectiveThenSummaryOptions } from "./selective-then-summary.js";
export { AutoCompaction, autoCompaction, type AutoCompactionOptions } from "./auto-compaction.js";

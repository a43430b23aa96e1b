import { archiveNamespace } from "../langgraph/compaction-archive.js";

// When autoCompaction prepares summaries, and where a thread's prepared summaries are stored.

/**
 * autoCompaction starts preparing a summary when the history reaches this share of what the size
 * that fires holds above the system messages. 1: at the firing, which then sends the history as it
 * is and applies the summary at the first step after it is ready. On the recorded sessions of
 * `npm run eval` that costs 0.3-0.5% more than a summary written in the step; starting at 0.9 costs
 * 1.4-2% more (summaries prepared for firings that hiding handled or that never came).
 */
export const DEFAULT_PREPARE_AT = 1;

/**
 * With summaries prepared, from this share of the way to the size that fires (or from `prepare.at`
 * when lower), each step makes, after it has returned, the hiding a firing would make, so that the
 * firing (and the summary it starts) finds the hidden copies made. @internal
 */
export const WARM_HIDING_AT = 0.9;

/**
 * The store namespace prefix of summaries prepared ahead: a thread's are kept under
 * {@link preparedSummariesNamespace}, each under the id of the last message it covers.
 */
export const DEFAULT_PREPARED_NAMESPACE: readonly string[] = ["langchain-compaction", "prepared"];

/**
 * The store namespace of one thread's prepared summaries: `DEFAULT_PREPARED_NAMESPACE`, the thread id
 * (encoded as `archiveNamespace` encodes it), then `"summaries"`. The last label anchors a search by
 * prefix in stores that match prefixes as text (`PostgresStore` searches `LIKE 'prefix%'`), where
 * thread `t-1`'s prefix would otherwise also match thread `t-10`'s entries.
 */
export function preparedSummariesNamespace(threadId: string): string[] {
  return [...archiveNamespace(threadId, DEFAULT_PREPARED_NAMESPACE), "summaries"];
}

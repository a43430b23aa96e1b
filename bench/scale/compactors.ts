/** The compactors the scale graph runs besides autoCompaction's defaults: the pass-through and the summary model. */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionResult, TokenCounter } from "../../src/index.js";
import { DeterministicSummaryModel } from "../eval/summary-model.js";

/**
 * `SCALE_SUMMARY_MODEL=offline`: autoCompaction gets the evaluation's offline summary model (the
 * package's no-model snapshot and artifact index, answered as a chat model), so its summaries are
 * prepared in the background, as with any summary model, and the model's time is not the node's.
 * Unset: no summary model, and the no-model snapshot is written in the step that fires.
 */
export function summaryModelOf(tokenCounter: TokenCounter): { summaryModel?: DeterministicSummaryModel } {
  const kind = process.env["SCALE_SUMMARY_MODEL"];
  if (kind === undefined || kind === "") return {};
  if (kind !== "offline") throw new Error(`SCALE_SUMMARY_MODEL must be "offline" or unset (got ${kind})`);
  return { summaryModel: new DeterministicSummaryModel({ tokenCounter }) };
}

/** What the pass-through node's compactor returns: a no-op on the history as it is. */
export function passThroughResult(messages: readonly BaseMessage[]): CompactionResult {
  return { messages: [...messages], status: "noop", strategy: "passThrough", tokensBefore: 0, tokensAfter: 0, messagesBefore: messages.length, messagesAfter: messages.length, removed: [], replaced: [], reason: "pass-through" };
}

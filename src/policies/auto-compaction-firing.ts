import { judgeCompactionCost, type CostModel } from "../cost/cost-model.js";
import { nestedContext, type PreparedHistory, type StrategyOutcome } from "../strategies/compaction-strategy.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactionResult } from "../types.js";
import type { AutoCompactionOptions } from "./auto-compaction-options.js";
import type { AutoCompactionPlan, AutoCompactionTargets } from "./auto-compaction-plan.js";
import { chainSummaryThenTruncation } from "./chain-results.js";
import { applyPrepared, hideAndTrim, mayStand, scopeOf, standLimit, startAtFiring } from "./prepare-ahead.js";
import type { PreparedSummaries } from "./prepared-summaries.js";

/** The share of the history the hard limit keeps after an overflow the provider gave no figures for. @internal */
export const DEFAULT_OVERFLOW_SHRINK = 0.5;

/** What a firing of autoCompaction works with besides the history: the policy's preparations and counter. @internal */
export interface FiringState {
  readonly prepared: PreparedSummaries;
  readonly tokenCounter: TokenCounter;
}

/** One firing's settings, worked out by the step that met the trigger. @internal */
export interface FiringSettings {
  readonly plan: AutoCompactionPlan;
  readonly targets: AutoCompactionTargets;
  readonly trigger: string;
  readonly options: AutoCompactionOptions;
  readonly overThreshold: boolean;
  readonly conversationTokens: number;
  /** A loop this policy has run before: a firing may go on while its summary is written. */
  readonly continuing: boolean;
}

/**
 * autoCompaction's firing: batched hiding (and the trimming of older assistant texts), standing on
 * its own under the hiding target (or replaced by a summary prepared ahead when one is ready); else a
 * summary, then the hard limit. @internal
 */
export async function fire(state: FiringState, history: PreparedHistory, { plan, targets, trigger, options, overThreshold, conversationTokens, continuing }: FiringSettings): Promise<StrategyOutcome> {
  const { messages, tokens, context } = history;
  const { hidden, note } = await hideAndTrim(history, plan, true);
  let hidingNote = note;
  // After an overflow, a hiding that fits our count is not trusted: the summary, then the hard limit.
  if (hidden && hidden.tokensAfter <= targets.hidingTargetTokens && context.overflow !== true) {
    // A summary written ahead is paid for and buys more steps: it goes in instead, when it fits.
    if (plan.prepareAt !== undefined && state.prepared.isReady(messages, plan.summarySignature, scopeOf(context))) {
      const applied = await applyPrepared(state.prepared, history, plan, plan.summaryFor(targets.summaryTargetTokens), targets.hidingTargetTokens, hidden, state.tokenCounter);
      if (typeof applied !== "string") return { status: "summarized", messages: applied.messages, removed: applied.removed, replaced: applied.replaced, trigger, ...(applied.summaryModel ? { summaryModel: applied.summaryModel } : {}) };
    }
    // Below the threshold nothing forces a compaction: the cost model may judge it not worth its cache break.
    if (options.costModel && context.force !== true && !overThreshold) {
      const verdict = judge(history, hidden, options.costModel, targets.fireTokens, conversationTokens);
      if (!verdict.repays) return { status: "noop", trigger, reason: `hiding skipped by the cost model: ${verdict.reason}` };
    }
    return { status: "compacted", messages: hidden.messages, replaced: hidden.replaced, preservesStructure: true, trigger };
  }
  if (hidden) hidingNote = `hiding left ${hidden.tokensAfter} tokens, above the target ${targets.hidingTargetTokens}; `;
  return summarize(state, history, plan, targets, trigger, hidingNote, hidden, continuing);
}

/** Summary of the input (the originals, as the model last read them), then the hard limit. */
async function summarize(
  state: FiringState,
  history: PreparedHistory,
  plan: AutoCompactionPlan,
  { summaryTargetTokens, hidingTargetTokens }: AutoCompactionTargets,
  trigger: string,
  hidingNote: string,
  hidden: CompactionResult | undefined,
  continuing: boolean,
): Promise<StrategyOutcome> {
  const { messages, tokens, context } = history;
  const nested = nestedContext(context);
  const summary = plan.summaryFor(summaryTargetTokens);
  // After a provider's overflow, the hard limit is the share of this history the provider took.
  const hardLimit = context.overflow ? Math.max(1, Math.min(plan.hardLimit, Math.floor(tokens.total * (context.overflowShrink ?? DEFAULT_OVERFLOW_SHRINK)))) : plan.hardLimit;
  // Over the stand limit, a hiding that gets under it goes in now rather than a wait for a summary: one follows without a wait.
  const hidingNow: StrategyOutcome | undefined =
    continuing && hidden && tokens.total > standLimit(plan) && mayStand(plan, hidden.tokensAfter, context)
      ? { status: "compacted", messages: hidden.messages, replaced: hidden.replaced, preservesStructure: true, trigger, reason: `${hidingNote}over the stand limit ${standLimit(plan)}, kept the hiding: a summary follows without a wait` }
      : undefined;
  if (hidingNow && state.prepared.isPending(messages, plan.summarySignature, scopeOf(context))) return hidingNow;
  const fromPreparation = await applyPrepared(state.prepared, history, plan, summary, hidingTargetTokens, hidden, state.tokenCounter);
  if (typeof fromPreparation === "string" && continuing) {
    const started = startAtFiring(state.prepared, history, plan, summary, fromPreparation, hidingTargetTokens);
    if (started) return { status: "noop", trigger, reason: `${hidingNote}${started}` };
    if (hidingNow) return hidingNow;
  }
  const summarized = typeof fromPreparation === "string" ? await summary.compact(messages, nested) : fromPreparation;
  const summaryModel = {
    ...(summarized.summaryModel ? { summaryModel: summarized.summaryModel } : {}),
    ...(summarized.summaryError !== undefined ? { summaryError: summarized.summaryError } : {}),
  };
  const succeeded = summarized.status === "summarized";
  if (succeeded && summarized.tokensAfter <= hardLimit) {
    return { status: "summarized", messages: summarized.messages, removed: summarized.removed, replaced: summarized.replaced, trigger, ...summaryModel, ...(hidingNote ? { reason: `${hidingNote}summarized instead` } : {}) };
  }
  // The summary's own "the history is unchanged" is not this run's outcome: the clauses after it are.
  const summaryNote = succeeded ? "the summary left the history over the hard limit" : `${summarized.status}: ${withoutUnchanged(summarized.reason ?? "no reason given")}`;
  // Without a usable summary, the hidden history is the next best thing when it fits.
  if (!succeeded && hidden && hidden.tokensAfter <= hardLimit) {
    return { status: "compacted", messages: hidden.messages, replaced: hidden.replaced, preservesStructure: true, trigger, reason: `${hidingNote}summary ${summaryNote}; kept the hiding`, ...summaryModel };
  }
  const current = succeeded ? summarized : undefined;
  const currentTokens = current ? current.tokensAfter : tokens.total;
  if (currentTokens <= hardLimit) {
    // Under the hard limit: nothing forces a cut. The failure is reported; the history stands.
    return { status: summarized.status === "noop" ? "noop" : "failed", trigger, reason: `${hidingNote}summary ${summaryNote}; under the hard limit ${hardLimit}, nothing else done`, ...summaryModel };
  }
  const truncated = await (hardLimit === plan.hardLimit ? plan.truncate : plan.truncateTo(hardLimit)).compact(current ? current.messages : messages, nested);
  const reason = `${hidingNote}summary ${summaryNote}; truncated to the hard limit ${hardLimit}`;
  if (truncated.status !== "truncated") {
    return { status: "failed", trigger, reason: `${hidingNote}summary ${summaryNote}; hard-limit truncation ${truncated.status}: ${truncated.reason ?? ""}`, ...summaryModel };
  }
  if (!current) return { status: "truncated", messages: truncated.messages, removed: truncated.removed, replaced: truncated.replaced, trigger, reason, ...summaryModel };
  // Summary then truncation: the truncation ran on the summary's output, which inserted a message.
  return { status: "truncated", ...chainSummaryThenTruncation(messages, current, truncated), trigger, reason, ...summaryModel };
}

/** A strategy's reason without its closing "; the history is unchanged". */
function withoutUnchanged(reason: string): string {
  return reason.replace(/; the history is unchanged$/u, "");
}

/** The cost model's verdict on a hiding: its saving until the next firing against the cache break. */
function judge({ messages, tokens }: PreparedHistory, hidden: CompactionResult, costModel: CostModel, nextTriggerTokens: number, conversationTokens: number) {
  const firstChanged = hidden.replaced.reduce((first, entry) => Math.min(first, entry.index), messages.length);
  let keptPrefixTokens = 0;
  for (let position = 0; position < firstChanged; position++) keptPrefixTokens += tokens.perMessage[position]!;
  // Fresh: from the newest assistant message on (the previous call's reply and what followed it).
  let lastAssistant = messages.length;
  let steps = 0;
  for (let position = messages.length - 1; position >= 0; position--) {
    if (messages[position]!.type !== "ai") continue;
    steps++;
    if (lastAssistant === messages.length) lastAssistant = position;
  }
  let freshTokens = 0;
  for (let position = lastAssistant; position < messages.length; position++) freshTokens += tokens.perMessage[position]!;
  return judgeCompactionCost(
    {
      tokensBefore: tokens.total,
      tokensAfter: hidden.tokensAfter,
      keptPrefixTokens,
      freshTokens: Math.min(freshTokens, tokens.total),
      growthPerStep: Math.max(1, conversationTokens / Math.max(1, steps)),
      nextTriggerTokens,
    },
    costModel,
  );
}

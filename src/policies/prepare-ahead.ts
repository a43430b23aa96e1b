import type { BaseMessage } from "@langchain/core/messages";
import { storeAhead } from "../messages/stored-messages.js";
import { nestedContext, type PreparedHistory } from "../strategies/compaction-strategy.js";
import type { FullSummary } from "../summary/full-summary.js";
import type { TokenCounter, TokenMeasurement } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { targetsFor, type AutoCompactionPlan } from "./auto-compaction-plan.js";
import { chainResults } from "./chain-results.js";
import type { HidingVerdicts } from "./hiding-verdicts.js";
import { keyOf, NO_PREPARATION, STALE_PREPARATION, type PreparationScope, type PreparedSummaries } from "./prepared-summaries.js";

/** What autoCompaction's first step leaves: the hidden (and trimmed) history, or why there is none. @internal */
export interface HidingOutcome {
  readonly hidden: CompactionResult | undefined;
  readonly note: string;
}

/**
 * autoCompaction's first step: batched hiding, then the trimming of the older assistant texts. The
 * trimming alone must free the hiding's own `clearAtLeast`, as the hiding must: a cache break has to
 * pay. With `bounded`, a pass that could not free `clearAtLeast` even if it replaced everything it
 * may replace by nothing (the strategy's `freeableAtMost`, on `history` as the policy measured it,
 * with the strategies' own counter) is not made: the hiding when its results hold fewer tokens (and
 * it has any to hide), the trimming when no hiding was made and its messages hold fewer. The outcome
 * is the one the pass would have given; only the note differs (`hiding would free at most N
 * tokens`), and no copy is made that a firing going on to a summary would throw away. @internal
 */
export async function hideAndTrim(history: PreparedHistory, plan: AutoCompactionPlan, bounded: boolean): Promise<HidingOutcome> {
  const { messages, tokens, context } = history;
  let hidden: CompactionResult | undefined;
  let note = "";
  if (plan.hiding) {
    const most = bounded ? plan.hiding.freeableAtMost(history) : undefined;
    if (most !== undefined && most.candidates > 0 && most.tokens < plan.hiding.clearAtLeast) {
      note = `hiding noop: hiding would free at most ${most.tokens} tokens, less than clearAtLeast (${plan.hiding.clearAtLeast}); `;
    } else {
      const result = await plan.hiding.compact(messages, nestedContext(context));
      if (result.status === "compacted") hidden = result;
      else note = `hiding ${result.status}: ${result.reason ?? "no reason given"}; `;
    }
  }
  // Alone, the trimming must free clearAtLeast: not made when even its bound is under it.
  if (plan.trimming && (hidden || !bounded || plan.trimming.freeableAtMost(history) >= plan.hiding!.clearAtLeast)) {
    const trimmed = await plan.trimming.compact(hidden?.messages ?? messages, nestedContext(context));
    if (trimmed.status === "compacted" && (hidden || tokens.total - trimmed.tokensAfter >= plan.hiding!.clearAtLeast)) {
      hidden = { ...trimmed, tokensBefore: tokens.total, replaced: hidden ? chainResults(messages, hidden, trimmed).replaced : trimmed.replaced };
      note = "";
    }
  }
  return { hidden, note };
}

/**
 * Past the mark, with the decision on preparing a summary taken: the hiding (and trimming) a firing
 * would make, run after the step and thrown away. Its hidden and trimmed copies (placeholders,
 * receipts, their counts) are kept by the strategies, and the stored forms of the originals they
 * replace by the archive (see `storeAhead`), so the step that fires finds them made and only makes
 * those of the groups that aged since. @internal
 */
export async function warmHiding(plan: AutoCompactionPlan, history: PreparedHistory): Promise<void> {
  const { hidden } = await hideAndTrim(history, plan, false);
  // What the firing archives: the originals of what it hides.
  if (hidden) storeAhead(hidden.replaced.map((entry) => entry.before));
}

/** Where a run's preparations are kept: its thread and, in a graph, the store. @internal */
export function scopeOf(context: CompactionContext): PreparationScope {
  return { threadId: context.threadId, store: context.store };
}

/**
 * The tokens hiding would leave at the size that fires, foreseen from a dry run on the history as
 * it is: the newest groups stay verbatim, and of the older part the share hiding leaves now is the
 * share it will leave of the older part then.
 */
function foreseenHiding(history: PreparedHistory, plan: AutoCompactionPlan, hidden: CompactionResult, systemTokens: number, fireTokens: number): number {
  const { messages, tokens, index } = history;
  const keep = plan.hiding?.keepRecentGroups ?? 0;
  const groups = index.groups;
  const recentStart = keep > 0 && groups.length >= keep ? groups[groups.length - keep]!.assistantIndex : messages.length;
  let recent = 0;
  for (let position = recentStart; position < messages.length; position++) if (messages[position]!.type !== "system") recent += tokens.perMessage[position]!;
  const older = tokens.total - systemTokens - recent;
  const olderLeftShare = older <= 0 ? 1 : Math.min(1, Math.max(0, hidden.tokensAfter - systemTokens - recent) / older);
  return systemTokens + recent + olderLeftShare * Math.max(0, fireTokens - systemTokens - recent);
}

/** The reason of a no-op whose decision on preparing a summary is worked out after the step. @internal */
export const DECIDED_IN_BACKGROUND = "whether to prepare the summary is worked out in the background";

/**
 * Whether a history counted in full has reached the mark where summaries are prepared ahead. Never
 * with `prepare.at` 1: the summary starts at the firing (a trigger that also counts messages may
 * not have fired at its tokens). @internal
 */
export function pastMark(tokens: TokenMeasurement, plan: AutoCompactionPlan, systemTokens: number): boolean {
  return plan.prepareAt! < 1 && pastShare(tokens, plan, systemTokens, plan.prepareAt!);
}

/** Whether a history counted in full has reached the mark from which steps make the firing's hiding after they return (`warmAt`). @internal */
export function pastWarmMark(tokens: TokenMeasurement, plan: AutoCompactionPlan, systemTokens: number): boolean {
  return plan.warmAt !== undefined && pastShare(tokens, plan, systemTokens, plan.warmAt);
}

/** Whether the conversation holds `share` of what the size that fires holds above the system messages. */
function pastShare(tokens: TokenMeasurement, plan: AutoCompactionPlan, systemTokens: number, share: number): boolean {
  return tokens.total - systemTokens >= share * (targetsFor(plan, systemTokens, false).fireTokens - systemTokens);
}

/**
 * Whether {@link prepareAhead} has work to do on this history (`true`: its dry run), without doing
 * it: `undefined` under the mark or with a summary prepared for this prefix already, the verdict's
 * reason when a dry run found that hiding will be enough while the history only grew. @internal
 */
export function preparationNeeded(prepared: PreparedSummaries, verdicts: HidingVerdicts, history: PreparedHistory, plan: AutoCompactionPlan, systemTokens: number): true | string | undefined {
  const { messages, tokens, context } = history;
  if (!pastMark(tokens, plan, systemTokens)) return undefined;
  const scope = scopeOf(context);
  if (prepared.isPrepared(messages, plan.summarySignature, scope)) return undefined;
  return verdicts.reasonFor(keyOf(scope.threadId, messages), messages) ?? true;
}

/**
 * Past the mark, under the trigger: start, without waiting, the summary a firing would make, unless
 * one is prepared for this prefix already or hiding will be enough at the firing (foreseen by a dry
 * run: see {@link foreseenHiding}; run once while the history only grows, see `HidingVerdicts`).
 * Returns what it did, for the no-op's reason. @internal
 */
export async function prepareAhead(
  prepared: PreparedSummaries,
  verdicts: HidingVerdicts,
  history: PreparedHistory,
  plan: AutoCompactionPlan,
  systemTokens: number,
): Promise<string | undefined> {
  const needed = preparationNeeded(prepared, verdicts, history, plan, systemTokens);
  if (needed !== true) return needed;
  const { messages, tokens, context } = history;
  const targets = targetsFor(plan, systemTokens, false);
  const scope = scopeOf(context);
  const key = keyOf(scope.threadId, messages);
  const { hidden } = await hideAndTrim(history, plan, true);
  if (hidden && foreseenHiding(history, plan, hidden, systemTokens, targets.fireTokens) <= targets.hidingTargetTokens) {
    const reason = "no summary prepared: hiding will be enough at the firing";
    verdicts.remember(key, messages, reason);
    return reason;
  }
  const summary = plan.summaryFor(targets.summaryTargetTokens);
  // The cut a summary at the firing would make if the history grew by the room left until then.
  const cut = cutWithRoom(history, summary, targets.summaryTargetTokens, Math.max(0, targets.fireTokens - tokens.total), targets.hidingTargetTokens);
  if (cut === undefined) return undefined;
  if (cut === "no room") return "no summary prepared: it would not leave room enough at the firing";
  prepared.start(history, cut, summary, plan.summarySignature, scope);
  return `the summary of the first ${cut} messages is being prepared`;
}

/**
 * The cut of a summary applied once the history has grown by `room` tokens: made for
 * `summaryTargetTokens - room`, `"no room"` when what it keeps (system messages and everything from
 * the cut on), the summary at its longest and the room would not fit under `hidingTargetTokens` (a
 * small window), `undefined` when there is nothing to cut.
 */
function cutWithRoom(history: PreparedHistory, summary: FullSummary, summaryTargetTokens: number, room: number, hidingTargetTokens: number): number | "no room" | undefined {
  const { messages, tokens } = history;
  const cut = summary.cutFor(history, Math.max(1, summaryTargetTokens - room));
  if (typeof cut === "string") return undefined;
  let kept = 0;
  for (let position = 0; position < messages.length; position++) if (position >= cut || messages[position]!.type === "system") kept += tokens.perMessage[position]!;
  return kept + summary.summaryMaxTokens + room > hidingTargetTokens ? "no room" : cut;
}

/**
 * A firing whose summary is not written yet does not wait for it while the history is under the
 * threshold plus this share of the way from the threshold to the hard limit (see {@link standLimit}).
 */
export const STAND_SHARE = 0.5;

/** The size under which a firing goes on without waiting for its summary: see {@link STAND_SHARE}. @internal */
export function standLimit(plan: AutoCompactionPlan): number {
  const threshold = Math.min(plan.thresholdTokens, plan.hardLimit);
  return Math.floor(threshold + STAND_SHARE * (plan.hardLimit - threshold));
}

/**
 * Whether a firing may leave the history as it is while its summary is written in the background:
 * summaries are prepared ahead, the run is not forced, and the history is under {@link standLimit}. @internal
 */
export function mayStand(plan: AutoCompactionPlan, tokensTotal: number, context: CompactionContext): boolean {
  return plan.prepareAt !== undefined && context.force !== true && tokensTotal <= standLimit(plan);
}

/**
 * At a firing that found no summary prepared for its prefix (none was, or a message it covered
 * changed): start one in the background when the history may stand (see {@link mayStand}); the step
 * then goes on without compacting. It is applied a step later, so its cut leaves room for about what
 * the last step added (the newest assistant message and what followed it), and it is not started
 * when, with the summary at its longest and that growth, it could not get under `hidingTargetTokens`
 * (a small window): the firing summarizes now instead. Returns the no-op's reason, or `undefined`
 * when the firing has to summarize now. @internal
 */
export function startAtFiring(
  prepared: PreparedSummaries,
  history: PreparedHistory,
  plan: AutoCompactionPlan,
  summary: FullSummary,
  why: string,
  hidingTargetTokens: number,
): string | undefined {
  const { messages, tokens } = history;
  if ((why !== NO_PREPARATION && why !== STALE_PREPARATION) || !mayStand(plan, tokens.total, history.context)) return undefined;
  let lastStep = messages.length;
  while (lastStep > 0 && messages[lastStep - 1]!.type !== "ai") lastStep--;
  let growth = 0;
  for (let position = Math.max(0, lastStep - 1); position < messages.length; position++) growth += tokens.perMessage[position]!;
  const cut = cutWithRoom(history, summary, summary.targetTokens ?? hidingTargetTokens, growth, hidingTargetTokens);
  if (typeof cut !== "number") return undefined;
  prepared.start(history, cut, summary, plan.summarySignature, scopeOf(history.context));
  return `${why}; the summary of the first ${cut} messages is being prepared, and the history stands (under ${standLimit(plan)} tokens) until it is ready`;
}

/**
 * At a firing, the summary prepared ahead (waited for if still being written in this process) when
 * the messages it covers are still the history's first ones and the result gets under the hiding
 * target; why not otherwise (`NO_PREPARATION` when none was prepared). It covers less than a summary made now would (the history grew
 * since), so what follows its cut is kept as the firing's hiding left it (older results as
 * placeholders, the newest groups verbatim) when there was one. @internal
 */
export async function applyPrepared(
  prepared: PreparedSummaries,
  history: PreparedHistory,
  plan: AutoCompactionPlan,
  summary: FullSummary,
  hidingTargetTokens: number,
  hidden: CompactionResult | undefined,
  tokenCounter: TokenCounter,
): Promise<CompactionResult | string> {
  const { messages, tokens, context } = history;
  if (plan.prepareAt === undefined) return "summaries are not prepared ahead";
  const taken = await prepared.take(messages, plan.summarySignature, scopeOf(context), context.signal);
  if (typeof taken === "string") return taken;
  const placed = await summary.placeSummary({ ...history, context: nestedContext(context) }, taken.cut, taken.written, "forced");
  if (placed.status !== "summarized" || placed.tokensAfter === undefined) return `the prepared summary could not be placed: ${placed.reason ?? placed.status}`;
  let output = placed.messages!;
  let tokensAfter = placed.tokensAfter;
  const replaced = hidden ? hidden.replaced.filter((entry) => entry.index >= taken.cut) : [];
  if (replaced.length > 0) {
    // The summary, then the hidden history from the cut on (same positions: hiding keeps the structure).
    output = [...output.slice(0, output.length - (messages.length - taken.cut)), ...hidden!.messages.slice(taken.cut)];
    tokensAfter = (await tokenCounter.measure(output)).total;
  }
  if (tokensAfter > hidingTargetTokens) return `the prepared summary left ${tokensAfter} tokens, above ${hidingTargetTokens}`;
  const { summaryModel } = taken.written;
  return { messages: output, status: "summarized", strategy: summary.strategyName, tokensBefore: tokens.total, tokensAfter, messagesBefore: messages.length, messagesAfter: output.length, removed: placed.removed ?? [], replaced, trigger: "forced", summaryModel };
}

import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { carriesToolResults } from "../messages/tool-result-blocks.js";
import { isHiddenResult, langChainClearedInputs } from "../strategies/hiding-pass.js";
import { compactionMarkerOf } from "../types.js";

/**
 * Where cache anchors go, from the history alone.
 *
 * A hiding run (`toolResultHiding`, `autoCompaction`'s hiding and trimming, the `ClearToolUsesEdit`
 * drop-in) processes every group older than the kept ones that no earlier run processed: it hides
 * their results, and may trim their assistant text or empty their call arguments. It leaves alone
 * every group an earlier run processed. So:
 *
 * - **next**: the assistant message of the newest hidden result's group (of the first result's
 *   group while none is hidden). The next run changes only later messages, so every request until
 *   then writes, and keeps warm, the prefix up to there.
 * - **previous**: the assistant message of the group of the newest result hidden by an earlier run
 *   than the newest one (hidden copies record their run in `response_metadata.compaction.batch`), or
 *   of the first result's group when the newest run was the first: where the requests before the
 *   newest run put their **next** anchor, so the request after the run reads everything up to it.
 *
 * Where call arguments are emptied with the results (`hideToolInputs`, `clearToolInputs`: the newest
 * hidden result's assistant message says so), a run can change a group's own assistant message (the
 * rest of a parallel group an earlier run began), so both anchors stand one group back. A run that
 * changes the first group's assistant message (trimming its text, emptying its arguments) leaves the
 * request after the first run, and after the first run that follows a summary, nothing to read.
 *
 * Results cleared without a `batch` (LangChain's own `ClearToolUsesEdit`, histories from before it)
 * give no **previous** anchor. A run that hides newer results before older ones
 * (`clearAtLeastMode: "extend"` hiding kept results) breaks the rule: anchors then read less.
 */

/** A tool result: a tool message, or a human message carrying `tool_result` blocks. */
function isResult(message: BaseMessage): boolean {
  return isToolResultMessage(message) || carriesToolResults(message);
}

/** The index of the nearest assistant message before `index`, -1 when there is none. */
function assistantBefore(messages: readonly BaseMessage[], index: number): number {
  let position = index - 1;
  while (position >= 0 && !isAssistantMessage(messages[position]!)) position--;
  return position;
}

/**
 * The indices of the assistant messages that cache anchors go on, in history order (none, one or
 * two); see the module's description for the rule. It reads the history backwards from its end and
 * stops at the newest hidden results, so in an agent loop it reads the messages since the last
 * hiding run, not the whole history.
 *
 * @example
 * cacheAnchorPositions(history); // e.g. [57, 212]: anchors after messages 57 and 212
 */
export function cacheAnchorPositions(messages: readonly BaseMessage[]): number[] {
  let newest = messages.length - 1;
  while (newest >= 0 && !(isResult(messages[newest]!) && isHiddenResult(messages[newest]!))) newest--;
  // With emptied call arguments, a run may change a group's own assistant message: anchor one back.
  const oneBack = newest >= 0 && emptiedArguments(messages[assistantBefore(messages, newest)]);
  const anchorFor = (index: number) => {
    const own = assistantBefore(messages, index);
    return oneBack && own >= 0 ? assistantBefore(messages, own) : own;
  };
  // While nothing is hidden, the next anchor is on the first result's group.
  const firstGroup = () => {
    const first = messages.findIndex(isResult);
    return first < 0 ? -1 : anchorFor(first);
  };
  if (newest < 0) {
    const next = firstGroup();
    return next < 0 ? [] : [next];
  }
  const anchors: number[] = [];
  const batch = compactionMarkerOf(messages[newest]!)?.batch;
  if (batch !== undefined) {
    let earlier = newest - 1;
    while (earlier >= 0 && !(isResult(messages[earlier]!) && isHiddenResult(messages[earlier]!) && compactionMarkerOf(messages[earlier]!)?.batch !== batch)) earlier--;
    // No result hidden by an earlier run: the newest run was the first, after requests anchored on the first group.
    const previous = earlier < 0 ? firstGroup() : anchorFor(earlier);
    if (previous >= 0) anchors.push(previous);
  }
  const next = anchorFor(newest);
  if (next >= 0 && next !== anchors[0]) anchors.push(next);
  return anchors;
}

/** Whether an assistant message had call arguments emptied (this package's marker or LangChain's). */
function emptiedArguments(message: BaseMessage | undefined): boolean {
  if (message === undefined) return false;
  return (compactionMarkerOf(message)?.hiddenToolInputs?.length ?? 0) > 0 || langChainClearedInputs(message).length > 0;
}

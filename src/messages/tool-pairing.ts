import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { cloneMessage } from "./clone-message.js";
import { editToolCalls } from "./edit-tool-calls.js";
import { isAssistantMessage, isEmptyContent, isToolResultMessage } from "./message-types.js";
import { indexToolCallGroups, type ToolPairingProblem } from "./tool-call-groups.js";

export type { ToolPairingProblem } from "./tool-call-groups.js";

/**
 * List every tool pairing problem of a history: a tool result with no earlier call, a call with no
 * result, a repeated call id, a call without an id, a second result for one call. An empty array
 * means a provider will accept the pairing.
 *
 * @example
 * const problems = validateToolPairing(messages);
 * // [{ kind: "orphan-result", index: 4, toolCallId: "call_9", message: "..." }]
 */
export function validateToolPairing(messages: readonly BaseMessage[]): ToolPairingProblem[] {
  return [...indexToolCallGroups(messages).problems];
}

/** What `repairToolPairing` did, for a caller that archives or logs it. */
export interface ToolPairingRepair {
  /** The repaired history. Messages that needed no change are the input objects themselves. */
  readonly messages: BaseMessage[];
  /** The problems found in the input (empty when nothing was repaired). */
  readonly problems: readonly ToolPairingProblem[];
  /** Input messages left out: orphan and duplicate tool results, and assistant messages left empty. */
  readonly removed: readonly { index: number; message: BaseMessage }[];
  /** Input messages replaced by a corrected copy. */
  readonly replaced: readonly { index: number; before: BaseMessage; after: BaseMessage }[];
}

/**
 * Turn a history with broken tool pairing into one a provider accepts, documenting each change:
 * - a tool result that answers no earlier call, or answers an already answered one, is dropped;
 * - a call that no result answers (or that has no id) is removed from its assistant message, and an
 *   assistant message left with neither content nor calls is dropped;
 * - a repeated call id is renamed `<id>__dup<n>` on the later call and on the results answering it,
 *   so both exchanges are kept.
 * Everything else is returned as it was (same objects). Never mutates the input.
 *
 * @example
 * const { messages, problems, removed } = repairToolPairing(brokenHistory);
 * // validateToolPairing(messages) is now []
 */
export function repairToolPairing(messages: readonly BaseMessage[]): ToolPairingRepair {
  const index = indexToolCallGroups(messages);
  if (index.problems.length === 0) return { messages: [...messages], problems: [], removed: [], replaced: [] };

  const dropResult = new Set<number>();
  for (const problem of index.problems) {
    if (problem.kind === "orphan-result" || problem.kind === "duplicate-result") dropResult.add(problem.index);
  }
  // A call is unanswered when its id, in the form the repair gives it, has no result.
  const answered = new Set<string>();
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    if (isToolResultMessage(message) && !dropResult.has(position)) {
      answered.add(index.renamedResults.get(position) ?? message.tool_call_id);
    }
  }
  const output: BaseMessage[] = [];
  const removed: { index: number; message: BaseMessage }[] = [];
  const replaced: { index: number; before: BaseMessage; after: BaseMessage }[] = [];
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    if (isAssistantMessage(message) && (message.tool_calls?.length ?? 0) > 0) {
      const keepPositions = new Set<number>();
      const renames = new Map<number, string>();
      let changed = false;
      (message.tool_calls ?? []).forEach((call, callPosition) => {
        const resolvedId = index.renamedCalls.get(`${position}:${callPosition}`) ?? call.id;
        if (resolvedId !== call.id && resolvedId !== undefined) {
          renames.set(callPosition, resolvedId);
          changed = true;
        }
        if (resolvedId !== undefined && resolvedId !== "" && answered.has(resolvedId)) keepPositions.add(callPosition);
        else changed = true;
      });
      if (!changed) {
        output.push(message);
        continue;
      }
      const after = editToolCalls(message as AIMessage, { keepPositions, renames });
      if ((after.tool_calls?.length ?? 0) === 0 && isEmptyContent(after.content)) {
        removed.push({ index: position, message });
        continue;
      }
      output.push(after);
      replaced.push({ index: position, before: message, after });
    } else if (isToolResultMessage(message)) {
      if (dropResult.has(position)) {
        removed.push({ index: position, message });
        continue;
      }
      const renamed = index.renamedResults.get(position);
      if (renamed === undefined) {
        output.push(message);
        continue;
      }
      const after = cloneMessage(message, { tool_call_id: renamed });
      output.push(after);
      replaced.push({ index: position, before: message, after });
    } else {
      output.push(message);
    }
  }
  return { messages: output, problems: index.problems, removed, replaced };
}

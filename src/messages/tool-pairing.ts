import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { assistantCalls, isEmptyAssistantMessage } from "./assistant-calls.js";
import { cloneMessage } from "./clone-message.js";
import { editToolCalls } from "./edit-tool-calls.js";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { indexToolCallGroups, type ToolCallIndex, type ToolPairingProblem } from "./tool-call-groups.js";

export type { ToolPairingProblem } from "./tool-call-groups.js";

/**
 * List every tool pairing problem of a history, as ChatOpenAI and ChatAnthropic would send it: a
 * tool result with no earlier call, a second result for one call, a result that does not directly
 * follow its call's message (another message in between), a call with no result, a repeated call id,
 * a call without an id, a call that `tool_calls` does not list (only a content block or a raw form
 * holds it), an empty raw `additional_kwargs.tool_calls`. An empty array means both providers accept the pairing.
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
  /** Input messages left out: orphan and duplicate tool results, and assistant messages left empty. By input index. */
  readonly removed: readonly { index: number; message: BaseMessage }[];
  /** Input messages replaced by a corrected copy (at the copy's place in `messages`). By input index. */
  readonly replaced: readonly { index: number; before: BaseMessage; after: BaseMessage }[];
  /**
   * Tool results moved to directly after their call's message: `index` is the input position,
   * `to` the output position, `message` the input message (the output holds it, or, when its id
   * was renamed, the copy `replaced` lists). By input index.
   */
  readonly moved: readonly { index: number; to: number; message: BaseMessage }[];
}

/** The edit an assistant message needs: unanswered calls out, repeated ids renamed, every call listed. */
function assistantEdit(message: AIMessage, position: number, index: ToolCallIndex, answered: ReadonlySet<string>) {
  const keepPositions = new Set<number>();
  const renames = new Map<number, string>();
  let changed = false;
  assistantCalls(message).forEach((call, callPosition) => {
    const resolvedId = index.renamedCalls.get(`${position}:${callPosition}`) ?? call.id;
    if (call.source !== "tool_calls") changed = true;
    if (resolvedId !== call.id && resolvedId !== undefined) {
      renames.set(callPosition, resolvedId);
      changed = true;
    }
    if (resolvedId !== undefined && answered.has(resolvedId)) keepPositions.add(callPosition);
    else changed = true;
  });
  return changed ? { keepPositions, renames } : undefined;
}

/**
 * Turn a history with broken tool pairing into one ChatOpenAI and ChatAnthropic accept, documenting
 * each change:
 * - a tool result that answers no earlier call, or answers an already answered one, is dropped;
 * - a result separated from its call's message (a user, assistant or system message in between) is
 *   moved to the end of the tool results directly after that message (`moved`);
 * - a call that no result answers (or that has no id) is removed from its assistant message in every
 *   form (`editToolCalls`), and an assistant message left with neither content nor calls is dropped;
 * - a call only a content block or a raw form holds is added to `tool_calls`;
 * - an empty `additional_kwargs.tool_calls` is deleted (the message is dropped if nothing is left);
 * - a repeated call id is renamed `<id>__dup<n>` on the later call and on the result answering it.
 *   Results are matched to calls by position (the first result with an id answers the first call
 *   with it), so every call keeps its own result.
 * Everything else is returned as it was (same objects). Never mutates the input. Linear.
 *
 * @example
 * const { messages, problems, removed, moved } = repairToolPairing(brokenHistory);
 * // validateToolPairing(messages) is now []
 */
export function repairToolPairing(messages: readonly BaseMessage[]): ToolPairingRepair {
  const index = indexToolCallGroups(messages);
  if (index.problems.length === 0) return { messages: [...messages], problems: [], removed: [], replaced: [], moved: [] };

  const dropResult = new Set<number>();
  /** assistant index -> the misplaced results answering its calls, in input order */
  const movesTo = new Map<number, number[]>();
  const misplaced = new Set<number>();
  const emptyRawCalls = new Set<number>();
  for (const problem of index.problems) {
    if (problem.kind === "empty-tool-calls") emptyRawCalls.add(problem.index);
    if (problem.kind === "orphan-result" || problem.kind === "duplicate-result") dropResult.add(problem.index);
    if (problem.kind === "misplaced-result") {
      misplaced.add(problem.index);
      const list = movesTo.get(problem.assistantIndex);
      if (list) list.push(problem.index);
      else movesTo.set(problem.assistantIndex, [problem.index]);
    }
  }
  // Each kept result answers one call, whose id (as the repair gives it) is then answered.
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
  const moved: { index: number; to: number; message: BaseMessage }[] = [];
  const emitResult = (position: number) => {
    const message = messages[position]!;
    const renamed = index.renamedResults.get(position);
    const after = renamed === undefined ? message : cloneMessage(message, { tool_call_id: renamed });
    if (after !== message) replaced.push({ index: position, before: message, after });
    if (misplaced.has(position)) moved.push({ index: position, to: output.length, message });
    output.push(after);
  };
  /** Results to move after the run of the assistant message last emitted. */
  let moves: number[] | undefined;
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    if (isToolResultMessage(message)) {
      if (dropResult.has(position)) removed.push({ index: position, message });
      else if (!misplaced.has(position)) emitResult(position);
      continue;
    }
    // The run of results after the previous assistant message ends here: its moved results join it.
    if (moves) for (const result of moves) emitResult(result);
    moves = undefined;
    if (!isAssistantMessage(message) || (index.groupOf[position]! < 0 && !emptyRawCalls.has(position))) {
      output.push(message);
      continue;
    }
    moves = movesTo.get(position);
    const edit = emptyRawCalls.has(position) ? {} : assistantEdit(message, position, index, answered);
    if (edit === undefined) {
      output.push(message);
      continue;
    }
    const after = editToolCalls(message, edit);
    if (isEmptyAssistantMessage(after)) {
      removed.push({ index: position, message });
      continue;
    }
    output.push(after);
    replaced.push({ index: position, before: message, after });
  }
  if (moves) for (const result of moves) emitResult(result);
  // Moved results are emitted out of input order: every list is reported by input index.
  if (moved.length > 0) {
    replaced.sort((a, b) => a.index - b.index);
    removed.sort((a, b) => a.index - b.index);
    moved.sort((a, b) => a.index - b.index);
  }
  return { messages: output, problems: index.problems, removed, replaced, moved };
}

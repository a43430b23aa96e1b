import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { assistantCalls, hasSendableContent, isEmptyAssistantMessage } from "./assistant-calls.js";
import { carrierContent, carrierExtract, carrierPart, planCarrier, type CarrierPlan, type CarrierProblems } from "./carrier-repair.js";
import { cloneMessage } from "./clone-message.js";
import { editToolCalls } from "./edit-tool-calls.js";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { indexToolCallGroups, type ToolCallIndex, type ToolPairingProblem } from "./tool-call-groups.js";
import { toolResultBlocksOf } from "./tool-result-blocks.js";

export type { ToolPairingProblem } from "./tool-call-groups.js";

/**
 * List every tool pairing problem of a history, as ChatOpenAI and ChatAnthropic would send it: a
 * tool result with no earlier call, a second result for one call, a result that does not directly
 * follow its call's message (another message in between), a call with no result, a repeated call id,
 * a call without an id, a call that `tool_calls` does not list (only a content block or a raw form
 * holds it), an empty raw `additional_kwargs.tool_calls`. An empty array means both providers accept the pairing.
 *
 * Tool results are tool messages and `tool_result` blocks in human messages (Anthropic's own form),
 * read as `ChatAnthropic` sends them: a human message of only `tool_result` blocks is joined with
 * the results around it, one with other content too is sent on its own, so its blocks answer the
 * calls just before it only when it is the first result after them and only while they come before
 * its other content.
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
  /**
   * Input messages left out: orphan and duplicate tool results, assistant messages left empty, human
   * messages left with nothing to send once their `tool_result` blocks were dropped or moved. By input index.
   */
  readonly removed: readonly { index: number; message: BaseMessage }[];
  /** Input messages replaced by a corrected copy (at the copy's place in `messages`). By input index. */
  readonly replaced: readonly { index: number; before: BaseMessage; after: BaseMessage }[];
  /**
   * Tool results moved to directly after their call's message: `index` is the input position,
   * `to` the output position, `message` the input message (the output holds it, or, when its id
   * was renamed, the copy `replaced` lists). By input index.
   *
   * With `blockPositions`, only those content blocks of the input message moved, into `message`, a
   * new human message (without id): `tool_result` blocks moved to their call, or the other content
   * of a message whose results had to be joined with moved ones, moved after them. What stays of
   * the input message is in `replaced` (or `removed`).
   */
  readonly moved: readonly { index: number; to: number; message: BaseMessage; blockPositions?: readonly number[] }[];
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

/** A result to move after the results of its call's message: a tool message, a whole human message, or some of its blocks. */
interface Move {
  readonly position: number;
  readonly blocks?: readonly number[];
}

/** What the problems ask of each message. */
interface RepairPlan {
  /** Tool messages to drop. */
  readonly drop: Set<number>;
  /** Tool messages and human messages that move whole. */
  readonly misplaced: Set<number>;
  /** Assistant index -> the results to move after its results, in input order. */
  readonly movesTo: Map<number, Move[]>;
  readonly emptyRawCalls: Set<number>;
  /** Human messages some of whose `tool_result` blocks are dropped or moved, by input index. */
  readonly carriers: Map<number, CarrierPlan>;
}

function addMove(movesTo: Map<number, Move[]>, assistantIndex: number, move: Move): void {
  const list = movesTo.get(assistantIndex);
  if (list) list.push(move);
  else movesTo.set(assistantIndex, [move]);
}

function planRepair(messages: readonly BaseMessage[], index: ToolCallIndex): RepairPlan {
  const plan: RepairPlan = { drop: new Set(), misplaced: new Set(), movesTo: new Map(), emptyRawCalls: new Set(), carriers: new Map() };
  const blockProblems = new Map<number, CarrierProblems>();
  const carrier = (position: number) => {
    let problems = blockProblems.get(position);
    if (!problems) blockProblems.set(position, (problems = { drops: new Set(), moves: new Map() }));
    return problems;
  };
  for (const problem of index.problems) {
    if (problem.kind === "empty-tool-calls") plan.emptyRawCalls.add(problem.index);
    if (problem.kind === "orphan-result" || problem.kind === "duplicate-result") {
      if (problem.blockPosition === undefined) plan.drop.add(problem.index);
      else carrier(problem.index).drops.add(problem.blockPosition);
    }
    if (problem.kind === "misplaced-result") {
      if (problem.blockPosition === undefined) {
        plan.misplaced.add(problem.index);
        addMove(plan.movesTo, problem.assistantIndex, { position: problem.index });
        continue;
      }
      const moves = carrier(problem.index).moves;
      const list = moves.get(problem.assistantIndex);
      if (list) list.push(problem.blockPosition);
      else moves.set(problem.assistantIndex, [problem.blockPosition]);
    }
  }
  let added = false;
  for (const [position, problems] of blockProblems) {
    const carrierPlan = planCarrier(messages[position]!, problems);
    plan.carriers.set(position, carrierPlan);
    // Nothing stays and every block goes to one call's message: the message moves whole, like a tool message.
    const whole = carrierPlan.results.length === 0 && carrierPlan.other.length === 0 && carrierPlan.moves.size === 1;
    if (whole) plan.misplaced.add(position);
    for (const [assistantIndex, blocks] of carrierPlan.moves) addMove(plan.movesTo, assistantIndex, whole ? { position } : { position, blocks });
    added ||= carrierPlan.moves.size > 0;
  }
  // Problems come by index, but a message's blocks may answer calls of several messages: keep input order.
  if (added) for (const list of plan.movesTo.values()) list.sort((a, b) => a.position - b.position);
  return plan;
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
 *
 * For `tool_result` blocks in human messages (Anthropic's form), the same per block, on copies: a
 * dropped block is taken out of its message; a misplaced one moves, in a new human message of only
 * `tool_result` blocks, to the end of its call's results (a message that holds nothing but blocks
 * that all move there moves whole, like a tool message); a message left with nothing to send is
 * dropped. When results move after a message that holds text besides its results, that text moves
 * after them in a new human message, so every result stays at the start of one user message.
 * Renamed ids are renamed in the block's `tool_use_id`.
 *
 * Everything else is returned as it was (same objects). Never mutates the input; nothing is lost:
 * whatever leaves the history is in `removed`, `replaced` or `moved`. Linear.
 *
 * @example
 * const { messages, problems, removed, moved } = repairToolPairing(brokenHistory);
 * // validateToolPairing(messages) is now []
 */
export function repairToolPairing(messages: readonly BaseMessage[]): ToolPairingRepair {
  const index = indexToolCallGroups(messages);
  if (index.problems.length === 0) return { messages: [...messages], problems: [], removed: [], replaced: [], moved: [] };
  const plan = planRepair(messages, index);
  const blockRename = (position: number) => (block: number) => index.renamedResultBlocks.get(`${position}:${block}`);

  // Each kept result answers one call, whose id (as the repair gives it) is then answered.
  const answered = new Set<string>();
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    if (isToolResultMessage(message)) {
      if (!plan.drop.has(position)) answered.add(index.renamedResults.get(position) ?? message.tool_call_id);
      continue;
    }
    const dropped = plan.carriers.get(position)?.dropped;
    for (const ref of toolResultBlocksOf(message)) {
      if (!dropped?.has(ref.position)) answered.add(index.renamedResultBlocks.get(`${position}:${ref.position}`) ?? ref.toolUseId);
    }
  }

  const output: BaseMessage[] = [];
  const removed: { index: number; message: BaseMessage }[] = [];
  const replaced: { index: number; before: BaseMessage; after: BaseMessage }[] = [];
  const moved: { index: number; to: number; message: BaseMessage; blockPositions?: readonly number[] }[] = [];
  /** Emit `after` for the input message at `position` (a copy of it, or itself). */
  const emit = (position: number, after: BaseMessage) => {
    const before = messages[position]!;
    if (after !== before) replaced.push({ index: position, before, after });
    output.push(after);
  };
  const emitMove = (move: Move) => {
    const message = messages[move.position]!;
    if (move.blocks !== undefined) {
      const extract = carrierExtract(message, move.blocks, blockRename(move.position));
      moved.push({ index: move.position, to: output.length, message: extract, blockPositions: move.blocks });
      output.push(extract);
      return;
    }
    moved.push({ index: move.position, to: output.length, message });
    if (isToolResultMessage(message)) emit(move.position, renamedResult(message, index.renamedResults.get(move.position)));
    else {
      const [blocks] = plan.carriers.get(move.position)!.moves.values();
      emit(move.position, carrierPart(message, blocks!, blockRename(move.position)));
    }
  };
  /** Results to move after the run of the assistant message last emitted, and text to move after them. */
  let moves: Move[] | undefined;
  let textAfter: { position: number; blocks: readonly number[] } | undefined;
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    if (isToolResultMessage(message)) {
      if (plan.drop.has(position)) removed.push({ index: position, message });
      else if (!plan.misplaced.has(position)) emit(position, renamedResult(message, index.renamedResults.get(position)));
      continue;
    }
    const refs = toolResultBlocksOf(message);
    const carrierPlan = refs.length === 0 ? undefined : (plan.carriers.get(position) ?? planCarrier(message, undefined));
    if (carrierPlan !== undefined && carrierPlan.results.length > 0) {
      // In the run: its staying results answer the calls just before. Text after them goes after moved results.
      const split = moves !== undefined && carrierPlan.other.length > 0;
      const keep = split ? carrierPlan.results : [...carrierPlan.results, ...carrierPlan.other].sort((a, b) => a - b);
      // (Blank text would be refused on its own: it stays behind, in the `before` of `replaced`.)
      if (split && hasSendableContent(carrierContent(message, carrierPlan.other, noRename) as BaseMessage["content"])) {
        textAfter = { position, blocks: carrierPlan.other };
      }
      emit(position, carrierPart(message, keep, blockRename(position)));
      continue;
    }
    // The run of results after the previous assistant message ends here: its moved results join it.
    if (moves) for (const move of moves) emitMove(move);
    if (textAfter) emitMove(textAfter);
    moves = undefined;
    textAfter = undefined;
    if (carrierPlan !== undefined) {
      // All its blocks move or go: what else it holds stays, if anything.
      if (plan.misplaced.has(position)) continue;
      const rest = carrierPart(message, carrierPlan.other, blockRename(position));
      if (hasSendableContent(rest.content)) emit(position, rest);
      else removed.push({ index: position, message });
      continue;
    }
    if (!isAssistantMessage(message) || (index.groupOf[position]! < 0 && !plan.emptyRawCalls.has(position))) {
      output.push(message);
      continue;
    }
    moves = plan.movesTo.get(position);
    const edit = plan.emptyRawCalls.has(position) ? {} : assistantEdit(message, position, index, answered);
    if (edit === undefined) {
      output.push(message);
      continue;
    }
    const after = editToolCalls(message, edit);
    if (isEmptyAssistantMessage(after)) {
      removed.push({ index: position, message });
      continue;
    }
    emit(position, after);
  }
  if (moves) for (const move of moves) emitMove(move);
  if (textAfter) emitMove(textAfter);
  // Moved results are emitted out of input order: every list is reported by input index.
  if (moved.length > 0) {
    replaced.sort((a, b) => a.index - b.index);
    removed.sort((a, b) => a.index - b.index);
    moved.sort((a, b) => a.index - b.index || a.to - b.to);
  }
  return { messages: output, problems: index.problems, removed, replaced, moved };
}

const noRename = () => undefined;

function renamedResult(message: BaseMessage, renamed: string | undefined): BaseMessage {
  return renamed === undefined ? message : cloneMessage(message, { tool_call_id: renamed });
}

import type { BaseMessage } from "@langchain/core/messages";
import type { MessageProblem } from "../errors.js";
import { replaceLoneSurrogates } from "../text/code-points.js";
import type { RemovedMessage, ReplacedMessage } from "../types.js";
import { assistantCalls } from "./assistant-calls.js";
import { cloneMessage } from "./clone-message.js";
import { isAssistantMessage } from "./message-types.js";
import { MAX_TEXT_DEPTH, isPlainContainer, type HistoryProblem, type TextField } from "./history-check.js";
import { repairToolPairing, type ToolPairingRepair } from "./tool-pairing.js";

/** A message the repair moved: from input position `index` to output position `to`. */
export interface MovedMessage {
  readonly index: number;
  readonly to: number;
  readonly message: BaseMessage;
  /**
   * Set when only these content blocks of the input message moved (`tool_result` blocks of a human
   * message, or the text after its results): `message` is then the new human message holding them,
   * and what stays of the input message is in `replaced` (or `removed`).
   */
  readonly blockPositions?: readonly number[];
}

/**
 * What a strategy's `invalidHistory: "repair"` changed before the strategy ran (the result's
 * `repair`). Indices are input positions, except `moved[].to`, a position in `messages`.
 */
export interface HistoryRepair {
  /** The repaired history the strategy ran on. Messages that needed no change are the input objects. */
  readonly messages: BaseMessage[];
  /** The problems found in the input, by index: lone surrogates, empty messages and tool-pairing problems. */
  readonly problems: readonly MessageProblem[];
  /** Input messages left out: orphan and duplicate tool results, assistant messages left empty. */
  readonly removed: readonly RemovedMessage[];
  /**
   * Input messages replaced by a corrected copy: lone surrogates replaced by U+FFFD, a message with
   * nothing to send given the text `(empty message)`, unanswered calls
   * removed, repeated call ids renamed. `before` is always the input message.
   */
  readonly replaced: readonly ReplacedMessage[];
  /** Tool results moved next to the assistant message that made their call. */
  readonly moved: readonly MovedMessage[];
}

/**
 * `value` with every lone surrogate of its strings (arrays and plain objects, any depth) replaced by
 * U+FFFD. Returns `value` itself when nothing changed; changed containers are copies.
 */
export function replaceLoneSurrogatesIn<T>(value: T, depth = 0): T {
  if (typeof value === "string") return replaceLoneSurrogates(value) as T;
  if (depth >= MAX_TEXT_DEPTH || !isPlainContainer(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, position) => {
      const replaced = replaceLoneSurrogatesIn(item, depth + 1);
      if (replaced !== item) (copy ??= [...value])[position] = replaced;
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    const replaced = replaceLoneSurrogatesIn(item, depth + 1);
    if (replaced !== item) (copy ??= { ...record })[key] = replaced;
  }
  return (copy ?? value) as T;
}

/** The text a repair gives a user or assistant message that had nothing to send. */
export const EMPTY_MESSAGE_TEXT = "(empty message)";

/** What {@link repairMessages} did. */
export interface MessageRepair {
  readonly messages: BaseMessage[];
  readonly replaced: ReplacedMessage[];
}

function withText(message: BaseMessage): BaseMessage {
  const { content } = message;
  // An assistant message with calls only lacks a non-empty content field: "" is what ChatOpenAI expects.
  if (isAssistantMessage(message) && assistantCalls(message).length > 0 && Array.isArray(content) && content.length === 0) {
    return cloneMessage(message, { content: "" });
  }
  // Blocks a provider does not count as content (reasoning, blank text) are kept; the text joins them.
  const filled = Array.isArray(content) ? [...content, { type: "text", text: EMPTY_MESSAGE_TEXT }] : EMPTY_MESSAGE_TEXT;
  return cloneMessage(message, { content: filled as BaseMessage["content"] });
}

/**
 * Repair the problems `checkHistory` found that a repair can fix, each message on a copy: lone
 * surrogates (kind `lone-surrogate`) become U+FFFD; a user or assistant message with nothing to send
 * (kind `empty-content`) gets the text {@link EMPTY_MESSAGE_TEXT} (dropping it could leave the
 * conversation without its opening user message), and an assistant message with calls and an empty
 * content array gets the content `""`. Positions do not change; the input is not mutated.
 */
export function repairMessages(messages: readonly BaseMessage[], problems: readonly HistoryProblem[]): MessageRepair {
  const surrogates = repairLoneSurrogates(messages, problems);
  const empty = problems.filter((problem) => problem.kind === "empty-content").map((problem) => problem.index);
  if (empty.length === 0) return surrogates;
  const output = [...surrogates.messages];
  const replaced = new Map(surrogates.replaced.map((entry) => [entry.index, entry]));
  for (const index of empty) {
    const after = withText(output[index]!);
    output[index] = after;
    replaced.set(index, { index, before: messages[index]!, after });
  }
  return { messages: output, replaced: [...replaced.values()].sort((a, b) => a.index - b.index) };
}

/**
 * Replace the lone surrogates `problems` found (kind `lone-surrogate`) with U+FFFD, each message on a
 * copy. The input is not mutated; messages without such a problem are kept as they are.
 */
export function repairLoneSurrogates(
  messages: readonly BaseMessage[],
  problems: readonly HistoryProblem[],
): { messages: BaseMessage[]; replaced: ReplacedMessage[] } {
  const fieldsByIndex = new Map<number, TextField[]>();
  for (const problem of problems) {
    if (problem.kind !== "lone-surrogate") continue;
    const fields = fieldsByIndex.get(problem.index);
    if (fields) fields.push(problem.field);
    else fieldsByIndex.set(problem.index, [problem.field]);
  }
  const output = [...messages];
  const replaced: ReplacedMessage[] = [];
  for (const [index, fields] of fieldsByIndex) {
    const before = messages[index]!;
    const source = before as unknown as Record<TextField, unknown>;
    const overrides: Record<string, unknown> = {};
    for (const field of fields) overrides[field] = replaceLoneSurrogatesIn(source[field]);
    const after = cloneMessage(before, overrides);
    output[index] = after;
    replaced.push({ index, before, after });
  }
  replaced.sort((a, b) => a.index - b.index);
  return { messages: output, replaced };
}

/**
 * `repairToolPairing` on `messages` but a last message whose calls are pending (at `pending`: its
 * results are not there yet), which goes back, unchanged, after the repaired history. Positions
 * before it are the same with or without it.
 */
export function repairPairingBeforePending(
  messages: readonly BaseMessage[],
  pending: number | undefined,
): { pairing: ToolPairingRepair; messages: BaseMessage[] } {
  const pairing = repairToolPairing(pending === undefined ? messages : messages.slice(0, pending));
  return { pairing, messages: pending === undefined ? pairing.messages : [...pairing.messages, messages[pending]!] };
}

/**
 * One record of both repairs: the input's own problems repaired (`first`: lone surrogates replaced,
 * empty messages given a text, giving `first.messages`), then the tool pairing repaired on those messages
 * (`pairing`, when it ran). `messages` is the final repaired history. Entries of both are reported
 * against `input`: indices are input positions, `before` and `removed` messages are the input's own.
 */
export function combineRepairs(
  input: readonly BaseMessage[],
  messages: BaseMessage[],
  first: ({ problems: readonly HistoryProblem[] } & Omit<MessageRepair, "messages">) | undefined,
  pairing: ToolPairingRepair | undefined,
): HistoryRepair {
  // Both repairs keep positions until the pairing repair's own moves and removals.
  const at = (index: number): number => index;
  const replaced = new Map<number, ReplacedMessage>();
  for (const entry of first?.replaced ?? []) replaced.set(entry.index, entry);
  for (const { index, after } of pairing?.replaced ?? []) replaced.set(at(index), { index: at(index), before: input[at(index)]!, after });
  const removed: RemovedMessage[] = [];
  for (const { index } of pairing?.removed ?? []) {
    replaced.delete(at(index));
    removed.push({ index: at(index), message: input[at(index)]! });
  }
  const pairingProblems: readonly MessageProblem[] = (pairing?.problems ?? []).map((problem) => {
    const mapped: Record<string, unknown> = { ...problem, index: at(problem.index) };
    for (const key of ["firstIndex", "assistantIndex"]) if (typeof mapped[key] === "number") mapped[key] = at(mapped[key] as number);
    return mapped as unknown as MessageProblem;
  });
  const problems = [...(first?.problems ?? []), ...pairingProblems].sort((a, b) => a.index - b.index);
  const moved = (pairing?.moved ?? []).map((entry) => ({ ...entry, index: at(entry.index) }));
  return {
    messages,
    problems,
    removed: removed.sort((a, b) => a.index - b.index),
    replaced: [...replaced.values()].sort((a, b) => a.index - b.index),
    moved,
  };
}

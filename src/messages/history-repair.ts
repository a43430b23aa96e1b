import type { BaseMessage } from "@langchain/core/messages";
import type { MessageProblem } from "../errors.js";
import { replaceLoneSurrogates } from "../text/code-points.js";
import type { RemovedMessage, ReplacedMessage } from "../types.js";
import { cloneMessage } from "./clone-message.js";
import { MAX_TEXT_DEPTH, isPlainContainer, type HistoryProblem, type TextField } from "./history-check.js";
import type { ToolPairingRepair } from "./tool-pairing.js";

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
  /** The problems found in the input, by index: lone surrogates and tool-pairing problems. */
  readonly problems: readonly MessageProblem[];
  /** Input messages left out: orphan and duplicate tool results, assistant messages left empty. */
  readonly removed: readonly RemovedMessage[];
  /**
   * Input messages replaced by a corrected copy: lone surrogates replaced by U+FFFD, unanswered calls
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
 * One record of both repairs: the lone surrogates replaced in `input` (giving `surrogates.messages`),
 * then the tool pairing repaired on those messages (`pairing`, when it ran). `messages` is the final
 * repaired history. Entries of both are reported against `input`: `before` and `removed` messages are
 * the input's own.
 */
export function combineRepairs(
  input: readonly BaseMessage[],
  messages: BaseMessage[],
  surrogates: { problems: readonly HistoryProblem[]; replaced: readonly ReplacedMessage[] } | undefined,
  pairing: ToolPairingRepair | undefined,
): HistoryRepair {
  const replaced = new Map<number, ReplacedMessage>();
  for (const entry of surrogates?.replaced ?? []) replaced.set(entry.index, entry);
  for (const { index, after } of pairing?.replaced ?? []) replaced.set(index, { index, before: input[index]!, after });
  const removed = (pairing?.removed ?? []).map(({ index }) => {
    replaced.delete(index);
    return { index, message: input[index]! };
  });
  const pairingProblems: readonly MessageProblem[] = pairing?.problems ?? [];
  const problems = [...(surrogates?.problems ?? []), ...pairingProblems].sort((a, b) => a.index - b.index);
  const moved = pairing?.moved ?? [];
  return {
    messages,
    problems,
    removed,
    replaced: [...replaced.values()].sort((a, b) => a.index - b.index),
    moved,
  };
}

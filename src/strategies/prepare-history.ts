import type { BaseMessage } from "@langchain/core/messages";
import { InvalidHistoryError } from "../errors.js";
import { checkHistoryOnce, checkMessage, isRepairable, type HistoryProblem } from "../messages/history-check.js";
import { combineRepairs, repairMessages, repairPairingBeforePending, type HistoryRepair } from "../messages/history-repair.js";
import { ToolCallIndexBuilder, type ToolCallIndex } from "../messages/tool-call-groups.js";
import type { ToolPairingRepair } from "../messages/tool-pairing.js";
import type { TokenCounter, TokenMeasurement } from "../tokens/token-counter.js";
import type { ReplacedMessage } from "../types.js";

/** What a strategy does with a history it can repair: tool pairing that does not pair up, lone surrogates. */
export type InvalidHistoryHandling = "throw" | "repair";

/** A history with its tool-call index and token counts. @internal */
export interface Analysis {
  readonly messages: readonly BaseMessage[];
  /** The index state, extended in place when the next history grows from this one. */
  readonly builder: ToolCallIndexBuilder;
  readonly index: ToolCallIndex;
  readonly tokens: TokenMeasurement;
}

/** A checked (and, if asked, repaired) input, analysed. @internal */
export interface PreparedInput {
  readonly analysis: Analysis;
  /** The position of the trailing assistant message whose calls have no results yet, if any. */
  readonly pending: number | undefined;
  readonly repair: HistoryRepair | undefined;
  /**
   * True when counting the messages after the memo's was deferred: `analysis.tokens` then measures
   * only the memo's messages (a prefix), and {@link countRest} completes it.
   */
  readonly deferred: boolean;
}

/** True when `messages` starts with exactly the message objects of `previous`. */
function extendsHistory(messages: readonly BaseMessage[], previous: readonly BaseMessage[]): boolean {
  if (messages.length < previous.length) return false;
  // `Object.is`, not `!==`: the same answer for objects, but compiled to a reference comparison
  // that does not read each message (a long history's messages lie scattered in memory).
  for (let position = 0; position < previous.length; position++) if (!Object.is(messages[position], previous[position])) return false;
  return true;
}

/**
 * The position of a trailing assistant message with calls that have no results yet: pending calls
 * (compaction may run between the model's answer and the tool runs), not a broken pairing.
 */
function pendingPosition(messages: readonly BaseMessage[], index: ToolCallIndex): number | undefined {
  const last = messages.length - 1;
  return last >= 0 && index.problems.some((problem) => problem.kind === "unanswered-call" && problem.index === last) ? last : undefined;
}

/**
 * Index and count a checked history, continuing `previous` (an analysis of a prefix of it, same
 * objects; its tokens may measure a shorter prefix still, see {@link PreparedInput.deferred}). @internal
 */
export async function analyse(messages: readonly BaseMessage[], previous: Analysis | undefined, counter: TokenCounter): Promise<Analysis> {
  const indexed = indexFrom(messages, previous);
  const tokens = previous && counter.extend ? await counter.extend(previous.tokens, messages) : await counter.measure(messages);
  return { ...indexed, tokens };
}

/** The analysis with the tool-call index extended to every message; the tokens are `previous`'s. */
function indexFrom(messages: readonly BaseMessage[], previous: Analysis | undefined): Omit<Analysis, "tokens"> {
  const start = previous ? previous.messages.length : 0;
  const builder = previous ? previous.builder : new ToolCallIndexBuilder();
  for (let position = start; position < messages.length; position++) builder.push(messages[position]!);
  return { messages, builder, index: builder.view() };
}

/** Each counter's measurement of the empty history, once it has been taken (or `"measuring"`). */
const emptyMeasurements = new WeakMap<TokenCounter, TokenMeasurement | "measuring">();

/**
 * The analysis of the empty history, for a deferred analysis with no memo it grew from (a run's
 * first, or one on another thread's history): every message is then new, and the upper bound
 * prices those it has not counted yet. Undefined until the counter has measured the empty history
 * once (asked here, off this run).
 */
function emptyAnalysis(counter: TokenCounter): Analysis | undefined {
  const tokens = emptyMeasurements.get(counter);
  if (tokens === undefined) {
    emptyMeasurements.set(counter, "measuring");
    Promise.resolve()
      .then(() => counter.measure([]))
      .then(
        (measured) => emptyMeasurements.set(counter, measured),
        () => emptyMeasurements.delete(counter),
      );
  }
  if (tokens === undefined || tokens === "measuring") return undefined;
  const builder = new ToolCallIndexBuilder();
  return { messages: [], builder, index: builder.view(), tokens };
}

/** A deferred analysis (see {@link PreparedInput.deferred}) with every message counted. @internal */
export async function countRest(analysis: Analysis, counter: TokenCounter): Promise<Analysis> {
  return { ...analysis, tokens: await counter.extend!(analysis.tokens, analysis.messages) };
}

/** The measurement after some messages were replaced in place (same positions, same structure). @internal */
export async function patchTokens(tokens: TokenMeasurement, replaced: readonly ReplacedMessage[], counter: TokenCounter): Promise<TokenMeasurement> {
  const perMessage = [...tokens.perMessage];
  let estimated = tokens.estimated;
  for (const { index, after } of replaced) {
    const count = await counter.countMessage(after);
    estimated += count - perMessage[index]!;
    perMessage[index] = count;
  }
  // Rewritten copies share their original's usage record, so the calibration anchors stand.
  return { ...tokens, perMessage, estimated, total: Math.max(0, estimated + tokens.calibrationOffset) };
}

function historyError(strategy: string, problems: readonly HistoryProblem[]): InvalidHistoryError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : "";
  const fixes = [
    ...(problems.some((problem) => problem.kind === "lone-surrogate") ? ["replace lone surrogates with U+FFFD"] : []),
    ...(problems.some((problem) => problem.kind === "empty-content") ? ["give messages with nothing to send the text (empty message)"] : []),
  ];
  const hint = fixes.length > 0 ? ` Pass invalidHistory: "repair" to ${fixes.join(" and ")}.` : "";
  return new InvalidHistoryError(`${strategy}: ${problems[0]!.message}${more}${hint}`, problems);
}

/**
 * Check a strategy's input and analyse it, in one pass over the messages `memo` (the analysis of the
 * strategy's last output) does not cover. A message that is not one, has content that is neither a
 * string nor an array of blocks, or is a `RemoveMessage` always throws; a lone surrogate or broken
 * tool pairing throws with `invalidHistory: "throw"`, and is repaired on copies with `"repair"`.
 * The deferred analysis (`defer`: a valid history grown from the memo, or from the empty history
 * when it did not grow from the memo, its new messages indexed but not counted) is returned at once,
 * not as a promise, so a no-op decided from it needs no await.
 * @throws {InvalidHistoryError} naming each problem's message index (synchronously).
 * @internal
 */
export function prepareInput(
  strategy: string,
  messages: readonly BaseMessage[],
  memo: Analysis | undefined,
  counter: TokenCounter,
  invalidHistory: InvalidHistoryHandling,
  defer = false,
): PreparedInput | Promise<PreparedInput> {
  if (!Array.isArray(messages)) throw new InvalidHistoryError(`${strategy}: expected an array of messages, got ${typeof messages}`);
  const previous = memo && extendsHistory(messages, memo.messages) ? memo : undefined;
  // The memo's messages are a checked output: only the new ones need checking.
  const problems = checkHistoryOnce(messages, previous ? previous.messages.length : 0);
  if (problems.length > 0 && (invalidHistory === "throw" || !problems.every(isRepairable))) throw historyError(strategy, problems);
  const surrogates = problems.length > 0 ? { problems, ...repairMessages(messages, problems) } : undefined;
  const checked = surrogates ? surrogates.messages : messages;
  // A valid history that grew from the memo (or, without one it grew from, from the empty history):
  // index the new messages, count them only if needed.
  const base = defer && !surrogates && counter.extend && counter.upperBound ? (previous ?? emptyAnalysis(counter)) : undefined;
  if (base) {
    const indexed = { ...indexFrom(checked, base), tokens: base.tokens };
    const pendingAt = pendingPosition(checked, indexed.index);
    if (!indexed.index.problems.some((problem) => !(problem.kind === "unanswered-call" && problem.index === pendingAt))) {
      return { analysis: indexed, pending: pendingAt, repair: undefined, deferred: true };
    }
    return countRest(indexed, counter).then((counted) => prepareAnalysed(strategy, checked, counted, messages, undefined, counter, invalidHistory));
  }
  // Repaired copies sit after the memo's prefix: it still applies.
  return analyse(checked, previous, counter).then((analysed) => prepareAnalysed(strategy, checked, analysed, messages, surrogates, counter, invalidHistory));
}

/** The pairing check (and repair) of an analysed input. */
async function prepareAnalysed(
  strategy: string,
  checked: readonly BaseMessage[],
  analysed: Analysis,
  messages: readonly BaseMessage[],
  surrogates: (Parameters<typeof combineRepairs>[2] & object) | undefined,
  counter: TokenCounter,
  invalidHistory: InvalidHistoryHandling,
): Promise<PreparedInput> {
  let analysis = analysed;
  let pending = pendingPosition(checked, analysis.index);
  const pairingProblems = analysis.index.problems.filter((problem) => !(problem.kind === "unanswered-call" && problem.index === pending));
  let pairing: ToolPairingRepair | undefined;
  if (pairingProblems.length > 0) {
    if (invalidHistory === "throw") {
      throw new InvalidHistoryError(
        `${strategy}: the history's tool calls and results do not pair up (${pairingProblems.length} problem(s); first: ${pairingProblems[0]!.message}). ` +
          `Fix it with repairToolPairing() or pass invalidHistory: "repair".`,
        pairingProblems,
      );
    }
    // The pending calls are not a problem: the repair leaves that message as it is.
    const repaired = repairPairingBeforePending(checked, pending);
    pairing = repaired.pairing;
    if (pending !== undefined) pending = repaired.messages.length - 1;
    analysis = await analyse(repaired.messages, undefined, counter);
  }
  const repair = surrogates || pairing ? combineRepairs(messages, [...analysis.messages], surrogates, pairing) : undefined;
  return { analysis, pending, repair, deferred: false };
}

/**
 * The first problem of an output's new messages (those that are not input objects), checked like an
 * input: a strategy's output must be as sendable as its input. `undefined` when there is none.
 * `samePositions`: the output keeps the input's positions (messages only replaced in place), so a
 * new message is one that differs from the input at its position: no set of the input is built.
 * @internal
 */
export function outputProblem(input: readonly BaseMessage[], output: readonly BaseMessage[], samePositions = false): HistoryProblem | undefined {
  if (samePositions && output.length === input.length) {
    // Messages replaced in place: only those that differ from the input at their position are new.
    const problems: HistoryProblem[] = [];
    for (let position = 0; position < output.length && problems.length === 0; position++) {
      if (output[position] !== input[position]) checkMessage(output[position], position, problems, true);
    }
    return problems[0];
  }
  const inputMessages = new Set(input);
  const problems: HistoryProblem[] = [];
  for (let position = 0; position < output.length && problems.length === 0; position++) {
    if (!inputMessages.has(output[position]!)) checkMessage(output[position], position, problems, true);
  }
  return problems[0];
}

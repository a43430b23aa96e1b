/**
 * Probe-based evaluation of compaction quality: after a compaction, ask the agent's model
 * questions whose answers were in the messages that left the context, and have a judge model score
 * the answers on six dimensions.
 *
 * - {@link generateProbes} derives the questions and their expected answers, deterministically, from
 *   the archived originals and the history so far;
 * - {@link runProbes} asks them against a compacted context and has them judged;
 * - {@link aggregateProbeResults} averages the scores;
 * - {@link judgeFromEnvironment} builds the two models from `OPENAI_API_KEY`, or says why it cannot.
 *
 * This module is the entry point: it generates the probes and re-exports the rest from the
 * probe-*.ts modules (types, message excerpts, the probes of each kind, running, scoring, models).
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { compactionMarkerOf, type CompactionResult } from "../../src/index.js";
import { invalidOption } from "../../src/option-errors.js";
import { artifactProbes, continuationProbes, decisionProbes, recallProbes, type CallSource } from "./probe-kinds.js";
import { describeCall } from "./probe-text.js";
import type { Probe } from "./probe-types.js";

export { PROBE_CALL_TAG, PROBE_DIMENSIONS, PROBE_KINDS, type Probe, type ProbeDimension, type ProbeKind, type ProbeResult } from "./probe-types.js";
export { PROBE_ANSWER_PROMPT, PROBE_JUDGE_PROMPT, runProbes, type RunProbesOptions } from "./probe-run.js";
export { aggregateProbeResults, parseJudgeReply, type JudgeVerdict, type ProbeAggregate } from "./probe-scores.js";
export { DEFAULT_ANSWER_MODEL, DEFAULT_JUDGE_MODEL, NO_JUDGE_REASON, judgeFromEnvironment } from "./probe-models.js";

/**
 * The messages a compaction archived, in input order: its removed messages and the originals of its
 * replaced ones. What {@link generateProbes} takes as `originals`.
 *
 * @example
 * const result = await toolResultHiding().compact(history);
 * generateProbes({ originals: archivedOriginals(result), history });
 */
export function archivedOriginals(result: Pick<CompactionResult, "removed" | "replaced">): BaseMessage[] {
  return [
    ...result.removed.map((entry) => ({ index: entry.index, message: entry.message })),
    ...result.replaced.map((entry) => ({ index: entry.index, message: entry.before })),
  ]
    .sort((left, right) => left.index - right.index)
    .map((entry) => entry.message);
}

/** Options of {@link generateProbes}. */
export interface GenerateProbesInput {
  /**
   * The messages that left the context at a compaction, in history order: a result's `removed[].message`
   * and `replaced[].before`. Earlier summaries among them contribute their artifact index.
   */
  originals: readonly BaseMessage[];
  /**
   * The full, uncompacted history up to the compaction (the originals included): it supplies the
   * task, the calls that archived tool results answer, and the latest assistant turns.
   */
  history: readonly BaseMessage[];
  /** At most this many probes of each kind; a kind with nothing to ask gets none. @default 1 */
  perKind?: number;
}

/**
 * Questions whose answers were in the archived originals, with the expected answers, in the order of
 * {@link PROBE_KINDS}. Deterministic, linear in the messages:
 * - `recall`: the user's original request (when it was archived), then, alternating, the key lines
 *   (errors, test summaries) of archived tool results (not of commands that only show files, whose
 *   "errors" are code) and the results of calls with identifier arguments (a reservation looked up),
 *   oldest first; a call repeated in the history is asked about as "(run 2 of 3)";
 * - `artifact`: the files created, modified or read by the archived exchanges (a hidden tool result
 *   counts with its call), then the files changed only; none without files;
 * - `continuation`: the task and the last two assistant turns of the history;
 * - `decision`: archived actions (calls that change files, or tools named like `update_*`, `book_*`)
 *   with the reasoning written beside them, one probe per file set or tool and identifiers (its steps
 *   in order), newest first; then the reasoning behind other archived calls, newest first.
 *
 * @example
 * const result = await strategy.compact(history);
 * const probes = generateProbes({ originals: archivedOriginals(result), history, perKind: 2 });
 * // [{ id: "recall:request", kind: "recall", question: "What was the user's original request? ...", expected: "Fix ..." }, ...]
 * @throws {InvalidOptionError} when `perKind` is not a non-negative integer.
 */
export function generateProbes(input: GenerateProbesInput): Probe[] {
  const perKind = input.perKind ?? 1;
  if (!Number.isInteger(perKind) || perKind < 0) throw invalidOption("generateProbes", "perKind", perKind, "a non-negative integer");
  const { history } = input;
  // Results lose their position in the archive order when `removed` and `replaced` are concatenated.
  const originals = orderLike(input.originals, history);
  const archived = new Set<BaseMessage>(originals);
  const archivedIds = new Set(originals.map((message) => message.id).filter((id): id is string => typeof id === "string" && id !== ""));
  const isArchived = (message: BaseMessage) => archived.has(message) || (typeof message.id === "string" && archivedIds.has(message.id));

  /** tool_call_id -> the call, the assistant message that made it, and how it is named in a question. */
  const calls = new Map<string, CallSource>();
  /** How many calls of the history a description names, so repeated ones can be told apart. */
  const runs = new Map<string, number>();
  for (const message of [...history, ...originals]) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) {
      if (!call.id || calls.has(call.id)) continue;
      const description = describeCall(call);
      const run = (runs.get(description) ?? 0) + 1;
      runs.set(description, run);
      calls.set(call.id, { call, message, description, run });
    }
  }
  // "the command `pytest` (run 2 of 3)": a question about a repeated call says which run it means.
  const subjectOf = (callId: string | undefined): string | undefined => {
    const source = callId === undefined ? undefined : calls.get(callId);
    if (!source) return undefined;
    const total = runs.get(source.description)!;
    return total > 1 ? `${source.description} (run ${source.run} of ${total})` : source.description;
  };
  const task = history.find((message) => message.type === "human" && !compactionMarkerOf(message)?.summary);

  const probes: Probe[] = [];
  const take = (candidates: Probe[]) => probes.push(...candidates.slice(0, perKind));
  take(recallProbes(originals, calls, subjectOf, task, isArchived));
  take(artifactProbes(originals, calls, isArchived));
  take(continuationProbes(history, task));
  take(decisionProbes(originals, subjectOf));
  return probes;
}

/** `messages` in the order they have in `history` (those not in it last, in their own order). */
function orderLike(messages: readonly BaseMessage[], history: readonly BaseMessage[]): BaseMessage[] {
  const position = new Map<BaseMessage, number>();
  history.forEach((message, index) => position.set(message, index));
  const byId = new Map<string, number>();
  history.forEach((message, index) => {
    if (typeof message.id === "string" && message.id !== "" && !byId.has(message.id)) byId.set(message.id, index);
  });
  const rank = (message: BaseMessage) => position.get(message) ?? (typeof message.id === "string" ? byId.get(message.id) : undefined) ?? Infinity;
  return messages
    .map((message, index) => ({ message, index, rank: rank(message) }))
    .sort((left, right) => left.rank - right.rank || left.index - right.index)
    .map((entry) => entry.message);
}

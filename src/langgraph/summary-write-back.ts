import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES, type BaseStore } from "@langchain/langgraph";
import type { CompactionRecord } from "../compaction-record.js";
import { fingerprintOf } from "./app-writes.js";
import { checkLiveSummaries, placeOverwritten, type LiveSummary } from "./live-summary.js";
import type { CompactionStateUpdate, GraphCompactionRun } from "./run-compaction.js";
import { chainSummaryCheck, withCheckRecords } from "./summary-check-log.js";

// A compaction that runs in a step of its own (`createCompactionNode`, `compactingNode`, the
// middleware's `beforeModel` hook) writes the state the model then reads: a summary the app
// overwrote or removed is written back into it, under an id of its own, before the app's message.

/** The strategy name of the records that say a summary was overwritten (and, here, written back). */
export const SUMMARY_OVERWRITE = "summary-overwrite";

/** What writing the overwritten summaries back makes: the history with them, the channel's value and the records. */
export interface SummaryWriteBack {
  /** The state's messages with each overwritten summary back in place, under its new id. */
  readonly messages: BaseMessage[];
  /** The `compactionSummary` value: each written-back summary live again, under its new id. */
  readonly summaries: LiveSummary[];
  /** A `repaired` record per summary written back, naming its new id in `insertedIds`. */
  readonly records: CompactionRecord[];
}

/**
 * The overwritten or removed summaries of the `compactionSummary` channel put back into `messages`
 * (before the app's message under their id, else before the message that followed them), each under
 * a fresh id; undefined when there is none (one lookup in the common case). @internal
 */
export function writeBackSummaries(messages: readonly BaseMessage[], channel: unknown): SummaryWriteBack | undefined {
  if (!Array.isArray(channel) || channel.length === 0) return undefined;
  const check = checkLiveSummaries(messages, channel);
  const summaries = check?.summaries ?? (channel as LiveSummary[]);
  const overwritten = summaries.filter((summary) => summary.overwritten !== undefined);
  if (overwritten.length === 0) return undefined;
  const taken = new Set(messages.map((message) => message.id));
  const newIds = new Map<LiveSummary, string>();
  for (const summary of overwritten) {
    let id = `${summary.compactionId}-summary`;
    for (let n = 2; taken.has(id); n++) id = `${summary.compactionId}-summary-${n}`;
    taken.add(id);
    newIds.set(summary, id);
  }
  const history = placeOverwritten(messages, overwritten, (summary) => newIds.get(summary)!);
  const positions = new Map(history.map((message, position) => [message.id, position] as const));
  const live = summaries.map((summary): LiveSummary => {
    const id = newIds.get(summary);
    if (id === undefined) return summary;
    const position = positions.get(id)!;
    const message = history[position]!;
    const { overwritten: _was, ...rest } = summary;
    return { ...rest, id, fingerprint: fingerprintOf(message), position, next: history[position + 1]?.id ?? null };
  });
  const byCompaction = new Map(overwritten.map((summary) => [summary.compactionId, summary] as const));
  const records = (check?.records ?? []).map((record): CompactionRecord => {
    const summary = [...byCompaction.values()].find((entry) => record.id.startsWith(`${entry.compactionId}:`));
    const id = summary === undefined ? undefined : newIds.get(summary);
    if (id === undefined) return record;
    const edited = summary!.overwritten === "edited";
    return {
      ...record,
      messagesAfter: history.length,
      insertedIds: [id],
      reason:
        `the summary of compaction ${summary!.compactionId} under id ${summary!.id} was ` +
        (edited ? "overwritten by a message the app wrote under that id" : "removed by the app") +
        `; it is written back under id ${id}, before ` +
        (edited ? "the app's message" : "the message that followed it"),
    };
  });
  return { messages: history, summaries: live, records };
}

/** `messages` as a whole-history write: the reducer cannot put a new message anywhere but at the end. @internal */
export function wholeHistoryWrite(messages: readonly BaseMessage[]): BaseMessage[] {
  return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages];
}

/** The ids of the summaries written back, from the thread's log: `restoreHistory` leaves them out. @internal */
export function writtenBackIds(log: readonly CompactionRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const record of log) if (record.strategy === SUMMARY_OVERWRITE) for (const id of record.insertedIds) ids.add(id);
  return ids;
}

/**
 * The step on the history with the summaries written back (`step` is `runGraphCompaction`), its
 * update written whole, after the write-back's records. @internal
 */
export async function runWithWriteBack(
  run: GraphCompactionRun,
  back: SummaryWriteBack,
  step: (run: GraphCompactionRun) => Promise<CompactionStateUpdate>,
  where: () => "state" | { store: BaseStore; namespace: string[] },
): Promise<CompactionStateUpdate> {
  const chained = chainSummaryCheck({ summaries: back.summaries, records: back.records }, run.log)!;
  let history: BaseMessage[] = back.messages;
  const update = await step({
    ...run,
    writeBack: false,
    messages: back.messages,
    summaries: back.summaries,
    log: chained.log,
    onHistory: (after) => {
      history = after;
    },
  });
  // The caller sees the history the state now has, compacted or not.
  run.onHistory?.(history);
  const whole = { ...update, messages: wholeHistoryWrite(history), compactionSummary: update.compactionSummary ?? back.summaries };
  return withCheckRecords(whole, chained.records, where());
}

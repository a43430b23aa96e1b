import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
import type { CompactionRecord } from "../compaction-record.js";
import { fingerprintOf } from "./app-writes.js";

// A summary is written under the id of a message it replaced, which the app may write again (an
// edit, a resend, a `RemoveMessage`). The `compactionSummary` channel keeps the newest summary and
// any the app overwrote, so the overwrite is logged and the summary still reaches the model.

/** A summary a compaction wrote, as the `compactionSummary` state channel keeps it. */
export interface LiveSummary {
  /** The id the summary was written under. */
  readonly id: string;
  /** The compaction that wrote it. */
  readonly compactionId: string;
  /** `fingerprintOf` the summary as written. */
  readonly fingerprint: string;
  /** Its position in the history it was written to (where it is looked for first). */
  readonly position: number;
  /** The id of the message after it when written (where it goes back if its id is removed). */
  readonly next: string | null;
  /** The summary itself. */
  readonly message: StoredMessage;
  /** Set once the app overwrote or removed its id: it then goes to the model, by its anchor, at every call. */
  readonly overwritten?: "edited" | "removed";
}

/** The most summaries the channel keeps (the newest, and the ones overwritten before it). */
export const LIVE_SUMMARY_LIMIT = 4;

/** What the check of the live summaries found before a compaction: the channel's new value and a record per overwrite. */
export interface SummaryCheck {
  readonly summaries: LiveSummary[];
  readonly records: CompactionRecord[];
}

/** The position of the message with `id`: the recorded position first, else one scan. */
function positionOf(messages: readonly BaseMessage[], id: string, hint: number): number {
  if (messages[hint]?.id === id) return hint;
  return messages.findIndex((message) => message?.id === id);
}

/**
 * Checks that each summary still lives under its id: one that the app overwrote (another message
 * under its id) or removed is marked so, with a `repaired` record naming the write. Undefined when
 * nothing changed (the common case: one lookup). @internal
 */
export function checkLiveSummaries(messages: readonly BaseMessage[], summaries: unknown): SummaryCheck | undefined {
  if (!Array.isArray(summaries) || summaries.length === 0) return undefined;
  let changed: LiveSummary[] | undefined;
  const records: CompactionRecord[] = [];
  (summaries as LiveSummary[]).forEach((summary, index) => {
    if (summary.overwritten !== undefined) return;
    const position = positionOf(messages, summary.id, summary.position);
    if (position >= 0 && fingerprintOf(messages[position]!) === summary.fingerprint) return;
    const overwritten = position >= 0 ? "edited" : "removed";
    changed ??= [...(summaries as LiveSummary[])];
    changed[index] = { ...summary, overwritten };
    records.push({
      id: `${summary.compactionId}:summary-${overwritten}`,
      at: new Date().toISOString(),
      strategy: "summary-overwrite",
      status: "repaired",
      tokensBefore: null,
      tokensAfter: null,
      messagesBefore: messages.length,
      messagesAfter: messages.length,
      removedIds: [],
      replacedIds: [],
      insertedIds: [],
      summaryId: summary.id,
      archive: "none",
      reason:
        `the summary of compaction ${summary.compactionId} under id ${summary.id} was ` +
        (overwritten === "edited" ? "overwritten by a message the app wrote under that id" : "removed by the app") +
        "; it is kept and goes to the model before " +
        (overwritten === "edited" ? "the app's message" : "the message that followed it"),
      lastMessageId: messages.at(-1)?.id ?? null,
    });
  });
  return changed === undefined ? undefined : { summaries: changed, records };
}

/**
 * The channel's value after a compaction that wrote the summary `summaryId` into `history`: that
 * summary, after the overwritten ones kept (the newest {@link LIVE_SUMMARY_LIMIT} in all). @internal
 */
export function withNewSummary(previous: readonly LiveSummary[], history: readonly BaseMessage[], summaryId: string, compactionId: string): LiveSummary[] | undefined {
  const position = history.findIndex((message) => message.id === summaryId);
  if (position < 0) return undefined;
  const message = history[position]!;
  const kept = previous.filter((summary) => summary.overwritten !== undefined);
  const summary: LiveSummary = {
    id: summaryId,
    compactionId,
    fingerprint: fingerprintOf(message),
    position,
    next: history[position + 1]?.id ?? null,
    message: mapChatMessagesToStoredMessages([message])[0]!,
  };
  return [...kept, summary].slice(-LIVE_SUMMARY_LIMIT);
}

/**
 * `messages` with each overwritten summary put back, for the model: before the app's message under
 * its id, else before the message that followed it, else at the start (after system messages). Under
 * an id of its own, so it never names the app's message. `messages` itself when there is none. @internal
 */
export function withOverwrittenSummaries(messages: readonly BaseMessage[], summaries: unknown): BaseMessage[] {
  if (!Array.isArray(summaries)) return messages as BaseMessage[];
  const overwritten = (summaries as LiveSummary[]).filter((summary) => summary.overwritten !== undefined);
  if (overwritten.length === 0) return messages as BaseMessage[];
  return placeOverwritten(messages, overwritten, (summary) => `${summary.compactionId}-summary`);
}

/**
 * `messages` with each of `overwritten` put back (under `idOf` it): before the app's message under its
 * id, else before the message that followed it, else at the start (after system messages). @internal
 */
export function placeOverwritten(messages: readonly BaseMessage[], overwritten: readonly LiveSummary[], idOf: (summary: LiveSummary) => string): BaseMessage[] {
  const positions = new Map<string, number>();
  messages.forEach((message, position) => {
    if (typeof message?.id === "string" && !positions.has(message.id)) positions.set(message.id, position);
  });
  const before = new Map<number, BaseMessage[]>();
  for (const summary of overwritten) {
    let position = positions.get(summary.id) ?? (summary.next !== null ? positions.get(summary.next) : undefined);
    if (position === undefined) {
      position = messages.findIndex((message) => message?.type !== "system");
      if (position < 0) position = messages.length;
    }
    // Built with its new id (not assigned after), so its serialized form carries that id too.
    const [restored] = mapStoredMessagesToChatMessages([{ ...summary.message, data: { ...summary.message.data, id: idOf(summary) } }]);
    before.set(position, [...(before.get(position) ?? []), restored!]);
  }
  const result: BaseMessage[] = [];
  messages.forEach((message, position) => {
    result.push(...(before.get(position) ?? []), message);
  });
  result.push(...(before.get(messages.length) ?? []));
  return result;
}

/** What a compaction step's update holds of the live summaries. */
interface SummaryUpdate {
  compactionLog?: CompactionRecord[];
  compactionSummary?: LiveSummary[];
}

/** `update` with the check's records before its own and, unless it wrote a newer summary, the check's channel value. @internal */
export function withSummaryCheck<Update extends SummaryUpdate>(update: Update, check: SummaryCheck | undefined): Update {
  if (check === undefined) return update;
  return { ...update, compactionLog: [...check.records, ...(update.compactionLog ?? [])], compactionSummary: update.compactionSummary ?? check.summaries };
}

/**
 * The channel's value after a compaction that wrote no summary but rewrote or removed the live one
 * (a truncation of it, a window that drops it): its new fingerprint, or no entry. Undefined when it
 * touched none. One pass over the update. @internal
 */
export function withRewrittenSummaries(previous: readonly LiveSummary[], update: readonly BaseMessage[], history: readonly BaseMessage[]): LiveSummary[] | undefined {
  const live = new Set(previous.filter((summary) => summary.overwritten === undefined).map((summary) => summary.id));
  if (live.size === 0) return undefined;
  const written = new Map<string, BaseMessage | null>();
  for (const message of update) {
    if (typeof message.id === "string" && live.has(message.id)) written.set(message.id, message.type === "remove" ? null : message);
  }
  if (written.size === 0) return undefined;
  return previous.flatMap((summary) => {
    const message = summary.overwritten === undefined ? written.get(summary.id) : undefined;
    if (message === undefined) return [summary];
    if (message === null) return [];
    const position = history.findIndex((entry) => entry.id === summary.id);
    return [{ ...summary, fingerprint: fingerprintOf(message), position: Math.max(position, 0), message: mapChatMessagesToStoredMessages([message])[0]! }];
  });
}

/** The `compactionSummary` value after a written compaction (undefined: unchanged, or not tracked without the channel). @internal */
export function summariesAfter(
  channel: unknown,
  check: SummaryCheck | undefined,
  update: { readonly messages: readonly BaseMessage[]; readonly history: readonly BaseMessage[] },
  record: CompactionRecord,
): LiveSummary[] | undefined {
  if (!Array.isArray(channel)) return undefined;
  const live = check?.summaries ?? (channel as LiveSummary[]);
  return record.summaryId !== null ? withNewSummary(live, update.history, record.summaryId, record.id) : withRewrittenSummaries(live, update.messages, update.history);
}

import type { StoredMessage } from "@langchain/core/messages";
import { describeValue, invalidOption } from "../option-errors.js";
import type { ArchivedCompaction, ArchivedMessage } from "../compaction-record.js";
import { packArchive, unpackArchive, type StateArchivedCompaction } from "./packed-archive.js";
import { hasLoneSurrogate } from "../text/code-points.js";
import { CompactionArchiveError } from "./compaction-archive.js";
import { MAX_ERASURE_PASSES, threadArchiveItems, threadArchiveScope, type ArchiveStore, type ThreadArchiveOptions } from "./archive-erasure.js";

/** Options of {@link redactArchived} and {@link redactArchivedState}. */
export interface RedactArchivedOptions {
  /** The content each redacted original gets: a non-blank string. @default "[redacted]" */
  replacement?: string;
  /**
   * Take the originals out of the archive instead of redacting them, so `restoreHistory` leaves
   * them out. Tool results, assistant messages with tool calls, and originals that other archived
   * originals are placed relative to are redacted instead (see {@link redactArchived}).
   * @default false
   */
  remove?: boolean;
  /** Also empty the arguments of a redacted assistant message's tool calls (ids and names stay). @default false */
  clearToolCallArgs?: boolean;
}

/** What {@link redactArchived} changed: archived originals redacted, and taken out. */
export interface RedactArchivedResult {
  readonly redacted: number;
  readonly removed: number;
}

interface Redaction {
  readonly ids: ReadonlySet<string>;
  readonly replacement: string;
  readonly remove: boolean;
  readonly clearToolCallArgs: boolean;
}

function redactionOf(component: string, messageIds: unknown, options: RedactArchivedOptions = {}): Redaction {
  const badId = Array.isArray(messageIds) ? messageIds.findIndex((id) => typeof id !== "string" || id === "") : -1;
  if (!Array.isArray(messageIds) || badId >= 0) {
    throw invalidOption(component, "messageIds", messageIds, "an array of non-empty message ids", badId >= 0 ? `item ${badId} is ${describeValue((messageIds as unknown[])[badId])}` : undefined);
  }
  const replacement = options.replacement ?? "[redacted]";
  if (typeof replacement !== "string" || replacement.trim() === "" || hasLoneSurrogate(replacement)) {
    throw invalidOption(component, "replacement", replacement, "a non-blank string without lone surrogates", "providers reject empty content and lone surrogates");
  }
  return { ids: new Set(messageIds as string[]), replacement, remove: options.remove === true, clearToolCallArgs: options.clearToolCallArgs === true };
}

type StoredData = Record<string, unknown>;

function toolCallsOf(data: StoredData): unknown[] {
  const calls = Array.isArray(data["tool_calls"]) ? data["tool_calls"] : (data["additional_kwargs"] as { tool_calls?: unknown } | undefined)?.tool_calls;
  return Array.isArray(calls) ? calls : [];
}

/** True for a message whose removal would break tool pairing: a tool result, or a call. */
function takesPartInPairing(message: StoredMessage): boolean {
  return message.type === "tool" || (message.type === "ai" && toolCallsOf(message.data as unknown as StoredData).length > 0);
}

const KEPT_FIELDS = ["id", "name", "tool_call_id", "role", "status"] as const;

/** `message` with its content replaced and nothing else that could carry it: id, type and pairing kept. */
function redactedMessage(message: StoredMessage, redaction: Redaction): StoredMessage {
  const data = message.data as unknown as StoredData;
  const redacted: StoredData = { content: redaction.replacement, additional_kwargs: {}, response_metadata: {} };
  for (const field of KEPT_FIELDS) if (data[field] !== undefined) redacted[field] = data[field];
  if (message.type === "ai") {
    const calls = data["tool_calls"];
    const providerCalls = (data["additional_kwargs"] as { tool_calls?: unknown } | undefined)?.tool_calls;
    if (Array.isArray(calls)) redacted["tool_calls"] = redaction.clearToolCallArgs ? calls.map((call) => ({ ...(call as object), args: {} })) : calls;
    else if (Array.isArray(providerCalls)) {
      // Calls kept only in the provider's format (`{ id, type, function: { name, arguments } }`).
      redacted["additional_kwargs"] = {
        tool_calls: redaction.clearToolCallArgs
          ? providerCalls.map((call: { function?: object }) => ({ ...call, function: { ...call.function, arguments: "{}" } }))
          : providerCalls,
      };
    }
    redacted["invalid_tool_calls"] = [];
  }
  return { type: message.type, data: redacted } as unknown as StoredMessage;
}

/** Deep equality of two JSON values, whatever the order of their keys (PostgreSQL's `jsonb` reorders them). */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left).filter((key) => (left as StoredData)[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => (right as StoredData)[key] !== undefined);
  return leftKeys.length === rightKeys.length && leftKeys.every((key) => sameJson((left as StoredData)[key], (right as StoredData)[key]));
}

const idOf = (entry: ArchivedMessage): unknown => (entry.message?.data as unknown as StoredData | undefined)?.["id"];

/**
 * Per message id, per compaction, how many of its originals are placed relative to that message.
 */
function anchorCounts(archives: readonly ArchivedCompaction[]): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const archive of archives) {
    for (const { anchor } of archive.messages) {
      if (anchor.kind === "start") continue;
      let from = counts.get(anchor.id);
      if (!from) counts.set(anchor.id, (from = new Map()));
      from.set(archive.compactionId, (from.get(archive.compactionId) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * The originals that `remove` takes out: named, not part of tool pairing, and with no original of
 * another compaction placed relative to them (taking one out may free another: repeated until
 * nothing changes).
 */
function removableEntries(archives: readonly ArchivedCompaction[], redaction: Redaction): Set<ArchivedMessage> {
  const removable = new Set<ArchivedMessage>();
  if (!redaction.remove) return removable;
  const counts = anchorCounts(archives);
  const candidates = archives.flatMap((archive) =>
    archive.messages.filter((entry) => redaction.ids.has(idOf(entry) as string) && !takesPartInPairing(entry.message)).map((entry) => ({ archive, entry })),
  );
  for (let changed = true; changed; ) {
    changed = false;
    for (const { archive, entry } of candidates) {
      if (removable.has(entry)) continue;
      const from = counts.get(idOf(entry) as string);
      if (from && [...from].some(([compactionId, count]) => compactionId !== archive.compactionId && count > 0)) continue;
      removable.add(entry);
      changed = true;
      if (entry.anchor.kind !== "start") {
        const placed = counts.get(entry.anchor.id)!;
        placed.set(archive.compactionId, placed.get(archive.compactionId)! - 1);
      }
    }
  }
  return removable;
}

/**
 * Redact (or take out) the originals named in `redaction` in one thread's archives, considered
 * together. Returns the archives that changed, by position, and the counts.
 */
function redactArchives(archives: readonly ArchivedCompaction[], redaction: Redaction): { changed: Map<number, ArchivedCompaction>; redacted: number; removed: number } {
  const removable = removableEntries(archives, redaction);
  const changed = new Map<number, ArchivedCompaction>();
  let redacted = 0;
  archives.forEach((archive, position) => {
    const messages: ArchivedMessage[] = [];
    const emptied = new Set<string>();
    let touched = false;
    for (const entry of archive.messages) {
      if (!redaction.ids.has(idOf(entry) as string)) messages.push(entry);
      else if (removable.has(entry)) {
        if (entry.anchor.kind === "replaced-by") emptied.add(entry.anchor.id);
        touched = true;
      } else {
        const message = redactedMessage(entry.message, redaction);
        if (!sameJson(message, entry.message)) {
          redacted++;
          touched = true;
        }
        messages.push({ ...entry, message });
      }
    }
    if (!touched) return;
    // A message that stood only for originals now taken out stands for nothing: restoring drops it.
    const dropped = [...archive.dropped];
    for (const id of emptied) {
      const stillStandsFor = messages.some(({ anchor }) => anchor.kind === "replaced-by" && anchor.id === id);
      if (!stillStandsFor && !dropped.includes(id)) dropped.push(id);
    }
    changed.set(position, { ...archive, messages, dropped });
  });
  return { changed, redacted, removed: removable.size };
}

function isArchive(value: unknown): value is ArchivedCompaction {
  const archive = value as Partial<ArchivedCompaction> | null;
  return typeof archive?.compactionId === "string" && Array.isArray(archive.messages) && Array.isArray(archive.dropped);
}

/**
 * Redact the archived originals with the given message ids in a thread's archive in a store: each
 * becomes a copy with the same id, type, name, `tool_call_id` and tool calls (so tool pairing
 * holds) whose content is `replacement` (default `"[redacted]"`) and whose other fields
 * (`additional_kwargs`, `response_metadata`, `artifact`...) are emptied. `restoreHistory` then gives
 * the redaction in the original's place. With `remove: true` an original is taken out instead, and
 * a message that stood only for it (a rewritten copy, a summary of it alone) is dropped from the
 * restored history; a tool result, an assistant message with tool calls and an original that other
 * compactions' originals are placed relative to are redacted instead, so the restored history
 * still pairs and keeps them in place. Returns how many originals it redacted and took out.
 *
 * Reads the thread's archive namespace only (never another thread's), writes back only the entries
 * that changed, then reads again until nothing is left to change. A summary written from a message
 * may repeat its content: redact the summary too (its id is the record's `summaryId`), in the state
 * with your own `updateState` and here. The state's copy of the message (and the
 * `compactionArchive` channel, see {@link redactArchivedState}) is yours to update; earlier
 * checkpoints keep what they held.
 *
 * @example
 * await graph.updateState(config, { messages: [new ToolMessage({ id: "t1", tool_call_id: "c1", content: "[redacted]" })] });
 * await redactArchived(store, "thread-1", ["t1"]);
 * @throws {InvalidOptionError} for a store, thread id, message ids, replacement, namespace or page size that is not valid.
 * @throws {CompactionArchiveError} when the archive keeps changing after 10 passes.
 */
export async function redactArchived(
  store: ArchiveStore,
  threadId: string,
  messageIds: readonly string[],
  options: RedactArchivedOptions & ThreadArchiveOptions = {},
): Promise<RedactArchivedResult> {
  const scope = threadArchiveScope("redactArchived", store, threadId, options);
  const redaction = redactionOf("redactArchived", messageIds, options);
  let redacted = 0;
  let removed = 0;
  if (redaction.ids.size === 0) return { redacted, removed };
  for (let pass = 0; pass < MAX_ERASURE_PASSES; pass++) {
    const items = (await threadArchiveItems(scope)).filter((item) => isArchive(item.value));
    const outcome = redactArchives(
      items.map((item) => item.value as unknown as ArchivedCompaction),
      redaction,
    );
    if (outcome.changed.size === 0) return { redacted, removed };
    for (const [position, archive] of outcome.changed) {
      const item = items[position]!;
      await scope.store.put(item.namespace, item.key, { ...item.value, messages: archive.messages, dropped: archive.dropped }, false);
    }
    redacted += outcome.redacted;
    removed += outcome.removed;
  }
  throw new CompactionArchiveError(`redactArchived: the archive of thread ${threadId} kept changing after ${MAX_ERASURE_PASSES} passes: is a run still writing to the thread?`);
}

/**
 * The state update that redacts (or takes out) the originals with the given message ids in the
 * `compactionArchive` channel, as {@link redactArchived} does in a store: the changed entries, which
 * the channel's reducer puts in place of the old ones by compaction id. Write it with
 * `graph.updateState(config, update)`, in the same call as your own redaction of `messages` if you
 * like. Does not change `state`.
 *
 * @example
 * const { values } = await graph.getState(config);
 * await graph.updateState(config, {
 *   messages: [new ToolMessage({ id: "t1", tool_call_id: "c1", content: "[redacted]" })],
 *   ...redactArchivedState(values, ["t1"]),
 * });
 * @throws {InvalidOptionError} for message ids or a replacement that is not valid.
 */
export function redactArchivedState(
  state: { readonly compactionArchive?: readonly StateArchivedCompaction[] | undefined },
  messageIds: readonly string[],
  options: RedactArchivedOptions = {},
): { compactionArchive: StateArchivedCompaction[] } {
  const redaction = redactionOf("redactArchivedState", messageIds, options);
  const { changed } = redactArchives((state?.compactionArchive ?? []).map(unpackArchive), redaction);
  return { compactionArchive: [...changed.values()].map(packArchive) };
}

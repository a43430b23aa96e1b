import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { assistantCalls } from "./assistant-calls.js";
import { isToolResultMessage } from "./message-types.js";
import type { FileView } from "./shell-views.js";
import type { ToolCallGroup, ToolCallIndex } from "./tool-call-index-types.js";
import { fromHookReading, readToolCall, type CallReading, type ToolCallReading, type ToolCallRef } from "./tool-call-reading.js";

/**
 * Which tool results a later call has superseded: the same call made again, the same file (or the
 * same lines of it) shown again, or the file changed since. Read from the calls' names and arguments
 * alone (and, for a repeated call of a tool it does not know, from the two results being the same).
 */

/** Why a result is superseded, and by which later result. */
export interface Supersession {
  /** The index of the superseding result: the newest result that supersedes this one. */
  readonly by: number;
  /** The id of the call the superseding result answers. */
  readonly callId: string;
  /** What the superseding call did: `file viewed again`, `file edited`, `command run again` or `same call made again` (`files` for several). */
  readonly what: string;
  /** The files of a superseded view, as its call named them (normalized). */
  readonly paths: readonly string[];
}

/** A caller's reading of a call; `undefined` falls back to the built-in one. */
export type ReadCallHook = (call: ToolCallRef) => ToolCallReading | undefined;

/** One tool message with a read call: what the scan compares. @internal */
export interface SupersessionEntry {
  /** The result's index in the history. */
  readonly index: number;
  /** The number of its tool-call group. */
  readonly group: number;
  readonly callId: string;
  reading: CallReading;
  /** The call's name and arguments (stable JSON). */
  key: string;
  /** The result's content, compared for a repeated call that is not a rerun; `""` for a rerun. */
  content: string;
}

type Entry = SupersessionEntry;

/** A call's reading and key, as {@link SupersessionReader.readingsOf} gives them. @internal */
export interface ReadCall {
  readonly reading: CallReading;
  readonly key: string;
}

const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item) ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );

const contentKey = (message: ToolMessage): string => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));

/** The content an entry compares: the result's, unless its call is a rerun. @internal */
export const comparedContent = (reading: CallReading, message: ToolMessage): string => (reading.rerun ? "" : contentKey(message));

/** Whether `entry`'s call shows the lines of `view`, or changes its file; and which of the two. */
function supersedesView(entry: Entry, view: FileView): "edited" | "viewed again" | undefined {
  if (entry.reading.edits.includes(view.path)) return "edited";
  return entry.reading.views.some((later) => later.path === view.path && later.from <= view.from && later.to >= view.to) ? "viewed again" : undefined;
}

/**
 * Reads calls (the hook first, else `readToolCall`) once per assistant message, and finds the
 * superseded results of a history. @internal
 */
export class SupersessionReader {
  /** Readings by assistant message, in the order of its calls: messages are immutable, so a reading stands. */
  readonly #readings = new WeakMap<BaseMessage, Map<string, ReadCall>>();

  constructor(private readonly hook: ReadCallHook | undefined) {}

  /** The readings of an assistant message's calls, by call id (read once per message). */
  readingsOf(assistant: BaseMessage): ReadonlyMap<string, ReadCall> {
    let readings = this.#readings.get(assistant);
    if (readings === undefined) {
      readings = new Map();
      for (const call of assistantCalls(assistant)) {
        if (call.id === undefined || readings.has(call.id)) continue;
        const ref = { name: call.name, args: call.args };
        const hooked = this.hook?.(ref);
        const reading = hooked === undefined ? readToolCall(ref) : fromHookReading(hooked);
        readings.set(call.id, { reading, key: `${call.name}\u0000${stableJson(call.args)}` });
      }
      this.#readings.set(assistant, readings);
    }
    return readings;
  }

  /** The entries of one group, in the order of its results: its tool messages with a read call. */
  entriesOf(messages: readonly BaseMessage[], group: ToolCallGroup, groupNumber: number): Entry[] {
    const readings = this.readingsOf(messages[group.assistantIndex]!);
    const entries: Entry[] = [];
    for (const resultIndex of group.resultIndices) {
      const result = messages[resultIndex]!;
      if (!isToolResultMessage(result)) continue;
      const read = readings.get(result.tool_call_id);
      if (read === undefined) continue;
      entries.push({ index: resultIndex, group: groupNumber, callId: result.tool_call_id, reading: read.reading, key: read.key, content: comparedContent(read.reading, result) });
    }
    return entries;
  }

  /**
   * The superseded results of a history, by result index (see {@link scanSuperseded}), from one scan
   * of every group.
   */
  superseded(messages: readonly BaseMessage[], index: ToolCallIndex): Map<number, Supersession> {
    const entries: Entry[] = [];
    for (let groupNumber = index.groups.length - 1; groupNumber >= 0; groupNumber--) entries.push(...this.entriesOf(messages, index.groups[groupNumber]!, groupNumber));
    const found = new Map<number, Supersession>();
    for (const [entry, supersession] of scanSuperseded(entries)) found.set(entry.index, supersession);
    return found;
  }
}

/**
 * The superseded entries among `entries`, given newest group first (a group's entries in the order
 * of its results): each entry whose call a call of a later group supersedes, with the newest such
 * result. Calls of one group never supersede each other (they may run in any order). Whether the
 * superseding result is still there in full is for the caller to check. One pass, with maps by call,
 * path and content; a range view is checked against the later views of its file that nothing
 * superseded. An entry's answer depends only on the later entries with its key, and on the later
 * entries that show or change its files (with their own answers): given those, a subset gives the
 * answers the whole history gives. @internal
 */
export function scanSuperseded(entries: readonly Entry[]): Map<Entry, Supersession> {
  const found = new Map<Entry, Supersession>();
  const byKey = new Map<string, { newest: Entry; byContent: Map<string, Entry> }>();
  const newestEdit = new Map<string, Entry>();
  /** Per path: views of later calls that nothing superseded, newest first. */
  const views = new Map<string, { view: FileView; entry: Entry }[]>();
  for (let start = 0; start < entries.length; ) {
    let end = start + 1;
    while (end < entries.length && entries[end]!.group === entries[start]!.group) end++;
    const superseded: boolean[] = [];
    for (let position = start; position < end; position++) {
      const entry = entries[position]!;
      const supersession = find(entry, byKey, newestEdit, views);
      if (supersession) found.set(entry, supersession);
      superseded.push(supersession !== undefined);
    }
    // This group's calls become later calls for the older groups.
    for (let position = start; position < end; position++) {
      const entry = entries[position]!;
      let same = byKey.get(entry.key);
      if (same === undefined) byKey.set(entry.key, (same = { newest: entry, byContent: new Map() }));
      if (!same.byContent.has(entry.content)) same.byContent.set(entry.content, entry);
      for (const path of entry.reading.edits) if (!newestEdit.has(path)) newestEdit.set(path, entry);
      if (superseded[position - start]) continue;
      for (const view of entry.reading.views) {
        let list = views.get(view.path);
        if (list === undefined) views.set(view.path, (list = []));
        list.push({ view, entry });
      }
    }
    start = end;
  }
  return found;
}

function find(
  entry: Entry,
  byKey: ReadonlyMap<string, { newest: Entry; byContent: ReadonlyMap<string, Entry> }>,
  newestEdit: ReadonlyMap<string, Entry>,
  views: ReadonlyMap<string, readonly { view: FileView; entry: Entry }[]>,
): Supersession | undefined {
  const { reading } = entry;
  let best: Supersession | undefined;
  const same = byKey.get(entry.key);
  const repeat = reading.rerun ? same?.newest : same?.byContent.get(entry.content);
  if (repeat) best = { by: repeat.index, callId: repeat.callId, what: reading.shell ? "command run again" : "same call made again", paths: [] };
  if (reading.views.length > 0 && reading.edits.length === 0) {
    // Each view's newest superseder is a candidate; the newest that supersedes every view wins.
    const candidates: Entry[] = [];
    for (const view of reading.views) {
      const edit = newestEdit.get(view.path);
      let candidate = edit;
      for (const later of views.get(view.path) ?? []) {
        // Listed newest first: past the newest edit, no view is newer than it.
        if (edit !== undefined && later.entry.index < edit.index) break;
        if (later.view.from <= view.from && later.view.to >= view.to) {
          candidate = later.entry;
          break;
        }
      }
      if (candidate !== undefined) candidates.push(candidate);
    }
    candidates.sort((a, b) => b.index - a.index);
    for (const candidate of candidates) {
      if (best !== undefined && candidate.index < best.by) break;
      const how = reading.views.map((view) => supersedesView(candidate, view));
      if (how.some((what) => what === undefined)) continue;
      const paths = [...new Set(reading.views.map((view) => view.path))];
      const what = `${paths.length === 1 ? "file" : "files"} ${how.includes("edited") ? "edited" : "viewed again"}`;
      best = { by: candidate.index, callId: candidate.callId, what, paths };
      break;
    }
  }
  return best;
}

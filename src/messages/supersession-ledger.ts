import type { BaseMessage } from "@langchain/core/messages";
import { isToolResultMessage } from "./message-types.js";
import { comparedContent, scanSuperseded, type Supersession, type SupersessionEntry, type SupersessionReader } from "./supersession.js";
import type { ToolCallGroup } from "./tool-call-index-types.js";

/**
 * The superseded results of a growing history, found incrementally: the entries of the calls read so
 * far, indexed by call, by edited file and by viewed file, so that the answers for a few results
 * are found from the later entries they depend on alone, not from a scan of the whole history.
 */

type Entry = SupersessionEntry;
interface ViewItem {
  readonly entry: Entry;
}

/** Work counters of every ledger, for tests of the incremental property. @internal */
export const supersessionWork = { entriesRead: 0, visited: 0, fullScans: 0, partialScans: 0 };

/** Above this share of the entries, a query scans them all: one scan, never worse than the full one. */
const FULL_SCAN_SHARE = 0.25;

function pushTo<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [item]);
  else list.push(item);
}

/**
 * The entries of a history's groups, added in history order (a group's results may come in later
 * calls while it is the newest). @internal
 */
export class SupersessionLedger {
  /** Every entry, oldest group first, a group's in the order of its results. */
  readonly #entries: Entry[] = [];
  readonly #byIndex = new Map<number, Entry>();
  readonly #byKey = new Map<string, Entry[]>();
  readonly #edits = new Map<string, Entry[]>();
  readonly #views = new Map<string, ViewItem[]>();

  constructor(readonly reader: SupersessionReader) {}

  /** Add the results `from` on of group `groupNumber` (every group before it added already). */
  add(messages: readonly BaseMessage[], group: ToolCallGroup, groupNumber: number, from: number): void {
    const readings = this.reader.readingsOf(messages[group.assistantIndex]!);
    for (let position = from; position < group.resultIndices.length; position++) {
      const index = group.resultIndices[position]!;
      const result = messages[index]!;
      if (!isToolResultMessage(result)) continue;
      const toolMessage = result;
      const read = readings.get(toolMessage.tool_call_id);
      if (read === undefined) continue;
      supersessionWork.entriesRead++;
      const entry: Entry = { index, group: groupNumber, callId: toolMessage.tool_call_id, reading: read.reading, key: read.key, content: comparedContent(read.reading, toolMessage) };
      this.#entries.push(entry);
      this.#byIndex.set(index, entry);
      pushTo(this.#byKey, entry.key, entry);
      for (const path of entry.reading.edits) pushTo(this.#edits, path, entry);
      for (const view of entry.reading.views) pushTo(this.#views, view.path, { entry });
    }
  }

  /**
   * The result at `index` was replaced in place (e.g. hidden): its compared content is read again.
   * `false` when its call no longer reads the same (its assistant message changed too): the ledger
   * must then be rebuilt.
   */
  replaced(messages: readonly BaseMessage[], index: number, assistantIndex: number): boolean {
    const entry = this.#byIndex.get(index);
    const result = messages[index]!;
    const read = isToolResultMessage(result) ? this.reader.readingsOf(messages[assistantIndex]!).get(result.tool_call_id) : undefined;
    if (entry === undefined || read === undefined) return entry === undefined && read === undefined;
    // Readings are kept per assistant message: the same message gives the same reading object.
    if (read.reading !== entry.reading && (read.key !== entry.key || JSON.stringify(read.reading) !== JSON.stringify(entry.reading))) return false;
    entry.content = comparedContent(read.reading, result as Parameters<typeof comparedContent>[1]);
    return true;
  }

  /** Whether the calls of the assistant message at `assistantIndex`, now `messages`', still read as the ledger has them. */
  sameReadings(messages: readonly BaseMessage[], group: ToolCallGroup): boolean {
    for (const index of group.resultIndices) if (!this.replaced(messages, index, group.assistantIndex)) return false;
    return true;
  }

  /**
   * The supersessions of the results at `indices` (those without one left out), as a scan of the
   * whole history would give them: from the later entries they depend on (by call, by the files
   * they view, and those entries' own, recursively), or from all entries when that is most of them.
   */
  supersessions(indices: Iterable<number>): Map<number, Supersession> {
    const wanted: Entry[] = [];
    for (const index of indices) {
      const entry = this.#byIndex.get(index);
      if (entry !== undefined) wanted.push(entry);
    }
    const answers = new Map<number, Supersession>();
    if (wanted.length === 0) return answers;
    const subset = this.#dependencies(wanted);
    let found: Map<Entry, Supersession>;
    if (subset === undefined) {
      supersessionWork.fullScans++;
      found = scanSuperseded(this.#newestFirst(this.#entries));
    } else {
      supersessionWork.partialScans++;
      found = scanSuperseded(this.#newestFirst([...subset].sort((a, b) => a.group - b.group || a.index - b.index)));
    }
    for (const entry of wanted) {
      const supersession = found.get(entry);
      if (supersession !== undefined) answers.set(entry.index, supersession);
    }
    return answers;
  }

  /** Entries sorted oldest group first, reordered newest group first (a group's own order kept). */
  #newestFirst(entries: readonly Entry[]): Entry[] {
    const ordered: Entry[] = [];
    for (let end = entries.length; end > 0; ) {
      let start = end - 1;
      while (start > 0 && entries[start - 1]!.group === entries[end - 1]!.group) start--;
      for (let position = start; position < end; position++) ordered.push(entries[position]!);
      end = start;
    }
    return ordered;
  }

  /**
   * The entries the answers of `wanted` depend on: for each entry whose answer is needed, the later
   * entries with its key and those that edit the files it views; and the later entries that view
   * them, whose answers are needed too. `undefined` past {@link FULL_SCAN_SHARE} of the entries.
   */
  #dependencies(wanted: readonly Entry[]): Set<Entry> | undefined {
    const limit = Math.max(16, Math.floor(this.#entries.length * FULL_SCAN_SHARE));
    // Asked for most of them (a first run, a firing after many steps): no use looking for a subset.
    if (wanted.length > limit) return undefined;
    const subset = new Set<Entry>();
    const needed = new Set<Entry>();
    const stack: Entry[] = [];
    const need = (entry: Entry) => {
      subset.add(entry);
      if (!needed.has(entry)) {
        needed.add(entry);
        stack.push(entry);
      }
    };
    // Per list: the position from which its entries were taken already (they are in group order).
    const taken = new Map<readonly unknown[], number>();
    const takeLater = <T>(list: readonly T[] | undefined, group: number, entryOf: (item: T) => Entry, take: (entry: Entry) => void) => {
      if (list === undefined) return;
      let position = taken.get(list) ?? list.length;
      while (position > 0 && entryOf(list[position - 1]!).group > group) {
        position--;
        supersessionWork.visited++;
        take(entryOf(list[position]!));
      }
      taken.set(list, position);
    };
    for (const entry of wanted) need(entry);
    while (stack.length > 0) {
      if (subset.size > limit) return undefined;
      const entry = stack.pop()!;
      takeLater(this.#byKey.get(entry.key), entry.group, (item) => item, (later) => subset.add(later));
      if (entry.reading.views.length === 0 || entry.reading.edits.length > 0) continue;
      for (const view of entry.reading.views) {
        takeLater(this.#edits.get(view.path), entry.group, (item) => item, (later) => subset.add(later));
        takeLater(this.#views.get(view.path), entry.group, (item) => item.entry, need);
      }
    }
    return subset.size > limit ? undefined : subset;
  }
}

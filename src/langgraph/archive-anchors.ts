import type { BaseMessage } from "@langchain/core/messages";
import type { ArchivedCompaction } from "../compaction-record.js";

/**
 * What one compaction attached to one message id: the originals it removed around that message, and,
 * when the message itself came out of the compaction, the originals it stands for.
 * @internal
 */
export interface Anchor {
  /** Position of the compaction in the log. */
  readonly sequence: number;
  readonly before: BaseMessage[];
  /** Set when the message itself came out of the compaction: it stands for these originals. */
  replacedBy: BaseMessage[] | undefined;
  readonly after: BaseMessage[];
}

/** Originals a compaction removed when nothing stayed: they go before everything after it. @internal */
export interface StartOriginals {
  readonly sequence: number;
  readonly messages: BaseMessage[];
}

/**
 * The archives of a thread's compactions, indexed by the message id each original is anchored to:
 * what `restoreHistory` and the inspector expand a history with. Compactions must be added in log
 * order (ascending `sequence`), which keeps each id's anchors sorted for {@link ArchiveAnchors.lastBefore}.
 *
 * @example
 * const anchors = new ArchiveAnchors();
 * anchors.addArchive(0, archive, mapStoredMessagesToChatMessages(archive.messages.map((entry) => entry.message)));
 * const anchor = anchors.lastBefore(message.id, Number.POSITIVE_INFINITY);
 * @internal
 */
export class ArchiveAnchors {
  /** Per message id, its anchors sorted by compaction sequence. */
  private readonly byId = new Map<string, Anchor[]>();
  /** Every anchor, in the order it was made. */
  readonly all: Anchor[] = [];
  /** Per compaction that kept nothing, its originals, in log order. */
  readonly starts: StartOriginals[] = [];
  /** Per id, the newest compaction that wrote a message under it, and the fingerprint it recorded (if it did). */
  readonly writtenAt = new Map<string, { sequence: number; fingerprint: string | undefined }>();
  /** Per id, the newest compaction that archived an original with that id. */
  readonly originalAt = new Map<string, number>();
  /** Per compaction, the fingerprints it recorded of the messages it wrote (`ArchivedCompaction.written`). */
  readonly #written = new Map<number, Readonly<Record<string, string>>>();
  /** Per compaction, the neighbours it recorded of each id it anchored originals to. */
  readonly #neighbours = new Map<number, Readonly<Record<string, readonly [string | null, string | null]>>>();

  /** The anchor compaction `sequence` attached to `id`, made when it has none yet. */
  anchorFor(id: string, sequence: number): Anchor {
    let anchors = this.byId.get(id);
    if (!anchors) this.byId.set(id, (anchors = []));
    let anchor = anchors[anchors.length - 1];
    // Compactions are read in log order, so each id's anchors stay sorted by sequence.
    if (anchor?.sequence !== sequence) {
      anchors.push((anchor = { sequence, before: [], replacedBy: undefined, after: [] }));
      this.all.push(anchor);
    }
    return anchor;
  }

  /**
   * Anchor the originals of compaction `sequence`: `originals` are `archive.messages` already
   * deserialized, position for position. Ids it dropped come to stand for nothing.
   */
  addArchive(sequence: number, archive: ArchivedCompaction, originals: readonly BaseMessage[]): void {
    let start: BaseMessage[] | undefined;
    const written = archive.written ?? {};
    const wrote = (id: string) => this.writtenAt.set(id, { sequence, fingerprint: written[id] });
    archive.messages.forEach((entry, position) => {
      const original = originals[position]!;
      if (typeof original.id === "string") this.originalAt.set(original.id, sequence);
      const anchor = entry.anchor;
      if (anchor.kind === "start") {
        if (!start) this.starts.push({ sequence, messages: (start = []) });
        start.push(original);
      } else if (anchor.kind === "replaced-by") {
        (this.anchorFor(anchor.id, sequence).replacedBy ??= []).push(original);
        wrote(anchor.id);
      } else this.anchorFor(anchor.id, sequence)[anchor.kind].push(original);
    });
    for (const id of archive.dropped) {
      this.anchorFor(id, sequence).replacedBy ??= [];
      wrote(id);
    }
    for (const id of Object.keys(written)) wrote(id);
    if (archive.written) this.#written.set(sequence, archive.written);
    if (archive.neighbours) this.#neighbours.set(sequence, archive.neighbours);
  }

  /** The fingerprint compaction `sequence` recorded of what it wrote under `id`, if it recorded one. */
  writtenFingerprint(sequence: number, id: string): string | undefined {
    return this.#written.get(sequence)?.[id];
  }

  /**
   * Give the originals anchored to a message the history no longer reaches (the app removed it)
   * to its nearest neighbour that it does reach, as that compaction recorded them: before the next
   * one, else after the previous one, else before everything after that compaction. An original
   * with the removed message's own id stays out: the app removed it. `reached(id, sequence)`: the
   * history (or a compaction after `sequence`) still holds `id`. Call once, after every archive.
   */
  reanchorUnreached(reached: (id: string, sequence: number) => boolean): void {
    for (const [id, anchors] of this.byId) {
      for (const anchor of anchors) {
        if (reached(id, anchor.sequence)) continue;
        const moved = [...anchor.before, ...(anchor.replacedBy ?? []).filter((original) => original.id !== id), ...anchor.after];
        anchor.before.length = 0;
        anchor.after.length = 0;
        anchor.replacedBy &&= [];
        if (moved.length === 0) continue;
        const neighbours = this.#neighbours.get(anchor.sequence);
        const nearest = (side: 0 | 1): string | undefined => {
          const seen = new Set<string>([id]);
          for (let next = neighbours?.[id]?.[side]; typeof next === "string" && !seen.has(next); next = neighbours?.[next]?.[side]) {
            if (reached(next, anchor.sequence)) return next;
            seen.add(next);
          }
          return undefined;
        };
        const following = nearest(1);
        const preceding = following === undefined ? nearest(0) : undefined;
        if (following !== undefined) this.#insertedAnchor(following, anchor.sequence).before.unshift(...moved);
        else if (preceding !== undefined) this.#insertedAnchor(preceding, anchor.sequence).after.push(...moved);
        else this.#insertStart(anchor.sequence, moved);
      }
    }
  }

  /** The anchor compaction `sequence` attached to `id`, made in sequence order when it has none. */
  #insertedAnchor(id: string, sequence: number): Anchor {
    let anchors = this.byId.get(id);
    if (!anchors) this.byId.set(id, (anchors = []));
    let position = anchors.findIndex((anchor) => anchor.sequence >= sequence);
    if (position < 0) position = anchors.length;
    const found = anchors[position];
    if (found?.sequence === sequence) return found;
    const anchor: Anchor = { sequence, before: [], replacedBy: undefined, after: [] };
    anchors.splice(position, 0, anchor);
    this.all.push(anchor);
    return anchor;
  }

  #insertStart(sequence: number, messages: BaseMessage[]): void {
    const found = this.starts.find((start) => start.sequence === sequence);
    if (found) found.messages.push(...messages);
    else {
      this.starts.push({ sequence, messages });
      this.starts.sort((left, right) => left.sequence - right.sequence);
    }
  }

  /**
   * The last anchor of message `id` made before compaction `bound` (the newest compaction to undo
   * when expanding it as the history had it before `bound`), or undefined. A binary search.
   */
  lastBefore(id: string | undefined, bound: number): Anchor | undefined {
    const anchors = typeof id === "string" ? this.byId.get(id) : undefined;
    if (!anchors) return undefined;
    let low = 0;
    let high = anchors.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (anchors[middle]!.sequence < bound) low = middle + 1;
      else high = middle;
    }
    return anchors[low - 1];
  }
}

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
    archive.messages.forEach((entry, position) => {
      const original = originals[position]!;
      const anchor = entry.anchor;
      if (anchor.kind === "start") {
        if (!start) this.starts.push({ sequence, messages: (start = []) });
        start.push(original);
      } else if (anchor.kind === "replaced-by") (this.anchorFor(anchor.id, sequence).replacedBy ??= []).push(original);
      else this.anchorFor(anchor.id, sequence)[anchor.kind].push(original);
    });
    for (const id of archive.dropped) this.anchorFor(id, sequence).replacedBy ??= [];
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

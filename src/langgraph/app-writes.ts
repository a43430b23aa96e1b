import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { ArchivedCompaction } from "../compaction-record.js";
import type { ArchiveAnchors } from "./archive-anchors.js";
import type { Builder } from "./update-builder.js";

// What tells a message a compaction wrote from one the app wrote later under the same id: the
// `written` fingerprints and `neighbours` of an archive entry, made by `compactionUpdate` and read
// by `restoreHistory`.

/**
 * A short fingerprint of a message's kind and content (FNV-1a over its text, and its length): the
 * same for the message read back from a checkpoint or through the SDK, different for an edit.
 * @internal
 */
export function fingerprintOf(message: BaseMessage): string {
  const content = message.content;
  const text = typeof content === "string" ? content : JSON.stringify(content);
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${message.type}:${text.length}:${(hash >>> 0).toString(16)}`;
}

/**
 * The `written` and `neighbours` fields of a compaction's archive entry: the fingerprint of each
 * message the update writes, and the neighbours in the new history of each id an original is
 * anchored to. One pass over the new history. @internal
 */
export function appWriteFields(builder: Builder): Pick<ArchivedCompaction, "written" | "neighbours"> {
  const written: Record<string, string> = {};
  for (const message of builder.update) if (!RemoveMessage.isInstance(message) && typeof message.id === "string") written[message.id] = fingerprintOf(message);
  const anchorIds = new Set<string>();
  for (const { anchor } of builder.archived) if (anchor.kind !== "start") anchorIds.add(anchor.id);
  const neighbours: Record<string, readonly [string | null, string | null]> = {};
  if (anchorIds.size > 0) {
    const { history } = builder;
    history.forEach((message, position) => {
      if (!anchorIds.has(message.id!)) return;
      neighbours[message.id!] = [history[position - 1]?.id ?? null, history[position + 1]?.id ?? null];
    });
  }
  return { written, neighbours };
}

/** The bound `restoreHistory` marks an app's write with: put it here unless its original comes out. @internal */
export const PLACE = Number.NEGATIVE_INFINITY;

/** A message of the history the app wrote under an id a compaction wrote or archived. @internal */
export interface AppWrite {
  readonly message: BaseMessage;
  /** The compaction whose original (or written message) under that id the app's version replaces. */
  readonly sequence: number;
  /** Set once the app's version took its original's place. */
  placed: boolean;
}

/**
 * The messages of `history` the app wrote after a compaction touched their id: one that differs
 * from what the newest compaction to write that id wrote there (its recorded fingerprint), or one
 * whose id a compaction archived without writing anything under it (removed, then written again).
 * By id; one fingerprint per message a compaction wrote. @internal
 */
export function appWritesOf(history: readonly BaseMessage[], anchors: ArchiveAnchors): Map<string, AppWrite> {
  const writes = new Map<string, AppWrite>();
  for (const message of history) {
    const id = message.id;
    if (typeof id !== "string") continue;
    const written = anchors.writtenAt.get(id);
    const archived = anchors.originalAt.get(id);
    if (written !== undefined && (archived === undefined || written.sequence >= archived)) {
      if (written.fingerprint === undefined || written.fingerprint === fingerprintOf(message)) continue;
      writes.set(id, { message, sequence: written.sequence, placed: false });
    } else if (archived !== undefined) writes.set(id, { message, sequence: archived, placed: false });
  }
  return writes;
}

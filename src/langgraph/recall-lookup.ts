import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import type { ArchiveAnchors } from "./archive-anchors.js";
import { expandHistory, loadAnchors, type RestorableState } from "./restore-history.js";
import { recallRef } from "./recall-refs.js";

/** Where {@link recallOriginals} reads: the thread's state, and its own archive namespace. @internal */
export interface RecallSource {
  readonly state: RestorableState;
  readonly store: BaseStore | undefined;
  /** The thread of the run (from its config, never from the tool's arguments). */
  readonly threadId: string | undefined;
  readonly namespace: string[] | undefined;
}

/**
 * The ids reached from `start`: each of them and, through every anchor of a compaction before
 * `before` that replaced one (a hidden copy, a summary, a summary of summaries), the originals it
 * replaced, and so on. Each id visited once. @internal
 */
export function reachedIds(anchors: ArchiveAnchors, start: Iterable<string>, before = Infinity): Set<string> {
  const visited = new Set<string>(start);
  const pending = [...visited];
  while (pending.length > 0) {
    const id = pending.pop()!;
    for (const anchor of anchors.anchorsOf(id)) {
      // An id's anchors are sorted by compaction sequence.
      if (anchor.sequence >= before) break;
      for (const original of anchor.replacedBy ?? []) {
        if (typeof original.id !== "string" || visited.has(original.id)) continue;
        visited.add(original.id);
        pending.push(original.id);
      }
    }
  }
  return visited;
}

/** The ids of the archived originals that `refs` stand for: reached from every archived or rewritten message whose id has one of those references. */
function originalIds(anchors: ArchiveAnchors, refs: ReadonlySet<string>): Set<string> {
  const start = [...anchors.anchoredIds(), ...anchors.originalAt.keys()].filter((id) => refs.has(recallRef(id)));
  return new Set([...reachedIds(anchors, start)].filter((id) => anchors.originalAt.has(id)));
}

/**
 * The archived originals that the recall references `refs` stand for in one thread, in history order (each once), as
 * `restoreHistory` gives them back: what the app wrote since under an id (an edit, a redaction) in
 * the original's place, what it removed left out, what `redactArchived` redacted redacted. Reads
 * the state given and the thread's own archive namespace only; never writes. Empty when no ref
 * names anything archived in this thread. @internal
 */
export async function recallOriginals(source: RecallSource, refs: readonly string[]): Promise<BaseMessage[]> {
  const options = { ...(source.store ? { store: source.store } : {}), ...(source.threadId !== undefined ? { threadId: source.threadId } : {}), ...(source.namespace ? { namespace: source.namespace } : {}) };
  const { messages, anchors } = await loadAnchors("recallTool", source.state, options);
  const ids = originalIds(anchors, new Set(refs));
  if (ids.size === 0) return [];
  return expandHistory(messages, anchors).filter((message) => typeof message.id === "string" && ids.has(message.id));
}

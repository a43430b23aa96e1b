// The recalls of an inspected thread: each call of the recall tool in the restored history, with
// its result, and the archived originals (and the compactions that archived them) its reference
// stood for when it ran.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ArchiveAnchors } from "../langgraph/archive-anchors.js";
import { reachedIds } from "../langgraph/recall-lookup.js";
import { RECALL_TOOL_NAME, recallRef, recallRefsOf } from "../langgraph/recall-refs.js";
import { messageText } from "../messages/message-text.js";
import type { RecallView } from "./inspection.js";

/** What {@link recallViews} reads: the inspection's restored history and its archives. */
export interface RecallSources {
  /** The restored history (the timeline's leaves), in order. */
  readonly restored: readonly BaseMessage[];
  readonly tokensOf: ReadonlyMap<BaseMessage, number>;
  readonly anchors: ArchiveAnchors;
  /** Per compaction (log order), its id and the originals its archive holds. */
  readonly archives: readonly { readonly compactionId: string; readonly originals: readonly BaseMessage[] | undefined }[];
  /** Per compaction (log order), the step at which it ran (null: not placed). */
  readonly steps: readonly (number | null)[];
}

/**
 * The parts a recall result says it has: `Part n of N` (or `Parts n-m of N`) gives N, a `<recalled …>` frame without it 1,
 * anything else (nothing found, a part past the end, an error) null.
 */
export function recallParts(text: string): number | null {
  const paged = /\bParts? \d+(?:-\d+)? of (\d+)\b/u.exec(text);
  if (paged) return Number(paged[1]);
  return /^<recalled\b/u.test(text) ? 1 : null;
}

/**
 * One view per call of the recall tool in `restored` (by the tool's name), in the order of the
 * calls: its reference (or `|`-separated references) and part, its result's tokens and parts, and the originals the references
 * stood for in the archives of the compactions that ran before it (as the tool resolves it: the
 * message ids with that reference and, through every summary or copy that replaced one, what it
 * replaced), with the compactions whose archives hold them. Indexes the archives once; each recall
 * visits only what it resolves to.
 */
export function recallViews(sources: RecallSources): RecallView[] {
  const { restored, tokensOf, anchors, archives, steps } = sources;
  const calls: { callId: string; callMessageId: string | null; callStep: number; ref: string; find: string | null; part: number }[] = [];
  const resultOf = new Map<string, { message: ToolMessage; step: number }>();
  restored.forEach((message, step) => {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) {
        if (call.name !== RECALL_TOOL_NAME || typeof call.id !== "string") continue;
        const args = (call.args ?? {}) as { ref?: unknown; find?: unknown; part?: unknown };
        const find = typeof args.find === "string" && args.find.trim() !== "" ? args.find : null;
        const part = typeof args.part === "number" && Number.isInteger(args.part) && args.part >= 1 ? args.part : 1;
        calls.push({ callId: call.id, callMessageId: typeof message.id === "string" ? message.id : null, callStep: step, ref: String(args.ref ?? "").trim(), find, part });
      }
    } else if (ToolMessage.isInstance(message) && !resultOf.has(message.tool_call_id)) {
      resultOf.set(message.tool_call_id, { message, step });
    }
  });
  if (calls.length === 0) return [];

  // Per id, the compactions (log order) that archived an original with it, and its first step.
  const archivedIn = new Map<string, number[]>();
  archives.forEach(({ originals }, sequence) => {
    for (const original of originals ?? []) {
      if (typeof original.id !== "string") continue;
      const list = archivedIn.get(original.id);
      if (list) list.push(sequence);
      else archivedIn.set(original.id, [sequence]);
    }
  });
  const positionOf = new Map<string, number>();
  restored.forEach((message, step) => {
    if (typeof message.id === "string" && !positionOf.has(message.id)) positionOf.set(message.id, step);
  });
  // Per reference, the ids that have it: those a compaction anchored originals to, and archived ones.
  const idsOfRef = new Map<string, string[]>();
  for (const id of new Set([...anchors.anchoredIds(), ...archivedIn.keys()])) {
    const ref = recallRef(id);
    const list = idsOfRef.get(ref);
    if (list) list.push(id);
    else idsOfRef.set(ref, [id]);
  }

  return calls.map((call, index) => {
    const result = resultOf.get(call.callId);
    const at = result?.step ?? call.callStep + 1;
    // The compactions that ran before the tool did: the archives it could read.
    let bound = 0;
    while (bound < steps.length && (steps[bound] ?? -1) < at) bound++;
    const found = new Map<string, number>();
    for (const id of reachedIds(anchors, (recallRefsOf(call.ref) ?? []).flatMap((ref) => idsOfRef.get(ref) ?? []), bound)) {
      const first = archivedIn.get(id)?.[0];
      if (first !== undefined && first < bound) found.set(id, first);
    }
    const originalIds = [...found.keys()].sort((left, right) => (positionOf.get(left) ?? Infinity) - (positionOf.get(right) ?? Infinity));
    const sequences = [...new Set(found.values())].sort((left, right) => left - right);
    return {
      number: index + 1,
      ref: call.ref,
      find: call.find,
      part: call.part,
      parts: result ? recallParts(messageText(result.message)) : null,
      tokens: result ? (tokensOf.get(result.message) ?? 0) : 0,
      callId: call.callId,
      callMessageId: call.callMessageId,
      callStep: call.callStep,
      resultMessageId: result && typeof result.message.id === "string" ? result.message.id : null,
      resultStep: result?.step ?? null,
      compactionIds: sequences.map((sequence) => archives[sequence]!.compactionId),
      originalIds,
    };
  });
}

import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { cloneMessage } from "../messages/clone-message.js";
import { compactionMarkerOf } from "../types.js";
import { fingerprintOf } from "./app-writes.js";
import type { CompactionUpdate } from "./compaction-update.js";

// The short references the recall tool reads: what a compaction names in the messages it rewrites
// when `recall` is on, and how a reference is made from a message id.

/** The name the recall tool is given unless told otherwise. @internal */
export const RECALL_TOOL_NAME = "recall";

const REF_SPACE = 1e8;

/** What a reference looks like: 8 digits. @internal */
export const RECALL_REF_PATTERN = /^[0-9]{8}$/u;

/**
 * The reference of a message id: 8 decimal digits of its FNV-1a hash (8 tokens as a note in
 * o200k_base, whatever the id). The same id always gives the same reference; the recall tool
 * resolves it in the calling thread's archive only.
 * @internal
 */
export function recallRef(id: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return String((hash >>> 0) % REF_SPACE).padStart(8, "0");
}

/**
 * The references a recall's `ref` names, in order, each once: one, or several separated by `|`
 * (spaces and empty ones ignored). Undefined unless every one is a reference ({@link RECALL_REF_PATTERN}).
 * @internal
 */
export function recallRefsOf(ref: unknown): string[] | undefined {
  if (typeof ref !== "string") return undefined;
  const refs = [...new Set(ref.split("|").map((part) => part.trim()))].filter((part) => part !== "");
  return refs.length > 0 && refs.every((part) => RECALL_REF_PATTERN.test(part)) ? refs : undefined;
}

/** The note that names a reference, e.g. `[recall 04417296]`. @internal */
export function recallNote(ref: string): string {
  return `[recall ${ref}]`;
}

/** `message` with the note naming `ref` after its text, or `message` itself when it names it already. */
function annotated(message: BaseMessage, ref: string, summary: boolean): BaseMessage {
  const note = recallNote(ref);
  const content: unknown = message.content;
  if (typeof content === "string") {
    if (content.endsWith(note)) return message;
    return cloneMessage(message, { content: content === "" ? note : `${content}${summary ? "\n" : " "}${note}` });
  }
  if (!Array.isArray(content)) return message;
  const last = content[content.length - 1] as { type?: unknown; text?: unknown } | undefined;
  if (last?.type === "text" && last.text === note) return message;
  return cloneMessage(message, { content: [...content, { type: "text", text: note }] });
}

/**
 * The reference a hidden recall result names: the one (or the `|`-separated ones) its call asked
 * for, so that its placeholder points at the originals rather than at the recall. Per result's call
 * id, from the history's calls.
 */
function recalledRefs(messages: readonly BaseMessage[], toolName: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const message of messages) {
    for (const call of (message as { tool_calls?: { id?: string; name?: string; args?: { ref?: unknown } }[] }).tool_calls ?? []) {
      const named = call.name === toolName ? recallRefsOf(call.args?.ref) : undefined;
      if (named !== undefined && typeof call.id === "string") refs.set(call.id, named.join("|"));
    }
  }
  return refs;
}

/**
 * `update` with a note naming its recall reference after the text of every message it writes that
 * carries a compaction marker (a hidden result or superseded note, a summary, a truncated or
 * trimmed message) and is not the input's own object under its id; the archive's fingerprints
 * follow. Returns `update` itself when nothing is named. @internal
 */
export function withRecallNotes(update: CompactionUpdate, input: readonly BaseMessage[], toolName = RECALL_TOOL_NAME): CompactionUpdate {
  if (!update.changed) return update;
  const inputById = new Map<string, BaseMessage>();
  for (const message of input) if (typeof message.id === "string") inputById.set(message.id, message);
  let recalled: Map<string, string> | undefined;
  const swapped = new Map<string, BaseMessage>();
  const history = update.history.map((message) => {
    const marker = compactionMarkerOf(message);
    if (!marker || typeof message.id !== "string" || inputById.get(message.id) === message) return message;
    let ref = recallRef(message.id);
    const callId = (message as { tool_call_id?: unknown }).tool_call_id;
    if (message.type === "tool" && (message as { name?: unknown }).name === toolName && typeof callId === "string") {
      ref = (recalled ??= recalledRefs(update.history, toolName)).get(callId) ?? ref;
    }
    const named = annotated(message, ref, marker.summary === true);
    if (named !== message) swapped.set(message.id, named);
    return named;
  });
  if (swapped.size === 0) return update;
  const messages = update.messages.map((message) => (RemoveMessage.isInstance(message) || typeof message.id !== "string" ? message : (swapped.get(message.id) ?? message)));
  const written = { ...update.archive.written };
  for (const [id, message] of swapped) if (Object.hasOwn(written, id)) written[id] = fingerprintOf(message);
  return { ...update, messages, history, archive: { ...update.archive, written } };
}

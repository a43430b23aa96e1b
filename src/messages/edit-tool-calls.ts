import type { AIMessage } from "@langchain/core/messages";
import { cloneMessage } from "./clone-message.js";
import { TOOL_CALL_BLOCK_TYPES } from "./message-types.js";

export interface ToolCallEdit {
  /** Keep only these call positions (indices into `tool_calls`). Default: keep all. */
  keepPositions?: ReadonlySet<number>;
  /** New ids, by call position. */
  renames?: ReadonlyMap<number, string>;
  /** Replace the arguments of these call positions with `{}`. */
  clearArgsPositions?: ReadonlySet<number>;
}

function editBlocks(
  blocks: unknown[],
  idMap: ReadonlyMap<string, string | null>,
  clearedIds: ReadonlySet<string>,
): unknown[] {
  const edited: unknown[] = [];
  for (const block of blocks) {
    if (typeof block !== "object" || block === null) {
      edited.push(block);
      continue;
    }
    const record = block as Record<string, unknown>;
    const id = typeof record["id"] === "string" ? record["id"] : typeof record["call_id"] === "string" ? record["call_id"] : undefined;
    const isCallBlock = TOOL_CALL_BLOCK_TYPES.has(String(record["type"])) || (record["type"] === "function" && id !== undefined);
    if (!isCallBlock || id === undefined || !idMap.has(id)) {
      edited.push(block);
      continue;
    }
    const newId = idMap.get(id);
    if (newId === null) continue;
    const copy: Record<string, unknown> = { ...record };
    if ("id" in copy) copy["id"] = newId;
    if ("call_id" in copy) copy["call_id"] = newId;
    if (clearedIds.has(id)) {
      if ("input" in copy) copy["input"] = {};
      if ("args" in copy) copy["args"] = {};
      if (copy["function"] && typeof copy["function"] === "object") {
        copy["function"] = { ...(copy["function"] as Record<string, unknown>), arguments: "{}" };
      }
    }
    edited.push(copy);
  }
  return edited;
}

/**
 * Copy an assistant message with some of its tool calls removed, renamed or emptied, keeping every
 * place a provider integration may read them from consistent: `tool_calls`,
 * `additional_kwargs.tool_calls` (OpenAI's raw form, which ChatOpenAI falls back to when
 * `tool_calls` is empty), tool-call blocks inside array `content`, and a chunk's `tool_call_chunks`
 * (from which an `AIMessageChunk` rebuilds its `tool_calls`).
 *
 * @example
 * // keep only the second call
 * const edited = editToolCalls(message, { keepPositions: new Set([1]) });
 */
export function editToolCalls<T extends AIMessage>(message: T, edit: ToolCallEdit): T {
  const calls = message.tool_calls ?? [];
  /** original id -> new id, or null when the call is removed */
  const idMap = new Map<string, string | null>();
  const clearedIds = new Set<string>();
  const keptCalls = [];
  for (let position = 0; position < calls.length; position++) {
    const call = calls[position]!;
    const kept = edit.keepPositions ? edit.keepPositions.has(position) : true;
    const newId = edit.renames?.get(position) ?? call.id;
    if (call.id !== undefined) idMap.set(call.id, kept ? (newId ?? null) : null);
    if (!kept) continue;
    const clear = edit.clearArgsPositions?.has(position) ?? false;
    if (clear && call.id !== undefined) clearedIds.add(call.id);
    keptCalls.push({ ...call, id: newId, args: clear ? {} : call.args });
  }
  // Ids that were not changed need no edit elsewhere.
  for (const [id, newId] of [...idMap]) if (newId === id && !clearedIds.has(id)) idMap.delete(id);

  const overrides: Record<string, unknown> = { tool_calls: keptCalls };
  // A chunk rebuilds tool_calls from its tool_call_chunks: those must say the same.
  const chunks = (message as { tool_call_chunks?: unknown[] }).tool_call_chunks;
  if (Array.isArray(chunks) && chunks.length > 0) {
    overrides["tool_call_chunks"] = keptCalls.map((call, position) => ({
      id: call.id,
      name: call.name,
      args: JSON.stringify(call.args),
      index: position,
      type: "tool_call_chunk",
    }));
  }
  const rawCalls = message.additional_kwargs?.tool_calls;
  if (Array.isArray(rawCalls) && idMap.size > 0) {
    overrides["additional_kwargs"] = {
      ...message.additional_kwargs,
      tool_calls: editBlocks(rawCalls.map((call) => ({ ...call })), idMap, clearedIds),
    };
  }
  if (Array.isArray(message.content) && idMap.size > 0) {
    overrides["content"] = editBlocks(message.content as unknown[], idMap, clearedIds);
  }
  return cloneMessage(message, overrides);
}

import type { AIMessage, ToolCall } from "@langchain/core/messages";
import {
  CALL_BLOCK_TYPES,
  CALL_ID_MAP_KEYS,
  CallMatcher,
  assistantCalls,
  blockCallId,
  isOutputCallItem,
  rawToolCalls,
  responseOutput,
  type AssistantCall,
} from "./assistant-calls.js";
import { cloneMessage } from "./clone-message.js";
import { isBlock, type Block } from "./message-types.js";

export interface ToolCallEdit {
  /**
   * Keep only these call positions (indices into `assistantCalls(message)`, which starts with
   * `tool_calls` in order). Default: keep all.
   */
  keepPositions?: ReadonlySet<number>;
  /** New ids, by call position. */
  renames?: ReadonlyMap<number, string>;
  /** Replace the arguments of these call positions with `{}`. */
  clearArgsPositions?: ReadonlySet<number>;
}

/** What the edit does to one call position. */
interface CallPlan {
  readonly call: AssistantCall;
  readonly kept: boolean;
  readonly id: string | undefined;
  readonly clear: boolean;
}



/** An entry of some representation, edited as its call's plan says (`undefined`: removed). */
function editEntry(entry: Block, plan: CallPlan, idKey: "id" | "call_id"): Block | undefined {
  if (!plan.kept) return undefined;
  const renamed = plan.id !== plan.call.id;
  if (!renamed && !plan.clear) return entry;
  const copy: Block = { ...entry };
  if (renamed) copy[idKey] = plan.id;
  if (plan.clear) {
    if ("input" in copy) copy["input"] = {};
    if ("args" in copy) copy["args"] = typeof copy["args"] === "string" ? "{}" : {};
    if ("arguments" in copy) copy["arguments"] = "{}";
    if (isBlock(copy["function"])) copy["function"] = { ...copy["function"], arguments: "{}" };
  }
  return copy;
}

/** Content with its call blocks edited; streamed input (`input_json_delta`) of a removed or emptied block goes too. */
function editContent(content: unknown[], plans: readonly CallPlan[], matcher: CallMatcher): unknown[] {
  matcher.reset();
  const edited: unknown[] = [];
  const staleInput = new Set<unknown>();
  for (const block of content) {
    if (!isBlock(block) || !CALL_BLOCK_TYPES.has(String(block["type"]))) {
      edited.push(block);
      continue;
    }
    const position = matcher.next(blockCallId(block));
    const plan = position === undefined ? undefined : plans[position];
    if (plan === undefined) {
      edited.push(block);
      continue;
    }
    const after = editEntry(block, plan, block["type"] === "function_call" && "call_id" in block ? "call_id" : "id");
    if ((after === undefined || plan.clear) && "index" in block) staleInput.add(block["index"]);
    if (after !== undefined) edited.push(after);
  }
  if (staleInput.size === 0) return edited;
  return edited.filter((block) => !(isBlock(block) && block["type"] === "input_json_delta" && staleInput.has(block["index"])));
}

/**
 * Copy an assistant message with some of its tool calls removed, renamed or emptied, editing every
 * form a provider integration reads them from in step: `tool_calls`, OpenAI's raw
 * `additional_kwargs.tool_calls`, call blocks in array `content` (`tool_use`, `tool_call`,
 * `function_call`, with their streamed `input_json_delta` parts), a chunk's `tool_call_chunks`
 * (from which an `AIMessageChunk` rebuilds its `tool_calls`), `invalid_tool_calls`, and the
 * Responses API's `response_metadata.output` items. Positions are those of
 * {@link assistantCalls}; a kept call that only another form held is added to `tool_calls`, so
 * ChatOpenAI and ChatAnthropic send the same calls.
 *
 * When no call is left, `tool_calls` is empty and `additional_kwargs.tool_calls` is deleted (never
 * `[]`, which ChatOpenAI would send as an empty `tool_calls` array); content left as an empty array
 * becomes `""`. Check {@link isEmptyAssistantMessage} on the result: a message with neither calls nor
 * content must be dropped, not sent. Never mutates the input.
 *
 * @example
 * // keep only the second call
 * const edited = editToolCalls(message, { keepPositions: new Set([1]) });
 */
export function editToolCalls<T extends AIMessage>(message: T, edit: ToolCallEdit): T {
  const calls = assistantCalls(message);
  const plans: CallPlan[] = calls.map((call, position) => ({
    call,
    kept: edit.keepPositions ? edit.keepPositions.has(position) : true,
    id: edit.renames?.get(position) ?? call.id,
    clear: edit.clearArgsPositions?.has(position) ?? false,
  }));
  const keptPlans = plans.filter((plan) => plan.kept);
  const matcher = new CallMatcher(calls);
  const overrides: Record<string, unknown> = {};

  const listed = message.tool_calls ?? [];
  const toolCalls: ToolCall[] = [];
  for (const [position, plan] of plans.entries()) {
    if (!plan.kept) continue;
    const base: ToolCall = position < listed.length ? listed[position]! : { name: plan.call.name, args: plan.call.args, type: "tool_call" };
    toolCalls.push({ ...base, ...(plan.id !== undefined ? { id: plan.id } : {}), args: plan.clear ? {} : base.args });
  }
  overrides["tool_calls"] = toolCalls;

  // A chunk rebuilds tool_calls (and invalid_tool_calls) from its tool_call_chunks: those must say the same.
  const chunks = (message as { tool_call_chunks?: unknown[] }).tool_call_chunks;
  if (Array.isArray(chunks) && chunks.length > 0) {
    overrides["tool_call_chunks"] = toolCalls.map((call, position) => ({
      id: call.id,
      name: call.name,
      args: JSON.stringify(call.args),
      index: position,
      type: "tool_call_chunk",
    }));
  }

  // Ids no kept call has any more: their invalid calls and Responses API id mappings go.
  const keptIds = new Set(keptPlans.map((plan) => plan.id));
  const goneIds = new Set(plans.filter((plan) => plan.call.id !== undefined && !keptIds.has(plan.call.id)).map((plan) => plan.call.id!));
  // Calls now listed in tool_calls are no longer invalid.
  const nowListed = new Set(keptPlans.filter((plan) => plan.call.source !== "tool_calls").map((plan) => plan.call.id));
  const invalid = (message.invalid_tool_calls ?? []).filter((call) => !goneIds.has(call.id ?? "") && !nowListed.has(call.id));
  if (invalid.length !== (message.invalid_tool_calls ?? []).length) overrides["invalid_tool_calls"] = invalid;

  const kwargs = message.additional_kwargs as Record<string, unknown>;
  const raw = rawToolCalls(message);
  let newKwargs: Record<string, unknown> | undefined;
  if (raw !== undefined) {
    matcher.reset();
    const editedRaw: unknown[] = [];
    for (const entry of raw) {
      const position = isBlock(entry) ? matcher.next(blockCallId(entry)) : undefined;
      if (position === undefined) {
        // Not a call ChatOpenAI sends while tool_calls is not empty (e.g. an invalid call): it would
        // be sent once tool_calls is empty, so it goes with the last call.
        if (keptPlans.length > 0) editedRaw.push(entry);
        continue;
      }
      const after = editEntry(entry as Block, plans[position]!, "id");
      if (after !== undefined) editedRaw.push(after);
    }
    newKwargs = { ...kwargs };
    if (editedRaw.length > 0) newKwargs["tool_calls"] = editedRaw;
    else delete newKwargs["tool_calls"];
  }
  for (const key of CALL_ID_MAP_KEYS) {
    const map = kwargs?.[key];
    if (!isBlock(map)) continue;
    const editedMap: Block = {};
    for (const [id, value] of Object.entries(map)) if (!goneIds.has(id)) editedMap[id] = value;
    // A renamed call takes its output item id along (a repeated id's later calls have none of their own).
    for (const plan of keptPlans) {
      const before = plan.call.id;
      if (before !== undefined && plan.id !== undefined && plan.id !== before && goneIds.has(before) && before in map) editedMap[plan.id] = map[before];
    }
    newKwargs = { ...(newKwargs ?? kwargs), [key]: editedMap };
  }
  if (newKwargs !== undefined) overrides["additional_kwargs"] = newKwargs;

  if (Array.isArray(message.content)) {
    const edited = editContent(message.content as unknown[], plans, matcher);
    overrides["content"] = edited.length === 0 ? "" : edited;
  }

  const output = responseOutput(message);
  if (output !== undefined) {
    matcher.reset();
    const editedOutput: unknown[] = [];
    for (const item of output) {
      const position = isOutputCallItem(item) ? matcher.next(item["call_id"] as string) : undefined;
      if (position === undefined) {
        editedOutput.push(item);
        continue;
      }
      const after = editEntry(item as Block, plans[position]!, "call_id");
      if (after !== undefined) editedOutput.push(after);
    }
    overrides["response_metadata"] = { ...message.response_metadata, output: editedOutput };
  }
  return cloneMessage(message, overrides);
}

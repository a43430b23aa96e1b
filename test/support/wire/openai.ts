/**
 * OpenAI Chat Completions rules, checked on what `ChatOpenAI` really sends: the history converted by
 * `convertMessagesToCompletionsMessageParams` from `@langchain/openai` (the function `ChatOpenAI`
 * calls for every non-Responses request), not by any code of this package.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { loneSurrogatePaths, preview, type WireFinding, type WireProblem } from "./problems.js";

/** The model name the conversion is told about: a non-reasoning model, so `system` stays `system`. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

export type OpenAIParam = Record<string, unknown> & { role: string; content?: unknown };

export interface OpenAIWire {
  /** The `messages` of the request body. */
  readonly params: readonly OpenAIParam[];
  /** For each param, the index of the history message it comes from. */
  readonly sources: readonly number[];
  /** Conversion errors by history index: the client throws before sending anything. */
  readonly errors: readonly { readonly index: number; readonly message: string }[];
}

/**
 * The request's `messages` for a history, as `ChatOpenAI` builds them. The converter maps each
 * message on its own (a `flatMap`), so converting one message at a time gives the same params and
 * says which message each param comes from.
 */
export function openaiWire(messages: readonly BaseMessage[], model: string = DEFAULT_OPENAI_MODEL): OpenAIWire {
  const params: OpenAIParam[] = [];
  const sources: number[] = [];
  const errors: { index: number; message: string }[] = [];
  messages.forEach((message, index) => {
    try {
      for (const param of convertMessagesToCompletionsMessageParams({ messages: [message], model })) {
        params.push(param as unknown as OpenAIParam);
        sources.push(index);
      }
    } catch (error) {
      errors.push({ index, message: error instanceof Error ? error.message : String(error) });
    }
  });
  return { params, sources, errors };
}

/** Content part types each role accepts. */
const PART_TYPES: Readonly<Record<string, readonly string[]>> = {
  user: ["text", "image_url", "input_audio", "file"],
  assistant: ["text", "refusal"],
  system: ["text"],
  developer: ["text"],
  tool: ["text"],
};

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/** `""`, or parts that are all text parts with `""` (a list of at least one). */
function isEmptyText(content: unknown): boolean {
  if (content === "") return true;
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((part) => typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" && (part as { text?: unknown }).text === "")
  );
}

function contentFindings(param: OpenAIParam, wireIndex: number): WireFinding[] {
  const { role, content } = param;
  const findings: WireFinding[] = [];
  const add = (rule: string, detail: string) => findings.push({ wireIndex, rule, detail });
  if (!ROLES.has(role)) add("unknown-role", `role ${preview(role)}`);
  if (Array.isArray(content)) {
    if (content.length === 0) add("empty-content-array", `${role} content is []`);
    content.forEach((part, position) => {
      const type = typeof part === "object" && part !== null ? (part as { type?: unknown }).type : undefined;
      if (typeof type !== "string" || !(PART_TYPES[role] ?? []).includes(type)) {
        add("content-part-type", `${role} content[${position}] has type ${preview(type ?? part)}; a ${role} message accepts ${(PART_TYPES[role] ?? []).join(", ")}`);
      } else if (type === "text" && typeof (part as { text?: unknown }).text !== "string") {
        add("malformed-content-part", `${role} content[${position}] is a text part without a string text`);
      }
    });
  } else if (content !== null && content !== undefined && typeof content !== "string") {
    add("malformed-content", `${role} content is ${preview(content)}, neither a string nor a list of parts`);
  }
  const hasCalls = param["tool_calls"] !== undefined || param["function_call"] !== undefined || param["audio"] !== undefined;
  if (role === "assistant" && !hasCalls && (content === null || content === undefined || isEmptyText(content) || (Array.isArray(content) && content.length === 0))) {
    add("empty-assistant", `assistant message with no tool_calls and empty content ${preview(content)}`);
  }
  if ((role === "user" || role === "system" || role === "developer") && isEmptyText(content)) add("empty-content", `${role} content ${preview(content)}`);
  if ((role === "user" || role === "system" || role === "developer") && (content === null || content === undefined)) add("empty-content", `${role} content is ${String(content)}`);
  return findings;
}

/** The valid call ids of an assistant param, with findings on its `tool_calls`. */
function toolCallFindings(param: OpenAIParam, wireIndex: number): { ids: string[]; findings: WireFinding[] } {
  const calls = param["tool_calls"];
  if (calls === undefined) return { ids: [], findings: [] };
  const findings: WireFinding[] = [];
  const add = (rule: string, detail: string) => findings.push({ wireIndex, rule, detail });
  if (param.role !== "assistant") add("tool-calls-on-non-assistant", `${param.role} message has tool_calls`);
  if (!Array.isArray(calls)) {
    add("malformed-tool-calls", `tool_calls is ${preview(calls)}`);
    return { ids: [], findings };
  }
  if (calls.length === 0) add("empty-tool-calls", "tool_calls is []");
  const ids: string[] = [];
  calls.forEach((call: unknown, position) => {
    const { id, type, function: fn } = (call ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof id !== "string" || id === "") add("malformed-tool-call", `tool_calls[${position}] has id ${preview(id ?? null)}`);
    else if (ids.includes(id)) add("duplicate-tool-call-id", `tool_calls[${position}] repeats id ${preview(id)}`);
    else ids.push(id);
    if (type !== "function" || typeof fn?.name !== "string" || fn.name === "" || typeof fn.arguments !== "string") {
      add("malformed-tool-call", `tool_calls[${position}] is ${preview(call)}`);
    }
  });
  return { ids: param.role === "assistant" ? ids : [], findings };
}

/**
 * Tool messages answer the calls of the assistant message right before them, contiguously: after an
 * assistant message with `tool_calls` come `role: "tool"` messages for each of its ids, before any
 * other role; no tool message anywhere else.
 */
function pairingFindings(params: readonly OpenAIParam[], callIds: readonly string[][]): WireFinding[] {
  const findings: WireFinding[] = [];
  let pending = new Map<string, number>();
  let answered = new Set<string>();
  const closeRun = () => {
    for (const [id, wireIndex] of pending) findings.push({ wireIndex, rule: "unanswered-tool-call", detail: `call ${preview(id)} has no tool message right after its assistant message` });
  };
  params.forEach((param, wireIndex) => {
    if (param.role === "tool") {
      const id = param["tool_call_id"];
      if (typeof id !== "string" || id === "") findings.push({ wireIndex, rule: "missing-tool-call-id", detail: `tool message with tool_call_id ${preview(id ?? null)}` });
      else if (pending.delete(id)) answered.add(id);
      else if (answered.has(id)) findings.push({ wireIndex, rule: "duplicate-tool-result", detail: `second tool message for call ${preview(id)}` });
      else findings.push({ wireIndex, rule: "orphan-tool-message", detail: `tool message for call ${preview(id)}, which the assistant message before the tool messages did not make` });
      return;
    }
    closeRun();
    pending = new Map(callIds[wireIndex]!.map((id) => [id, wireIndex]));
    answered = new Set();
  });
  closeRun();
  return findings;
}

/** The rules, on converted params. */
export function openaiParamFindings(params: readonly OpenAIParam[]): WireFinding[] {
  const findings: WireFinding[] = [];
  const callIds: string[][] = [];
  params.forEach((param, wireIndex) => {
    for (const path of loneSurrogatePaths(param)) findings.push({ wireIndex, rule: "lone-surrogate", detail: `lone surrogate in ${path}` });
    findings.push(...contentFindings(param, wireIndex));
    const calls = toolCallFindings(param, wireIndex);
    findings.push(...calls.findings);
    callIds.push(calls.ids);
  });
  findings.push(...pairingFindings(params, callIds));
  return findings;
}

/**
 * Why OpenAI's Chat Completions API would reject what `ChatOpenAI` sends for `messages`: every call
 * answered by tool messages right after it, no orphan or repeated tool message, no empty
 * `tool_calls`, no empty assistant/user/system content, only the content part types each role
 * accepts, no lone surrogate in any string. A message the client cannot convert (it throws before
 * sending) is a `client-conversion-error`. Problems are ordered by wire position.
 */
export function openaiWireProblems(messages: readonly BaseMessage[], model: string = DEFAULT_OPENAI_MODEL): WireProblem[] {
  const wire = openaiWire(messages, model);
  if (wire.errors.length > 0) {
    return wire.errors.map(({ index, message }) => ({ provider: "openai", index, wireIndex: -1, rule: "client-conversion-error", detail: message }));
  }
  return openaiParamFindings(wire.params)
    .sort((a, b) => a.wireIndex - b.wireIndex)
    .map((finding) => ({ provider: "openai", index: wire.sources[finding.wireIndex]!, wireIndex: finding.wireIndex, rule: finding.rule, detail: finding.detail }));
}

/**
 * Hostile histories: a valid provider-shaped history with one to three edits that real
 * applications and stores produce and providers reject: object content, a `RemoveMessage` left in
 * the list, lone surrogates, a message between a call and its results, empty `tool_calls`, stale
 * raw `additional_kwargs.tool_calls`, empty content, a call id reused later, and the pairing breaks
 * of `applyMutation`. The contract on them: a typed `CompactionError`, or an output that every
 * provider that accepted the unedited history accepts.
 */
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { applyMutation, mutationSpec, type MutationSpec } from "../arbitraries.js";
import { buildWireHistory, wireHistorySpec, type WireHistorySpec } from "./arbitraries.js";

export type HostileKind =
  | "objectContent"
  | "removeMessage"
  | "loneSurrogateText"
  | "loneSurrogateResult"
  | "loneSurrogateArgs"
  | "humanBetween"
  | "emptyToolCalls"
  | "staleRawToolCalls"
  | "emptyContent"
  | "reusedCallId"
  | "pairing";

export interface HostileEdit {
  readonly kind: HostileKind;
  /** Picks the message to edit (modulo the candidates). */
  readonly target: number;
  /** For `pairing`: the mutation of `applyMutation`. */
  readonly mutation: MutationSpec;
}

export interface HostileSpec {
  readonly history: WireHistorySpec;
  readonly edits: readonly HostileEdit[];
}

const hostileEdit: fc.Arbitrary<HostileEdit> = fc.record({
  kind: fc.constantFrom<HostileKind>(
    "objectContent",
    "removeMessage",
    "loneSurrogateText",
    "loneSurrogateResult",
    "loneSurrogateArgs",
    "humanBetween",
    "emptyToolCalls",
    "staleRawToolCalls",
    "emptyContent",
    "reusedCallId",
    "pairing",
  ),
  target: fc.nat({ max: 1_000 }),
  mutation: mutationSpec,
});

export const hostileSpec: fc.Arbitrary<HostileSpec> = fc.record({ history: wireHistorySpec, edits: fc.array(hostileEdit, { minLength: 1, maxLength: 3 }) });

const positionsWhere = (messages: readonly BaseMessage[], test: (message: BaseMessage) => boolean) =>
  messages.flatMap((message, position) => (test(message) ? [position] : []));

const callers = (messages: readonly BaseMessage[]) => positionsWhere(messages, (message) => AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0);

function replaceAt(messages: readonly BaseMessage[], position: number, message: BaseMessage): BaseMessage[] {
  return messages.map((existing, index) => (index === position ? message : existing));
}

/** Half of a surrogate pair at the end of a text: the cut a code-unit slice makes. */
const halfCut = (text: string) => `${text}\ud83d`;

/** Apply one edit; an edit with nothing to act on leaves the history as it is. Never touches the messages it is given. */
export function applyHostileEdit(messages: readonly BaseMessage[], edit: HostileEdit): BaseMessage[] {
  const pick = (positions: readonly number[]) => (positions.length === 0 ? undefined : positions[edit.target % positions.length]!);
  const at = pick(messages.map((_, position) => position)) ?? 0;
  switch (edit.kind) {
    case "objectContent": {
      const position = pick(positionsWhere(messages, (message) => HumanMessage.isInstance(message)));
      return position === undefined ? [...messages] : replaceAt(messages, position, new HumanMessage({ content: { type: "text", text: "as an object" } as never }));
    }
    case "removeMessage":
      return [...messages.slice(0, at), new RemoveMessage({ id: messages[at]?.id ?? "m0" }), ...messages.slice(at)];
    case "loneSurrogateText": {
      const position = pick(positionsWhere(messages, (message) => HumanMessage.isInstance(message) && typeof message.content === "string"));
      return position === undefined ? [...messages] : replaceAt(messages, position, new HumanMessage({ id: messages[position]!.id, content: halfCut(String(messages[position]!.content)) }));
    }
    case "loneSurrogateResult": {
      const position = pick(positionsWhere(messages, (message) => ToolMessage.isInstance(message)));
      if (position === undefined) return [...messages];
      const result = messages[position] as ToolMessage;
      return replaceAt(messages, position, new ToolMessage({ id: result.id, content: `\udc00${halfCut("output")}`, tool_call_id: result.tool_call_id }));
    }
    case "loneSurrogateArgs": {
      const position = pick(callers(messages));
      if (position === undefined) return [...messages];
      const caller = messages[position] as AIMessage;
      const calls = caller.tool_calls!.map((call, index) => (index === 0 ? { ...call, args: { ...call.args, note: halfCut("x") } } : call));
      return replaceAt(messages, position, new AIMessage({ id: caller.id, content: caller.content, tool_calls: calls }));
    }
    case "humanBetween": {
      const position = pick(callers(messages).filter((index) => ToolMessage.isInstance(messages[index + 1])));
      return position === undefined ? [...messages] : [...messages.slice(0, position + 1), new HumanMessage("wait, one more thing"), ...messages.slice(position + 1)];
    }
    case "emptyToolCalls":
      return [...messages.slice(0, at), new AIMessage({ content: "", additional_kwargs: { tool_calls: [] } }), ...messages.slice(at)];
    case "staleRawToolCalls": {
      const stale = { id: "call_stale", type: "function" as const, function: { name: "bash", arguments: "{}" } };
      return [...messages.slice(0, at), new AIMessage({ content: "Done.", tool_calls: [], additional_kwargs: { tool_calls: [stale] } }), ...messages.slice(at)];
    }
    case "emptyContent": {
      const position = pick(positionsWhere(messages, (message) => message.getType() === "human" || message.getType() === "ai"));
      if (position === undefined) return [...messages];
      const message = messages[position]!;
      const emptied = AIMessage.isInstance(message) ? new AIMessage({ id: message.id, content: [], tool_calls: message.tool_calls ?? [] }) : new HumanMessage({ id: message.id, content: "" });
      return replaceAt(messages, position, emptied);
    }
    case "reusedCallId": {
      const all = callers(messages);
      const position = pick(all.slice(1));
      if (position === undefined) return [...messages];
      const reused = (messages[all[0]!] as AIMessage).tool_calls![0]!.id!;
      const caller = messages[position] as AIMessage;
      const oldId = caller.tool_calls![0]!.id;
      const calls = caller.tool_calls!.map((call, index) => (index === 0 ? { ...call, id: reused } : call));
      return messages.map((message, index) => {
        if (index === position) return new AIMessage({ id: caller.id, content: typeof caller.content === "string" ? caller.content : "", tool_calls: calls });
        if (index > position && ToolMessage.isInstance(message) && message.tool_call_id === oldId) return new ToolMessage({ id: message.id, content: message.content, tool_call_id: reused });
        return message;
      });
    }
    case "pairing":
      return applyMutation(messages, edit.mutation).messages;
  }
}

/** Fresh hostile messages for a spec. */
export function buildHostileHistory(spec: HostileSpec): BaseMessage[] {
  return spec.edits.reduce<BaseMessage[]>((messages, edit) => applyHostileEdit(messages, edit), buildWireHistory(spec.history));
}

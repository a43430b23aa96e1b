import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";

/** Terse builders with explicit ids, so expectations can name every message. */
export const system = (id: string, content = `system ${id}`) => new SystemMessage({ id, content });
export const user = (id: string, content = `user ${id}`) => new HumanMessage({ id, content });

export interface CallSpec {
  id: string;
  name?: string;
  args?: Record<string, unknown>;
}

/** An assistant message; without calls and content it says its id (providers reject an empty reply). */
export const assistant = (id: string, content?: string, calls: CallSpec[] = []) =>
  new AIMessage({
    id,
    content: content ?? (calls.length > 0 ? "" : id),
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name ?? "bash", args: call.args ?? {}, type: "tool_call" as const })),
  });

export const toolResult = (id: string, toolCallId: string, content = `result of ${toolCallId}`, name = "bash") =>
  new ToolMessage({ id, content, tool_call_id: toolCallId, name });

/** One agent step: an assistant message with one call and its result. */
export const step = (n: number, output = `output ${n} `.repeat(20)) => [
  assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, args: { command: `cmd ${n}` } }]),
  toolResult(`t${n}`, `c${n}`, output),
];

export const ids = (messages: readonly { id?: string | undefined }[]) => messages.map((message) => message.id);

/** The positions of `actual` hold exactly the objects of `expected` (same length, same identities). */
export function sameObjects(actual: readonly unknown[], expected: readonly unknown[]): boolean {
  return actual.length === expected.length && actual.every((item, position) => item === expected[position]);
}

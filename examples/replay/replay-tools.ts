/**
 * Tools that answer with a recording's results, for replaying a session through a real `ToolNode`.
 */
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from "@langchain/core/tools";
import { cloneMessage } from "../../src/index.js";
import type { ReplaySession } from "./replay-session.js";

type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  return type === "string" || type === "number" || type === "boolean" ? type : "object";
}

/**
 * The JSON schema a tool's recorded calls imply: every argument any call passed, with the type it
 * had, required when every call passed it. A live model bound to these tools sees their real shape.
 */
function schemaOf(calls: readonly Record<string, unknown>[]): Record<string, unknown> {
  const properties: Record<string, { type: JsonType }> = {};
  const seen = new Map<string, number>();
  for (const args of calls) {
    for (const [key, value] of Object.entries(args)) {
      properties[key] ??= { type: jsonTypeOf(value) };
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  const required = [...seen].filter(([, count]) => count === calls.length).map(([key]) => key);
  return { type: "object", properties, required };
}

/**
 * One tool per tool name the session calls. A call with a recorded id gets the recorded result
 * message itself (a copy: same id, content and name), so the replayed history is the recorded one.
 * A call the recording does not have (a live model's) gets the recorded results of that tool in
 * order, cycling, as plain content.
 *
 * @example
 * const tools = replayTools(replay);
 * const toolNode = new ToolNode(tools);
 */
export function replayTools(session: ReplaySession): StructuredToolInterface[] {
  return session.toolNames.map((name) => {
    const inOrder = session.resultsOf(name);
    let next = 0;
    return tool(
      async (_args: Record<string, unknown>, config: ToolRunnableConfig) => {
        const callId = config.toolCall?.id;
        const recorded = callId === undefined ? undefined : session.resultOf(callId);
        if (recorded) return cloneMessage(recorded);
        const fallback = inOrder[next++ % Math.max(1, inOrder.length)];
        return fallback ? String(fallback.content) : `(the recording has no result for ${name})`;
      },
      {
        name,
        description: `Replays the recorded results of the tool "${name}" from session ${session.id}.`,
        schema: schemaOf(session.argumentsOf(name)),
      },
    ) as StructuredToolInterface;
  });
}

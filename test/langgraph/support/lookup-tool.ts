import { ToolMessage, type MessageContent } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod/v4";

/** The result content of call `callId`: long enough that hiding it pays. */
export const lookupOutput = (callId: string) => `lookup result for ${callId} `.repeat(30);

/**
 * A `lookup` tool whose results carry explicit ids (`t-<call id>`), so tests can name them.
 * `content` overrides the result content per call id (e.g. image blocks).
 */
export function lookupTool(content: Record<string, MessageContent> = {}) {
  return tool(
    async (_args: unknown, config) => {
      const callId = config.toolCall!.id!;
      return new ToolMessage({ id: `t-${callId}`, content: content[callId] ?? lookupOutput(callId), tool_call_id: callId, name: "lookup" });
    },
    { name: "lookup", description: "look something up", schema: z.object({ query: z.string().optional() }) },
  );
}

import type { BaseMessage } from "@langchain/core/messages";
import { walkContent } from "../tokens/content-text.js";

/**
 * The text of a message's content, pieces joined by new lines: strings and text parts, and the text
 * nested in tool results, documents (text or content source), search results and compaction blocks.
 * Images read `[image]`, other non-text blocks `[type]` (e.g. `[thinking]`, `[document]` for a PDF);
 * tool-call blocks and ids are left out. Never throws, whatever the content holds.
 *
 * @example
 * messageText(new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "ok" }] }] })); // "ok"
 */
export function messageText(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === "string") return content;
  const pieces: string[] = [];
  walkContent(content, {
    text: (text) => pieces.push(text),
    meta: () => undefined,
    opaque: (type) => pieces.push(type === "image_url" || type === "image" ? "[image]" : `[${type}]`),
  });
  return pieces.join("\n");
}

import type { BaseMessage } from "@langchain/core/messages";
import { walkContent } from "../tokens/content-text.js";

/**
 * The text of a message's content, pieces joined by new lines: strings and text parts, and the text
 * nested in tool results, documents (text or content source), search results and compaction blocks.
 * Images read `[image]`, other non-text blocks `[type]` (e.g. `[thinking]`, `[document]` for a PDF);
 * an image, file or document given by an http(s) URL keeps it (`[image: https://…/a.png]`), so a
 * summary prompt or an artifact index does not lose it (inline data is never copied). Tool-call
 * blocks and ids are left out. Never throws, whatever the content holds.
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
    opaque: (type, _text, reference) => {
      const kind = type === "image_url" || type === "image" || type === "input_image" ? "image" : type;
      pieces.push(reference === undefined ? `[${kind}]` : `[${kind}: ${reference}]`);
    },
  });
  return pieces.join("\n");
}

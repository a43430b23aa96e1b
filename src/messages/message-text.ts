import type { BaseMessage } from "@langchain/core/messages";

/** The text of a message's content: strings and text parts, other parts as `[image]`-style placeholders. */
export function messageText(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  const pieces: string[] = [];
  for (const part of content) {
    if (typeof part === "string") pieces.push(part);
    else if (part.type === "text" && typeof part["text"] === "string") pieces.push(part["text"]);
    else if (part.type === "image_url" || part.type === "image") pieces.push("[image]");
    else if (part.type === "tool_use" || part.type === "tool_call" || part.type === "function_call") continue;
    else pieces.push(`[${String(part.type)}]`);
  }
  return pieces.join("\n");
}

/**
 * Which history message each part of an Anthropic request comes from. `ChatAnthropic`'s converter
 * merges messages: a tool message with text content joins the human message before it when that
 * one starts with a `tool_result` block (a converted tool message does), leading system messages
 * become the `system` field, and neighbouring user messages made only of `tool_result` blocks are
 * merged. This replays those steps on the history, so each block of the request names its message.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertForAnthropic, type AnthropicPayload } from "./anthropic-converter.js";

export interface AnthropicSources {
  /** For each request message, the history index of its first source message. */
  readonly messages: readonly number[];
  /** For each request message, the history index of each content block (string content: one entry). */
  readonly blocks: readonly (readonly number[])[];
  /** For each block of the `system` field (a string: one entry), its history index. */
  readonly system: readonly number[];
}

interface Group {
  readonly type: string;
  /** The first history message converted into this request message. */
  readonly first: number;
  /** Where each block of the converted message comes from. */
  readonly blocks: number[];
  /** A human message whose content starts with a `tool_result` block: tool messages join it. */
  readonly takesToolResults: boolean;
  /** A user message whose content is a list of only `tool_result` blocks: merged with its neighbours of the same kind. */
  readonly onlyToolResults: boolean;
}

const startsWithToolResult = (content: unknown) => {
  const first = Array.isArray(content) ? (content[0] as unknown) : undefined;
  return typeof first === "object" && first !== null && (first as { type?: unknown }).type === "tool_result";
};

const blockCount = (content: unknown) => (Array.isArray(content) ? content.length : 1);

/** The converter's first step (`_ensureMessageContents`), and each message's own converted content. */
function groupsOf(messages: readonly BaseMessage[]): Group[] {
  const groups: Group[] = [];
  messages.forEach((message, index) => {
    const type = message.getType();
    if (type === "tool") {
      const previous = groups.at(-1);
      if (typeof message.content === "string" && previous?.takesToolResults) previous.blocks.push(index);
      else groups.push({ type: "human", first: index, blocks: [index], takesToolResults: true, onlyToolResults: true });
      return;
    }
    if (type === "human") {
      const converted = Array.isArray(message.content) ? convertForAnthropic([message]).messages[0]?.content : message.content;
      const onlyToolResults =
        Array.isArray(converted) && converted.every((block) => typeof block === "object" && block !== null && (block as { type?: unknown }).type === "tool_result");
      groups.push({ type, first: index, blocks: Array(blockCount(converted)).fill(index), takesToolResults: startsWithToolResult(message.content), onlyToolResults });
      return;
    }
    groups.push({ type, first: index, blocks: [index], takesToolResults: false, onlyToolResults: false });
  });
  return groups;
}

/**
 * The sources of `payload`, the converter's output for `messages`.
 * @throws when the replay disagrees with the payload's shape (a validator bug, or a converter that changed).
 */
export function anthropicSources(messages: readonly BaseMessage[], payload: AnthropicPayload): AnthropicSources {
  const groups = groupsOf(messages);
  let leading = 0;
  while (leading < groups.length && groups[leading]!.type === "system") leading++;
  // A system message's string is one block, a list its blocks; other content converts to none.
  const system = groups.slice(0, leading).flatMap((group) => {
    const content: unknown = messages[group.first]!.content;
    return Array(typeof content === "string" ? 1 : Array.isArray(content) ? content.length : 0).fill(group.first);
  });
  const merged: Group[] = [];
  for (const group of groups.slice(leading)) {
    const previous = merged.at(-1);
    if (previous?.onlyToolResults && group.onlyToolResults) previous.blocks.push(...group.blocks);
    else merged.push({ ...group, blocks: [...group.blocks] });
  }
  // An AI or system message's blocks all come from it, whatever their number.
  const blocks = merged.map((group, wireIndex) => {
    const content = payload.messages[wireIndex]?.content;
    return group.type === "human" ? group.blocks : Array(blockCount(content)).fill(group.first);
  });
  const shapeMatches =
    merged.length === payload.messages.length && payload.messages.every((message, wireIndex) => blockCount(message.content) === blocks[wireIndex]!.length);
  if (!shapeMatches) {
    throw new Error(
      `anthropicSources: replaying the converter gave ${merged.length} messages (blocks ${JSON.stringify(blocks.map((each) => each.length))}), ` +
        `the converter ${payload.messages.length} (blocks ${JSON.stringify(payload.messages.map((message) => blockCount(message.content)))})`,
    );
  }
  return { messages: merged.map((group) => group.first), blocks, system };
}

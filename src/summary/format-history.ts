import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { resultCallIds } from "../messages/tool-result-blocks.js";
import { compactionMarkerOf } from "../types.js";
import { messageText } from "../messages/message-text.js";

function roleOf(message: BaseMessage): string {
  if (compactionMarkerOf(message)?.summary) return "earlier summary";
  switch (message.type) {
    case "human":
      return "user";
    case "ai":
      return "assistant";
    case "system":
      return "system";
    case "tool":
      return "tool";
    default:
      return message.type;
  }
}

/** Options of {@link formatHistory}. */
export interface FormatHistoryOptions {
  /**
   * Tool calls with no result among the messages formatted are left out (the last assistant
   * message's pending calls are stripped before the summary call). @default true
   */
  readonly dropUnansweredCalls?: boolean;
  /** Replace the text of some messages (by position), e.g. a tool output cut to fit a budget. */
  readonly textOverrides?: ReadonlyMap<number, string>;
  /** Leave out earlier compaction summaries (when they are passed to the prompt on their own). @default false */
  readonly omitSummaries?: boolean;
  /**
   * Leave out the older messages (earlier summaries among them stay) and write `note` in their place,
   * e.g. to fit a summary prompt to a budget. @default none: every message is written
   */
  readonly leftOut?: LeftOutMessages | undefined;
}

/** Older messages left out of a formatted history, and the text that stands in their place. */
export interface LeftOutMessages {
  /** Messages before this position are left out, except earlier compaction summaries. */
  readonly before: number;
  /** The block written where the first left-out message was. */
  readonly note: string;
}

/**
 * The history as compact text for a summary prompt: one block per message, `[role]` then the text;
 * tool calls as `-> name(arguments) #id`, tool results as `[tool name #id]`; images as placeholders.
 *
 * @example
 * formatHistory([new HumanMessage("fix the bug")]); // "[user]\nfix the bug"
 * formatHistory([first, second, third], { leftOut: { before: 2, note: "[2 earlier messages left out]" } });
 * // "[2 earlier messages left out]\n\n[user]\n..." (the third message only)
 */
export function formatHistory(messages: readonly BaseMessage[], options: FormatHistoryOptions = {}): string {
  const dropUnanswered = options.dropUnansweredCalls ?? true;
  const answered = new Set<string>();
  // Results are tool messages or, in Anthropic's form, tool_result blocks in a user message.
  if (dropUnanswered) for (const message of messages) for (const id of resultCallIds(message)) answered.add(id);
  const blocks: string[] = [];
  const leftOut = options.leftOut;
  let noted = false;
  messages.forEach((message, position) => {
    const isSummary = compactionMarkerOf(message)?.summary === true;
    if (leftOut !== undefined && position < leftOut.before && !isSummary) {
      if (!noted) blocks.push(leftOut.note);
      noted = true;
      return;
    }
    if (options.omitSummaries && isSummary) return;
    const text = options.textOverrides?.get(position) ?? messageText(message);
    if (isToolResultMessage(message)) {
      blocks.push(`[tool ${message.name ?? ""} #${message.tool_call_id}]\n${text}`.replace("[tool  #", "[tool #"));
      return;
    }
    const lines = [`[${roleOf(message)}]`];
    if (text !== "") lines.push(text);
    if (isAssistantMessage(message)) {
      for (const call of message.tool_calls ?? []) {
        if (dropUnanswered && (call.id === undefined || !answered.has(call.id))) continue;
        lines.push(`-> ${call.name}(${JSON.stringify(call.args ?? {})}) #${call.id}`);
      }
    }
    blocks.push(lines.join("\n"));
  });
  return blocks.join("\n\n");
}

/**
 * Fill `{name}` placeholders. A function replacer, so `$&` or `$1` in the values (which history text
 * may contain) comes through verbatim. Unknown placeholders are left as they are. The values go in
 * as they are: to put conversation text into a data block, use `fillPrompt`, which fences it.
 *
 * @example
 * fillTemplate("Summarize:\n{history}", { history: "cost is $& 5" }); // "Summarize:\ncost is $& 5"
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) => (Object.hasOwn(values, name) ? values[name]! : placeholder));
}

// What buildInspection builds the timeline from: its nodes while they are filled, its work items,
// and how a message is shown.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Anchor } from "../langgraph/archive-anchors.js";
import { messageText } from "../messages/message-text.js";
import type { MessageView } from "./inspection.js";

// Mutable twins of the TimelineNode variants, filled while the timeline is built.
export interface MessageNode {
  kind: "message";
  message: MessageView;
}
export interface SummaryNode {
  kind: "summary";
  compactionId: string;
  message: MessageView;
  originals: BuildNode[];
}
export interface ReplacementNode {
  kind: "replacement";
  compactionId: string;
  message: MessageView;
  originals: BuildNode[];
}
export interface HiddenNode {
  kind: "hidden";
  compactionId: string;
  message: MessageView;
  original: BuildNode | undefined;
}
export interface RemovedNode {
  kind: "removed";
  compactionId: string;
  originals: BuildNode[];
}
export type BuildNode = MessageNode | SummaryNode | ReplacementNode | HiddenNode | RemovedNode;

/** Work of the timeline builder (an explicit stack: nesting is as deep as the thread is long). */
export type Work =
  /** Show `message` as the history had it before compaction `bound`; its own node goes to `place`, removed neighbours to `into`. */
  | { readonly kind: "expand"; readonly message: BaseMessage; readonly bound: number; readonly into: BuildNode[]; readonly place: (node: BuildNode) => void }
  /** The message `anchor`'s compaction produced, standing for `anchor.replacedBy`. */
  | { readonly kind: "replacement"; readonly message: BaseMessage; readonly anchor: Anchor; readonly into: BuildNode[]; readonly place: (node: BuildNode) => void }
  /** Originals removed by compaction `sequence` without a replacement. */
  | { readonly kind: "removed"; readonly messages: readonly BaseMessage[]; readonly sequence: number; readonly into: BuildNode[] }
  /** The originals of the summary or replacement with this id are all placed: a compaction that saw it last ran here. */
  | { readonly kind: "replacement-end"; readonly id: string };

/** How the page shows a message. */
export function messageView(message: BaseMessage, tokens: number): MessageView {
  const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
  const tool = ToolMessage.isInstance(message) ? message : undefined;
  return {
    id: typeof message.id === "string" ? message.id : null,
    type: message.type,
    text: messageText(message),
    toolCalls: calls.map((call) => ({ id: call.id ?? "", name: call.name, args: JSON.stringify(call.args ?? {}) })),
    toolCallId: tool ? tool.tool_call_id : null,
    toolName: tool ? (tool.name ?? null) : null,
    tokens,
  };
}

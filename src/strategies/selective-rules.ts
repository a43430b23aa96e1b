import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { holdsOnlyToolResults } from "../messages/tool-result-blocks.js";
import { compactionMarkerOf } from "../types.js";

/**
 * The kind of a message for selective rules. A classifier may return any other string.
 */
export type MessageKind =
  | "system"
  | "summary"
  | "tool_result"
  | "skill_prompt"
  | "skill_metadata"
  | "assistant"
  | "user"
  | "other"
  | (string & {});

/** Kinds that no rule may remove: the system prompt and compaction summaries. */
export const PROTECTED_KINDS: ReadonlySet<string> = new Set(["system", "summary"]);

/**
 * One rule: what to do with messages of a kind.
 * - `drop`: remove all of them; `truncate`: keep the newest `keepRecent`; `none`: never touch.
 * Rules apply from the lowest `priority` up.
 */
export interface SelectiveRule {
  kind: MessageKind;
  action: "drop" | "truncate" | "none";
  /** With `truncate`: how many of the newest to keep. */
  keepRecent?: number;
  priority: number;
}

/**
 * The default rules: the oldest tool results first (keeping the newest 3), then skill prompts and
 * skill metadata, then assistant and user messages (keeping the newest 5 of each).
 */
export const DEFAULT_SELECTIVE_RULES: readonly SelectiveRule[] = Object.freeze([
  { kind: "tool_result", action: "truncate", keepRecent: 3, priority: 1 },
  { kind: "skill_prompt", action: "drop", priority: 2 },
  { kind: "skill_metadata", action: "drop", priority: 3 },
  { kind: "assistant", action: "truncate", keepRecent: 5, priority: 4 },
  { kind: "user", action: "truncate", keepRecent: 5, priority: 5 },
  { kind: "system", action: "none", priority: 100 },
  { kind: "summary", action: "none", priority: 100 },
]);

/** Returns a message's kind, or `undefined` to fall back to {@link defaultMessageKind}. */
export type MessageClassifier = (message: BaseMessage, index: number) => MessageKind | undefined;

/**
 * The kind of a message without a classifier: `system` for system messages, `summary` for messages
 * marked as a compaction summary (`response_metadata.compaction.summary`), the string in
 * `additional_kwargs.compaction_kind` when present (e.g. `"skill_prompt"`), else `tool_result`,
 * `assistant`, `user` or `other` by message type. A human message made only of `tool_result`
 * blocks (Anthropic's form of tool results) is a `tool_result`; one with text besides them is a `user`
 * message (removing it removes its results too).
 */
export function defaultMessageKind(message: BaseMessage): MessageKind {
  if (message.type === "system") return "system";
  if (compactionMarkerOf(message)?.summary) return "summary";
  const declared = (message.additional_kwargs as Record<string, unknown> | undefined)?.["compaction_kind"];
  if (typeof declared === "string" && declared !== "") return declared;
  if (isToolResultMessage(message)) return "tool_result";
  if (isAssistantMessage(message)) return "assistant";
  if (holdsOnlyToolResults(message)) return "tool_result";
  if (message.type === "human") return "user";
  return "other";
}

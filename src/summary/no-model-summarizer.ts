import type { BaseMessage } from "@langchain/core/messages";
import type { ArtifactIndex } from "../messages/artifact-index.js";
import { messageText } from "../messages/message-text.js";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { compactionMarkerOf } from "../types.js";

/** What the deterministic summarizer works from. */
export interface NoModelSummaryInput {
  /** The messages being replaced, oldest first (earlier summaries among them are read for their sections). */
  readonly messages: readonly BaseMessage[];
  /** The merged artifact index of everything replaced (rendered beside the snapshot, not repeated in it). */
  readonly artifacts: ArtifactIndex;
}

const EXCERPT = 300;

function excerpt(text: string, length = EXCERPT): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

/** The text of `<section>` in an earlier snapshot, if it has one. */
function sectionOf(snapshot: string, section: string): string | undefined {
  const match = new RegExp(`<${section}>([\\s\\S]*?)</${section}>`).exec(snapshot);
  const text = match?.[1]?.trim();
  return text ? text : undefined;
}

/**
 * The no-model summarizer: a `<state_snapshot>` built deterministically from the first user request,
 * the later user messages, the assistant's last statements and the recent tool actions, integrating
 * an earlier snapshot's goal and constraints. Used when no summary model is configured, so every
 * strategy and the demo work offline. The artifact trail is the index rendered beside it.
 *
 * @example
 * const snapshot = noModelSnapshot({ messages: removed, artifacts: extractArtifacts(removed) });
 */
export function noModelSnapshot({ messages, artifacts }: NoModelSummaryInput): string {
  const previous = messages.filter((message) => compactionMarkerOf(message)?.summary).map(messageText);
  const latestPrevious = previous.at(-1);
  const conversation = messages.filter((message) => !compactionMarkerOf(message)?.summary);
  const userTexts = conversation.filter((message) => message.type === "human").map((message) => messageText(message).trim()).filter(Boolean);
  const assistantTexts = conversation
    .filter((message) => isAssistantMessage(message))
    .map((message) => messageText(message).trim())
    .filter(Boolean);

  const goal = (latestPrevious && sectionOf(latestPrevious, "overall_goal")) ?? (userTexts[0] ? excerpt(userTexts[0], 600) : "(no user request in the compacted part)");
  const constraints = [
    ...(latestPrevious ? [sectionOf(latestPrevious, "active_constraints")].filter((text): text is string => text !== undefined) : []),
    ...userTexts.slice(1).slice(-5).map((text) => `- user said: ${excerpt(text)}`),
  ];
  const knowledge = [
    ...(latestPrevious ? [sectionOf(latestPrevious, "key_knowledge")].filter((text): text is string => text !== undefined) : []),
    ...assistantTexts.slice(-3).map((text) => `- assistant: ${excerpt(text)}`),
    ...artifacts.errors.slice(-5).map((error) => `- error seen: ${error}`),
  ];

  // The last tool actions with the first line of what each returned.
  const results = new Map<string, string>();
  for (const message of conversation) if (isToolResultMessage(message)) results.set(message.tool_call_id, messageText(message));
  const actions: string[] = [];
  for (const message of conversation) {
    if (!isAssistantMessage(message)) continue;
    for (const call of message.tool_calls ?? []) {
      const result = call.id !== undefined ? results.get(call.id) : undefined;
      const outcome = result === undefined ? "" : ` => ${excerpt(result.split("\n").find((line) => line.trim() !== "") ?? "", 150)}`;
      actions.push(`- ${call.name}(${excerpt(JSON.stringify(call.args ?? {}), 200)})${outcome}`);
    }
  }
  const touched = [...artifacts.filesCreated.map((path) => `${path} (created)`), ...artifacts.filesModified.map((path) => `${path} (modified)`)];
  const lastStatement = assistantTexts.at(-1);

  const section = (name: string, lines: readonly string[], empty: string) => `    <${name}>\n${(lines.length > 0 ? lines : [empty]).map((line) => `        ${line}`).join("\n")}\n    </${name}>`;
  return [
    "<state_snapshot>",
    section("overall_goal", [goal], "(unknown)"),
    section("active_constraints", constraints, "(none recorded)"),
    section("key_knowledge", knowledge, "(none recorded)"),
    section("artifact_trail", ["see <artifact_index> below"], ""),
    section("file_system_state", touched.length > 0 ? [`changed: ${touched.join(", ")}`] : [], "(no file changes recorded)"),
    section("recent_actions", actions.slice(-8), "(no tool actions in the compacted part)"),
    section("task_state", [`[IN PROGRESS] ${lastStatement ? `last stated: ${excerpt(lastStatement)}` : "continue from the recent actions"}`], ""),
    "</state_snapshot>",
    "(written without a model: a deterministic digest of the compacted messages)",
  ].join("\n");
}

// How probes read a conversation: excerpts of messages and tool calls, how a call is named in a
// question, which results and calls are worth asking about.
import { AIMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import { type ArtifactIndex } from "../../src/index.js";
import { extractArtifacts, messageText } from "../../src/extend/index.js";

/** Longest excerpt of each kind kept in an expected answer (characters). */
export const LIMITS = { request: 1500, task: 600, result: 600, reasoning: 500, call: 300, step: 300 } as const;

/** Top-level argument keys that hold an identifier (a reservation id, a flight number...). */
const IDENTIFIER_KEY = /(?:^|_)(?:id|number|code|uuid|key)$/i;
/** Argument keys that hold a shell command. */
const COMMAND_KEY = /^(?:command|cmd|script|shell)$/i;
/** Words in a tool's name that say it changes something (book, update, cancel...). */
const ACTION_WORDS = new Set(
  "update book cancel create write edit delete remove send transfer modify insert replace apply patch set add submit commit move rename upgrade".split(" "),
);
/** Test-runner summary lines: `3 passed, 1 failed in 0.2s`, `Ran 12 tests`, `OK (skipped=1)`. */
const TEST_SUMMARY_LINE = /\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed)\b|^Ran \d+ tests?\b|^OK\b(?: \(|$)|^FAILED \(/;

/** `text` with Windows line ends and runs of blank lines reduced, trimmed, cut at `limit` characters with a visible mark. */
export function clip(text: string, limit: number): string {
  const trimmed = text
    .replace(/\r\n?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return trimmed.length <= limit ? trimmed : `${trimmed.slice(0, limit).trimEnd()} […]`;
}

/** The shell command of a call, if it has one. */
export function commandOf(call: ToolCall): string | undefined {
  for (const [key, value] of Object.entries(call.args ?? {})) if (COMMAND_KEY.test(key) && typeof value === "string") return value;
  return undefined;
}

/** Programs that only show files or list names: their output is file content, whose "error" lines are code. */
const VIEWER_PROGRAMS = new Set("cat head tail sed nl less more grep egrep rg ag find ls tree awk wc diff".split(" "));

/** Whether every simple command of `command` only shows files (`cat x`, `grep -n y z | head`). */
export function onlyViewsFiles(command: string): boolean {
  const programs = command
    .split(/&&|\|\||[;|\n]/)
    .map((part) => part.trim().split(/\s+/)[0] ?? "")
    .filter((program) => program !== "" && program !== "cd");
  return programs.length > 0 && programs.every((program) => VIEWER_PROGRAMS.has(program.split("/").pop()!));
}

/** `reservation_id UM3OG5, flight_number HAT113`: the call's top-level identifier arguments. */
export function identifiersOf(call: ToolCall): string {
  return Object.entries(call.args ?? {})
    .filter(([key, value]) => IDENTIFIER_KEY.test(key) && (typeof value === "string" || typeof value === "number"))
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(", ");
}

/** A call as the agent issued it: the command, else `name({...arguments})`. */
export function callText(call: ToolCall): string {
  return clip(commandOf(call) ?? `${call.name}(${JSON.stringify(call.args ?? {})})`, LIMITS.call);
}

/** A call named in a question: precise enough to pick it out, without its result. */
export function describeCall(call: ToolCall): string {
  const command = commandOf(call);
  if (command !== undefined) return `the command \`${clip(command.split("\n")[0]!, 200)}\``;
  const identifiers = identifiersOf(call);
  if (identifiers !== "") return `the \`${call.name}\` call (${identifiers})`;
  return `the \`${call.name}\` call with arguments ${clip(JSON.stringify(call.args ?? {}), 200)}`;
}

export function isActionTool(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => ACTION_WORDS.has(word));
}

/** An assistant message's reasoning: its text without code blocks (they restate the call) and a `THOUGHT:` label. */
export function reasoningOf(message: BaseMessage): string {
  return clip(
    messageText(message)
      .replace(/```[\s\S]*?```/g, "")
      .replace(/^\s*THOUGHT:\s*/i, ""),
    LIMITS.reasoning,
  );
}

/** An assistant message carrying only `call`, for indexing what one call touched. */
export function callMessage(call: ToolCall): AIMessage {
  return new AIMessage({ content: "", tool_calls: [call] });
}

/** The lines of a tool result worth recalling: errors (as the artifact index finds them) and test summaries. */
export function outcomeLines(result: BaseMessage): string[] {
  const errors = new Set(extractArtifacts([result]).errors);
  const lines: string[] = [];
  for (const line of messageText(result).split("\n")) {
    const trimmed = line.trim().slice(0, 200);
    if (trimmed === "" || lines.includes(trimmed)) continue;
    if (errors.has(trimmed) || TEST_SUMMARY_LINE.test(trimmed.replace(/^=+\s*|\s*=+$/g, ""))) lines.push(trimmed);
    if (lines.length === 3) break;
  }
  return lines;
}

export function renderFiles(index: ArtifactIndex, kinds: readonly ("created" | "modified" | "read")[]): string {
  const lists = { created: index.filesCreated, modified: index.filesModified, read: index.filesRead };
  return kinds
    .filter((kind) => lists[kind].length > 0)
    .map((kind) => `${kind}: ${lists[kind].join(", ")}`)
    .join("\n");
}

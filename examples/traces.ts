/**
 * Loading recorded agent sessions (the JSONL format of `shared/traces/public.jsonl`) as LangChain
 * messages, for the demo, the tests and the benchmark.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

interface TraceMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; name: string; args: Record<string, unknown> }[];
  tool_call_id?: string;
  name?: string;
}

export interface TraceSession {
  source: string;
  id: string;
  messages: BaseMessage[];
}

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The shared trace set beside the project, when it is there. */
export const SHARED_TRACES_PATH = resolve(projectRoot, "..", "shared", "traces", "public.jsonl");
/** The two sessions bundled with the project (see examples/fixtures/README.md). */
export const BUNDLED_TRACES_PATH = join(projectRoot, "examples", "fixtures", "sessions.jsonl");

/** Convert one recorded message; ids are `<session>#<position>` so they are stable and unique. */
function toMessage(sessionId: string, message: TraceMessage, position: number): BaseMessage {
  const id = `${sessionId}#${position}`;
  const content = message.content ?? "";
  switch (message.role) {
    case "system":
      return new SystemMessage({ id, content });
    case "user":
      return new HumanMessage({ id, content });
    case "assistant":
      return new AIMessage({
        id,
        content,
        tool_calls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" as const })),
      });
    case "tool":
      return new ToolMessage({ id, content, tool_call_id: message.tool_call_id ?? "", ...(message.name ? { name: message.name } : {}) });
    default:
      throw new Error(`session ${sessionId}: message ${position} has unknown role ${String((message as { role: unknown }).role)}`);
  }
}

/** Read sessions from a JSONL file. */
export function loadTraceSessions(path: string): TraceSession[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const record = JSON.parse(line) as { source: string; id: string; messages: TraceMessage[] };
      return {
        source: record.source,
        id: record.id,
        messages: record.messages.map((message, position) => toMessage(record.id, message, position)),
      };
    });
}

/** The shared trace set when it is beside the project, else the bundled sessions. */
export function defaultTracesPath(): string {
  return existsSync(SHARED_TRACES_PATH) ? SHARED_TRACES_PATH : BUNDLED_TRACES_PATH;
}

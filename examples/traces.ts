/**
 * Loading recorded agent sessions (the JSONL format of `examples/fixtures/`, plain or gzipped) as
 * LangChain messages, for the demo, the tests, the eval and the benchmarks.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
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

/** The 32 recorded sessions kept in the repository (see examples/fixtures/README.md). */
export const PUBLIC_TRACES_PATH = join(projectRoot, "examples", "fixtures", "public.jsonl.gz");
/** Two of those sessions, unpacked, for the demo and the fast tests. */
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

/** Read sessions from a JSONL file, gunzipping it first when its name ends in `.gz`. */
export function loadTraceSessions(path: string): TraceSession[] {
  const bytes = readFileSync(path);
  return (path.endsWith(".gz") ? gunzipSync(bytes) : bytes)
    .toString("utf8")
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

/** The trace set the tests, the eval and the benchmarks use unless told otherwise: all 32 sessions. */
export function defaultTracesPath(): string {
  return PUBLIC_TRACES_PATH;
}

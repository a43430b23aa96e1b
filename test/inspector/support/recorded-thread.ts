/**
 * The inspector tests' threads: a recorded session replayed offline through examples/react-agent.ts's
 * ReAct agent graph, onto a real checkpointer (and store). One helper, so each test file sets up its
 * thread once in `beforeAll` the same way.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { buildReactAgent, type ReactAgentState } from "../../../examples/react-agent.js";
import { ReplayChatModel, ReplaySession, replayTools } from "../../../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../../examples/traces.js";
import { type Compactor } from "../../../src/index.js";
import { messageText } from "../../../src/extend/index.js";
import type { TimelineNode } from "../../../src/inspector/index.js";

/** A 62-message airline session: summarized and truncated several times at a 2 500-token window. */
export const AIRLINE_SESSION_ID = "tau-bench-airline/task2-trial1";

/** A bundled recorded session, ready to replay. */
export function loadReplay(sessionId: string): ReplaySession {
  const session = loadTraceSessions(BUNDLED_TRACES_PATH).find((each) => each.id === sessionId);
  if (!session) throw new Error(`no bundled session ${sessionId}`);
  return new ReplaySession(session);
}

export type AgentState = typeof ReactAgentState.State;

export interface ReplayOptions {
  readonly replay: ReplaySession;
  readonly threadId: string;
  readonly checkpointer: BaseCheckpointSaver;
  readonly store?: BaseStore;
  /** The agent's compaction; none: the thread is never compacted. */
  readonly compaction?: Compactor;
}

/** Replay every turn of the session on one thread; the thread's final state. */
export async function replayThread({ replay, threadId, checkpointer, store, compaction }: ReplayOptions): Promise<AgentState> {
  const agent = buildReactAgent({
    model: new ReplayChatModel(replay),
    tools: replayTools(replay),
    ...(compaction ? { compaction } : {}),
    checkpointer,
    ...(store ? { store } : {}),
  });
  const config = { configurable: { thread_id: threadId }, recursionLimit: 10_000 };
  for (const input of replay.turns) await agent.invoke({ messages: input }, config);
  return (await agent.getState(config)).values as AgentState;
}

/** A message by id, type and text: a summary reuses the id of the first message it replaces, so the id alone does not tell them apart. */
export interface Leaf {
  readonly id: string | null;
  readonly type: string;
  readonly text: string;
}

export const leafOf = (message: BaseMessage): Leaf => ({ id: message.id ?? null, type: message.type, text: messageText(message) });

/** The timeline's message leaves in order: the restored history. */
export function timelineLeaves(nodes: readonly TimelineNode[]): Leaf[] {
  const found: Leaf[] = [];
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.kind === "message") found.push({ id: node.message.id, type: node.message.type, text: node.message.text });
    else if (node.kind === "hidden") stack.push(node.original);
    else for (let index = node.originals.length - 1; index >= 0; index--) stack.push(node.originals[index]!);
  }
  return found;
}

/** A file's MD5, to show it was not written. */
export function md5Of(path: string): string {
  return createHash("md5").update(readFileSync(path)).digest("hex");
}

/** A SQLite file's journal mode from its header (bytes 18 and 19): 1 rollback journal, 2 WAL. */
export function sqliteJournalMode(path: string): "rollback" | "wal" | "unknown" {
  const header = readFileSync(path).subarray(18, 20);
  if (header[0] === 1 && header[1] === 1) return "rollback";
  if (header[0] === 2 && header[1] === 2) return "wal";
  return "unknown";
}

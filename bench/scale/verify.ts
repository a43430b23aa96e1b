/**
 * The correctness check of a finished thread: `restoreHistory` on its checkpointed state (and the
 * store) must give back the recorded session, message by message.
 */
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import { restoreHistory, type CompactionRecord } from "../../src/index.js";
import type { ReplaySession } from "../../examples/replay/index.js";
import type { ScaleStateValues } from "./graph.js";

/**
 * JSON with object keys sorted: PostgreSQL stores the archive as JSONB, which keeps objects but not
 * the order of their keys (a tool call's `{ origin, date }` comes back as `{ date, origin }`).
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner,
  );
}

/**
 * A message reduced to what must survive persistence and restoration: type, id, content, tool calls
 * (id, name, arguments) and tool call id, as canonical JSON (key order of objects ignored).
 */
export function messageFingerprint(message: BaseMessage): string {
  return canonicalJson([
    message.type,
    message.id,
    message.content,
    ((message as AIMessage).tool_calls ?? []).map((call) => [call.id, call.name, call.args]),
    (message as ToolMessage).tool_call_id ?? null,
  ]);
}

/** A record of a compaction that changed the history (not a no-op, a failure or a repair alone). */
export function compacted(record: CompactionRecord): boolean {
  return record.status !== "noop" && record.status !== "failed" && record.status !== "repaired";
}

/** What the check found on one thread. */
export interface ThreadCheck {
  readonly threadId: string;
  /** Recorded messages missing from the restored history. */
  readonly lost: number;
  /** Restored messages beyond the first occurrence of their id. */
  readonly duplicated: number;
  /** The restored history differs from the recording in some other way (order, content, extra messages). */
  readonly mismatched: boolean;
  /** `restoreHistory` threw (an archive the log names is missing, say); the error's message. */
  readonly unrestorable: string | null;
  /** Where the restored history first departs from the recording (fingerprints cut to 200 characters). */
  readonly firstDifference: { position: number; expected: string | null; actual: string | null } | null;
  /** Messages in the restored history. */
  readonly restored: number;
  /** Compactions in the thread's log that changed the history (see {@link compacted}). */
  readonly compactions: number;
  /** Failed compaction records (e.g. an archive write that failed). */
  readonly failedCompactions: number;
}

/**
 * Check one thread's final state against its recording: restore the full history and compare it
 * message by message (type, id, content, tool calls, tool call id) with `replay.expectedHistory`.
 */
export async function checkThread(threadId: string, values: Partial<ScaleStateValues>, replay: ReplaySession, store: BaseStore | undefined): Promise<ThreadCheck> {
  const log = values.compactionLog ?? [];
  const counts = { compactions: log.filter(compacted).length, failedCompactions: log.filter((record) => record.status === "failed").length };
  let restored: BaseMessage[];
  try {
    restored = await restoreHistory({ messages: values.messages ?? [], compactionLog: log, compactionArchive: values.compactionArchive ?? [] }, { ...(store ? { store } : {}), threadId });
  } catch (error) {
    return { threadId, lost: replay.expectedHistory.length, duplicated: 0, mismatched: true, unrestorable: error instanceof Error ? error.message : String(error), firstDifference: null, restored: 0, ...counts };
  }
  const expected = replay.expectedHistory.map(messageFingerprint);
  const actual = restored.map(messageFingerprint);
  const seen = new Set<string | undefined>();
  let duplicated = 0;
  for (const message of restored) {
    if (seen.has(message.id)) duplicated++;
    seen.add(message.id);
  }
  const lost = replay.expectedHistory.filter((message) => !seen.has(message.id)).length;
  let position = 0;
  while (position < expected.length && expected[position] === actual[position]) position++;
  const mismatched = position < expected.length || actual.length !== expected.length;
  const cut = (fingerprint: string | undefined) => (fingerprint === undefined ? null : fingerprint.slice(0, 200));
  const firstDifference = mismatched ? { position, expected: cut(expected[position]), actual: cut(actual[position]) } : null;
  return { threadId, lost, duplicated, mismatched, unrestorable: null, firstDifference, restored: restored.length, ...counts };
}

/** Totals over many thread checks. */
export interface CheckTotals {
  readonly threads: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly mismatchedThreads: number;
  readonly unrestorableThreads: number;
  readonly compactions: number;
  readonly failedCompactions: number;
}

export function totalChecks(checks: readonly ThreadCheck[]): CheckTotals {
  return {
    threads: checks.length,
    lost: checks.reduce((sum, check) => sum + check.lost, 0),
    duplicated: checks.reduce((sum, check) => sum + check.duplicated, 0),
    mismatchedThreads: checks.filter((check) => check.mismatched).length,
    unrestorableThreads: checks.filter((check) => check.unrestorable !== null).length,
    compactions: checks.reduce((sum, check) => sum + check.compactions, 0),
    failedCompactions: checks.reduce((sum, check) => sum + check.failedCompactions, 0),
  };
}

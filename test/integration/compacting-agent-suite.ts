/**
 * The integration suite every checkpointer runs: a compacting ReAct agent graph replays a real
 * recorded session (96 model calls) one step per invocation on a real checkpointer, and a second
 * connection then reads back what was persisted. No mocks but the replayed model.
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCompactionLog, restoreHistory, type ArchivedCompaction, type CompactionRecord } from "../../src/index.js";
import { DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace, unpackArchive } from "../../src/extend/index.js";
import type { ReactAgentState } from "../../examples/react-agent.js";
import { HOOK_TIMEOUT, ReplayWorker, SWE_SESSION_ID, TEST_WINDOW, describeMessage, loadReplay } from "./replay-driver.js";

/** A record without the fields the full log adds (`sequence`, `previous`, `logged`). */
const withoutLogFields = ({ sequence: _sequence, previous: _previous, logged: _logged, ...rest }: CompactionRecord) => rest;

/** One connection to the database under test: what a worker or a process opens. */
export interface Persistence {
  readonly checkpointer: BaseCheckpointSaver;
  readonly store?: BaseStore | undefined;
  close(): Promise<void>;
}

/** A database under test. */
export interface CheckpointBackend {
  /** Where the compaction node archives: the store when the backend has one, else the state. */
  readonly archive: "store" | "state";
  /** A new, independent connection to the same database. */
  open(): Promise<Persistence>;
}

/** The archives the log names, read from where the log says they are. */
async function persistedArchives(
  log: readonly CompactionRecord[],
  state: typeof ReactAgentState.State,
  store: BaseStore | undefined,
  threadId: string,
): Promise<ArchivedCompaction[]> {
  const archives: ArchivedCompaction[] = [];
  for (const record of log) {
    if (record.archive === "state") archives.push(unpackArchive(state.compactionArchive.find((entry) => entry.compactionId === record.id)!));
    if (record.archive === "store") archives.push((await store!.get(archiveNamespace(threadId, DEFAULT_ARCHIVE_NAMESPACE), record.id))?.value as ArchivedCompaction);
  }
  return archives;
}

/**
 * Register the shared tests for one backend. `backend` is called in `beforeAll`, so a backend that
 * needs a server is only set up when the suite runs.
 */
export function compactingAgentSuite(backend: () => Promise<CheckpointBackend>): void {
  describe(`a compacting agent over ${SWE_SESSION_ID}, one step per invocation, window ${TEST_WINDOW}`, () => {
    const replay = loadReplay(SWE_SESSION_ID);
    const threadId = `suite/${SWE_SESSION_ID}`;
    let archive: "store" | "state";
    let worker: ReplayWorker;
    let reader: Persistence;
    let state: typeof ReactAgentState.State;

    beforeAll(async () => {
      const database = await backend();
      archive = database.archive;
      const writer = await database.open();
      worker = new ReplayWorker(replay, writer);
      await worker.run(threadId);
      await writer.close();
      // Everything below is read back through a second connection: what was persisted, not what is in memory.
      reader = await database.open();
      state = await new ReplayWorker(replay, reader).state(threadId);
    }, HOOK_TIMEOUT);
    afterAll(async () => {
      await reader?.close();
    });

    it("answers every model call of the recording", () => {
      expect(worker.requests.map((request) => request.ids.at(-1))).toEqual(
        replay.expectedHistory.flatMap((message, position) => (message.type === "ai" ? [replay.expectedHistory[position - 1]!.id] : [])),
      );
    });

    it("never sends the model more than the window", () => {
      expect(worker.requests.filter((request) => request.tokens > TEST_WINDOW)).toEqual([]);
    });

    it("keeps every tool call paired with its result in every request", () => {
      expect(worker.requests.map((request) => request.pairingProblems)).toEqual(worker.requests.map(() => []));
    });

    it("compacts several times over the session (the window is a quarter of it)", () => {
      expect(worker.records.filter((record) => record.status === "failed")).toEqual([]);
      expect(worker.records.length).toBeGreaterThanOrEqual(3);
    });

    it("persists the compaction log the node wrote, record for record", async () => {
      const log = await readCompactionLog(state, { ...(reader.store ? { store: reader.store } : {}), threadId });
      expect(log.map(withoutLogFields)).toEqual(worker.records.map(withoutLogFields));
    });

    it("persists the originals of every compaction where its log record says", async () => {
      const archives = await persistedArchives(state.compactionLog, state, reader.store, threadId);
      expect(state.compactionLog.map((record) => record.archive)).toEqual(state.compactionLog.map(() => archive));
      expect(archives.map((entry) => [entry.compactionId, entry.messages.map((archived) => archived.message.data["id"]).sort()])).toEqual(
        state.compactionLog.map((record) => [record.id, [...record.removedIds, ...record.replacedIds].sort()]),
      );
    });

    it("checkpoints the compacted history: the last request plus the final reply", () => {
      expect(state.messages.map((message) => message.id)).toEqual([...worker.requests.at(-1)!.ids, replay.expectedHistory.at(-1)!.id]);
    });

    it("restores the uncompacted history from the persisted state and archive", async () => {
      const restored = await restoreHistory(state, { ...(reader.store ? { store: reader.store } : {}), threadId });
      expect(restored.map(describeMessage)).toEqual(replay.expectedHistory.map(describeMessage));
    });
  });
}

/**
 * The SQLite checkpointer on a file (`@langchain/langgraph-checkpoint-sqlite`, the demo's embedded
 * default): the shared suite, and a restart: a new Node process resumes the thread from the file with
 * the compacted state and the archive (kept in the checkpointed `compactionArchive` channel) intact.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCompactionLog, type CompactionRecord } from "../../src/index.js";
import type { ReactAgentState } from "../../examples/react-agent.js";
import { compactingAgentSuite, type CheckpointBackend } from "./compacting-agent-suite.js";
import { HOOK_TIMEOUT, ReplayWorker, SWE_SESSION_ID, TEST_WINDOW, describeMessage, loadReplay, type ObservedRequest } from "./replay-driver.js";

const directories: string[] = [];
function sqliteFile(): string {
  const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-sqlite-"));
  directories.push(directory);
  return join(directory, "checkpoints.sqlite");
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** A record without the fields the full log adds (`sequence`, `previous`, `logged`). */
const withoutLogFields = ({ sequence: _sequence, previous: _previous, logged: _logged, ...rest }: CompactionRecord) => rest;

function sqliteBackend(path: string): CheckpointBackend {
  return {
    archive: "state",
    async open() {
      const checkpointer = SqliteSaver.fromConnString(path);
      return { checkpointer, close: async () => void checkpointer.db.close() };
    },
  };
}

describe("SQLite checkpointer on a file", () => {
  compactingAgentSuite(async () => sqliteBackend(sqliteFile()));

  describe("a restart: a new process resumes the thread half-way through the session", () => {
    const replay = loadReplay(SWE_SESSION_ID);
    const threadId = `restart/${SWE_SESSION_ID}`;
    const firstHalf = Math.floor(replay.modelCalls / 2);
    let before: typeof ReactAgentState.State;
    /** The whole log: of the first process's state, and of the state the second process left in the file. */
    let logBefore: CompactionRecord[];
    let logAfter: CompactionRecord[];
    let requestsBefore: ObservedRequest[];
    let child: {
      pid: number;
      resumed: { messageIds: string[]; log: CompactionRecord[]; archiveIds: string[] };
      requests: ObservedRequest[];
      records: CompactionRecord[];
      final: { messageIds: string[]; log: CompactionRecord[] };
      restored: ReturnType<typeof describeMessage>[];
    };

    beforeAll(async () => {
      const path = sqliteFile();
      const checkpointer = SqliteSaver.fromConnString(path);
      const worker = new ReplayWorker(replay, { checkpointer });
      const nextTurn = await worker.run(threadId, 0, firstHalf);
      before = await worker.state(threadId);
      requestsBefore = worker.requests;
      checkpointer.db.close();
      const script = resolve(import.meta.dirname, "resume-thread.ts");
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script, path, threadId, SWE_SESSION_ID, String(nextTurn)], {
        maxBuffer: 64 * 1024 * 1024,
      });
      child = JSON.parse(stdout);
      logBefore = await readCompactionLog(before);
      const reopened = SqliteSaver.fromConnString(path);
      logAfter = await readCompactionLog(await new ReplayWorker(replay, { checkpointer: reopened }).state(threadId));
      reopened.db.close();
    }, HOOK_TIMEOUT);

    it("stopped the first process mid-session, after it had compacted", () => {
      expect(requestsBefore).toHaveLength(firstHalf);
      expect(before.compactionLog.length).toBeGreaterThanOrEqual(1);
    });

    it("runs the rest in another process", () => {
      expect(child.pid).not.toBe(process.pid);
      expect(child.requests).toHaveLength(replay.modelCalls - firstHalf);
    });

    it("resumes with the compacted messages the first process checkpointed", () => {
      expect(child.resumed.messageIds).toEqual(before.messages.map((message) => message.id));
    });

    it("resumes with the compaction log and the archive intact", () => {
      expect(child.resumed.log).toEqual(before.compactionLog);
      expect(child.resumed.archiveIds).toEqual(before.compactionArchive.map((archive) => archive.compactionId));
    });

    it("keeps the log across the restart: the first process's records, then the second's", () => {
      expect(logAfter.map(withoutLogFields)).toEqual([...logBefore, ...child.records].map(withoutLogFields));
    });

    it("never sends the model more than the window after the restart", () => {
      expect(child.requests.filter((request) => request.tokens > TEST_WINDOW)).toEqual([]);
      expect(child.requests.map((request) => request.pairingProblems)).toEqual(child.requests.map(() => []));
    });

    it("restores the whole session from the state the second process left", () => {
      expect(child.restored).toEqual(replay.expectedHistory.map(describeMessage));
    });
  });
});

/**
 * PostgreSQL (`@langchain/langgraph-checkpoint-postgres`: PostgresSaver and PostgresStore) against a
 * real server: the shared suite, with the archive in the store, and two workers (two graph
 * instances, each with its own connections) taking turns on one thread. Each suite works in a schema
 * of its own. Without a server it is skipped locally and fails under CI (see test/support/postgres.ts).
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCompactionLog, restoreHistory, type CompactionRecord } from "../../src/index.js";
import { createTestSchema, describeWithPostgres, type TestSchema } from "../support/postgres.js";
import { compactingAgentSuite, type CheckpointBackend, type Persistence } from "./compacting-agent-suite.js";
import { HOOK_TIMEOUT, ReplayWorker, SWE_SESSION_ID, TEST_WINDOW, describeMessage, loadReplay, type ObservedRequest } from "./replay-driver.js";

interface Snapshot {
  readonly messageIds: (string | undefined)[];
  readonly logIds: string[];
}

async function openPostgres(url: string, schema: string): Promise<Persistence> {
  const checkpointer = PostgresSaver.fromConnString(url, { schema });
  const store = PostgresStore.fromConnString(url, { schema });
  // Idempotent migrations: every worker runs them on start, as a deployment would.
  await checkpointer.setup();
  await store.setup();
  return {
    checkpointer,
    store,
    async close() {
      await checkpointer.end();
      await store.stop();
    },
  };
}

/** A record without the fields the full log adds (`sequence`, `previous`, `logged`). */
const withoutLogFields = ({ sequence: _sequence, previous: _previous, logged: _logged, ...rest }: CompactionRecord) => rest;

describeWithPostgres("PostgreSQL checkpointer and store", (url) => {
  const schemas: TestSchema[] = [];
  const newSchema = async () => {
    const schema = await createTestSchema(url);
    schemas.push(schema);
    return schema.name;
  };
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  compactingAgentSuite(async (): Promise<CheckpointBackend> => {
    const schema = await newSchema();
    return { archive: "store", open: () => openPostgres(url, schema) };
  });

  describe("two workers, each with its own graph and connections, take turns on one thread at every step", () => {
    const replay = loadReplay(SWE_SESSION_ID);
    const threadId = `workers/${SWE_SESSION_ID}`;
    const requests: ObservedRequest[] = [];
    /** Before each step, and once after the last: what the previous step's worker left and what this one found. */
    const handovers: { worker: number; left: Snapshot; found: Snapshot }[] = [];
    /** The compaction records each step made, and by which worker. */
    const steps: { worker: number; records: CompactionRecord[] }[] = [];
    let connections: Persistence[] = [];
    let final: Awaited<ReturnType<ReplayWorker["state"]>>;

    beforeAll(async () => {
      const schema = await newSchema();
      connections = [await openPostgres(url, schema), await openPostgres(url, schema)];
      const workers = connections.map((connection) => new ReplayWorker(replay, connection, requests));
      const snapshot = async (worker: ReplayWorker): Promise<Snapshot> => {
        const state = await worker.state(threadId);
        return { messageIds: (state.messages ?? []).map((message) => message.id), logIds: (state.compactionLog ?? []).map((record) => record.id) };
      };
      let turn = 0;
      let left = await snapshot(workers[0]!);
      for (let step = 0; ; step++) {
        const index = step % 2;
        const worker = workers[index]!;
        handovers.push({ worker: index, left, found: await snapshot(worker) });
        const action = await worker.nextStep(threadId, turn);
        if (action === "over") break;
        const known = worker.records.length;
        turn = await worker.step(threadId, turn, action);
        steps.push({ worker: index, records: worker.records.slice(known) });
        left = await snapshot(worker);
      }
      final = await workers[0]!.state(threadId);
    }, HOOK_TIMEOUT);
    afterAll(async () => {
      for (const connection of connections) await connection.close();
    });

    it("finishes the session, one model call per step", () => {
      expect(requests).toHaveLength(replay.modelCalls);
      expect(steps).toHaveLength(replay.modelCalls);
    });

    it("starts every step from exactly the state the other worker checkpointed", () => {
      expect(handovers.map((handover) => handover.found)).toEqual(handovers.map((handover) => handover.left));
    });

    it("hands every compaction to the other worker, whose next step starts from it", () => {
      const handed = steps.flatMap((step, position) =>
        step.records
          .filter((record) => record.status !== "failed")
          .map((record) => {
            const next = handovers[position + 1]!;
            return { maker: step.worker, taker: next.worker, seen: next.found.logIds.includes(record.id) };
          }),
      );
      expect(handed.length).toBeGreaterThanOrEqual(3);
      expect(handed.map(({ maker, taker, seen }) => maker !== taker && seen)).toEqual(handed.map(() => true));
    });

    it("persists one compaction log: every step's records, in the order the workers made them", async () => {
      const log = await readCompactionLog(final, { store: connections[0]!.store!, threadId });
      expect(log.map(withoutLogFields)).toEqual(steps.flatMap((step) => step.records).map(withoutLogFields));
    });

    it("never sends the model more than the window, whichever worker calls it", () => {
      expect(requests.filter((request) => request.tokens > TEST_WINDOW)).toEqual([]);
      expect(requests.map((request) => request.pairingProblems)).toEqual(requests.map(() => []));
    });

    it("restores the whole session from the store both workers archived in", async () => {
      const restored = await restoreHistory(final, { store: connections[1]!.store!, threadId });
      expect(restored.map(describeMessage)).toEqual(replay.expectedHistory.map(describeMessage));
    });
  });
});

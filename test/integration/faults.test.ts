/**
 * Faults under load, on PostgreSQL (PostgresSaver + PostgresStore), with the scale benchmark's graph
 * (bench/scale): a worker process killed between the compaction node and the model node, one killed
 * in the middle of the archive write, the database restarted mid-run, and a store write that fails.
 * In every case the thread goes on from its last checkpoint and, at the end, `restoreHistory` gives
 * back the recorded session message by message (nothing lost, nothing duplicated, no archive entry
 * missing), and tool pairing held at every model call. Skipped locally without a server, failing
 * under CI (see test/support/postgres.ts).
 */
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { openPostgres, type BackendSpec, type Persistence } from "../../bench/scale/backends.js";
import { runWorkers, type WorkersResult } from "../../bench/scale/coordinator.js";
import { FaultStore } from "../../bench/scale/fault-store.js";
import { ThreadRunner } from "../../bench/scale/runner.js";
import { checkThreads } from "../../bench/scale/scenario.js";
import { planThreads, type ThreadPlan } from "../../bench/scale/threads.js";
import { compacted, type ThreadCheck } from "../../bench/scale/verify.js";
import { readCompactionLog, type CompactionRecord } from "../../src/index.js";
import { createTestSchema, describeWithPostgres, type TestSchema } from "../support/postgres.js";

const run = promisify(execFile);
// Every step's checkpoint committed before the next step runs (LangGraph's `durability: "sync"`; the
// default "async" writes it while the next step runs), so each kill lands at the checkpoint the case
// names. Nothing here depends on it for correctness: with SCALE_DURABILITY=async every thread of every
// case restores exactly too (only where the kill lands moves). A step killed or cut after its task's
// writes were saved but before its checkpoint leaves `next: []` with the task in `tasks`; the harness
// resumes such a thread (see nextAction in bench/scale/threads.ts). Worker processes inherit the
// variable (bench/scale/threads.ts reads it).
process.env["SCALE_DURABILITY"] = process.env["SCALE_DURABILITY"] ?? "sync";
const sessions = loadTraceSessions(BUNDLED_TRACES_PATH);
/** The SWE-bench session (96 model calls, ~31k tokens) compacts several times in this window. */
const WINDOW = 8_000;
const TIMEOUT = 120_000;

/** What a correct thread looks like to `checkThread`: everything restored, nothing else. */
const clean = (check: ThreadCheck) => ({ threadId: check.threadId, lost: 0, duplicated: 0, mismatched: false, unrestorable: null });
const verdict = (check: ThreadCheck) => ({ threadId: check.threadId, lost: check.lost, duplicated: check.duplicated, mismatched: check.mismatched, unrestorable: check.unrestorable });

/** The compactions of a log, by the newest message each one saw (a compaction run twice on one history would repeat it). */
const compactedAt = (log: readonly CompactionRecord[]) => log.filter(compacted).map((record) => record.lastMessageId);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describeWithPostgres("faults under load", (url) => {
  const schemas: TestSchema[] = [];
  const backendIn = async (): Promise<Extract<BackendSpec, { kind: "postgres" }>> => {
    const schema = await createTestSchema(url, "compaction_faults");
    schemas.push(schema);
    await (await openPostgres(url, schema.name)).close();
    return { kind: "postgres", url, schema: schema.name };
  };
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  describe.each([
    { fault: "between the compaction node and the model node", faults: { blockBeforeModelAfterCompaction: true }, at: "before-model", next: ["model"], inModel: false },
    { fault: "in the middle of the compaction node's archive write", faults: { blockAfterStoreWrite: true }, at: "store-write", next: ["compact"], inModel: false },
    // compactingNode writes the archive while the model is called: the step may have called the model when it was killed.
    { fault: "in the middle of the archive write inside the model node", faults: { blockAfterStoreWrite: true }, at: "store-write", next: ["model"], inModel: true },
  ] as const)("a worker process killed $fault", ({ faults, at, next, inModel }) => {
    const threads: ThreadPlan[] = planThreads(sessions, 2, `killed-${at}${inModel ? "-in-model" : ""}`);
    let backend: Extract<BackendSpec, { kind: "postgres" }>;
    let result: WorkersResult;
    const blocked: { at: string; threadId: string; detail: string; next: string[]; logIds: string[]; written: boolean }[] = [];
    let checks: ThreadCheck[] = [];
    let finalLogs: CompactionRecord[][] = [];

    beforeAll(async () => {
      backend = await backendIn();
      const observer: Persistence = await openPostgres(url, backend.schema, false);
      // The same graph as the workers', so the checkpoint's pending nodes (`next`) read the same.
      const reader = new ThreadRunner({ sessions, persistence: observer, window: WINDOW, inModel });
      try {
        result = await runWorkers({
          tracesPath: BUNDLED_TRACES_PATH,
          threads,
          backend,
          window: WINDOW,
          inModel,
          workers: 2,
          faults,
          onBlocked: async (worker, message) => {
            const plan = threads.find((each) => each.threadId === message.threadId)!;
            const { values, next: pending } = await reader.state(plan.threadId, plan.session);
            const [namespace, key] = [message.detail.split("/").slice(0, -1), message.detail.split("/").at(-1)!];
            const written = message.at === "store-write" ? (await observer.store!.get(namespace, key)) !== null : false;
            blocked.push({ at: message.at, threadId: message.threadId, detail: message.detail, next: pending, logIds: (values.compactionLog ?? []).map((record) => record.id), written });
            worker.kill();
          },
        });
        // The state keeps only the newest records; the whole log is in the store.
        for (const plan of threads) finalLogs.push(await readCompactionLog((await reader.state(plan.threadId, plan.session)).values, { store: observer.store!, threadId: plan.threadId }));
      } finally {
        await observer.close();
      }
      checks = await checkThreads(BUNDLED_TRACES_PATH, backend, threads);
    }, TIMEOUT);

    it("stopped the worker once, at the fault, with the thread's checkpoint before the interrupted node", () => {
      expect(blocked.map(({ at, next: pending }) => ({ at, next: pending }))).toEqual([{ at, next: [...next] }]);
      if (at === "before-model") expect(blocked[0]!.logIds).toContain(blocked[0]!.detail);
      else expect(blocked[0]!.written).toBe(true);
    });

    it("replaced the killed worker and finished every thread without a failed unit", () => {
      expect([result.deadWorkers, result.abandoned, result.unitErrors]).toEqual([1, [], []]);
    });

    it("resumed from the checkpoint: no compaction ran twice on one history", () => {
      const killed = threads.findIndex((plan) => plan.threadId === blocked[0]!.threadId);
      const points = compactedAt(finalLogs[killed]!);
      expect(points.length).toBeGreaterThanOrEqual(2);
      expect(new Set(points).size).toBe(points.length);
      if (at === "before-model") expect(finalLogs[killed]!.filter((record) => record.id === blocked[0]!.detail)).toHaveLength(1);
    });

    it("restores every thread to its recorded session, message by message", () => {
      expect(checks.map(verdict)).toEqual(checks.map(clean));
    });

    it("kept tool pairing valid at every model call", () => {
      expect(result.pairingFailures).toEqual([]);
    });
  });

  describe.each([
    { onError: "continue" as const, expectedErrors: 0, expectedFailedRecords: 1, inModel: false },
    { onError: "throw" as const, expectedErrors: 1, expectedFailedRecords: 0, inModel: false },
    { onError: "continue" as const, expectedErrors: 0, expectedFailedRecords: 1, inModel: true },
    { onError: "throw" as const, expectedErrors: 1, expectedFailedRecords: 0, inModel: true },
  ])("a store write that fails (onError: $onError, inside the model node: $inModel)", ({ onError, expectedErrors, expectedFailedRecords, inModel }) => {
    const [plan] = planThreads(sessions, 1, `store-fails-${onError}${inModel ? "-in-model" : ""}`);
    let errors: string[] = [];
    let log: CompactionRecord[] = [];
    let checks: ThreadCheck[] = [];
    let pairingFailures = 0;
    let failedWrites = 0;

    beforeAll(async () => {
      const backend = await backendIn();
      const persistence = await openPostgres(url, backend.schema, false);
      const store = new FaultStore(persistence.store!, {
        beforeWrite: () => {
          if (failedWrites++ === 0) throw new Error("connection reset by peer (injected)");
        },
      });
      const runner = new ThreadRunner({ sessions, persistence, window: WINDOW, inModel, store, compactionOptions: { onError } });
      try {
        errors = await runner.runThreadResuming(plan!.threadId, plan!.session, { delayMs: 0 });
        log = await readCompactionLog((await runner.state(plan!.threadId, plan!.session)).values, { store: persistence.store!, threadId: plan!.threadId });
        pairingFailures = runner.takeMetrics().pairingFailures.length;
      } finally {
        await persistence.close();
      }
      checks = await checkThreads(BUNDLED_TRACES_PATH, backend, [plan!]);
    }, TIMEOUT);

    it(onError === "continue" ? "logs a failed compaction and goes on with the history unchanged" : "fails the step, which resumes from its last checkpoint", () => {
      expect(errors.map((error) => error.includes("could not archive compaction") && error.includes("injected"))).toEqual(Array.from({ length: expectedErrors }, () => true));
      const failed = log.filter((record) => record.status === "failed");
      expect(failed.map((record) => [record.archive, record.reason?.includes("could not archive compaction")])).toEqual(Array.from({ length: expectedFailedRecords }, () => ["none", true]));
    });

    it("compacts at the next step and restores the recorded session, message by message", () => {
      expect(compactedAt(log).length).toBeGreaterThanOrEqual(2);
      expect(new Set(compactedAt(log)).size).toBe(compactedAt(log).length);
      expect(checks.map(verdict)).toEqual(checks.map(clean));
      expect(pairingFailures).toBe(0);
    });
  });

  describe("the database restarted twice mid-run", () => {
    const threads = planThreads(sessions, 3, "restarted");
    const env: Record<string, string> = {};
    let serverUrl = "";
    let errors: string[][] = [];
    let checks: ThreadCheck[] = [];
    let startTimes: string[] = [];
    let pairingFailures = 0;

    const startedAt = async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        return String((await client.query("SELECT pg_postmaster_start_time() AS at")).rows[0].at.toISOString());
      } finally {
        await client.end();
      }
    };

    beforeAll(async () => {
      // A server of this suite's own: restarting the shared one would cut the other suites' connections.
      // The script creates the directory (owned by the server's user when run as root) and --stop deletes it.
      const port = await freePort();
      Object.assign(env, process.env, { LANGCHAIN_COMPACTION_POSTGRES_PORT: String(port), LANGCHAIN_COMPACTION_POSTGRES_DIR: join(tmpdir(), `compaction-faults-postgres-${port}`) });
      const started = await run("bash", ["scripts/start-postgres.sh"], { env });
      serverUrl = /LANGCHAIN_COMPACTION_POSTGRES_URL=(\S+)/u.exec(started.stdout)![1]!;
      startTimes.push(await startedAt());
      const persistence = await openPostgres(serverUrl, "faults_restart");
      let calls = 0;
      const restarts: Promise<unknown>[] = [];
      const runner = new ThreadRunner({
        sessions,
        persistence,
        window: WINDOW,
        hooks: {
          onModelCall: () => {
            // Not awaited: the restart lands while the other threads' steps are in flight.
            if (++calls === 20 || calls === 60) restarts.push(run("bash", ["scripts/start-postgres.sh", "--restart"], { env }).then(async () => startTimes.push(await startedAt())));
          },
        },
      });
      try {
        errors = await Promise.all(threads.map((plan) => runner.runThreadResuming(plan.threadId, plan.session)));
        await Promise.all(restarts);
        pairingFailures = runner.takeMetrics().pairingFailures.length;
      } finally {
        await persistence.close();
      }
      checks = await checkThreads(BUNDLED_TRACES_PATH, { kind: "postgres", url: serverUrl, schema: "faults_restart" }, threads);
    }, TIMEOUT);
    afterAll(async () => {
      if (env["LANGCHAIN_COMPACTION_POSTGRES_DIR"]) await run("bash", ["scripts/start-postgres.sh", "--stop"], { env });
    });

    it("restarted the server twice while threads ran", () => {
      expect(new Set(startTimes).size).toBe(3);
    });

    it("failed only steps whose connection the restart cut, and resumed them from their checkpoints", () => {
      const cut = /terminat|shutting down|ECONNREFUSED|ECONNRESET|Connection terminated|connection error|the database system is (starting up|shutting down)|not yet accepting/iu;
      expect(errors.flat().filter((error) => !cut.test(error))).toEqual([]);
    });

    it("restores every thread to its recorded session, message by message, with pairing valid at every call", () => {
      expect(checks.map(verdict)).toEqual(checks.map(clean));
      expect(pairingFailures).toBe(0);
    });
  });
});

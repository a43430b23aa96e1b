/**
 * A worker process of the scale run (forked by the coordinator with `--import tsx`): opens its own
 * connections to the shared database, then runs the units of work it is handed, `concurrency` at a
 * time, reporting each with what it measured. See protocol.ts.
 */
import type { CompactionRecord } from "../../src/index.js";
import { loadTraceSessions } from "../../examples/traces.js";
import { openBackend, type Persistence } from "./backends.js";
import { FaultStore } from "./fault-store.js";
import type { FromWorker, ToWorker, WorkerInit } from "./protocol.js";
import { ThreadRunner } from "./runner.js";
import type { ScaleStateValues } from "./graph.js";

const send = (message: FromWorker) => process.send!(message);
const forever = () => new Promise<never>(() => {});

function faultyRunner(init: WorkerInit, persistence: Persistence): ThreadRunner {
  const sessions = loadTraceSessions(init.tracesPath);
  const faults = init.faults ?? {};
  let threadOfWrite = "";
  let blocked = false;
  const store =
    faults.blockAfterStoreWrite && persistence.store
      ? new FaultStore(persistence.store, {
          afterWrite: async (write) => {
            if (blocked) return;
            blocked = true;
            send({ type: "blocked", at: "store-write", threadId: threadOfWrite, detail: [...write.namespace, write.key].join("/") });
            await forever();
          },
        })
      : undefined;
  /** Compaction ids each thread's model calls have seen, to spot the call right after a compaction. */
  const seen = new Map<string, Set<string>>();
  const runner: ThreadRunner = new ThreadRunner({
    sessions,
    persistence,
    window: init.window ?? undefined,
    inModel: init.inModel ?? false,
    modelMs: init.modelMs ?? 0,
    store,
    hooks: {
      onCompactionNode: () => {},
      onModelCall: async (call) => {
        if (!faults.blockBeforeModelAfterCompaction || blocked) return;
        const session = sessionOf.get(call.threadId)!;
        const { values } = await runner.state(call.threadId, session);
        const log: readonly CompactionRecord[] = (values as Partial<ScaleStateValues>).compactionLog ?? [];
        const known = seen.get(call.threadId) ?? new Set<string>();
        seen.set(call.threadId, known);
        const fresh = log.filter((record) => record.status !== "failed" && record.status !== "noop" && record.status !== "repaired" && !known.has(record.id));
        for (const record of log) known.add(record.id);
        if (fresh.length === 0) return;
        blocked = true;
        // The checkpoint after the compaction node is written while the model node runs (LangGraph's
        // default "async" durability): wait for it, so the kill lands between the two nodes.
        for (;;) {
          const { next } = await runner.state(call.threadId, session);
          if (next.includes("model")) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        send({ type: "blocked", at: "before-model", threadId: call.threadId, detail: fresh.at(-1)!.id });
        await forever();
      },
    },
  });
  // Which thread a store write belongs to is not in the write: the compaction node of the unit in flight.
  runnerThread = (threadId) => (threadOfWrite = threadId);
  return runner;
}

let runnerThread: (threadId: string) => void = () => {};
const sessionOf = new Map<string, number>();

async function main(): Promise<void> {
  let runner: ThreadRunner | undefined;
  let persistence: Persistence | undefined;
  const queue: { threadId: string; session: number }[] = [];
  let running = 0;
  let concurrency = 1;
  let stopping = false;

  const pump = () => {
    while (runner && running < concurrency && queue.length > 0) {
      const unit = queue.shift()!;
      running++;
      sessionOf.set(unit.threadId, unit.session);
      runnerThread(unit.threadId);
      runner
        .runUnit(unit.threadId, unit.session)
        .then(
          (action) => send({ type: "done", threadId: unit.threadId, action: action.kind, metrics: runner!.takeMetrics() }),
          (error: unknown) => send({ type: "done", threadId: unit.threadId, action: null, error: error instanceof Error ? error.message : String(error), metrics: runner!.takeMetrics() }),
        )
        .finally(() => {
          running--;
          pump();
          if (stopping && running === 0) void shutdown();
        });
    }
  };
  const shutdown = async () => {
    await persistence?.close();
    process.disconnect?.();
    process.exit(0);
  };

  process.on("message", (message: ToWorker) => {
    if (message.type === "init") {
      concurrency = message.concurrency;
      openBackend(message.backend, false).then(
        (opened) => {
          persistence = opened;
          runner = faultyRunner(message, opened);
          send({ type: "ready", pid: process.pid });
          pump();
        },
        (error: unknown) => send({ type: "fatal", error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
    } else if (message.type === "unit") {
      queue.push({ threadId: message.threadId, session: message.session });
      pump();
    } else if (message.type === "stop") {
      stopping = true;
      if (running === 0) void shutdown();
    }
  });
}

await main();

/**
 * The latency scenario with one process per system (forked with `--import tsx`), one at a time by
 * default: each system's threads share an event loop, a heap and the machine's cores only with each
 * other, so the checkpointing, token counting and garbage of one system do not land inside another
 * system's steps. Run alone as the child: it gets its settings over IPC, runs its system and
 * sends the run back.
 */
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { loadTraceSessions } from "../../examples/traces.js";
import { LATENCY_SYSTEMS, runLatency, type LatencyRun, type LatencySettings, type LatencySystem } from "./scenario.js";

/** Which recorded sessions to replay: a JSONL file and the ids of the sessions in it. */
export interface SessionSource {
  readonly tracesPath: string;
  readonly sessionIds: readonly string[];
}

interface Job {
  readonly source: SessionSource;
  readonly settings: LatencySettings;
}

type FromChild = { type: "done"; run: LatencyRun } | { type: "failed"; error: string };

const CHILD_PATH = fileURLToPath(import.meta.url);

function sessionsOf(source: SessionSource) {
  const wanted = new Set(source.sessionIds);
  return loadTraceSessions(source.tracesPath).filter((session) => wanted.has(session.id));
}

/** Run one system in a child process. */
function runChild(job: Job, system: LatencySystem): Promise<LatencyRun> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD_PATH, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result: FromChild | undefined;
    child.on("message", (message: FromChild) => {
      result = message;
      child.disconnect();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (result?.type === "done") resolve(result.run);
      else reject(new Error(`latency ${system}: ${result?.type === "failed" ? result.error : `the process exited with code ${code}`}`));
    });
    child.send({ ...job, settings: { ...job.settings, systems: [system] } } satisfies Job);
  });
}

/**
 * Run every system of `settings`, each in its own process, at most `processes` at once (by default
 * one: a neighbour process, even one per core, measures how the machine is shared as much as the
 * system), in the order of `settings.systems`; the threads of all merged.
 */
export async function runLatencyInProcesses(
  source: SessionSource,
  settings: LatencySettings,
  log: (line: string) => void = () => {},
  processes = 1,
): Promise<LatencyRun> {
  const systems = settings.systems ?? LATENCY_SYSTEMS;
  const started = performance.now();
  const runs: LatencyRun[] = new Array<LatencyRun>(systems.length);
  let next = 0;
  const worker = async () => {
    while (next < systems.length) {
      const position = next++;
      const system = systems[position]!;
      const run = await runChild({ source, settings }, system);
      log(`  latency: ${system} done in ${(run.wallMs / 1000).toFixed(1)} s`);
      runs[position] = run;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(processes, systems.length)) }, worker));
  return {
    settings,
    sessions: runs[0]?.sessions ?? [],
    threads: runs.flatMap((run) => run.threads),
    gcPauses: Object.assign({}, ...runs.map((run) => run.gcPauses)) as LatencyRun["gcPauses"],
    wallMs: performance.now() - started,
  };
}

if (process.send && process.argv[1] === CHILD_PATH) {
  process.once("message", (job: Job) => {
    runLatency(sessionsOf(job.source), job.settings)
      .then((run) => ({ type: "done", run }) satisfies FromChild)
      .catch((error: unknown) => ({ type: "failed", error: error instanceof Error ? (error.stack ?? error.message) : String(error) }) satisfies FromChild)
      // Exit once the message is out: nothing of the run is needed any more.
      .then((message) => process.send!(message, () => process.exit(0)));
  });
}

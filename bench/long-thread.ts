/**
 * Scenario: one long createAgent thread. A scripted model reads a 400-token file at every step,
 * `compactionMiddleware(autoCompaction({ contextWindow: 8_000 }))` keeps the messages small, the
 * originals and the full compaction log go to an `InMemoryStore`, and a `SqliteSaver` (in memory)
 * checkpoints every step. Reports, by fifth of the run, the wall time per model call, the bytes of
 * the state besides its messages (the largest seen), and the checkpoint bytes written per step.
 *
 *   npx tsx bench/long-thread.ts [--steps <n>]   # alone; `npm run bench` runs it too
 *
 * Targets: the last fifth at most 1.25x the first, the state besides its messages at most 20 kB.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { autoCompaction, readCompactionLog } from "../src/index.js";
import { compactionMiddleware } from "../src/middleware/index.js";
import { formatMs, formatRatio, renderTable } from "./measure.js";
import { seededRandom } from "./synthetic.js";

/** Steps of `npm run bench` (at least 1,500, the issue's figure). */
export const LONG_THREAD_STEPS = 1_500;
/** The state besides its messages may take at most this many bytes. */
export const STATE_BUDGET_BYTES = 20_000;
/** The last fifth's time per step may be at most this multiple of the first's. */
export const SLOWDOWN_TARGET = 1.25;

const WORDS = ["config", "value", "return", "const", "function", "import", "export", "handler", "request", "response", "error", "thread", "state", "buffer", "stream"];

/** A file of about 400 tokens (one word and a space, about one token each), different per step. */
function fileText(random: () => number): string {
  return Array.from({ length: 400 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

/** One fifth of the run. */
export interface LongThreadFifth {
  readonly steps: [number, number];
  readonly msPerStep: number;
  /** The process's CPU time per step (user + system): less moved than wall time by other processes on a shared machine. */
  readonly cpuMsPerStep: number;
  /** Checkpoint and pending-write bytes SQLite received per step in the fifth. */
  readonly checkpointBytesPerStep: number;
  /** The largest state besides its messages seen at the fifth's checkpoints (JSON bytes). */
  readonly stateBytes: number;
}

export interface LongThreadResult {
  readonly steps: number;
  readonly fifths: LongThreadFifth[];
  readonly slowdown: number;
  /** The same ratio by CPU time. */
  readonly cpuSlowdown: number;
  readonly maxStateBytes: number;
  /** JSON bytes of each channel besides `messages` at the end. */
  readonly channelBytesAtEnd: Record<string, number>;
  readonly messagesAtEnd: number;
  readonly messagesBytesAtEnd: number;
  /** Records in the state's `compactionLog` at the end, and in the whole log (`readCompactionLog`). */
  readonly windowRecords: number;
  readonly logRecords: number;
}

/** The bytes SQLite holds for all checkpoints and pending writes. */
function sqliteBytes(saver: SqliteSaver): number {
  const db = (saver as unknown as { db: { prepare(sql: string): { get(): { bytes: number | null } } } }).db;
  const checkpoints = db.prepare("SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) AS bytes FROM checkpoints").get().bytes ?? 0;
  const writes = db.prepare("SELECT COALESCE(SUM(LENGTH(value)), 0) AS bytes FROM writes").get().bytes ?? 0;
  return checkpoints + writes;
}

/** The channel values of the thread's latest checkpoint, as SqliteSaver stored them (JSON). */
function latestChannelValues(saver: SqliteSaver): Record<string, unknown> {
  const db = (saver as unknown as { db: { prepare(sql: string): { get(): { checkpoint: Uint8Array | string } | undefined } } }).db;
  const row = db.prepare("SELECT checkpoint FROM checkpoints WHERE checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1").get();
  if (row === undefined) return {};
  const text = typeof row.checkpoint === "string" ? row.checkpoint : Buffer.from(row.checkpoint).toString("utf8");
  return (JSON.parse(text) as { channel_values: Record<string, unknown> }).channel_values;
}

/** JSON bytes of a state's channels besides `messages`, and of its messages. */
function stateSizes(values: Record<string, unknown>): { besides: number; messages: number } {
  const { messages, ...rest } = values;
  return { besides: Buffer.byteLength(JSON.stringify(rest)), messages: Buffer.byteLength(JSON.stringify(messages ?? [])) };
}

/** Runs the thread and measures it. */
export async function longThread(steps = LONG_THREAD_STEPS, log: (line: string) => void = () => undefined): Promise<LongThreadResult> {
  const random = seededRandom(46);
  const saver = SqliteSaver.fromConnString(":memory:");
  const store = new InMemoryStore();
  const readFile = tool(async ({ path }: { path: string }, config) => new ToolMessage({ content: fileText(random), tool_call_id: config.toolCall!.id!, name: "read_file", id: `t-${path}` }), {
    name: "read_file",
    description: "read a file",
    schema: z.object({ path: z.string() }),
  });
  const config = { configurable: { thread_id: "long" }, recursionLimit: 4 * steps + 10 };
  const fifth = Math.ceil(steps / 5);
  const callTimes: number[] = [];
  const cpuTimes: number[] = [];
  const bytesAt: number[] = [];
  const stateBytes: number[] = Array(5).fill(0);
  const model = fakeModel();
  const measuring = { ms: 0, cpuMs: 0 };
  for (let step = 1; step <= steps + 1; step++) {
    const respond = (_messages: BaseMessage[]) => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      const cpuMs = (cpu.user + cpu.system) / 1000;
      // The clocks less the time spent measuring: summing the checkpoint table's bytes reads every
      // checkpoint so far, so it costs more at every step and would count as the thread slowing down.
      callTimes.push(started - measuring.ms);
      cpuTimes.push(cpuMs - measuring.cpuMs);
      bytesAt.push(sqliteBytes(saver));
      // Sampled every 25 steps: the state as the latest checkpoint holds it.
      if (step % 25 === 0 || step === steps) {
        const index = Math.min(4, Math.floor((step - 1) / fifth));
        stateBytes[index] = Math.max(stateBytes[index]!, stateSizes(latestChannelValues(saver)).besides);
      }
      const after = process.cpuUsage();
      measuring.ms += performance.now() - started;
      measuring.cpuMs += (after.user + after.system) / 1000 - cpuMs;
      if (step % 300 === 0) log(`  long thread: step ${step}`);
      if (step > steps) return new AIMessage({ id: `final`, content: "done" });
      return new AIMessage({ id: `a${step}`, content: `reading file ${step}`, tool_calls: [{ id: `c${step}`, name: "read_file", args: { path: `src/file-${step}.ts` } }] });
    };
    model.respond(respond as never);
  }
  const agent = createAgent({
    model,
    tools: [readFile],
    middleware: [compactionMiddleware(autoCompaction({ contextWindow: 8_000 }))],
    checkpointer: saver,
    store,
  });
  await agent.invoke({ messages: [{ role: "user", content: "read every file" }] }, config);
  const { values } = await agent.graph.getState(config);
  const sizes = stateSizes(values);
  const fifths: LongThreadFifth[] = [];
  for (let index = 0; index < 5; index++) {
    const first = index * fifth;
    const last = Math.min(steps, (index + 1) * fifth);
    fifths.push({
      steps: [first + 1, last],
      msPerStep: (callTimes[last]! - callTimes[first]!) / (last - first),
      cpuMsPerStep: (cpuTimes[last]! - cpuTimes[first]!) / (last - first),
      checkpointBytesPerStep: (bytesAt[last]! - bytesAt[first]!) / (last - first),
      stateBytes: stateBytes[index]!,
    });
  }
  const fullLog = await readCompactionLog(values as never, { store, threadId: "long" });
  return {
    steps,
    fifths,
    slowdown: fifths[4]!.msPerStep / fifths[0]!.msPerStep,
    cpuSlowdown: fifths[4]!.cpuMsPerStep / fifths[0]!.cpuMsPerStep,
    maxStateBytes: Math.max(sizes.besides, ...stateBytes),
    channelBytesAtEnd: Object.fromEntries(Object.entries(values).filter(([name]) => name !== "messages").map(([name, value]) => [name, Buffer.byteLength(JSON.stringify(value))])),
    messagesAtEnd: (values["messages"] as unknown[]).length,
    messagesBytesAtEnd: sizes.messages,
    windowRecords: (values["compactionLog"] as unknown[]).length,
    logRecords: fullLog.length,
  };
}

/** The result as a table and the target verdicts. */
export function longThreadReport(result: LongThreadResult): string {
  const rows = result.fifths.map((fifth) => [
    `${fifth.steps[0]}-${fifth.steps[1]}`,
    formatMs(fifth.msPerStep),
    formatMs(fifth.cpuMsPerStep),
    (fifth.checkpointBytesPerStep / 1000).toFixed(1),
    (fifth.stateBytes / 1000).toFixed(1),
  ]);
  const lines = [
    `Long thread: createAgent + compactionMiddleware(autoCompaction({ contextWindow: 8_000 })), a 400-token file read per step, InMemoryStore, SqliteSaver (in memory), ${result.steps} steps`,
    renderTable(["steps", "ms per step", "CPU ms per step", "checkpoint kB per step", "state besides messages, kB (max)"], rows, new Set([1, 2, 3, 4])),
    `at the end: ${result.messagesAtEnd} messages (${(result.messagesBytesAtEnd / 1000).toFixed(1)} kB); compactionLog holds ${result.windowRecords} of the log's ${result.logRecords} records`,
    `state besides messages at the end, kB: ${Object.entries(result.channelBytesAtEnd).map(([name, bytes]) => `${name} ${(bytes / 1000).toFixed(1)}`).join(", ")}`,
    `target: last fifth <= ${SLOWDOWN_TARGET}x the first: ${formatRatio(result.slowdown)} ${result.slowdown <= SLOWDOWN_TARGET ? "met" : "NOT met"} (by CPU time: ${formatRatio(result.cpuSlowdown)})`,
    `target: state besides messages <= ${STATE_BUDGET_BYTES / 1000} kB: ${(result.maxStateBytes / 1000).toFixed(1)} kB ${result.maxStateBytes <= STATE_BUDGET_BYTES ? "met" : "NOT met"}`,
  ];
  return lines.join("\n");
}

/** Runs the long thread for `npm run bench`: prints its report and writes bench/long-thread-results.json. */
export async function longThreadBench(log: (line: string) => void): Promise<LongThreadResult> {
  log(`long thread: ${LONG_THREAD_STEPS} steps on SqliteSaver ...`);
  const result = await longThread(LONG_THREAD_STEPS, log);
  console.log(`\n${longThreadReport(result)}\n`);
  writeFileSync(new URL("./long-thread-results.json", import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`);
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--steps");
  const steps = at === -1 ? LONG_THREAD_STEPS : Number(process.argv[at + 1]);
  longThread(steps, (line) => process.stderr.write(`${line}\n`)).then(
    (result) => console.log(longThreadReport(result)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

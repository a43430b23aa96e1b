/**
 * Threads of the scale run: which recorded session each thread replays, and one unit of work on a
 * thread (one graph invocation: resume an interrupted or failed run, or start the next user turn),
 * decided from the thread's checkpoint alone so any worker process can take any thread at any time.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { END_OF_TURN_SUFFIX, ReplaySession } from "../../examples/replay/index.js";
import type { TraceSession } from "../../examples/traces.js";
import type { ScaleGraph, ScaleStateValues } from "./graph.js";

/** One thread of the run: its id and the session it replays. */
export interface ThreadPlan {
  readonly threadId: string;
  /** Index of the session in the loaded trace file. */
  readonly session: number;
}

/**
 * `count` threads over the sessions, round-robin (thread i replays session i mod sessions), with ids
 * `<prefix>/<i>/<session id>`.
 */
export function planThreads(sessions: readonly TraceSession[], count: number, prefix: string): ThreadPlan[] {
  return Array.from({ length: count }, (_, index) => {
    const session = index % sessions.length;
    return { threadId: `${prefix}/${index}/${sessions[session]!.id}`, session };
  });
}

/** Position of each recorded message id in the recording, for {@link nextAction}. */
export function recordedPositions(replay: ReplaySession): Map<string, number> {
  return new Map(replay.recorded.map((message, position) => [message.id!, position] as const));
}

/** What the next unit of work on a thread is. */
export type NextAction = { kind: "resume" } | { kind: "start"; turn: number } | { kind: "over" };

/**
 * The next unit of work on a thread, from its checkpoint: `resume` when the last run stopped before
 * finishing (a crash, a failed step: LangGraph's checkpoint still has tasks to run or to apply), else
 * `start` of the first user turn that comes after the newest message in the state (compaction always
 * keeps the newest message, so this holds on a compacted thread), else `over`.
 *
 * A run is unfinished when the snapshot has `tasks`, not only when it has `next`: a task that
 * finished and saved its writes, whose following checkpoint was never written (the database went
 * away, the process was killed), is left out of LangGraph's `next` and its writes are shown applied
 * in `values`, yet only `invoke(null)` applies them for good and goes on; new input would start a
 * new run and drop them, with the rest of the turn.
 */
export function nextAction(
  replay: ReplaySession,
  positions: ReadonlyMap<string, number>,
  state: { values: Partial<ScaleStateValues>; next: readonly string[]; tasks: readonly unknown[] },
): NextAction {
  if (state.next.length > 0 || state.tasks.length > 0) return { kind: "resume" };
  const last: BaseMessage | undefined = state.values.messages?.at(-1);
  if (last === undefined) return replay.turns.length > 0 ? { kind: "start", turn: 0 } : { kind: "over" };
  const id = last.id ?? "";
  const recordedId = id.endsWith(END_OF_TURN_SUFFIX) ? id.slice(0, -END_OF_TURN_SUFFIX.length) : id;
  const position = positions.get(recordedId);
  if (position === undefined) throw new Error(`thread of ${replay.id}: its newest message ${id} is not in the recording`);
  const turn = replay.turns.findIndex((input) => positions.get(input[0]!.id!)! > position);
  return turn < 0 ? { kind: "over" } : { kind: "start", turn };
}

/**
 * Run one unit of work on a thread: read its checkpoint, then resume it or start its next turn (one
 * `invoke`, which runs model calls until the turn ends). Returns what was done (`over`: nothing left).
 * LangGraph's `durability` for every invocation: `SCALE_DURABILITY` (`async`, `sync` or `exit`), else
 * LangGraph's default `async`.
 */
export async function runUnit(graph: ScaleGraph, replay: ReplaySession, positions: ReadonlyMap<string, number>, threadId: string): Promise<NextAction> {
  const config = { configurable: { thread_id: threadId }, recursionLimit: 10_000, durability: (process.env["SCALE_DURABILITY"] ?? "async") as "async" | "sync" | "exit" };
  const state = await graph.getState(config);
  const action = nextAction(replay, positions, { values: state.values as Partial<ScaleStateValues>, next: state.next, tasks: state.tasks });
  if (action.kind === "resume") await graph.invoke(null, config);
  else if (action.kind === "start") await graph.invoke({ messages: replay.turns[action.turn]! }, config);
  return action;
}

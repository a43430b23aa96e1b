/**
 * Drives a recorded session through the ReAct agent graph of examples/react-agent.ts, step by step,
 * recording every model request and every compaction record the graph streamed. Shared by the
 * integration suites and the process that resumes a thread after a restart.
 */
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { createTokenCounter, validateToolPairing, type CompactionRecord, type ToolPairingProblem } from "../../src/index.js";
import { ReactAgentState, buildReactAgent, exampleCompaction } from "../../examples/react-agent.js";
import { ReplayChatModel, ReplaySession, replayTools } from "../../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";

/** The bundled sessions: a long SWE-bench run (2 turns, 96 model calls) and a 4-turn airline support chat. */
export const SWE_SESSION_ID = "mini-swe-agent/matplotlib__matplotlib-25775";
export const AIRLINE_SESSION_ID = "tau-bench-airline/task2-trial1";

/** A whole session replayed step by step on a real database takes seconds; vitest's hook default is 10 s. */
export const HOOK_TIMEOUT = 180_000;

/** The context window the tests hold the agent to: the SWE session is ~31k tokens, so it compacts several times. */
export const TEST_WINDOW = 8_000;

const tokenCounter = createTokenCounter({ model: "gpt-4o" });

export function loadReplay(sessionId: string): ReplaySession {
  const session = loadTraceSessions(BUNDLED_TRACES_PATH).find((each) => each.id === sessionId);
  if (!session) throw new Error(`no bundled session ${sessionId}`);
  return new ReplaySession(session);
}

/** One model request as the model received it. */
export interface ObservedRequest {
  readonly ids: (string | undefined)[];
  readonly tokens: number;
  readonly pairingProblems: ToolPairingProblem[];
}

/** A message reduced to what must survive persistence and restoration, for whole-array comparisons. */
export function describeMessage(message: BaseMessage) {
  return {
    type: message.type,
    id: message.id,
    content: message.content,
    toolCalls: ((message as AIMessage).tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })),
    toolCallId: (message as ToolMessage).tool_call_id ?? null,
  };
}

/** One worker's handle on a thread: its own graph instance on its own checkpointer (and store) connection. */
export class ReplayWorker {
  readonly agent;
  readonly requests: ObservedRequest[];
  readonly records: CompactionRecord[] = [];

  constructor(
    readonly replay: ReplaySession,
    persistence: { checkpointer: BaseCheckpointSaver; store?: BaseStore | undefined },
    requests: ObservedRequest[] = [],
  ) {
    this.requests = requests;
    this.agent = buildReactAgent({
      model: new ReplayChatModel(replay),
      tools: replayTools(replay),
      compaction: exampleCompaction(TEST_WINDOW, { tokenCounter }),
      checkpointer: persistence.checkpointer,
      ...(persistence.store ? { store: persistence.store } : {}),
      // One step per invocation: a thread can change hands (worker, process) between any two steps.
      interruptBefore: ["tools"],
      observe: async (messages) => {
        requests.push({
          ids: messages.map((message) => message.id),
          tokens: await tokenCounter.countMessages(messages),
          pairingProblems: validateToolPairing(messages),
        });
      },
    });
  }

  /** The thread's checkpointed state. */
  async state(threadId: string): Promise<typeof ReactAgentState.State> {
    return (await this.agent.getState({ configurable: { thread_id: threadId } })).values as typeof ReactAgentState.State;
  }

  /**
   * What the next step on `threadId` is, read from the checkpoint (so any worker or process can take
   * over): resume the interrupted run, start turn `nextTurn`, or nothing (the session is over).
   */
  async nextStep(threadId: string, nextTurn: number): Promise<"resume" | "start" | "over"> {
    // A task whose writes were saved but whose following checkpoint was not is in `tasks`, not in `next`.
    const { next, tasks } = await this.agent.getState({ configurable: { thread_id: threadId } });
    if (next.length > 0 || tasks.length > 0) return "resume";
    return nextTurn < this.replay.turns.length ? "start" : "over";
  }

  /**
   * One step of the session on `threadId`, i.e. one model call: resume the interrupted run, or start
   * turn `nextTurn` (as {@link nextStep} said). Returns the next turn to start.
   */
  async step(threadId: string, nextTurn: number, action: "resume" | "start"): Promise<number> {
    const config = { configurable: { thread_id: threadId }, recursionLimit: 1_000, streamMode: "updates" as const };
    for await (const chunk of await this.agent.stream(action === "resume" ? null : { messages: this.replay.turns[nextTurn]! }, config)) {
      const update = (chunk as { compact?: { compactionLog?: CompactionRecord[] } }).compact;
      if (update?.compactionLog) this.records.push(...update.compactionLog);
    }
    return action === "resume" ? nextTurn : nextTurn + 1;
  }

  /** Run steps until the session is over or `maxRequests` model requests were made in all; returns the next turn. */
  async run(threadId: string, nextTurn = 0, maxRequests = Number.POSITIVE_INFINITY): Promise<number> {
    let turn = nextTurn;
    while (this.requests.length < maxRequests) {
      const action = await this.nextStep(threadId, turn);
      if (action === "over") break;
      turn = await this.step(threadId, turn, action);
    }
    return turn;
  }
}

/**
 * A recorded session of the shared trace set (the one with the most user turns), replayed turn by
 * turn through a real RunnableWithMessageHistory over a CompactingChatMessageHistory. The runnable
 * replays the recorded agent: it records what it was given and returns the rest of the turn (the
 * assistant messages and tool results up to the next user message).
 */
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, RunnableWithMessageHistory } from "@langchain/core/runnables";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { CompactingChatMessageHistory, createTokenCounter, slidingWindow, toolResultHiding, type Compactor } from "../../src/index.js";
import { ids } from "../support/builders.js";
import { expectValidPairing } from "../support/invariants.js";
import { EVERY_RUN } from "../support/hiding.js";

const counter = createTokenCounter({ mode: "exact" });
const KEEP_TURNS = 2;

const sessions = loadTraceSessions(defaultTracesPath());
const userTurns = (messages: readonly BaseMessage[]) => messages.filter((message) => message.type === "human").length;
const session = sessions.reduce((best, candidate) => (userTurns(candidate.messages) > userTurns(best.messages) ? candidate : best));

/** The session cut into turns: each starts at a user message (the first also holds what precedes it). */
function turnsOf(messages: readonly BaseMessage[]): { input: BaseMessage[]; output: BaseMessage[] }[] {
  const starts = messages.flatMap((message, position) => (message.type === "human" ? [position] : []));
  return starts.map((start, turn) => {
    const end = starts[turn + 1] ?? messages.length;
    return { input: messages.slice(turn === 0 ? 0 : start, start + 1), output: messages.slice(start + 1, end) };
  });
}

interface Replay {
  readonly seen: BaseMessage[][];
  readonly history: CompactingChatMessageHistory;
  readonly compactorInputs: number[];
}

async function replay(compactor: Compactor): Promise<Replay> {
  const compactorInputs: number[] = [];
  const history = new CompactingChatMessageHistory({
    history: new InMemoryChatMessageHistory(),
    compactor: { compact: (messages, context) => (compactorInputs.push(messages.length), compactor.compact(messages, context)) },
  });
  const turns = turnsOf(session.messages);
  const seen: BaseMessage[][] = [];
  let turn = 0;
  const agent = RunnableLambda.from(async (messages: BaseMessage[]) => {
    seen.push(messages);
    return turns[turn]!.output;
  });
  const chain = new RunnableWithMessageHistory({ runnable: agent, getMessageHistory: () => history });
  for (; turn < turns.length; turn++) await chain.invoke(turns[turn]!.input, { configurable: { sessionId: session.id } });
  return { seen, history, compactorInputs };
}

describe(`CompactingChatMessageHistory over trace ${session.id}, sliding window of ${KEEP_TURNS} turns`, () => {
  const turns = turnsOf(session.messages);
  let run: Replay;
  beforeAll(async () => {
    run = await replay(slidingWindow({ keepTurns: KEEP_TURNS, tokenCounter: counter }));
  });

  it("gives the agent the system prompt, the previous two turns and the new user message each turn", () => {
    const systems = session.messages.filter((message) => message.type === "system");
    const expected = turns.map((current, index) => {
      const previous = turns.slice(Math.max(0, index - KEEP_TURNS), index).flatMap(({ input, output }) => [...input, ...output]);
      const kept = index > KEEP_TURNS ? [...systems, ...previous] : previous;
      return ids([...kept, ...current.input]);
    });
    expect(run.seen.map(ids)).toEqual(expected);
  });

  it("gives the agent a history with valid tool pairing every turn", () => {
    for (const messages of run.seen) expectValidPairing(messages);
  });

  it("keeps every message of the session, the same objects in order, in the wrapped history", async () => {
    const all = await run.history.getAllMessages();
    expect([all.length, all.every((message, position) => message === session.messages[position])]).toEqual([session.messages.length, true]);
  });

  it("compacts only the view (the last window plus the turn added since), never the whole history", () => {
    const systemCount = session.messages.filter((message) => message.type === "system").length;
    const lengthOf = (from: number, to: number) => turns.slice(from, to).reduce((sum, { input, output }) => sum + input.length + output.length, 0);
    // Turn 0 reads an empty view (nothing to compact); turn i reads the window kept at turn i-1 plus turn i-1.
    const expected = turns.slice(1).map((_, offset) => {
      const turn = offset + 1;
      const from = Math.max(0, turn - KEEP_TURNS - 1);
      return lengthOf(from, turn) + (from > 0 ? systemCount : 0);
    });
    expect(run.compactorInputs).toEqual(expected);
  });

  it("records one truncation per turn beyond the window, each removing exactly the oldest kept turn", () => {
    const expected = turns.slice(0, turns.length - KEEP_TURNS).map(({ input, output }) =>
      ids([...input, ...output].filter((message) => message.type !== "system")),
    );
    // The last turn's messages are read by no further turn, so the last compaction is the one before.
    expect(run.history.compactions.map((record) => [record.status, record.removedIds])).toEqual(
      expected.slice(0, -1).map((removed) => ["truncated", removed]),
    );
  });
});

describe(`CompactingChatMessageHistory over trace ${session.id}, tool result hiding`, () => {
  let run: Replay;
  // Oldest-first hiding alone: with superseded results hidden first, a result hidden at an earlier
  // turn keeps its placeholder where hiding the whole session at once would name a later call.
  const options = { ...EVERY_RUN, tokenCounter: counter, supersession: false };
  beforeAll(async () => {
    run = await replay(toolResultHiding(options));
  });

  it("ends with the same view as hiding the whole session at once", async () => {
    const incremental = await run.history.getMessages();
    const oneShot = (await toolResultHiding(options).compact(session.messages)).messages;
    expect(incremental.map((message) => [message.id, message.text])).toEqual(oneShot.map((message) => [message.id, message.text]));
  });

  it("keeps the full, unhidden session in the wrapped history", async () => {
    expect((await run.history.getAllMessages()).map((message) => message.text)).toEqual(session.messages.map((message) => message.text));
  });
});

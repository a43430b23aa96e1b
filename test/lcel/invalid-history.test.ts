import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, mapChatMessagesToStoredMessages, type BaseMessage } from "@langchain/core/messages";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  CompactingChatMessageHistory,
  CompactionError,
  InvalidHistoryError,
  InvalidOptionError,
  createTokenCounter,
  slidingWindow,
  withCompaction,
  type CompactionResult,
  type Compactor,
  type HistoryCompactionRecord,
} from "../../src/index.js";
import { wireProblems } from "../support/wire/index.js";
import { assistant, ids, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";

const counter = createTokenCounter({ mode: "approximate" });
const roomy = () => slidingWindow({ keepTurns: 5, tokenCounter: counter });
const AT = new Date("2025-01-01T00:00:00Z");
const stored = (messages: readonly BaseMessage[]) => mapChatMessagesToStoredMessages([...messages]);
/** What a model was given: id, type, content and the calls it lists. */
const prompt = (messages: readonly BaseMessage[]) =>
  messages.map((message) => [message.id, message.type, message.content, ...(message.type === "ai" ? [(message as AIMessage).tool_calls?.map((call) => call.id)] : [])]);

/** An orphan result (c9 was never called) and a call never answered (c0). */
const orphanAndUnanswered = () => [user("h1"), toolResult("orphan", "c9"), assistant("a0", "let me check", [{ id: "c0" }]), user("h2")];
/** A human message between a call and its result. */
const misplaced = () => [user("h1"), assistant("a1", "looking", [{ id: "c1" }]), user("h2"), toolResult("t1", "c1")];

const repairedPrompt = [
  ["h1", "human", "user h1"],
  ["a0", "ai", "let me check", []],
  ["h2", "human", "user h2"],
];

const throwing: Compactor = {
  compact: async () => {
    throw new CompactionError("model down");
  },
};

describe("withCompaction on broken tool pairing", () => {
  it("repairs by default: the model gets a valid history, onCompaction gets the repair with the originals, the input is unchanged", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const results: CompactionResult[] = [];
    const input = orphanAndUnanswered();
    const snapshot = snapshotHistory(input);
    await withCompaction(model, roomy(), { onCompaction: (result) => void results.push(result) }).invoke(input);
    const received = model.calls[0]!.messages as BaseMessage[];
    expectHistoryUnchanged(snapshot);
    expect({
      received: prompt(received),
      problems: wireProblems(received),
      results: results.map((result) => ({
        status: result.status,
        messagesBefore: result.messagesBefore,
        messagesAfter: result.messagesAfter,
        removed: result.repair!.removed.map(({ index, message }) => [index, message === input[index]]),
        replaced: result.repair!.replaced.map(({ index, before }) => [index, before === input[index]]),
      })),
    }).toEqual({
      received: repairedPrompt,
      problems: [],
      results: [{ status: "repaired", messagesBefore: 4, messagesAfter: 3, removed: [[1, true]], replaced: [[2, true]] }],
    });
  });

  it("a misplaced result is moved after its call (object input under messagesKey)", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const results: CompactionResult[] = [];
    const input = misplaced();
    await withCompaction(
      (value: { history: BaseMessage[] }) => model.invoke(value.history),
      roomy(),
      { messagesKey: "history", onCompaction: (result) => void results.push(result) },
    ).invoke({ history: input });
    expect({
      received: ids(model.calls[0]!.messages as BaseMessage[]),
      moved: results.map((result) => result.repair!.moved.map(({ index, to, message }) => [index, to, message === input[index]])),
    }).toEqual({ received: ["h1", "a1", "t1", "h2"], moved: [[[3, 2, true]]] });
  });

  it("a lone surrogate reaches the model as U+FFFD; the result's repair holds the original", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const results: CompactionResult[] = [];
    const input = [user("h1", "cut \uD83D here")];
    await withCompaction(model, roomy(), { onCompaction: (result) => void results.push(result) }).invoke(input);
    expect({
      received: (model.calls[0]!.messages as BaseMessage[]).map((message) => message.content),
      repair: results.map((result) => [result.status, result.repair!.replaced.map(({ before }) => before === input[0])]),
    }).toEqual({ received: ["cut \uFFFD here"], repair: [["repaired", [true]]] });
  });

  it("with invalidHistory: \"leave\" the strategy's InvalidHistoryError fails the run and the model is not called", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const error = await caught(() => withCompaction(model, roomy(), { invalidHistory: "leave" }).invoke(orphanAndUnanswered()));
    expect([InvalidHistoryError.isInstance(error), model.calls.length]).toEqual([true, 0]);
  });

  it("rejects an invalid invalidHistory option, naming it", async () => {
    const error = await caught(() => withCompaction(fakeModel(), roomy(), { invalidHistory: "fix" as "repair" }));
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).option]).toEqual([true, "invalidHistory"]);
  });
});

function compactingHistory(compactor: Compactor, extra: Partial<ConstructorParameters<typeof CompactingChatMessageHistory>[0]> = {}) {
  let next = 0;
  return new CompactingChatMessageHistory({ history: new InMemoryChatMessageHistory(), compactor, createId: () => `id-${++next}`, now: () => AT, ...extra });
}

const orphanRecord: HistoryCompactionRecord = {
  id: "id-1",
  at: "2025-01-01T00:00:00.000Z",
  strategy: "slidingWindow",
  status: "repaired",
  // The compactor's figures: it measured the repaired view.
  tokensBefore: 22,
  tokensAfter: 22,
  messagesBefore: 4,
  messagesAfter: 3,
  removedIds: ["orphan"],
  replacedIds: ["a0"],
  insertedIds: [],
  summaryId: null,
  reason: "2 user turn(s), within keepTurns 5",
  durationMs: 0,
  repair: {
    problems: [expect.objectContaining({ kind: "orphan-result", index: 1 }), expect.objectContaining({ kind: "unanswered-call", index: 2 })],
    removedIds: ["orphan"],
    replacedIds: ["a0"],
    movedIds: [],
  },
};

describe("CompactingChatMessageHistory on broken tool pairing", () => {
  it("repairs the view by default: getMessages is valid, the record names the repair, getAllMessages keeps the originals", async () => {
    const history = compactingHistory(roomy());
    const input = orphanAndUnanswered();
    await history.addMessages(input);
    const view = await history.getMessages();
    expect({
      view: prompt(view),
      problems: wireProblems(view),
      stored: ids(await history.viewHistory.getMessages()),
      records: history.compactions,
      all: stored(await history.getAllMessages()),
    }).toEqual({
      view: repairedPrompt,
      problems: [],
      stored: ["h1", "a0", "h2"],
      records: [orphanRecord],
      all: stored(input),
    });
  });

  it("a misplaced result is moved after its call; the record says moved", async () => {
    const history = compactingHistory(roomy());
    await history.addMessages(misplaced());
    const view = await history.getMessages();
    expect({
      view: ids(view),
      repair: history.compactions.map((record) => record.repair && { ...record.repair, problems: record.repair.problems.map((problem) => problem.kind) }),
      all: ids(await history.getAllMessages()),
    }).toEqual({
      view: ["h1", "a1", "t1", "h2"],
      repair: [{ problems: ["misplaced-result"], removedIds: [], replacedIds: [], movedIds: ["t1"] }],
      all: ["h1", "a1", "h2", "t1"],
    });
  });

  it("leaves the open calls of the last assistant message alone: their results come next", async () => {
    const history = compactingHistory(roomy());
    await history.addMessages([user("h1"), toolResult("orphan", "c9"), user("h2"), assistant("a2", "", [{ id: "c2" }])]);
    const first = await history.getMessages();
    await history.addMessages([toolResult("t2", "c2")]);
    expect([prompt(first), ids(await history.getMessages())]).toEqual([
      [
        ["h1", "human", "user h1"],
        ["h2", "human", "user h2"],
        ["a2", "ai", "", ["c2"]],
      ],
      ["h1", "h2", "a2", "t2"],
    ]);
  });

  it("a compactor that throws still gets the view repaired (a repaired record with the reason), and the next read tries again", async () => {
    let calls = 0;
    const history = compactingHistory({
      compact: async (messages, context) => {
        calls++;
        if (calls === 1) return throwing.compact(messages, context);
        return roomy().compact(messages, context);
      },
    });
    await history.addMessages(orphanAndUnanswered());
    const first = await history.getMessages();
    const second = await history.getMessages();
    expect({
      first: ids(first),
      second: ids(second),
      calls,
      records: history.compactions.map((record) => [record.status, record.strategy, record.tokensBefore, record.reason, record.removedIds, record.repair?.removedIds]),
    }).toEqual({
      first: ["h1", "a0", "h2"],
      second: ["h1", "a0", "h2"],
      calls: 2,
      records: [["repaired", "unknown", null, "CompactionError: model down", ["orphan"], ["orphan"]]],
    });
  });

  it("with onError: \"throw\" a compactor that throws fails the read and the view stays as it was", async () => {
    const history = compactingHistory(throwing, { onError: "throw" });
    await history.addMessages(orphanAndUnanswered());
    const error = await caught(() => history.getMessages());
    expect([(error as Error).message, ids(await history.viewHistory.getMessages())]).toEqual(["model down", ["h1", "orphan", "a0", "h2"]]);
  });

  it("through RunnableWithMessageHistory: the model gets the repaired history followed by the new input", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const history = compactingHistory(roomy(), { history: new InMemoryChatMessageHistory(orphanAndUnanswered()) });
    const chain = new RunnableWithMessageHistory({ runnable: model, getMessageHistory: () => history });
    await chain.invoke([user("h3")], { configurable: { sessionId: "s1" } });
    const received = model.calls[0]!.messages as BaseMessage[];
    expect([ids(received), wireProblems(received)]).toEqual([
      ["h1", "a0", "h2", "h3"],
      [],
    ]);
  });

  it("a lone surrogate in the view is replaced by U+FFFD; getAllMessages keeps the original", async () => {
    const history = compactingHistory(roomy());
    await history.addMessages([user("h1", "cut \uD83D here"), assistant("a1", "ok")]);
    expect({
      view: (await history.getMessages()).map((message) => message.content),
      all: (await history.getAllMessages()).map((message) => message.content),
      records: history.compactions.map((record) => [record.status, record.replacedIds]),
    }).toEqual({ view: ["cut \uFFFD here", "ok"], all: ["cut \uD83D here", "ok"], records: [["repaired", ["h1"]]] });
  });

  it("rejects an invalid invalidHistory option, naming it", async () => {
    const error = await caught(() => compactingHistory(roomy(), { invalidHistory: "throw" as "leave" }));
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).option]).toEqual([true, "invalidHistory"]);
  });
});

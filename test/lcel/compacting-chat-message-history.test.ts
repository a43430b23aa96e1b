import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
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
  type CompactionContext,
  type CompactionResult,
  type HistoryCompactionRecord,
  type Compactor,
} from "../../src/index.js";
import { assistant, ids, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { PrefixSummary } from "./prefix-summary.js";

const counter = createTokenCounter({ mode: "approximate" });
const AT = new Date("2025-01-01T00:00:00Z");

/** Deterministic ids (`id-1`, `id-2`...) and clock, so records can be compared whole. */
function deterministic() {
  let next = 0;
  return { createId: () => `id-${++next}`, now: () => AT };
}

function compactingHistory(compactor: Compactor, extra: Partial<ConstructorParameters<typeof CompactingChatMessageHistory>[0]> = {}) {
  return new CompactingChatMessageHistory({ history: new InMemoryChatMessageHistory(), compactor, ...deterministic(), ...extra });
}

/** A compactor that records what it was given and delegates. */
function recording(inner: Compactor) {
  const inputs: string[][] = [];
  const contexts: CompactionContext[] = [];
  const compactor: Compactor = {
    compact: async (messages, context) => {
      inputs.push(ids(messages) as string[]);
      contexts.push(context ?? {});
      return inner.compact(messages, context);
    },
  };
  return { compactor, inputs, contexts };
}

/** A compactor that always reports `failed`, as a summary strategy does when its model call fails. */
const failing: Compactor = {
  compact: async (messages): Promise<CompactionResult> => ({
    messages: [...messages],
    status: "failed",
    strategy: "summary",
    tokensBefore: 10,
    tokensAfter: 10,
    messagesBefore: messages.length,
    messagesAfter: messages.length,
    removed: [],
    replaced: [],
    reason: "summary model unavailable",
  }),
};

/** Four turns through a real RunnableWithMessageHistory whose runnable is the model itself. */
async function fourTurns(history: CompactingChatMessageHistory) {
  const model = fakeModel()
    .respond(new AIMessage({ id: "a1", content: "answer 1" }))
    .respond(new AIMessage({ id: "a2", content: "answer 2" }))
    .respond(new AIMessage({ id: "a3", content: "answer 3" }))
    .respond(new AIMessage({ id: "a4", content: "answer 4" }));
  const chain = new RunnableWithMessageHistory({ runnable: model, getMessageHistory: () => history });
  const config = { configurable: { sessionId: "s1" } };
  await chain.invoke([system("s"), user("u1")], config);
  await chain.invoke([user("u2")], config);
  await chain.invoke([user("u3")], config);
  await chain.invoke([user("u4")], config);
  return model;
}

describe("CompactingChatMessageHistory under RunnableWithMessageHistory", () => {
  it("gives the model the compacted view each turn", async () => {
    const model = await fourTurns(compactingHistory(slidingWindow({ keepTurns: 2, tokenCounter: counter })));
    expect(model.calls.map((call) => ids(call.messages))).toEqual([
      ["s", "u1"],
      ["s", "u1", "a1", "u2"],
      ["s", "u1", "a1", "u2", "a2", "u3"],
      ["s", "u2", "a2", "u3", "a3", "u4"],
    ]);
  });

  it("keeps every message in the wrapped history", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 2, tokenCounter: counter }));
    await fourTurns(history);
    expect(ids(await history.getAllMessages())).toEqual(["s", "u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]);
    expect(ids(await history.history.getMessages())).toEqual(["s", "u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]);
  });

  it("records each compaction with ids, counts and tokens", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 2, tokenCounter: counter }));
    await fourTurns(history);
    await history.getMessages();
    const all = await history.getAllMessages();
    const byId = new Map(all.map((message) => [message.id, message]));
    const tokensOf = (messageIds: string[]) => counter.countMessages(messageIds.map((id) => byId.get(id)!));
    expect(history.compactions).toEqual([
      {
        id: "id-1",
        at: "2025-01-01T00:00:00.000Z",
        strategy: "slidingWindow",
        status: "truncated",
        tokensBefore: await tokensOf(["s", "u1", "a1", "u2", "a2", "u3", "a3"]),
        tokensAfter: await tokensOf(["s", "u2", "a2", "u3", "a3"]),
        messagesBefore: 7,
        messagesAfter: 5,
        removedIds: ["u1", "a1"],
        replacedIds: [],
        insertedIds: [],
        summaryId: null,
        durationMs: 0,
      },
      {
        id: "id-2",
        at: "2025-01-01T00:00:00.000Z",
        strategy: "slidingWindow",
        status: "truncated",
        tokensBefore: await tokensOf(["s", "u2", "a2", "u3", "a3", "u4", "a4"]),
        tokensAfter: await tokensOf(["s", "u3", "a3", "u4", "a4"]),
        messagesBefore: 7,
        messagesAfter: 5,
        removedIds: ["u2", "a2"],
        replacedIds: [],
        insertedIds: [],
        summaryId: null,
        durationMs: 0,
      },
    ] satisfies HistoryCompactionRecord[]);
  });

  it("works with a prompt template, inputMessagesKey and historyMessagesKey", async () => {
    const model = fakeModel()
      .respond(new AIMessage({ id: "a1", content: "answer 1" }))
      .respond(new AIMessage({ id: "a2", content: "answer 2" }))
      .respond(new AIMessage({ id: "a3", content: "answer 3" }));
    const prompt = ChatPromptTemplate.fromMessages([["system", "Be brief."], new MessagesPlaceholder("history"), ["human", "{question}"]]);
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: () => history,
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });
    for (const question of ["q1", "q2", "q3"]) await chain.invoke({ question }, { configurable: { sessionId: "s1" } });
    expect(model.calls.map((call) => call.messages.map((message) => [message.type, message.text]))).toEqual([
      [["system", "Be brief."], ["human", "q1"]],
      [["system", "Be brief."], ["human", "q1"], ["ai", "answer 1"], ["human", "q2"]],
      [["system", "Be brief."], ["human", "q2"], ["ai", "answer 2"], ["human", "q3"]],
    ]);
    expect((await history.getAllMessages()).map((message) => [message.id, message.text])).toEqual([
      ["id-1", "q1"],
      ["a1", "answer 1"],
      ["id-2", "q2"],
      ["a2", "answer 2"],
      ["id-4", "q3"],
      ["a3", "answer 3"],
    ]);
  });
});

describe("CompactingChatMessageHistory reads", () => {
  it("compacts the previous view plus what was added since, not the whole history", async () => {
    const summary = new PrefixSummary(4, 2);
    const history = compactingHistory(summary);
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]);
    expect(ids(await history.getMessages())).toEqual(["summary-1", "a2", "u3"]);
    await history.addMessages([assistant("a3"), user("u4"), assistant("a4")]);
    expect(ids(await history.getMessages())).toEqual(["summary-2", "u4", "a4"]);
    expect(summary.inputs.map(ids)).toEqual([
      ["u1", "a1", "u2", "a2", "u3"],
      ["summary-1", "a2", "u3", "a3", "u4", "a4"],
    ]);
  });

  it("folds the earlier summary into the next one", async () => {
    const history = compactingHistory(new PrefixSummary(4, 2));
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]);
    await history.getMessages();
    await history.addMessages([assistant("a3"), user("u4"), assistant("a4")]);
    expect((await history.getMessages()).map((message) => message.text)).toEqual(["summary of summary-1,a2,u3,a3", "user u4", ""]);
  });

  it("records the inserted summary's id", async () => {
    const history = compactingHistory(new PrefixSummary(2, 1));
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    await history.getMessages();
    expect(history.compactions.map(({ removedIds, insertedIds, summaryId, status }) => ({ removedIds, insertedIds, summaryId, status }))).toEqual([
      { removedIds: ["u1", "a1"], insertedIds: ["summary-1"], summaryId: "summary-1", status: "compacted" },
    ]);
  });

  it("gives an inserted message without an id one, on a copy", async () => {
    const summaryWithoutId = new HumanMessage({ content: "the summary" });
    const compactor: Compactor = {
      compact: async (messages) => ({
        messages: [summaryWithoutId],
        status: "compacted",
        strategy: "test",
        tokensBefore: 9,
        tokensAfter: 3,
        messagesBefore: messages.length,
        messagesAfter: 1,
        removed: messages.map((message, index) => ({ index, message })),
        replaced: [],
      }),
    };
    const history = compactingHistory(compactor);
    await history.addMessages([user("u1")]);
    const view = await history.getMessages();
    expect(view.map((message) => [message.id, message.text])).toEqual([["id-1", "the summary"]]);
    expect(summaryWithoutId.id).toBeUndefined();
    // Inserted, but without the summary marker: listed in insertedIds, not as the summary.
    expect(history.compactions.map(({ insertedIds, summaryId }) => ({ insertedIds, summaryId }))).toEqual([{ insertedIds: ["id-1"], summaryId: null }]);
  });

  it("does not call the compactor again when nothing was added", async () => {
    const { compactor, inputs } = recording(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    const history = compactingHistory(compactor);
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    const first = await history.getMessages();
    const second = await history.getMessages();
    expect(inputs).toEqual([["u1", "a1", "u2"]]);
    expect(ids(second)).toEqual(ids(first));
  });

  it("returns a new array each read, so a caller's edits do not reach the view", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    await history.addMessages([user("u1")]);
    (await history.getMessages()).push(user("intruder"));
    expect(ids(await history.getMessages())).toEqual(["u1"]);
  });

  it("compacts once when two reads run at the same time, and both get the same view", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const window = slidingWindow({ keepTurns: 1, tokenCounter: counter });
    const { compactor, inputs } = recording({ compact: async (messages, context) => (await gate, window.compact(messages, context)) });
    const history = compactingHistory(compactor);
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2")]);
    const reads = [history.getMessages(), history.getMessages()];
    release();
    const [first, second] = await Promise.all(reads);
    expect([ids(first!), ids(second!)]).toEqual([
      ["u2", "a2"],
      ["u2", "a2"],
    ]);
    expect(inputs).toEqual([["u1", "a1", "u2", "a2"]]);
    expect(ids(await history.viewHistory.getMessages())).toEqual(["u2", "a2"]);
  });

  it("waits for a running compaction before appending, so no added message is lost", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const window = slidingWindow({ keepTurns: 1, tokenCounter: counter });
    const history = compactingHistory({ compact: async (messages, context) => (await gate, window.compact(messages, context)) });
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2")]);
    const read = history.getMessages();
    const write = history.addMessages([user("u3")]);
    release();
    await Promise.all([read, write]);
    expect(ids(await history.viewHistory.getMessages())).toEqual(["u2", "a2", "u3"]);
  });

  it("holds back a trailing tool call that has no result yet", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2", "", [{ id: "c1" }])]);
    expect(ids(await history.getMessages())).toEqual(["u2", "a2"]);
  });

  it("compacts tool results that are answered", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    await history.addMessages([user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1"), user("u2"), assistant("a2", "", [{ id: "c2" }])]);
    await history.addMessages([toolResult("t2", "c2"), assistant("a3")]);
    expect(ids(await history.getMessages())).toEqual(["u2", "a2", "t2", "a3"]);
  });
});

describe("CompactingChatMessageHistory failures", () => {
  it("leaves the view unchanged when the compaction fails, and records why", async () => {
    const history = compactingHistory(failing);
    await history.addMessages([user("u1"), assistant("a1")]);
    expect(ids(await history.getMessages())).toEqual(["u1", "a1"]);
    expect(history.compactions).toEqual([
      {
        id: "id-1",
        at: "2025-01-01T00:00:00.000Z",
        strategy: "summary",
        status: "failed",
        tokensBefore: 10,
        tokensAfter: 10,
        messagesBefore: 2,
        messagesAfter: 2,
        removedIds: [],
        replacedIds: [],
        insertedIds: [],
        summaryId: null,
        reason: "summary model unavailable",
        durationMs: 0,
      },
    ] satisfies HistoryCompactionRecord[]);
  });

  it("returns the unchanged view when the compactor throws, and tries again on the next read", async () => {
    let calls = 0;
    const window = slidingWindow({ keepTurns: 1, tokenCounter: counter });
    const history = compactingHistory({
      compact: async (messages, context) => {
        calls++;
        if (calls === 1) throw new CompactionError("model down");
        return window.compact(messages, context);
      },
    });
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    expect(ids(await history.getMessages())).toEqual(["u1", "a1", "u2"]);
    expect(ids(await history.viewHistory.getMessages())).toEqual(["u1", "a1", "u2"]);
    expect(ids(await history.getMessages())).toEqual(["u2"]);
  });

  it("rejects the read with onError: \"throw\", keeping the view", async () => {
    const history = compactingHistory(
      {
        compact: async () => {
          throw new CompactionError("model down");
        },
      },
      { onError: "throw" },
    );
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    expect(((await caught(() => history.getMessages())) as Error).message).toBe("model down");
    expect(ids(await history.viewHistory.getMessages())).toEqual(["u1", "a1", "u2"]);
    expect(history.compactions.map((record) => record.status)).toEqual(["failed"]);
  });

  it("rebuilds the view from the full history after a failed rewrite of the view store", async () => {
    class FlakyHistory extends InMemoryChatMessageHistory {
      failNextWrite = false;
      override async addMessages(messages: BaseMessage[]): Promise<void> {
        if (this.failNextWrite) {
          this.failNextWrite = false;
          throw new Error("store down");
        }
        return super.addMessages(messages);
      }
    }
    const view = new FlakyHistory();
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), { viewHistory: view });
    await history.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2")]);
    view.failNextWrite = true;
    expect(((await caught(() => history.getMessages())) as Error).message).toBe("store down");
    expect([ids(await history.getMessages()), history.compactions.map((record) => record.removedIds)]).toEqual([
      ["u2", "a2"],
      [["u1", "a1"]],
    ]);
  });

  it("records a compactor that threw as failed, with the error as reason", async () => {
    const history = compactingHistory({
      compact: async () => {
        throw new CompactionError("model down");
      },
    });
    await history.addMessages([user("u1"), assistant("a1")]);
    expect(ids(await history.getMessages())).toEqual(["u1", "a1"]);
    expect(history.compactions).toEqual([
      {
        id: "id-1",
        at: "2025-01-01T00:00:00.000Z",
        strategy: "unknown",
        status: "failed",
        tokensBefore: null,
        tokensAfter: null,
        messagesBefore: 2,
        messagesAfter: 2,
        removedIds: [],
        replacedIds: [],
        insertedIds: [],
        summaryId: null,
        reason: "CompactionError: model down",
        durationMs: 0,
      },
    ] satisfies HistoryCompactionRecord[]);
  });

  it("with invalidHistory: \"leave\" keeps serving a view with broken tool pairing, recording the strategy's InvalidHistoryError", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), { invalidHistory: "leave" });
    await history.addMessages([user("u1"), toolResult("t1", "missing")]);
    expect(ids(await history.getMessages())).toEqual(["u1", "t1"]);
    expect(history.compactions.map((record) => record.reason)).toEqual([
      "InvalidHistoryError: slidingWindow: the history's tool calls and results do not pair up (1 problem(s); first: message 1 is a tool result for `missing`, but no earlier message calls it). Fix it with repairToolPairing() or pass invalidHistory: \"repair\".",
    ]);
  });

  it("with invalidHistory: \"leave\" rejects a view with broken tool pairing with the strategy's InvalidHistoryError under onError: \"throw\"", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), { onError: "throw", invalidHistory: "leave" });
    await history.addMessages([user("u1"), toolResult("t1", "missing")]);
    expect(InvalidHistoryError.isInstance(await caught(() => history.getMessages()))).toBe(true);
  });

  it("repairs the view with a compactor given invalidHistory: \"repair\" (a call never answered, then more turns)", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 2, tokenCounter: counter, invalidHistory: "repair" }));
    await history.addMessages([user("h1"), assistant("a1", "", [{ id: "never" }]), user("h2"), assistant("a2", "ok"), user("h3"), assistant("a3", "ok")]);
    expect(ids(await history.getMessages())).toEqual(["h2", "a2", "h3", "a3"]);
  });

  it("rejects adding something that is not a message with InvalidHistoryError", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1 }));
    const error = await caught(() => history.addMessages([user("u1"), { role: "user", content: "hi" } as unknown as BaseMessage]));
    expect([InvalidHistoryError.isInstance(error), (error as Error).message]).toEqual([
      true,
      "CompactingChatMessageHistory: element 1 is not a LangChain message",
    ]);
  });

  it("stores nothing from a rejected batch", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1 }));
    await caught(() => history.addMessages([user("u1"), "hi" as unknown as BaseMessage]));
    expect(await history.getAllMessages()).toEqual([]);
  });

  it.each([
    ["history", { history: undefined }],
    ["compactor", { compactor: { compress: () => undefined } }],
    ["viewHistory", { viewHistory: [] }],
    ["onCompaction", { onCompaction: "log" }],
    ["surprise", { surprise: true }],
  ])("names the invalid option `%s`", async (option, override) => {
    const options = { history: new InMemoryChatMessageHistory(), compactor: slidingWindow({ keepTurns: 1 }), ...override };
    const error = await caught(() => new CompactingChatMessageHistory(options as never));
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).option, (error as InvalidOptionError).component]).toEqual([
      true,
      option,
      "CompactingChatMessageHistory",
    ]);
  });
});

describe("CompactingChatMessageHistory storage", () => {
  it("stores a message without an id as a copy with a new id, leaving the given object alone", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1 }));
    const message = new HumanMessage("hello");
    await history.addMessage(message);
    expect([message.id, (await history.getAllMessages()).map((stored) => [stored.id, stored.text])]).toEqual([undefined, [["id-1", "hello"]]]);
  });

  it("adds user and assistant text with addUserMessage and addAIMessage", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1 }));
    await history.addUserMessage("hi");
    await history.addAIMessage("hello");
    expect((await history.getAllMessages()).map((message) => [message.type, message.id, message.text])).toEqual([
      ["human", "id-1", "hi"],
      ["ai", "id-2", "hello"],
    ]);
  });

  it("keeps the view in viewHistory, so a new instance continues from it", async () => {
    const full = new InMemoryChatMessageHistory();
    const view = new InMemoryChatMessageHistory();
    const first = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), { history: full, viewHistory: view });
    await first.addMessages([user("u1"), assistant("a1"), user("u2"), assistant("a2")]);
    await first.getMessages();
    const { compactor, inputs } = recording(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    const second = compactingHistory(compactor, { history: full, viewHistory: view });
    expect(ids(await second.getMessages())).toEqual(["u2", "a2"]);
    expect(inputs).toEqual([["u2", "a2"]]);
  });

  it("starts the view from an existing conversation when the view is empty", async () => {
    const full = new InMemoryChatMessageHistory([user("u1"), assistant("a1"), user("u2"), assistant("a2")]);
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), { history: full });
    await history.addMessages([user("u3")]);
    expect([ids(await history.getMessages()), ids(await history.getAllMessages())]).toEqual([
      ["u3"],
      ["u1", "a1", "u2", "a2", "u3"],
    ]);
  });

  it("clears the full history, the view and the records", async () => {
    const history = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    await history.getMessages();
    await history.clear();
    expect([await history.getAllMessages(), await history.viewHistory.getMessages(), await history.getMessages(), history.compactions]).toEqual([[], [], [], []]);
  });

  it("hands each record to onCompaction after the view was rewritten", async () => {
    const seen: [string, string[]][] = [];
    const history: CompactingChatMessageHistory = compactingHistory(slidingWindow({ keepTurns: 1, tokenCounter: counter }), {
      onCompaction: async (record) => {
        seen.push([record.id, ids(await history.viewHistory.getMessages()) as string[]]);
      },
    });
    await history.addMessages([user("u1"), assistant("a1"), user("u2")]);
    await history.getMessages();
    expect(seen).toEqual([["id-1", ["u2"]]]);
  });

  it("passes the calling run's config to the compactor", async () => {
    const { compactor, contexts } = recording(slidingWindow({ keepTurns: 1, tokenCounter: counter }));
    const history = compactingHistory(compactor);
    const model = fakeModel()
      .respond(new AIMessage({ id: "a1", content: "ok" }))
      .respond(new AIMessage({ id: "a2", content: "ok" }));
    const chain = new RunnableWithMessageHistory({ runnable: model, getMessageHistory: () => history });
    await chain.invoke([new SystemMessage({ id: "s", content: "s" }), user("u1")], { configurable: { sessionId: "s1" }, metadata: { tenant: "acme" } });
    await chain.invoke([user("u2")], { configurable: { sessionId: "s1" }, metadata: { tenant: "globex" } });
    expect(contexts.map((context) => context.config?.metadata?.["tenant"])).toEqual(["globex"]);
  });
});

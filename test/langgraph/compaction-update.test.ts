import { AIMessage, HumanMessage, RemoveMessage, mapChatMessagesToStoredMessages, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES, messagesStateReducer } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { hardTruncate, slidingWindow, toolResultHiding, type CompactionResult } from "../../src/index.js";
import { COMPACTION_METADATA_KEY, CompactionStrategy, compactionUpdate } from "../../src/extend/index.js";
import { assignMessageIds } from "../../src/langgraph/message-ids.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { fingerprintOf } from "../../src/langgraph/app-writes.js";
import { assistant, ids, sameObjects, step, system, toolResult, user } from "../support/builders.js";
import { removeAhead, storeAhead } from "../../src/messages/stored-messages.js";
import { snapshotHistory, expectHistoryUnchanged } from "../support/invariants.js";
import { SummarizePrefix } from "./support/summarize-prefix.js";
import { EVERY_RUN } from "../support/hiding.js";

/** What an update looks like: kept messages by id, removals as `remove:<id>`. */
const describeUpdate = (messages: readonly BaseMessage[]) =>
  messages.map((message) => (RemoveMessage.isInstance(message) ? `remove:${message.id}` : `${message.type}:${message.id}`));
const idsAndContent = (messages: readonly BaseMessage[]) => messages.map((message) => ({ id: message.id, content: message.content }));

/** The reducer applied to the update gives exactly the compactor's history. */
function expectReducerReachesHistory(before: BaseMessage[], update: ReturnType<typeof compactionUpdate>) {
  expect(idsAndContent(messagesStateReducer(before, update.messages))).toEqual(idsAndContent(update.history));
}

/** A compactor that returns its input reversed (a reordering no id-based update can express). */
class Reverse extends CompactionStrategy {
  readonly strategyName = "reverse";
  constructor() {
    super({});
  }
  protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
    return { status: "compacted", messages: [...messages].reverse() };
  }
}

const summaryMarker = { [COMPACTION_METADATA_KEY]: { strategy: "test", summary: true } };
/** A hand-made result: `messages` with the figures filled in. */
const resultOf = (before: readonly BaseMessage[], messages: BaseMessage[]): CompactionResult => ({
  messages,
  status: "compacted",
  strategy: "test",
  tokensBefore: 100,
  tokensAfter: 50,
  messagesBefore: before.length,
  messagesAfter: messages.length,
  removed: [],
  replaced: [],
});

describe("compactionUpdate", () => {
  const history = () => [system("s"), user("h1"), ...step(1), ...step(2), user("h2"), ...step(3), assistant("a4", "done")];

  it("a no-op changes nothing: an empty update and the input as history", async () => {
    const before = history();
    const update = compactionUpdate(before, await slidingWindow({ keepTurns: 5 }).compact(before));
    expect({ changed: update.changed, messages: update.messages, history: ids(update.history), archive: update.record.archive }).toEqual({
      changed: false,
      messages: [],
      history: ids(before),
      archive: "none",
    });
  });

  it("hidden tool results are re-emitted under their own id and their originals archived as replaced", async () => {
    const before = history();
    const update = compactionUpdate(before, await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }).compact(before), { id: "c1", at: new Date(0) });
    expect(describeUpdate(update.messages)).toEqual(["tool:t1", "tool:t2"]);
    expect(update.archive).toEqual({
      compactionId: "c1",
      messages: [
        { position: 3, anchor: { kind: "replaced-by", id: "t1" }, message: before[3]!.toDict() },
        { position: 5, anchor: { kind: "replaced-by", id: "t2" }, message: before[5]!.toDict() },
      ],
      dropped: [],
      // The fingerprint of each copy written (the same placeholder twice), and where each sits.
      written: { t1: fingerprintOf(update.messages[0]!), t2: fingerprintOf(update.messages[1]!) },
      neighbours: { t1: ["a1", "a2"], t2: ["a2", "h2"] },
    });
    expectReducerReachesHistory(before, update);
  });

  it("the log record describes the compaction", async () => {
    const before = history();
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }).compact(before);
    const update = compactionUpdate(before, result, { id: "c1", at: new Date(0), archive: "store", durationMs: 2 });
    expect(update.record).toEqual({
      id: "c1",
      at: "1970-01-01T00:00:00.000Z",
      strategy: "toolResultHiding",
      status: "compacted",
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      messagesBefore: 10,
      messagesAfter: 10,
      removedIds: [],
      replacedIds: ["t1", "t2"],
      insertedIds: [],
      summaryId: null,
      archive: "store",
      durationMs: 2,
      lastMessageId: "a4",
    });
  });

  it("removed messages become RemoveMessage(id), archived before the message that followed them", async () => {
    const before = history();
    const update = compactionUpdate(before, await slidingWindow({ keepTurns: 1 }).compact(before));
    expect(describeUpdate(update.messages)).toEqual(["remove:h1", "remove:a1", "remove:t1", "remove:a2", "remove:t2"]);
    expect(update.archive.messages.map((entry) => [entry.position, entry.anchor])).toEqual(
      [1, 2, 3, 4, 5].map((position) => [position, { kind: "before", id: "h2" }]),
    );
    expectReducerReachesHistory(before, update);
  });

  it("a summary takes the id of the newest assistant message it replaces, the others are removed", async () => {
    const before = history();
    const update = compactionUpdate(before, await new SummarizePrefix(4, 4).compact(before));
    expect(describeUpdate(update.messages)).toEqual(["human:a2", "remove:h1", "remove:a1", "remove:t1", "remove:t2"]);
    expect(update.messages[0]!.content).toBe("Summary of h1, a1, t1, a2, t2");
    expect({ summaryId: update.record.summaryId, insertedIds: update.record.insertedIds, removedIds: update.record.removedIds }).toEqual({
      summaryId: "a2",
      insertedIds: ["a2"],
      removedIds: ["h1", "a1", "t1", "a2", "t2"],
    });
    expect(update.archive.messages.map((entry) => entry.anchor)).toEqual(Array(5).fill({ kind: "replaced-by", id: "a2" }));
    expectReducerReachesHistory(before, update);
  });

  it("archives the stored form made ahead (as a prepared summary does) exactly as one made then, and hands each out once", async () => {
    const before = history();
    const result = await new SummarizePrefix(4, 4).compact(before);
    const plain = compactionUpdate(before, result);
    storeAhead(before.slice(1, 6));
    const ahead = compactionUpdate(before, result);
    expect(ahead.archive.messages).toEqual(plain.archive.messages);
    expect(ahead.archive.messages.map((entry) => entry.message)).toEqual(mapChatMessagesToStoredMessages(before.slice(1, 6)));
    // A second archive of the same messages gets forms of its own.
    const again = compactionUpdate(before, result);
    expect(again.archive.messages).toEqual(ahead.archive.messages);
    expect(again.archive.messages.map((entry) => entry.message).some((message, position) => message === ahead.archive.messages[position]!.message)).toBe(false);
  });

  it("removes with the RemoveMessages made ahead (as a prepared summary does), each handed out once", async () => {
    const before = history();
    const result = await new SummarizePrefix(4, 4).compact(before);
    const plain = compactionUpdate(before, result);
    const made = removeAhead(before.slice(1, 6));
    const ahead = compactionUpdate(before, result);
    const removals = (update: typeof plain) => update.messages.filter((message): message is RemoveMessage => message instanceof RemoveMessage);
    expect(describeUpdate(ahead.messages)).toEqual(describeUpdate(plain.messages));
    expect(removals(ahead).map((message) => message.id)).toEqual(["h1", "a1", "t1", "t2"]);
    // a2 is replaced by the summary (it keeps its id), so its removal is left unused.
    expect(made.map((message) => message.id)).toEqual(["h1", "a1", "t1", "a2", "t2"]);
    expect(sameObjects(removals(ahead), [...made.slice(0, 3), made[4]])).toBe(true);
    // The next update of the same messages makes its own.
    const again = compactionUpdate(before, result);
    expect(describeUpdate(again.messages)).toEqual(describeUpdate(plain.messages));
    expect(removals(again).some((message, position) => message === removals(ahead)[position])).toBe(false);
    expectReducerReachesHistory(before, ahead);
  });

  it("messages removed from the end are archived after the last message kept", () => {
    const before = [user("h1"), assistant("a1", "one"), user("h2")];
    const update = compactionUpdate(before, resultOf(before, [before[0]!]));
    expect({ update: describeUpdate(update.messages), anchors: update.archive.messages.map((entry) => entry.anchor) }).toEqual({
      update: ["remove:a1", "remove:h2"],
      anchors: [
        { kind: "after", id: "h1" },
        { kind: "after", id: "h1" },
      ],
    });
    expectReducerReachesHistory(before, update);
  });

  it("when nothing is kept the originals are archived at the start", () => {
    const before = [user("h1"), assistant("a1", "one")];
    const update = compactionUpdate(before, resultOf(before, []));
    expect({ update: describeUpdate(update.messages), anchors: update.archive.messages.map((entry) => entry.anchor) }).toEqual({
      update: ["remove:h1", "remove:a1"],
      anchors: [{ kind: "start" }, { kind: "start" }],
    });
  });

  it("two inserted messages take the ids of the first two removed ones; the second stands for no original", () => {
    const before = [system("s"), user("h1"), assistant("a1", "one"), user("h2"), assistant("a2", "two")];
    const summary = new HumanMessage({ id: "sum", content: "summary", response_metadata: summaryMarker });
    const note = new HumanMessage({ id: "note", content: "note" });
    const update = compactionUpdate(before, resultOf(before, [before[0]!, summary, note, before[4]!]));
    expect({
      update: describeUpdate(update.messages),
      history: ids(update.history),
      dropped: update.archive.dropped,
      summaryId: update.record.summaryId,
    }).toEqual({ update: ["human:h1", "human:a1", "remove:h2"], history: ["s", "h1", "a1", "a2"], dropped: ["a1"], summaryId: "h1" });
    expectReducerReachesHistory(before, update);
  });

  it("a message appended at the end keeps its own id", () => {
    const before = [user("h1"), assistant("a1", "one")];
    const note = new HumanMessage({ id: "note", content: "note" });
    const update = compactionUpdate(before, resultOf(before, [...before, note]));
    expect({ update: describeUpdate(update.messages), dropped: update.archive.dropped, insertedIds: update.record.insertedIds }).toEqual({
      update: ["human:note"],
      dropped: ["note"],
      insertedIds: ["note"],
    });
  });

  it("a message inserted between kept ones cannot be placed by id: the whole history is replaced", () => {
    const before = [user("h1"), assistant("a1", "one")];
    const note = new HumanMessage({ id: "note", content: "note" });
    const update = compactionUpdate(before, resultOf(before, [before[0]!, note, before[1]!]));
    expect(describeUpdate(update.messages)).toEqual([`remove:${REMOVE_ALL_MESSAGES}`, "human:h1", "human:note", "ai:a1"]);
    expectReducerReachesHistory(before, update);
  });

  it("a reordering compactor gets REMOVE_ALL_MESSAGES and the whole old history is archived", async () => {
    const before = [user("h1"), assistant("a1", "one"), user("h2")];
    const update = compactionUpdate(before, await new Reverse().compact(before));
    expect({
      update: describeUpdate(update.messages),
      archived: update.archive.messages.map((entry) => [entry.position, entry.anchor]),
      dropped: update.archive.dropped,
    }).toEqual({
      update: [`remove:${REMOVE_ALL_MESSAGES}`, "human:h2", "ai:a1", "human:h1"],
      archived: [0, 1, 2].map((position) => [position, { kind: "replaced-by", id: "h2" }]),
      dropped: ["a1", "h1"],
    });
    expectReducerReachesHistory(before, update);
  });

  it("a history without ids is replaced whole, with the ids assignMessageIds gave it", async () => {
    const before = [new HumanMessage("first"), new HumanMessage("second"), new HumanMessage("third")];
    const { messages: withIds, assigned } = assignMessageIds(before);
    const update = compactionUpdate(withIds, resultOf(withIds, withIds.slice(1)), { replaceAll: assigned > 0 });
    expect({ assigned, update: describeUpdate(update.messages), originalIds: ids(before) }).toEqual({
      assigned: 3,
      update: [`remove:${REMOVE_ALL_MESSAGES}`, `human:${withIds[1]!.id}`, `human:${withIds[2]!.id}`],
      originalIds: [undefined, undefined, undefined],
    });
  });

  it("assignMessageIds renames a repeated id and keeps unique ones", () => {
    const first = user("x", "first");
    const second = user("x", "second");
    const { messages, assigned } = assignMessageIds([first, second]);
    expect({ assigned, first: messages[0] === first, secondId: messages[1]!.id === "x", content: messages[1]!.content }).toEqual({
      assigned: 1,
      first: true,
      secondId: false,
      content: "second",
    });
  });

  it("what a tool-pairing repair dropped is removed and archived", async () => {
    const before = [user("h1"), toolResult("orphan", "c9"), ...step(1), user("h2"), ...step(2)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, invalidHistory: "repair" }).compact(before);
    const update = compactionUpdate(before, result);
    expect({ status: result.status, update: describeUpdate(update.messages), removedIds: update.record.removedIds }).toEqual({
      status: "compacted",
      update: ["remove:orphan", "tool:t1"],
      removedIds: ["orphan"],
    });
    expectReducerReachesHistory(before, update);
  });

  it("never mutates the history or the result", async () => {
    const before = history();
    const result = await hardTruncate({ maxTokens: 120, keepRecent: 2 }).compact(before);
    const beforeSnapshot = snapshotHistory(before);
    const resultSnapshot = snapshotHistory(result.messages);
    compactionUpdate(before, result);
    expectHistoryUnchanged(beforeSnapshot);
    expectHistoryUnchanged(resultSnapshot);
  });
});

describe("compactionUpdate with inPlace", () => {
  const result = (before: BaseMessage[], messages: BaseMessage[]): CompactionResult => ({
    messages,
    status: "compacted",
    strategy: "custom",
    tokensBefore: 10,
    tokensAfter: 10,
    messagesBefore: before.length,
    messagesAfter: messages.length,
    removed: [],
    replaced: [],
  });

  it("a move is for the model only: nothing written, every id keeps its message, the history has it moved", () => {
    const before = [user("h1"), assistant("a1", "looking", [{ id: "c1", name: "lookup" }]), user("h2"), toolResult("t1", "c1")];
    const update = compactionUpdate(before, result(before, [before[0]!, before[1]!, before[3]!, before[2]!]), { inPlace: true });
    expect({ expressible: update.expressible, changed: update.changed, update: update.messages, history: update.history.map((message) => `${message.type}:${message.id}`) }).toEqual({
      expressible: false,
      changed: false,
      update: [],
      history: ["human:h1", "ai:a1", "tool:t1", "human:h2"],
    });
  });

  it("a move with a rewrite: the rewrite is written by id, the moved message stays in its place in the state", () => {
    const before = [user("h1"), assistant("a1", "looking", [{ id: "c1", name: "lookup" }]), user("h2"), toolResult("t1", "c1")];
    const shorter = toolResult("t1", "c1", "[hidden]");
    const update = compactionUpdate(before, { ...result(before, [before[0]!, before[1]!, shorter, before[2]!]), replaced: [{ index: 3, before: before[3]!, after: shorter }] }, { inPlace: true });
    expect({
      expressible: update.expressible,
      update: describeUpdate(update.messages),
      state: messagesStateReducer(before, update.messages).map((message) => [message.type, message.id, message.content]),
      history: update.history.map((message) => `${message.type}:${message.id}`),
      archived: update.archive.messages.map((entry) => [entry.position, entry.anchor]),
    }).toEqual({
      expressible: true,
      update: ["tool:t1"],
      state: [
        ["human", "h1", "user h1"],
        ["ai", "a1", "looking"],
        ["human", "h2", "user h2"],
        ["tool", "t1", "[hidden]"],
      ],
      history: ["human:h1", "ai:a1", "tool:t1", "human:h2"],
      archived: [[3, { kind: "replaced-by", id: "t1" }]],
    });
  });

  it("an insertion at the end, which the reducer would put after the answer of the step: not written, the result as the history", () => {
    // h2 and h4 leave, two summaries come after h3: by id, the second would be appended under a new id.
    const before = [user("h1"), user("h2"), user("h3"), user("h4")];
    const summaries = [new HumanMessage({ content: "summary 1" }), new HumanMessage({ content: "summary 2" })];
    const update = compactionUpdate(before, result(before, [before[0]!, before[2]!, ...summaries]), { inPlace: true });
    expect({ expressible: update.expressible, update: update.messages, history: update.history.map((message) => message.content) }).toEqual({
      expressible: false,
      update: [],
      history: ["user h1", "user h3", "summary 1", "summary 2"],
    });
  });

  it("a result longer than the history cannot be written in place: no update, the result as the history", () => {
    const before = [user("h1"), user("h2")];
    const update = compactionUpdate(before, result(before, [new HumanMessage({ content: "note" }), ...before]), { inPlace: true });
    expect({ expressible: update.expressible, changed: update.changed, update: update.messages, history: update.history.map((message) => message.content) }).toEqual({
      expressible: false,
      changed: false,
      update: [],
      history: ["note", "user h1", "user h2"],
    });
  });
});

/**
 * buildInspection: threads built with the real compaction machinery (compactionUpdate applied with
 * LangGraph's messages reducer, as the node does), explicit ids and a counter of 10 tokens per
 * message so every figure can be written out; then a recorded session replayed in a real graph.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver, messagesStateReducer, type StateSnapshot } from "@langchain/langgraph";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import {
  InvalidHistoryError,
  InvalidOptionError,
  compactionMarkerOf,
  createCompactionNode,
  readCompactionLog,
  restoreHistory,
  slidingWindow,
  toolResultHiding,
  type ArchivedCompaction,
  type CompactionRecord,
  type Compactor,
  type TokenCounter,
  type TokenMeasurement,
} from "../../src/index.js";
import {
  COMPACTION_METADATA_KEY,
  DEFAULT_HIDDEN_RESULT_PLACEHOLDER,
  CompactionStrategy,
  compactionUpdate,
  mergeCompactionArchive,
  mergeCompactionLog,
} from "../../src/extend/index.js";
import { REPLY_PRIMING_TOKENS } from "../../src/tokens/token-counter.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { buildInspection, exportThreadState, type Inspection, type ThreadExport, type TimelineNode } from "../../src/inspector/index.js";
import { assistant, toolResult, user } from "../support/builders.js";
import { failedRecord } from "./support/failed-record.js";
import { leafOf, timelineLeaves as leaves } from "./support/recorded-thread.js";
import { caught } from "../support/errors.js";
import { reactGraph } from "../langgraph/support/react-graph.js";
import { SummarizePrefix } from "../langgraph/support/summarize-prefix.js";
import { ReplayChatModel, replayScript, replayTools } from "../langgraph/support/trace-replay.js";
import { EVERY_RUN } from "../support/hiding.js";

/** Every message is 10 tokens, a hidden tool result 5, so figures can be written by hand. */
const tokensOf = (message: BaseMessage) => (compactionMarkerOf(message)?.hidden ? 5 : 10);
const tenPerMessage: TokenCounter = {
  mode: "approximate",
  encoding: undefined,
  calibrate: false,
  countText: async (text) => text.length,
  countMessage: async (message) => tokensOf(message),
  countMessages: async (messages) => messages.reduce((sum, message) => sum + tokensOf(message), 0),
  measure: async (messages): Promise<TokenMeasurement> => {
    const perMessage = messages.map(tokensOf);
    const total = perMessage.reduce((sum, tokens) => sum + tokens, 0);
    return { perMessage, estimated: total, calibrationAnchors: [], calibrationOffset: 0, total };
  },
  truncateText: async (text) => text,
};

/** {@link tenPerMessage} with a request overhead, as the default counter has: a request of n messages is 10n + 3. */
const tenPerMessagePrimed: TokenCounter = {
  ...tenPerMessage,
  countMessages: async (messages) => (await tenPerMessage.countMessages(messages)) + REPLY_PRIMING_TOKENS,
  measure: async (messages) => {
    const measured = await tenPerMessage.measure(messages);
    const total = measured.total + REPLY_PRIMING_TOKENS;
    return { ...measured, estimated: total, total };
  },
};

/** Replaces everything up to and including message `lastId` by one summary (marked as such). */
class SummarizeUpTo extends CompactionStrategy {
  readonly strategyName = "summarizeUpTo";
  constructor(
    readonly lastId: string,
    readonly text: string,
    tokenCounter: TokenCounter = tenPerMessage,
  ) {
    super({ tokenCounter });
  }
  protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
    const cut = messages.findIndex((message) => message.id === this.lastId) + 1;
    const summary = new HumanMessage({ content: this.text, response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: this.strategyName, summary: true } } });
    return { status: "summarized", messages: [summary, ...messages.slice(cut)], removed: messages.slice(0, cut).map((message, index) => ({ index, message })) };
  }
}

interface Round {
  readonly append: readonly BaseMessage[];
  readonly compactor?: Compactor;
}

interface State {
  messages: BaseMessage[];
  compactionLog: CompactionRecord[];
  compactionArchive: ArchivedCompaction[];
}

/** Minute `n` of a fixed day, so record times are explicit. */
const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 12, minute));

/** The thread after appending each round's messages and running its compactor (compaction `c<n>`, archived in the state). */
async function threadOf(rounds: readonly Round[]): Promise<{ state: State; thread: ThreadExport }> {
  let state: State = { messages: [], compactionLog: [], compactionArchive: [] };
  let compaction = 0;
  for (const round of rounds) {
    state = { ...state, messages: messagesStateReducer(state.messages, [...round.append]) };
    if (!round.compactor) continue;
    compaction++;
    const result = await round.compactor.compact(state.messages);
    const update = compactionUpdate(state.messages, result, { id: `c${compaction}`, at: at(compaction), durationMs: compaction });
    if (!update.changed) throw new Error(`round ${compaction} did not compact`);
    state = {
      messages: messagesStateReducer(state.messages, update.messages),
      compactionLog: mergeCompactionLog(state.compactionLog, [update.record]),
      compactionArchive: mergeCompactionArchive(state.compactionArchive, [update.archive]),
    };
  }
  return { state, thread: await exportThreadState(state, "t1") };
}

/** The tree by ids: a message is its id; what replaced or removed originals names its compaction. */
type Outline =
  | string
  | { summary: string | null; by: string; originals: Outline[] }
  | { replacement: string | null; by: string; originals: Outline[] }
  | { hidden: string | null; by: string; original: Outline }
  | { removed: string; originals: Outline[] };
function outline(node: TimelineNode): Outline {
  switch (node.kind) {
    case "message":
      return node.message.id!;
    case "summary":
      return { summary: node.message.id, by: node.compactionId, originals: node.originals.map(outline) };
    case "replacement":
      return { replacement: node.message.id, by: node.compactionId, originals: node.originals.map(outline) };
    case "hidden":
      return { hidden: node.message.id, by: node.compactionId, original: outline(node.original) };
    case "removed":
      return { removed: node.compactionId, originals: node.originals.map(outline) };
  }
}

/** How many summaries are nested in each other under `node`, itself included. */
function summaryDepth(node: TimelineNode): number {
  if (node.kind === "hidden") return summaryDepth(node.original);
  if (node.kind === "message") return 0;
  const inner = Math.max(0, ...node.originals.map(summaryDepth));
  return node.kind === "summary" ? inner + 1 : inner;
}

const LISTING = "README.md\nsrc/index.ts\nsrc/cli.ts\n".repeat(4);
const NOW = new Date("2025-01-02T00:00:00.000Z");
const inspect = (thread: ThreadExport): Promise<Inspection> => buildInspection(thread, { tokenCounter: tenPerMessage, now: NOW });
/** Chart points from step 0: a number is the tokens at that step, a pair also the tokens after a compaction there. */
const chartOf = (...points: (number | readonly [number, number])[]) =>
  points.map((point, step) => (typeof point === "number" ? { step, tokens: point } : { step, tokens: point[0], after: point[1] }));

describe("buildInspection", () => {
  it("a thread without compaction: every message in order, the chart growing by each, totals without compactions", async () => {
    const { thread } = await threadOf([{ append: [user("h1", "Fix the bug"), assistant("a1", "looking", [{ id: "c1", name: "bash", args: { command: "ls" } }]), toolResultFixed("t1"), assistant("a2", "done")] }]);
    expect(await inspect(thread)).toEqual({
      threadId: "t1",
      generatedAt: "2025-01-02T00:00:00.000Z",
      totals: {
        originalMessages: 4,
        originalTokens: 40,
        // a1 and a2 answered requests of 10 (h1) and 30 (h1, a1, t1) tokens.
        modelCalls: 2,
        peakContextTokens: 30,
        peakCallStep: 3,
        contextMessages: 4,
        contextTokens: 40,
        compactions: 0,
        failedCompactions: 0,
        summaries: 0,
        hiddenResults: 0,
        archivedMessages: 0,
        tokensSaved: 0,
        compactionMs: 0,
      },
      timeline: [
        { kind: "message", message: { id: "h1", type: "human", text: "Fix the bug", toolCalls: [], toolCallId: null, toolName: null, tokens: 10 } },
        {
          kind: "message",
          message: { id: "a1", type: "ai", text: "looking", toolCalls: [{ id: "c1", name: "bash", args: '{"command":"ls"}' }], toolCallId: null, toolName: null, tokens: 10 },
        },
        { kind: "message", message: { id: "t1", type: "tool", text: LISTING, toolCalls: [], toolCallId: "c1", toolName: "bash", tokens: 10 } },
        { kind: "message", message: { id: "a2", type: "ai", text: "done", toolCalls: [], toolCallId: null, toolName: null, tokens: 10 } },
      ],
      compactions: [],
      recalls: [],
      chart: chartOf(10, 20, 30, 40),
      limits: { contextWindow: null, triggerTokens: null },
      warnings: [],
    });
  });

  it("a hidden tool result: the placeholder in place, its original under it", async () => {
    const { thread } = await threadOf([
      {
        append: [user("h1"), assistant("a1", "", [{ id: "c1" }]), toolResultFixed("t1"), assistant("a2", "", [{ id: "c2" }]), toolResult("t2", "c2")],
        compactor: toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: tenPerMessage }),
      },
    ]);
    const inspection = await inspect(thread);
    const hidden = inspection.timeline[2]!;
    expect(hidden).toEqual({
      kind: "hidden",
      compactionId: "c1",
      message: { id: "t1", type: "tool", text: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, toolCalls: [], toolCallId: "c1", toolName: "bash", tokens: 5 },
      original: { kind: "message", message: { id: "t1", type: "tool", text: LISTING, toolCalls: [], toolCallId: "c1", toolName: "bash", tokens: 10 } },
    });
  });

  it("a hidden tool result: totals count it, the compaction's view, and the chart drops to its tokensAfter", async () => {
    const { thread } = await threadOf([
      {
        append: [user("h1"), assistant("a1", "", [{ id: "c1" }]), toolResultFixed("t1"), assistant("a2", "", [{ id: "c2" }]), toolResult("t2", "c2")],
        compactor: toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: tenPerMessage }),
      },
      { append: [assistant("a3", "done")] },
    ]);
    const inspection = await inspect(thread);
    expect({
      outline: inspection.timeline.map(outline),
      hiddenResults: inspection.totals.hiddenResults,
      archivedMessages: inspection.totals.archivedMessages,
      tokensSaved: inspection.totals.tokensSaved,
      compactions: inspection.compactions.map(({ number, summary, archivedMessages, step, record }) => ({ number, id: record.id, summary, archivedMessages, step })),
      chart: inspection.chart,
    }).toEqual({
      outline: ["h1", "a1", { hidden: "t1", by: "c1", original: "t1" }, "a2", "t2", "a3"],
      hiddenResults: 1,
      archivedMessages: 1,
      tokensSaved: 5,
      compactions: [{ number: 1, id: "c1", summary: null, archivedMessages: 1, step: 4 }],
      // 50 tokens when it ran after t2, 45 after; a3 adds 10.
      chart: chartOf(10, 20, 30, 40, [50, 45], 55),
    });
  });

  it("two summaries, the second of the first: nested, every original once, the chart dropping at each", async () => {
    const { thread } = await threadOf([
      { append: [user("h1"), assistant("a1", "one")], compactor: new SummarizeUpTo("a1", "First summary\nmore") },
      { append: [user("h2"), assistant("a2", "two"), user("h3")], compactor: new SummarizeUpTo("a2", "Second summary") },
      { append: [assistant("a3", "three")] },
    ]);
    const inspection = await inspect(thread);
    expect({
      outline: inspection.timeline.map(outline),
      compactions: inspection.compactions.map(({ number, summary, archivedMessages, originals, step }) => ({
        number,
        summary,
        archivedMessages,
        originals: originals.map((view) => `${view.id}:${view.text.split("\n")[0]}`),
        step,
      })),
      chart: inspection.chart,
      totals: inspection.totals,
      warnings: inspection.warnings,
    }).toEqual({
      outline: [
        // Each summary takes the id of the newest assistant message it replaces.
        { summary: "a2", by: "c2", originals: [{ summary: "a1", by: "c1", originals: ["h1", "a1"] }, "h2", "a2"] },
        "h3",
        "a3",
      ],
      compactions: [
        // Each compaction's originals as it saw them: #2's first is #1's summary, not expanded again.
        { number: 1, summary: "First summary\nmore", archivedMessages: 2, originals: ["h1:user h1", "a1:one"], step: 1 },
        { number: 2, summary: "Second summary", archivedMessages: 3, originals: ["a1:First summary", "h2:user h2", "a2:two"], step: 4 },
      ],
      // 10, 20 | compaction #1: 10 | +h2 +a2 +h3: 20, 30, 40 | compaction #2: 20 | +a3: 30.
      chart: chartOf(10, [20, 10], 20, 30, [40, 20], 30),
      totals: {
        originalMessages: 6,
        originalTokens: 60,
        // a1, a2 and a3 answered requests of 10, 20 and 20 tokens (the last after compaction #2).
        modelCalls: 3,
        // The first of the two largest: a2's.
        peakContextTokens: 20,
        peakCallStep: 3,
        contextMessages: 3,
        contextTokens: 30,
        compactions: 2,
        failedCompactions: 0,
        summaries: 2,
        hiddenResults: 0,
        archivedMessages: 5,
        tokensSaved: 10 + 20,
        compactionMs: 1 + 2,
      },
      warnings: [],
    });
  });

  it("a compaction after the newest message: the chart's last point drops to what it left", async () => {
    const { thread } = await threadOf([{ append: [user("h1"), assistant("a1"), user("h2"), assistant("a2")], compactor: new SummarizeUpTo("h2", "Summary") }]);
    const inspection = await inspect(thread);
    expect({ chart: inspection.chart, step: inspection.compactions[0]!.step, contextTokens: inspection.totals.contextTokens }).toEqual({
      chart: chartOf(10, 20, 30, [40, 20]),
      step: 3,
      contextTokens: 20,
    });
  });

  it("the chart sums per-message counts as the header does: a record's tokensAfter enters less the reply priming", async () => {
    const { thread } = await threadOf([
      { append: [user("h1"), assistant("a1"), user("h2")], compactor: new SummarizeUpTo("a1", "Summary", tenPerMessagePrimed) },
      { append: [assistant("a2")] },
    ]);
    const inspection = await buildInspection(thread, { tokenCounter: tenPerMessagePrimed, now: NOW });
    expect({
      record: [thread.compactionLog[0]!.tokensBefore, thread.compactionLog[0]!.tokensAfter],
      chart: inspection.chart,
      contextTokens: inspection.totals.contextTokens,
    }).toEqual({
      // The strategy counted whole requests: 3 messages + 3, then 2 messages + 3.
      record: [33, 23],
      chart: chartOf(10, 20, [30, 20], 30),
      contextTokens: 30,
    });
  });

  it("a compaction that reordered the history (not a summary): its copies are replacements, the originals under the first", async () => {
    class Reverse extends CompactionStrategy {
      readonly strategyName = "reverse";
      constructor() {
        super({ tokenCounter: tenPerMessage });
      }
      protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
        return { status: "compacted", messages: [...messages].reverse(), removed: [] };
      }
    }
    const { thread } = await threadOf([{ append: [user("h1"), assistant("a1"), user("h2"), assistant("a2")], compactor: new Reverse() }, { append: [user("h3")] }]);
    const inspection = await inspect(thread);
    expect({
      outline: inspection.timeline.map(outline),
      summary: inspection.compactions[0]!.summary,
      summaries: inspection.totals.summaries,
      leaves: leaves(inspection.timeline).map((leaf) => leaf.id),
    }).toEqual({
      outline: [
        { replacement: "a2", by: "c1", originals: ["h1", "a1", "h2", "a2"] },
        { replacement: "h2", by: "c1", originals: [] },
        { replacement: "a1", by: "c1", originals: [] },
        { replacement: "h1", by: "c1", originals: [] },
        "h3",
      ],
      summary: null,
      summaries: 0,
      leaves: ["h1", "a1", "h2", "a2", "h3"],
    });
  });

  it("a sliding window: the removed turns collapsed before the first message it kept", async () => {
    const { thread } = await threadOf([
      {
        append: [user("h1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1"), assistant("a2", "one"), user("h2"), assistant("a3", "two")],
        compactor: slidingWindow({ keepTurns: 1, tokenCounter: tenPerMessage }),
      },
      { append: [user("h3")] },
    ]);
    const inspection = await inspect(thread);
    expect({ outline: inspection.timeline.map(outline), chart: inspection.chart, step: inspection.compactions[0]!.step }).toEqual({
      outline: [{ removed: "c1", originals: ["h1", "a1", "t1", "a2"] }, "h2", "a3", "h3"],
      chart: chartOf(10, 20, 30, 40, 50, [60, 20], 30),
      step: 5,
    });
  });

  it("a compaction that kept nothing: its originals first, removed at the start", async () => {
    class ClearAll extends CompactionStrategy {
      readonly strategyName = "clearAll";
      constructor() {
        super({ tokenCounter: tenPerMessage });
      }
      protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
        return { status: "truncated", messages: [], removed: messages.map((message, index) => ({ index, message })) };
      }
    }
    const { thread } = await threadOf([{ append: [user("h1"), assistant("a1")], compactor: new ClearAll() }, { append: [user("h2")] }]);
    expect((await inspect(thread)).timeline.map(outline)).toEqual([{ removed: "c1", originals: ["h1", "a1"] }, "h2"]);
  });

  it("a failed compaction: listed and counted, no archive, no warning, the chart unchanged by it", async () => {
    const { state } = await threadOf([{ append: [user("h1"), assistant("a1")] }]);
    const failed = failedRecord({ id: "f1", at: at(5).toISOString(), strategy: "summarization", messages: 2, reason: "Error: model down", durationMs: 4, lastMessageId: "a1" });
    const thread = await exportThreadState({ ...state, messages: [...state.messages, user("h2")], compactionLog: [failed] }, "t1");
    const inspection = await inspect(thread);
    expect({
      compactions: inspection.compactions,
      chart: inspection.chart,
      failed: inspection.totals.failedCompactions,
      saved: inspection.totals.tokensSaved,
      warnings: inspection.warnings,
    }).toEqual({
      compactions: [{ number: 1, record: failed, summary: null, archivedMessages: 0, originals: [], step: 1 }],
      chart: chartOf(10, 20, 30),
      failed: 1,
      saved: 0,
      warnings: [],
    });
  });

  it("a missing archive: a warning naming the compaction, its summary shown without originals", async () => {
    const { thread } = await threadOf([{ append: [user("h1"), assistant("a1"), user("h2")], compactor: new SummarizeUpTo("a1", "Summary") }]);
    const inspection = await inspect({ ...thread, archives: [] });
    expect({ outline: inspection.timeline.map(outline), warnings: inspection.warnings, archived: inspection.totals.archivedMessages }).toEqual({
      outline: [{ summary: "a1", by: "c1", originals: [] }, "h2"],
      warnings: ["the archive of compaction #1 (c1, summarizeUpTo) is missing from the state: its 2 originals are not shown"],
      archived: 0,
    });
  });

  it("a store-archived compaction exported without its store: the warning says where the originals are", async () => {
    const { thread } = await threadOf([{ append: [user("h1"), assistant("a1"), user("h2")], compactor: new SummarizeUpTo("a1", "Summary") }]);
    const inStore = { ...thread, compactionLog: thread.compactionLog.map((record) => ({ ...record, archive: "store" as const })), archives: [] };
    expect((await inspect(inStore)).warnings).toEqual([
      "compaction #1 (c1, summarizeUpTo) archived its originals in the store, and the thread has no entry for it (was it exported without its store?): its 2 originals are not shown",
    ]);
  });

  it("a record without lastMessageId (an older log): placed where the message count reached its messagesBefore", async () => {
    const { thread } = await threadOf([
      { append: [user("h1"), assistant("a1"), user("h2")], compactor: new SummarizeUpTo("a1", "Summary") },
      { append: [assistant("a2")] },
    ]);
    const { lastMessageId: _dropped, ...old } = thread.compactionLog[0]!;
    const inspection = await inspect({ ...thread, compactionLog: [old] });
    expect({ step: inspection.compactions[0]!.step, chart: inspection.chart }).toEqual({ step: 2, chart: chartOf(10, 20, [30, 20], 30) });
  });

  it("rejects what is not a thread export with an InvalidHistoryError naming the problem", async () => {
    const error = await caught(() => buildInspection({ messages: [] } as unknown as ThreadExport));
    expect({ isHistoryError: InvalidHistoryError.isInstance(error), message: (error as Error).message }).toEqual({
      isHistoryError: true,
      message: 'buildInspection: not a thread export: "format" is missing, expected "langchain-compaction/thread@1"',
    });
  });

  it("rejects a malformed log with the path of the field", async () => {
    const { thread } = await threadOf([{ append: [user("h1")] }]);
    const error = await caught(() => buildInspection({ ...thread, compactionLog: [{ id: "c1" }] } as unknown as ThreadExport));
    expect((error as Error).message).toMatch(/^buildInspection: invalid thread export: `compactionLog\.0\.at`: /);
  });

  it("rejects an unknown message type with its position", async () => {
    const { thread } = await threadOf([{ append: [user("h1")] }]);
    const error = await caught(() => buildInspection({ ...thread, messages: [thread.messages[0]!, { type: "robot", data: { content: "" } }] } as unknown as ThreadExport));
    expect({ isHistoryError: InvalidHistoryError.isInstance(error), message: (error as Error).message }).toEqual({
      isHistoryError: true,
      message: "buildInspection: `messages.1` is not a message: Got unexpected type: robot",
    });
  });

  it("rejects an invalid option with an InvalidOptionError naming it", async () => {
    const { thread } = await threadOf([{ append: [user("h1")] }]);
    const error = await caught(() => buildInspection(thread, { now: "yesterday" as unknown as Date }));
    expect({ isOptionError: InvalidOptionError.isInstance(error), option: (error as InvalidOptionError).option }).toEqual({ isOptionError: true, option: "now" });
  });

  it("5 000 messages with a compaction every 100: every original once, in order, one chart point each", async () => {
    const rounds: Round[] = [];
    const appended: BaseMessage[] = [];
    for (let round = 0; round < 50; round++) {
      const append = Array.from({ length: 50 }, (_, turn) => {
        const n = round * 50 + turn;
        return [user(`h${n}`), assistant(`a${n}`)];
      }).flat();
      appended.push(...append);
      rounds.push({ append, compactor: round % 2 === 0 ? slidingWindow({ keepTurns: 10, tokenCounter: tenPerMessage }) : new SummarizeUpTo(`a${round * 50 + 40}`, `summary ${round}`) });
    }
    const { thread } = await threadOf(rounds);
    const inspection = await inspect(thread);
    expect({
      leaves: leaves(inspection.timeline),
      chartSteps: inspection.chart.length,
      steps: inspection.compactions.map((view) => view.step),
    }).toEqual({
      leaves: appended.map(leafOf),
      chartSteps: 5000,
      // Each ran after the 100 messages of its round.
      steps: Array.from({ length: 50 }, (_, position) => 100 * (position + 1) - 1),
    });
  });
});

describe(`buildInspection of a recorded session replayed in a real graph`, () => {
  const SESSION_ID = "tau-bench-airline/task13-trial0";
  const session = loadTraceSessions(defaultTracesPath()).find((candidate) => candidate.id === SESSION_ID)!;
  const script = replayScript(session);
  const threadId = "replay";
  let values: State;
  let store: InMemoryStore;
  let inspection: Inspection;
  /** The thread's whole compaction log (the state keeps the newest records). */
  let log: CompactionRecord[];
  /** The thread's checkpoints, oldest first. */
  const snapshots: StateSnapshot[] = [];

  beforeAll(async () => {
    store = new InMemoryStore();
    const compaction = [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 2 })), createCompactionNode(new SummarizePrefix(14, 6))];
    const graph = reactGraph({ model: new ReplayChatModel(script), tools: replayTools(script), compaction, checkpointer: new MemorySaver(), store });
    const config = { configurable: { thread_id: threadId }, recursionLimit: 1000 };
    for (const turn of script.turns) await graph.invoke({ messages: turn.input }, config);
    values = (await graph.getState(config)).values as State;
    for await (const snapshot of graph.getStateHistory(config)) snapshots.unshift(snapshot);
    inspection = await buildInspection(await exportThreadState(values, threadId, { store }));
    log = await readCompactionLog(values, { store, threadId });
  }, 120_000);

  /** Per compaction of the log: the last step of the restored history of the state it saw (the checkpoint before the one that logged it). */
  async function stepsFromCheckpoints(): Promise<number[]> {
    const steps: number[] = [];
    for (let sequence = 0; sequence < log.length; sequence++) {
      const logged = snapshots.findIndex((snapshot) => (((snapshot.values as Partial<State>).compactionLog ?? []).at(-1)?.sequence ?? -1) >= sequence);
      const seen = snapshots[logged - 1]!.values as State;
      steps.push((await restoreHistory(seen, { store, threadId })).length - 1);
    }
    return steps;
  }

  it("the timeline's leaves are restoreHistory's order, which is the recorded session", async () => {
    const restored = await restoreHistory(values, { store, threadId });
    expect({ leaves: leaves(inspection.timeline), warnings: inspection.warnings }).toEqual({ leaves: restored.map(leafOf), warnings: [] });
    expect(restored.map(leafOf)).toEqual(script.messages.map(leafOf));
  });

  it("places each compaction at the step of the history it saw, and the chart has one point per original message", async () => {
    expect({
      steps: inspection.compactions.map((view) => view.step),
      chartSteps: inspection.chart.map((point) => point.step),
      summaries: inspection.compactions.filter((view) => view.summary !== null).length,
      hiddenResults: inspection.totals.hiddenResults,
      summaryDepth: Math.max(...inspection.timeline.map(summaryDepth)),
    }).toEqual({
      steps: await stepsFromCheckpoints(),
      chartSteps: script.messages.map((_, step) => step),
      summaries: 6,
      hiddenResults: log.filter((record) => record.strategy === "toolResultHiding").reduce((sum, record) => sum + record.replacedIds.length, 0),
      // Each summary summarized the one before: six levels.
      summaryDepth: 6,
    });
  });

  it("at each compaction step the chart goes from the first record's tokensBefore to the last one's tokensAfter, less the reply priming", async () => {
    const steps = await stepsFromCheckpoints();
    const expected = new Map<number, { step: number; tokens: number; after: number }>();
    log.forEach((record, sequence) => {
      if (record.status === "failed" || record.tokensBefore === null || record.tokensAfter === null) return;
      const step = steps[sequence]!;
      const tokens = expected.get(step)?.tokens ?? record.tokensBefore - REPLY_PRIMING_TOKENS;
      expected.set(step, { step, tokens, after: record.tokensAfter - REPLY_PRIMING_TOKENS });
    });
    expect(inspection.chart.filter((point) => point.after !== undefined)).toEqual([...expected.values()]);
    expect(inspection.chart.at(-1)!.after ?? inspection.chart.at(-1)!.tokens).toBe(inspection.totals.contextTokens);
  });
});

/** A tool result with a fixed text for the whole-object expectations, longer than the hiding placeholder. */
function toolResultFixed(id: string) {
  return toolResult(id, `c${id.slice(1)}`, LISTING);
}

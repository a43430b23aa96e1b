import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../examples/traces.js";
import {
  InvalidHistoryError,
  createTokenCounter,
  hardTruncate,
  selectiveCompact,
  slidingWindow,
  toolResultHiding,
  type CompactionResult,
} from "../src/index.js";
import { type CompactionStrategy } from "../src/extend/index.js";
import { ToolCallIndexBuilder, indexToolCallGroups, type ToolCallIndex } from "../src/messages/tool-call-groups.js";
import { assistant, step, toolResult, user } from "./support/builders.js";
import { caught } from "./support/errors.js";
import { EVERY_RUN } from "./support/hiding.js";

const counter = createTokenCounter({ mode: "approximate" });
const [session] = loadTraceSessions(BUNDLED_TRACES_PATH);
const recorded = session!.messages;

/** The recorded session cut into agent steps: each step ends just before an assistant message. */
function stepsOf(messages: readonly BaseMessage[]): BaseMessage[][] {
  const steps: BaseMessage[][] = [];
  let current: BaseMessage[] = [];
  for (const message of messages) {
    if (message.type === "ai" && current.length > 0) {
      steps.push(current);
      current = [];
    }
    current.push(message);
  }
  steps.push(current);
  return steps;
}

const summary = (result: CompactionResult) => ({
  ids: result.messages.map((message) => message.id),
  contents: result.messages.map((message) => message.content),
  status: result.status,
  tokensBefore: result.tokensBefore,
  tokensAfter: result.tokensAfter,
  removed: result.removed.map(({ index, message }) => [index, message.id]),
  replaced: result.replaced.map(({ index, before }) => [index, before.id]),
});

const factories: [string, () => CompactionStrategy][] = [
  ["toolResultHiding", () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 3, tokenCounter: counter })],
  ["selectiveCompact", () => selectiveCompact({ target: 12_000, tokenCounter: counter })],
  ["hardTruncate", () => hardTruncate({ maxTokens: 9_000, tokenCounter: counter })],
  ["slidingWindow", () => slidingWindow({ keepTurns: 1, tokenCounter: counter })],
];

describe("a strategy that remembers its last output", () => {
  it.each(factories)("%s gives, step by step over a real session, what a fresh strategy gives", async (_name, create) => {
    const remembering = create();
    let history: BaseMessage[] = [];
    const differences: number[] = [];
    const steps = stepsOf(recorded);
    for (const [number, messages] of steps.entries()) {
      const grown = [...history, ...messages];
      const incremental = await remembering.compact(grown);
      const fresh = await create().compact(grown);
      if (JSON.stringify(summary(incremental)) !== JSON.stringify(summary(fresh))) differences.push(number);
      history = incremental.messages;
    }
    expect(steps.length).toBe(96);
    expect(differences).toEqual([]);
  });

  it("sees messages pushed onto the very array it returned", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter });
    const history = (await hiding.compact([...step(1), ...step(2)])).messages;
    history.push(...step(3));
    const result = await hiding.compact(history);
    expect(summary(result)).toEqual(summary(await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter }).compact(history)));
    expect(result.status).toBe("compacted");
  });

  it("sees a message replaced in place in the array it returned", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter });
    const history = (await hiding.compact([...step(1), ...step(2), ...step(3)])).messages;
    history[3] = toolResult("t2", "c2", "edited ".repeat(100));
    const result = await hiding.compact(history);
    expect(summary(result)).toEqual(summary(await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter }).compact(history)));
  });

  it("still rejects a broken message appended to a history it has seen", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter });
    const first = await hiding.compact([...step(1), ...step(2)]);
    const error = await caught(() => hiding.compact([...first.messages, toolResult("t9", "c9")]));
    expect(InvalidHistoryError.isInstance(error) && error.problems.map(({ kind, index }) => ({ kind, index }))).toEqual([
      { kind: "orphan-result", index: 4 },
    ]);
  });

  it("recovers after a rejected input: the next valid history is compacted in full", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter });
    const first = await hiding.compact([...step(1), ...step(2)]);
    await caught(() => hiding.compact([...first.messages, toolResult("t9", "c9")]));
    const result = await hiding.compact([...first.messages, ...step(3)]);
    expect(summary(result)).toEqual(summary(await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: counter }).compact([...first.messages, ...step(3)])));
  });
});

describe("ToolCallIndexBuilder", () => {
  const plain = (index: ToolCallIndex) => ({
    groups: index.groups.map((group) => ({ ...group, callIds: [...group.callIds], resultIndices: [...group.resultIndices] })),
    groupOf: [...index.groupOf],
    problems: [...index.problems],
    renamedCalls: [...index.renamedCalls],
    renamedResults: [...index.renamedResults],
  });

  it("gives, after each push, the index of the messages so far, misplaced results and pending calls included", () => {
    const messages = [
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t1", "c1"),
      user("u2"),
      assistant("a2", "", [{ id: "c1" }, { id: "c3" }]),
      toolResult("t2", "c2"),
      toolResult("t3", "c1"),
      toolResult("t4", "c3"),
      toolResult("t5", "c3"),
      assistant("a3", "", [{ id: "c4" }]),
    ];
    const builder = new ToolCallIndexBuilder();
    const views: unknown[] = [];
    const fresh: unknown[] = [];
    messages.forEach((message, position) => {
      builder.push(message);
      views.push(plain(builder.view()));
      // A second view changes nothing: pending calls are reported, not settled.
      views[position] = plain(builder.view());
      fresh.push(plain(indexToolCallGroups(messages.slice(0, position + 1))));
    });
    expect(views).toEqual(fresh);
    expect(builder.view().problems.map(({ kind, index }) => [kind, index])).toEqual([
      ["duplicate-call-id", 4],
      ["misplaced-result", 5],
      ["duplicate-result", 8],
      ["unanswered-call", 9],
    ]);
  });
});

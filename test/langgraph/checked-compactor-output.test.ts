/**
 * A custom compactor's output goes through the same checks as the built-in strategies' before
 * anything is written: non-message output is refused with a typed error naming the compactor, and a
 * result whose tool pairing is broken is repaired (`invalidHistory: "repair"`) or refused (`"leave"`).
 */
import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { CompactorOutputError } from "../../src/errors.js";
import { validateToolPairing, type CompactionRecord, type CompactionResult, type Compactor } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupTool } from "./support/lookup-tool.js";
import { scriptedModel } from "./support/scripted.js";

const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });

/** A compactor that drops the oldest assistant message that makes tool calls and keeps its results. */
const dropOldestCall: Compactor & { name: string } = {
  name: "dropOldestCall",
  async compact(messages: readonly BaseMessage[]): Promise<CompactionResult> {
    const at = messages.findIndex((message) => isAIMessage(message) && (message.tool_calls?.length ?? 0) > 0);
    const base = { strategy: "dropOldestCall", tokensBefore: 0, tokensAfter: 0, messagesBefore: messages.length, replaced: [] };
    if (at < 0 || messages.length < 4) return { ...base, messages: [...messages], status: "noop", messagesAfter: messages.length, removed: [] };
    const output = messages.filter((_, position) => position !== at);
    return { ...base, messages: output, status: "compacted", messagesAfter: output.length, removed: [{ index: at, message: messages[at]! }] };
  },
};

/** A compactor that returns `output` as its result's messages (or as the whole result with `whole`). */
const returning = (name: string, output: unknown, whole = false): Compactor & { strategyName: string } => ({
  strategyName: name,
  async compact(messages: readonly BaseMessage[]) {
    if (whole) return output as CompactionResult;
    return { messages: output, status: "compacted", strategy: name, tokensBefore: 0, tokensAfter: 0, messagesBefore: messages.length, messagesAfter: 1, removed: [], replaced: [] } as unknown as CompactionResult;
  },
});

async function run(compactor: Compactor, options: Parameters<typeof compactionMiddleware>[1] = {}) {
  const model = scriptedModel(3);
  const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(compactor, options)], checkpointer: new MemorySaver() });
  await agent.invoke({ messages: [user("h1")] }, thread("t"));
  const { values } = await agent.graph.getState(thread("t"));
  const requests = model.calls.map((call) => call.messages as BaseMessage[]);
  return { requests, values: values as { messages: BaseMessage[]; compactionLog: CompactionRecord[] } };
}

describe("a custom compactor's output is checked before it is written", () => {
  it("a result that drops a call but keeps its result is repaired: no request and no state holds an orphan result", async () => {
    const { requests, values } = await run(dropOldestCall);
    expect({
      requestProblems: requests.map((messages) => validateToolPairing(messages).map((problem) => problem.kind)),
      stateProblems: validateToolPairing(values.messages),
      // The repair dropped each orphan result with its call: the log says so.
      log: values.compactionLog.map((record) => [record.status, record.removedIds, record.reason?.includes("output repaired: 1 problem(s) (first:")]),
    }).toEqual({
      requestProblems: [[], [], [], []],
      stateProblems: [],
      log: [
        ["compacted", ["a1", "t-c1"], true],
        ["compacted", ["a2", "t-c2"], true],
      ],
    });
  });

  it('with invalidHistory: "leave" such a result is refused: a failed record naming the compactor, the history unchanged', async () => {
    const { requests, values } = await run(dropOldestCall, { invalidHistory: "leave" });
    expect({
      requestProblems: requests.map((messages) => validateToolPairing(messages).length),
      messages: values.messages.map((message) => message.id),
      log: values.compactionLog.map((record) => [record.status, record.reason?.split(" (")[0]]),
    }).toEqual({
      requestProblems: [0, 0, 0, 0],
      messages: ["h1", "a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "final"],
      log: [
        ["failed", 'CompactorOutputError: compactionMiddleware: compactor "dropOldestCall" returned a history a provider rejects'],
        ["failed", 'CompactorOutputError: compactionMiddleware: compactor "dropOldestCall" returned a history a provider rejects'],
      ],
    });
  });

  it.each([
    ["a string among the messages", returning("strings", ["hello"]), 'compactor "strings" returned something that is not a LangChain message at position 0'],
    ["messages that are a plain object", returning("plain", { role: "user", content: "hi" }), 'compactor "plain" returned `messages` that is not an array (got object)'],
    ["an array instead of a result", returning("bare", ["hello"], true), 'compactor "bare" returned an array, not a CompactionResult'],
    ["a result without a status", returning("statusless", { messages: [] }, true), 'compactor "statusless" returned an unknown status undefined'],
  ])("%s: a failed record that names the compactor, and the history as it was", async (_name, compactor, reason) => {
    const { requests, values } = await run(compactor);
    expect({
      calls: requests.length,
      messages: values.messages.length,
      reasons: values.compactionLog.map((record) => [record.status, record.reason?.startsWith(`CompactorOutputError: compactionMiddleware: ${reason}`)]),
    }).toEqual({ calls: 4, messages: 8, reasons: [0, 1, 2, 3].map(() => ["failed", true]) });
  });

  it('with onError: "throw" the run fails with the CompactorOutputError (as the cause of LangChain\'s middleware error)', async () => {
    const error = await caught(() => run(returning("strings", ["hello"]), { onError: "throw" }));
    // LangChain wraps a middleware's error in its own, with the original as `cause`.
    const thrown = (error as { cause?: unknown }).cause;
    expect(CompactorOutputError.isInstance(thrown) && [thrown.component, thrown.compactor, thrown.problems.map((problem) => problem.kind)]).toEqual([
      "compactionMiddleware",
      "strings",
      ["not-a-message"],
    ]);
  });
});

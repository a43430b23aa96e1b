/**
 * CompactingChatMessageHistory with the package's real summary strategy (fullSummary, a scripted
 * summary model) under a real RunnableWithMessageHistory: each summary covers the previous summary
 * plus what was added since, and the summary call runs inside the chain's trace.
 */
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage } from "@langchain/core/messages";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { BaseTracer, type Run } from "@langchain/core/tracers/base";
import { beforeAll, describe, expect, it } from "vitest";
import { CompactingChatMessageHistory, fullSummary } from "../../src/index.js";
import { ids, user } from "../support/builders.js";

const TURNS = 5;

/** Records every run's name and its parent's name. */
class RunRecorder extends BaseTracer {
  name = "run-recorder";
  // Handlers run in the background by default; the assertions need every run recorded.
  override awaitHandlers = true;
  readonly names = new Map<string, string>();
  readonly runs: { name: string; parentId: string | undefined }[] = [];
  protected async persistRun(): Promise<void> {}
  override onRunCreate(run: Run) {
    this.names.set(run.id, run.name);
    this.runs.push({ name: run.name, parentId: run.parent_run_id });
  }
  parentsOf(name: string): (string | undefined)[] {
    return this.runs.filter((run) => run.name === name).map((run) => (run.parentId ? this.names.get(run.parentId) : undefined));
  }
}

describe("CompactingChatMessageHistory with fullSummary under RunnableWithMessageHistory", () => {
  const summarizer = fakeModel().respond(new AIMessage("<summary>S1</summary>")).respond(new AIMessage("<summary>S2</summary>"));
  const model = fakeModel();
  for (let turn = 1; turn <= TURNS; turn++) model.respond(new AIMessage({ id: `a${turn}`, content: `answer ${turn}` }));
  const history = new CompactingChatMessageHistory({
    history: new InMemoryChatMessageHistory(),
    compactor: fullSummary({ model: summarizer, keepRecent: 2, trigger: { messages: 5 } }),
  });
  const recorder = new RunRecorder();

  beforeAll(async () => {
    const chain = new RunnableWithMessageHistory({ runnable: model, getMessageHistory: () => history });
    for (let turn = 1; turn <= TURNS; turn++) {
      await chain.invoke([user(`u${turn}`)], { configurable: { sessionId: "s1" }, callbacks: [recorder] });
    }
  });

  it("gives the model the summary and the newest messages once the trigger fires", () => {
    const [first, second] = history.compactions.map((record) => record.summaryId);
    expect(model.calls.map((call) => ids(call.messages))).toEqual([
      ["u1"],
      ["u1", "a1", "u2"],
      ["u1", "a1", "u2", "a2", "u3"],
      [first, "u3", "a3", "u4"],
      [second, "u4", "a4", "u5"],
    ]);
  });

  it("summarizes the previous summary plus what was added since, never the whole history again", () => {
    const [first] = history.compactions.map((record) => record.summaryId);
    expect(history.compactions.map(({ status, removedIds, messagesBefore }) => ({ status, removedIds, messagesBefore }))).toEqual([
      { status: "summarized", removedIds: ["u1", "a1", "u2", "a2"], messagesBefore: 6 },
      { status: "summarized", removedIds: [first, "u3", "a3"], messagesBefore: 5 },
    ]);
  });

  it("sends the summary model the earlier summary, not the messages it replaced", () => {
    const secondPrompt = summarizer.calls[1]!.messages.map((message) => message.text).join("\n");
    expect([secondPrompt.includes("S1"), secondPrompt.includes("user u3"), secondPrompt.includes("user u1")]).toEqual([true, true, false]);
  });

  it("keeps every message in the wrapped history", async () => {
    expect(ids(await history.getAllMessages())).toEqual(["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5"]);
  });

  it("runs the summary calls inside the chain's loadHistory step", () => {
    expect(recorder.parentsOf("compaction_summary")).toEqual(["loadHistory", "loadHistory"]);
  });
});

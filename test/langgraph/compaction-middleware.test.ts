import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, compactionMarkerOf, fullSummary, restoreHistory, slidingWindow, toolResultHiding } from "../../src/index.js";
import { CompactionStrategy } from "../../src/extend/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { assistant, ids, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { Failing, scriptedModel } from "./support/scripted.js";
import { EVERY_RUN } from "../support/hiding.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const hiddenFlags = (messages: readonly BaseMessage[]) => messages.map((message) => [message.id, compactionMarkerOf(message)?.hidden ?? false]);


describe("compactionMiddleware in createAgent", () => {
  it("persists a summary (status \"summarized\") in the agent's zod state", async () => {
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }))],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [user("h1", "look things up ".repeat(100))] }, thread("summary"));
    const { values } = await agent.graph.getState(thread("summary"));
    expect(values.compactionLog.map((record: { status: string; summaryId: string | null }) => [record.status, record.summaryId])).toEqual([["summarized", "a2"]]);
    expect(compactionMarkerOf(values.messages[0]!)?.summary).toBe(true);
  });

  it("compacts before every model call: the model sees the older tool results hidden", async () => {
    const model = scriptedModel(3);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))] });
    await agent.invoke({ messages: [user("h1")] });
    expect(hiddenFlags(model.calls[3]!.messages as BaseMessage[])).toEqual([
      ["h1", false],
      ["a1", false],
      ["t-c1", true],
      ["a2", false],
      ["t-c2", true],
      ["a3", false],
      ["t-c3", false],
    ]);
  });

  it("persists the compacted messages and the log in the checkpointed state", async () => {
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [user("h1")] }, thread("t1"));
    const { values } = await agent.graph.getState(thread("t1"));
    expect({
      messages: hiddenFlags(values.messages),
      log: values.compactionLog.map((record: { status: string; replacedIds: string[]; archive: string }) => [record.status, record.replacedIds, record.archive]),
    }).toEqual({
      messages: [
        ["h1", false],
        ["a1", false],
        ["t-c1", true],
        ["a2", false],
        ["t-c2", true],
        ["a3", false],
        ["t-c3", false],
        ["final", false],
      ],
      log: [
        ["compacted", ["t-c1"], "state"],
        ["compacted", ["t-c2"], "state"],
      ],
    });
  });

  it("archives in the agent's store and restoreHistory gives back the full history", async () => {
    const store = new InMemoryStore();
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("t1"));
    const { values } = await agent.graph.getState(thread("t1"));
    const restored = await restoreHistory(values, { store, threadId: "t1" });
    expect({ archives: values.compactionLog.map((record: { archive: string }) => record.archive), restored: restored.map((message) => [message.id, message.content]) }).toEqual({
      archives: ["store", "store"],
      restored: [
        ["h1", "user h1"],
        ...[1, 2, 3].flatMap((n) => [
          [`a${n}`, `step ${n}`],
          [`t-c${n}`, lookupOutput(`c${n}`)],
        ]),
        ["final", "done"],
      ],
    });
  });

  it("removals persist across turns of a thread", async () => {
    const model = scriptedModel(1).respond(assistant("final2", "again"));
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(slidingWindow({ keepTurns: 1 }))], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("t1"));
    await agent.invoke({ messages: [user("h2")] }, thread("t1"));
    const { values } = await agent.graph.getState(thread("t1"));
    expect({ messages: ids(values.messages), lastPrompt: ids(model.calls[2]!.messages as BaseMessage[]), restored: ids(await restoreHistory(values)) }).toEqual({
      messages: ["h2", "final2"],
      lastPrompt: ["h2"],
      restored: ["h1", "a1", "t-c1", "final", "h2", "final2"],
    });
  });

  it("a compactor that throws leaves the messages unchanged, logs a failed record and the agent goes on", async () => {
    const agent = createAgent({ model: scriptedModel(1), tools: [lookupTool()], middleware: [compactionMiddleware(new Failing())] });
    const values = await agent.invoke({ messages: [user("h1")] });
    expect({
      messages: ids(values.messages),
      log: values.compactionLog.map((record: { status: string; reason?: string }) => [record.status, record.reason]),
    }).toEqual({
      messages: ["h1", "a1", "t-c1", "final"],
      log: [
        ["failed", "Error: summary model down"],
        ["failed", "Error: summary model down"],
      ],
    });
  });

  it("with onError: \"throw\" the error stops the agent", async () => {
    const agent = createAgent({ model: scriptedModel(1), tools: [lookupTool()], middleware: [compactionMiddleware(new Failing(), { onError: "throw" })] });
    expect(((await caught(() => agent.invoke({ messages: [user("h1")] }))) as Error).message).toBe("summary model down");
  });

  it("the compactor runs with the hook's config: its calls nest under the middleware's node", async () => {
    const runs: { name: string; id: string; parent: string | undefined }[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override async handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string, _tags?: string[], _metadata?: unknown, _runType?: string, runName?: string) {
        runs.push({ name: runName ?? "", id: runId, parent: parentRunId });
      }
    }
    class CallsASummaryChain extends CompactionStrategy {
      readonly strategyName = "callsASummaryChain";
      constructor() {
        super({});
      }
      protected async run({ context }: PreparedHistory): Promise<StrategyOutcome> {
        await RunnableLambda.from((text: string) => text).withConfig({ runName: "summaryCall" }).invoke("x", context.config);
        return { status: "noop" };
      }
    }
    const agent = createAgent({ model: scriptedModel(0), tools: [lookupTool()], middleware: [compactionMiddleware(new CallsASummaryChain(), { hook: "beforeModel" })] });
    await agent.invoke({ messages: [user("h1")] }, { callbacks: [new Recorder()] });
    const summary = runs.find((run) => run.name === "summaryCall");
    expect(runs.find((run) => run.id === summary?.parent)?.name).toBe("CompactionMiddleware.before_model");
    // By default, inside the model's node.
    runs.length = 0;
    const inStep = createAgent({ model: scriptedModel(0), tools: [lookupTool()], middleware: [compactionMiddleware(new CallsASummaryChain())] });
    await inStep.invoke({ messages: [user("h1")] }, { callbacks: [new Recorder()] });
    const inStepSummary = runs.find((run) => run.name === "summaryCall");
    expect(runs.find((run) => run.id === inStepSummary?.parent)?.name).toBe("model_request");
  });

  it("rejects invalid options at construction, naming the option", async () => {
    const error = await caught(() => compactionMiddleware(toolResultHiding(EVERY_RUN), { archive: "disk" as "store" }));
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).option]).toEqual([true, "archive"]);
  });
});

/**
 * compactionMiddleware in the model's step, where other writes share that step: a structured-output
 * retry written in the same step as a repair that moves a message, and a call that ends in a
 * structured response.
 */
import { AIMessage, HumanMessage, mapChatMessagesToStoredMessages, type BaseMessage } from "@langchain/core/messages";
import { Command, InMemoryStore, MemorySaver, interrupt } from "@langchain/langgraph";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, createMiddleware, toolStrategy } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { restoreHistory, toolResultHiding, validateToolPairing, type CompactionRecord } from "../../src/index.js";
import type { Compactor } from "../../src/strategies/compaction-strategy.js";
import { ClearToolUsesEdit, compactionMiddleware, contextEditingMiddleware } from "../../src/middleware/index.js";
import { assistant, toolResult, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { scriptedModel } from "./support/scripted.js";
import { CountingStore } from "../compat/support/middleware-matrix.js";

const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 50 });
const answerSchema = z.object({ answer: z.string() }).meta({ title: "Answer" });
/** A structured answer: a call of the `Answer` tool. */
const answer = (id: string, args: Record<string, unknown>) => new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "Answer", args }] });
const stored = (messages: readonly BaseMessage[]) => mapChatMessagesToStoredMessages([...messages]).map(({ type, data }) => [type, data.content, data.tool_call_id]);

describe("compactionMiddleware in the model's step, with other writes of that step", () => {
  it("a repair that moves a result, in the step of a structured-output parse failure: the retry's call keeps its answer", async () => {
    // The first answer fails to parse (no `answer`): LangChain retries in the same step's update.
    const model = fakeModel().respond(answer("s1", { wrong: 1 })).respond(answer("s2", { answer: "42" }));
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      responseFormat: toolStrategy(answerSchema),
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 5 }), { hook: "wrapModelCall" })],
      checkpointer: new MemorySaver(),
    });
    const input = [user("h1"), assistant("a1", "looking", [{ id: "c1", name: "lookup" }]), user("h2"), toolResult("t1", "c1")];
    const result = await agent.invoke({ messages: input }, thread("s"));
    const { values } = await agent.graph.getState(thread("s"));
    const messages = values.messages as BaseMessage[];
    expect({
      structured: result.structuredResponse,
      problems: validateToolPairing(messages),
      // The retry's own update (its call and the error result) is in the state, after the moved result.
      retry: messages.filter((message) => message.type === "tool" && (message as { tool_call_id?: string }).tool_call_id === "call-s1").length,
      log: (values.compactionLog as CompactionRecord[]).map((record) => [record.status, record.repair?.problems.map((problem) => problem.kind)]),
      secondPrompt: stored(model.calls[1]!.messages as BaseMessage[]).slice(0, 6),
    }).toEqual({
      structured: { answer: "42" },
      // The move is for the model only: the state keeps the result where the app put it, and logs nothing.
      problems: [expect.objectContaining({ kind: "misplaced-result", index: 3 })],
      retry: 1,
      log: [],
      secondPrompt: [
        ["human", "user h1", undefined],
        ["ai", "looking", undefined],
        ["tool", "result of c1", "c1"],
        ["human", "user h2", undefined],
        ["ai", "", undefined],
        ["tool", expect.stringContaining("answer"), "call-s1"],
      ],
    });
    // The stored order comes back.
    expect(stored(await restoreHistory(values)).slice(0, 4)).toEqual(stored(input));
  });

  it("a call that ends in a structured response writes nothing to the store (no entry that no record names)", async () => {
    const store = new InMemoryStore();
    const model = fakeModel()
      .respond(assistant("a1", "step 1", [{ id: "c1", name: "lookup", args: { query: "q1" } }]))
      .respond(assistant("a2", "step 2", [{ id: "c2", name: "lookup", args: { query: "q2" } }]))
      .respond(answer("s1", { answer: "done" }));
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      responseFormat: toolStrategy(answerSchema),
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { hook: "wrapModelCall" })],
      checkpointer: new MemorySaver(),
      store,
    });
    const result = await agent.invoke({ messages: [user("h1")] }, thread("s2"));
    const { values } = await agent.graph.getState(thread("s2"));
    const entries = await store.search(["langchain-compaction", "archive", "s2"]);
    // The third call hid c1's result for the model; the structured response ends the run without it.
    expect({
      structured: result.structuredResponse,
      hiddenInLastPrompt: (model.calls[2]!.messages as BaseMessage[]).filter((message) => message.type === "tool" && message.content !== (values.messages as BaseMessage[]).find((m) => m.id === message.id)?.content).map((message) => message.id),
      entries: entries.map((entry) => entry.key),
      named: (values.compactionLog as CompactionRecord[]).map((record) => record.id),
    }).toEqual({ structured: { answer: "done" }, hiddenInLastPrompt: ["t-c1"], entries: [], named: [] });
  });

  it("an interrupt inside the model's step: the step's writes wait for the resume, which writes the same archive entry again", async () => {
    const store = new CountingStore();
    let calls = 0;
    // Asks a person before the third model call, inside the model's step (after the compaction).
    const asking = createMiddleware({
      name: "Asking",
      wrapModelCall: (request, handler) => {
        if (++calls >= 3 && request.messages.length === 5) interrupt("go on?");
        return handler(request);
      },
    });
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 })), asking],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("i"));
    const paused = await agent.graph.getState(thread("i"));
    await agent.invoke(new Command({ resume: "yes" }), thread("i"));
    const { values } = await agent.graph.getState(thread("i"));
    const log = values.compactionLog as CompactionRecord[];
    expect({
      pausedLog: (paused.values.compactionLog as CompactionRecord[]).length,
      log: log.map((record) => record.replacedIds),
      puts: [...store.puts.entries()].map(([key, count]) => [key.split("/").at(-2) === "log" ? `log/${key.split("/").at(-1)}` : key.split("/").at(-1), count]),
      restored: stored(await restoreHistory(values, { store, threadId: "i" })).filter(([type]) => type === "tool").map(([, content]) => content),
    }).toEqual({
      pausedLog: 0,
      log: [["t-c1"], ["t-c2"]],
      // The archive entry and the log record, written again by the resumed step.
      puts: [
        [log[0]!.id, 2],
        [`log/${log[0]!.id}`, 2],
        [log[1]!.id, 1],
        [`log/${log[1]!.id}`, 1],
      ],
      restored: [lookupOutput("c1"), lookupOutput("c2"), lookupOutput("c3")],
    });
  });

  it("a result longer than the history, which cannot be written in place: the model gets it for the call, nothing is written", async () => {
    // Puts a note before the history and removes nothing.
    const noting: Compactor = {
      compact: async (messages) => ({
        messages: [new HumanMessage({ content: "note" }), ...messages],
        status: "compacted",
        strategy: "noting",
        tokensBefore: 1,
        tokensAfter: 2,
        messagesBefore: messages.length,
        messagesAfter: messages.length + 1,
        removed: [],
        replaced: [],
      }),
    };
    const store = new CountingStore();
    const model = scriptedModel(1);
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [compactionMiddleware(noting)], checkpointer: new MemorySaver(), store });
    await agent.invoke({ messages: [user("h1")] }, thread("g"));
    const { values } = await agent.graph.getState(thread("g"));
    expect({
      prompts: model.calls.map((call) => (call.messages as BaseMessage[]).map((message) => message.content)),
      state: (values.messages as BaseMessage[]).map((message) => message.id),
      log: values.compactionLog,
      puts: store.puts.size,
    }).toEqual({
      prompts: [
        ["note", "user h1"],
        ["note", "user h1", "step 1", lookupOutput("c1")],
      ],
      state: ["h1", "a1", "t-c1", "final"],
      log: [],
      puts: 0,
    });
  });

  it.each(["store", "state"] as const)("two compactionMiddleware that compact in the same step (archive %s): two records, each original restored", async (archive) => {
    // Shortens the first message once the history has five messages: in the step where hiding hides c1's result.
    const shorten: Compactor = {
      compact: async (messages) => {
        const first = messages[0]!;
        const changes = messages.length >= 5 && first.content !== "short";
        const after = changes ? new HumanMessage({ id: first.id, content: "short" }) : first;
        return { messages: [after, ...messages.slice(1)], status: changes ? "compacted" : "noop", strategy: "shorten", tokensBefore: 2, tokensAfter: changes ? 1 : 2, messagesBefore: messages.length, messagesAfter: messages.length, removed: [], replaced: changes ? [{ index: 0, before: first, after }] : [] };
      },
    };
    const store = new InMemoryStore();
    const agent = createAgent({
      model: scriptedModel(2),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { name: "Hiding", archive }), compactionMiddleware(shorten, { name: "Shorten", archive })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1", "a long question")] }, thread(`two-${archive}`));
    const { values } = await agent.graph.getState(thread(`two-${archive}`));
    const log = values.compactionLog as CompactionRecord[];
    expect({
      log: log.map((record) => [record.strategy, record.replacedIds]),
      distinct: new Set(log.map((record) => record.id)).size,
      state: stored(values.messages as BaseMessage[]).map(([, content]) => content),
      restored: stored(await restoreHistory(values, { store, threadId: `two-${archive}` })).map(([, content]) => content),
    }).toEqual({
      log: [
        ["toolResultHiding", ["t-c1"]],
        ["shorten", ["h1"]],
      ],
      distinct: 2,
      state: ["short", "step 1", expect.stringContaining("hidden"), "step 2", lookupOutput("c2"), "done"],
      restored: ["a long question", "step 1", lookupOutput("c1"), "step 2", lookupOutput("c2"), "done"],
    });
  });

  it("two compactionMiddleware in one step, the second removing what the first rewrote or removed: one write, the second on the first's result", async () => {
    // Drops the first call (a1) and its result once the history has two calls.
    const dropFirstCall: Compactor = {
      compact: async (messages) => {
        const at = messages.findIndex((message) => message.id === "a1");
        const changes = at >= 0 && messages.some((message) => message.id === "a2");
        const kept = changes ? [...messages.slice(0, at), ...messages.slice(at + 2)] : [...messages];
        return { messages: kept, status: changes ? "compacted" : "noop", strategy: "dropFirstCall", tokensBefore: 2, tokensAfter: changes ? 1 : 2, messagesBefore: messages.length, messagesAfter: kept.length, removed: changes ? messages.slice(at, at + 2).map((message, offset) => ({ index: at + offset, message })) : [], replaced: [] };
      },
    };
    const store = new InMemoryStore();
    const model = scriptedModel(2);
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { name: "Hiding" }), compactionMiddleware(dropFirstCall, { name: "Dropping" })],
      checkpointer: new MemorySaver(),
      store,
    });
    // An orphan result both would repair (remove): written twice, the reducer would throw on the second removal.
    const input = [user("h0"), toolResult("orphan", "nope"), user("h1")];
    await agent.invoke({ messages: input }, thread("drop"));
    const { values } = await agent.graph.getState(thread("drop"));
    const messages = values.messages as BaseMessage[];
    expect({
      ids: messages.map((message) => message.id),
      problems: validateToolPairing(messages),
      log: (values.compactionLog as CompactionRecord[]).map((record) => [record.strategy, record.status, record.removedIds, record.replacedIds]),
      lastPrompt: (model.calls[2]!.messages as BaseMessage[]).map((message) => message.id),
      restored: (await restoreHistory(values, { store, threadId: "drop" })).map((message) => message.id),
    }).toEqual({
      ids: ["h0", "h1", "a2", "t-c2", "final"],
      problems: [],
      log: [
        ["toolResultHiding", "repaired", ["orphan"], []],
        ["toolResultHiding", "compacted", [], ["t-c1"]],
        ["dropFirstCall", "compacted", ["a1", "t-c1"], []],
      ],
      lastPrompt: ["h0", "h1", "a2", "t-c2"],
      restored: ["h0", "orphan", "h1", "a1", "t-c1", "a2", "t-c2", "final"],
    });
    // The hidden result is what the second compaction archived; the first one's archive has the original.
    expect((await restoreHistory(values, { store, threadId: "drop" })).find((message) => message.id === "t-c1")?.content).toBe(lookupOutput("c1"));
  });

  it("compactionMiddleware and this package's contextEditingMiddleware, both repairing an orphan result in one step: the run goes on", async () => {
    const agent = createAgent({
      model: scriptedModel(1),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 })), contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 1 } })] })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [user("h0"), toolResult("orphan", "nope"), user("h1")] }, thread("ce"));
    const { values } = await agent.graph.getState(thread("ce"));
    expect({
      ids: (values.messages as BaseMessage[]).map((message) => message.id),
      log: (values.compactionLog as CompactionRecord[]).map((record) => [record.status, record.removedIds]),
      restored: (await restoreHistory(values)).map((message) => message.id),
    }).toEqual({
      ids: ["h0", "h1", "a1", "t-c1", "final"],
      log: [["repaired", ["orphan"]]],
      restored: ["h0", "orphan", "h1", "a1", "t-c1", "final"],
    });
  });

  it("a middleware before it that calls the model twice in one step (both answer): the compaction is written once", async () => {
    // Asks twice and keeps the second answer: each call returns, so the hook's Command is collected each time.
    const askTwice = createMiddleware({
      name: "AskTwice",
      wrapModelCall: async (request, handler) => {
        await handler(request);
        return handler(request);
      },
    });
    const dropFirstCall: Compactor = {
      compact: async (messages) => {
        const at = messages.findIndex((message) => message.id === "a1");
        const changes = at >= 0 && messages.some((message) => message.id === "a2");
        const kept = changes ? [...messages.slice(0, at), ...messages.slice(at + 2)] : [...messages];
        return { messages: kept, status: changes ? "compacted" : "noop", strategy: "dropFirstCall", tokensBefore: 2, tokensAfter: changes ? 1 : 2, messagesBefore: messages.length, messagesAfter: kept.length, removed: changes ? messages.slice(at, at + 2).map((message, offset) => ({ index: at + offset, message })) : [], replaced: [] };
      },
    };
    const model = fakeModel();
    for (const n of [1, 2]) model.respond(assistant(`a${n}-first`, "ignored", [])).respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
    model.respond(assistant("final-first", "ignored")).respond(assistant("final", "done"));
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [askTwice, compactionMiddleware(dropFirstCall)], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1")] }, thread("twice"));
    const { values } = await agent.graph.getState(thread("twice"));
    expect({
      ids: (values.messages as BaseMessage[]).map((message) => message.id),
      log: (values.compactionLog as CompactionRecord[]).map((record) => record.removedIds),
      restored: (await restoreHistory(values)).map((message) => message.id),
    }).toEqual({
      ids: ["h1", "a2", "t-c2", "final"],
      log: [["a1", "t-c1"]],
      restored: ["h1", "a1", "t-c1", "a2", "t-c2", "final"],
    });
  });
});

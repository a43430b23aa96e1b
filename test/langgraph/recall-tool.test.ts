/**
 * The recall tool in `createAgent`: after a summary, the agent passes the summary's reference and
 * gets the exact originals back from its own thread's archive (store or state channel), never from
 * another thread's; paged; redactions and removals kept; nothing written.
 */
import { AIMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf, createCompactionNode, fullSummary, readCompactionLog, redactArchived, toolResultHiding } from "../../src/index.js";
import { defaultTokenCounter } from "../../src/extend/index.js";
import { compactionMiddleware, recallTool } from "../../src/middleware/index.js";
import { recallRef } from "../../src/langgraph/recall-refs.js";
import { EVERY_RUN } from "../support/hiding.js";
import { user } from "../support/builders.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { reactGraph } from "./support/react-graph.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const SECRET = "the launch code is 7431, keep it in mind";
const REF_NOTE = /\[recall ([0-9]{8})\]/u;

const lookupCall = (prefix: string, n: number) =>
  new AIMessage({ id: `${prefix}a${n}`, content: `step ${n}`, tool_calls: [{ id: `${prefix}c${n}`, name: "lookup", args: { query: `q${n}` }, type: "tool_call" }] });

/** The text of the messages the model got, joined: where it reads the references. */
const textOf = (messages: readonly BaseMessage[]) => messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");

/**
 * A model that looks three things up, then, seeing a `[recall ref]` note, recalls it and answers
 * with the first line of what came back (the exact original), then says done.
 */
function recallingModel(prefix = "") {
  const model = fakeModel();
  for (let n = 1; n <= 3; n++) model.respond(lookupCall(prefix, n));
  model.respond((messages: BaseMessage[]) => {
    const ref = REF_NOTE.exec(textOf(messages))?.[1];
    if (ref === undefined) return new AIMessage({ id: `${prefix}lost`, content: "no reference to recall" });
    return new AIMessage({ id: `${prefix}a4`, content: "", tool_calls: [{ id: `${prefix}r1`, name: "recall", args: { ref }, type: "tool_call" }] });
  });
  model.respond((messages: BaseMessage[]) => {
    const recalled = String(messages[messages.length - 1]!.content);
    return new AIMessage({ id: `${prefix}final`, content: `Using the original: ${recalled.includes(SECRET) ? SECRET : "nothing"}` });
  });
  return model;
}

const summarizing = (options: Parameters<typeof compactionMiddleware>[1] = { recall: true }) =>
  compactionMiddleware(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }), options);

async function runRecallingAgent(store: InMemoryStore | undefined, threadId: string, prefix = "", hook: "beforeModel" | "wrapModelCall" = "wrapModelCall") {
  const model = recallingModel(prefix);
  const agent = createAgent({ model, tools: [lookupTool()], middleware: [summarizing({ recall: true, hook })], checkpointer: new MemorySaver(), ...(store ? { store } : {}) });
  await agent.invoke({ messages: [user(`${prefix}h1`, `${SECRET}. Look things up.`)] }, thread(threadId));
  const { values } = await agent.graph.getState(thread(threadId));
  return { model, agent, values: values as { messages: BaseMessage[]; compactionArchive?: unknown[] } };
}

describe("recall tool in createAgent", () => {
  for (const [where, hook] of [["store", "wrapModelCall"], ["state", "wrapModelCall"], ["store", "beforeModel"]] as const) {
    it(`after a summary, the agent recalls the summary's reference and gets the exact originals (archive in the ${where}, ${hook})`, async () => {
      const store = where === "store" ? new InMemoryStore() : undefined;
      const { model, values } = await runRecallingAgent(store, `recall-${where}`, "", hook);
      // The summary names the reference of the id it took (the newest assistant message it replaced).
      const summary = (model.calls[3]!.messages as BaseMessage[]).find((message) => compactionMarkerOf(message)?.summary)!;
      expect(String(summary.content).endsWith(`\n[recall ${recallRef("a2")}]`)).toBe(true);
      const recalled = values.messages.find((message) => ToolMessage.isInstance(message) && message.name === "recall")!;
      const text = String(recalled.content);
      expect(text.startsWith(`<recalled ref="${recallRef("a2")}">\n[user]\n${SECRET}. Look things up.\n\n[assistant]\nstep 1\n-> lookup({"query":"q1"}) #c1\n\n[tool lookup #c1]\n${lookupOutput("c1")}`)).toBe(true);
      expect(text).toContain(`[tool lookup #c2]\n${lookupOutput("c2")}`);
      expect(text.endsWith("\n</recalled>")).toBe(true);
      expect(values.messages.at(-1)!.content).toBe(`Using the original: ${SECRET}`);
      if (where === "state") expect(values.compactionArchive).toHaveLength(1);
      // The note is part of what the compaction wrote: no overwrite of the summary is seen in it.
      const log = await readCompactionLog(values as never, { store, threadId: `recall-${where}` });
      expect(log.map((record) => [record.status, record.summaryId])).toEqual([["summarized", "a2"]]);
    });
  }

  it("adds the tool only with recall on, and names no reference without it", async () => {
    const model = recallingModel();
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [summarizing({})], checkpointer: new MemorySaver() });
    await agent.invoke({ messages: [user("h1", SECRET)] }, thread("off"));
    expect(textOf(model.calls[3]!.messages as BaseMessage[])).not.toMatch(REF_NOTE);
    const { values } = await agent.graph.getState(thread("off"));
    expect(values.messages.at(-1)!.content).toBe("no reference to recall");
  });

  it("reads only its own thread: thread B asking for thread A's reference finds nothing", async () => {
    const store = new InMemoryStore();
    const a = await runRecallingAgent(store, "thread-A", "A-");
    const refOfA = recallRef("A-a2");
    expect(String(a.values.messages.find((message) => message.name === "recall")!.content)).toContain(SECRET);
    // Thread B has its own compaction in the same store, and a model that asks for A's reference.
    const model = fakeModel();
    for (let n = 1; n <= 3; n++) model.respond(lookupCall("B-", n));
    model.respond(new AIMessage({ id: "B-a4", content: "", tool_calls: [{ id: "B-r1", name: "recall", args: { ref: refOfA, thread_id: "thread-A" }, type: "tool_call" }] }));
    model.respond(new AIMessage({ id: "B-final", content: "done" }));
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [summarizing()], checkpointer: new MemorySaver(), store });
    await agent.invoke({ messages: [user("B-h1", "thread B's own question")] }, thread("thread-B"));
    const { values } = await agent.graph.getState(thread("thread-B"));
    const recalled = values.messages.find((message: BaseMessage) => ToolMessage.isInstance(message) && message.name === "recall")!;
    expect(recalled.content).toBe(`Nothing archived under "${refOfA}".`);
    // B's own reference works in B.
    const tool = recallTool({ store });
    const own = await tool.invoke({ ref: recallRef("B-a2") }, { configurable: { thread_id: "thread-B" }, state: values } as never);
    expect(own).toContain("thread B's own question");
    expect(own).not.toContain(SECRET);
  });

  it("recalls what the app redacted as redacted (redactArchived), and never writes to the store", async () => {
    const store = new InMemoryStore();
    const { values } = await runRecallingAgent(store, "redacted");
    await redactArchived(store, "redacted", ["h1"]);
    const before = JSON.stringify(await store.search(["langchain-compaction"], { limit: 100 }));
    const tool = recallTool({ store });
    const text = await tool.invoke({ ref: recallRef("a2") }, { configurable: { thread_id: "redacted" }, state: values } as never);
    expect(text).toContain("[user]\n[redacted]\n");
    expect(text).not.toContain("launch code");
    expect(text).toContain(lookupOutput("c1"));
    expect(JSON.stringify(await store.search(["langchain-compaction"], { limit: 100 }))).toBe(before);
  });

  it("a hidden result the app overwrote is recalled as the app wrote it; one the app removed, not at all", async () => {
    const model = fakeModel();
    for (let n = 1; n <= 3; n++) model.respond(lookupCall("", n));
    model.respond(new AIMessage({ id: "final", content: "done" }));
    const store = new InMemoryStore();
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { recall: true })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("app-writes"));
    let { values } = await agent.graph.getState(thread("app-writes"));
    const hidden = values.messages.find((message: BaseMessage) => message.id === "t-c1")!;
    expect(String(hidden.content).endsWith(` [recall ${recallRef("t-c1")}]`)).toBe(true);
    await agent.graph.updateState(thread("app-writes"), {
      messages: [new ToolMessage({ id: "t-c1", tool_call_id: "c1", name: "lookup", content: "[redacted by the app]" }), new RemoveMessage({ id: "t-c2" })],
    });
    ({ values } = await agent.graph.getState(thread("app-writes")));
    const tool = recallTool();
    const config = (state: unknown) => ({ configurable: { thread_id: "app-writes" }, store, state }) as never;
    expect(await tool.invoke({ ref: recallRef("t-c1") }, config(values))).toBe(`<recalled ref="${recallRef("t-c1")}">\n[tool lookup #c1]\n[redacted by the app]\n</recalled>`);
    expect(await tool.invoke({ ref: recallRef("t-c2") }, config(values))).toBe(`Nothing archived under "${recallRef("t-c2")}".`);
  });

  it("pages a long recall: parts of at most maxTokens tokens that join to the whole text", async () => {
    const store = new InMemoryStore();
    const { values } = await runRecallingAgent(store, "paged");
    const config = { configurable: { thread_id: "paged" }, state: values } as never;
    const whole = String(await recallTool({ store }).invoke({ ref: recallRef("a2") }, config));
    const body = whole.slice(whole.indexOf(">\n") + 2, whole.length - "\n</recalled>".length);
    const paged = recallTool({ store, maxTokens: 60 });
    const parts: string[] = [];
    let part = 1;
    let total = 0;
    for (;;) {
      const text = String(await paged.invoke({ ref: recallRef("a2"), ...(part === 1 ? {} : { part }) }, config));
      const match = /^<recalled ref="[0-9]{8}" part="(\d+)">\n([\s\S]*)<\/recalled>\nParts? (\d+)(?:-(\d+))? of (\d+)(?:; next: part (\d+))?\.$/u.exec(text)!;
      expect([Number(match[1]), Number(match[3])]).toEqual([part, part]);
      total = Number(match[5]);
      const page = match[2]!.slice(0, -1);
      expect(await defaultTokenCounter().countText(page)).toBeLessThanOrEqual(60);
      parts.push(page);
      if (match[6] === undefined) break;
      // The next part starts right after the last piece this one returned.
      expect(Number(match[6])).toBe(Number(match[4] ?? match[3]) + 1);
      part = Number(match[6]);
    }
    expect(parts.length).toBe(7);
    expect(parts.join("")).toBe(body);
    expect(await paged.invoke({ ref: recallRef("a2"), part: total + 1 }, config)).toBe(`${recallRef("a2")} has ${total} parts.`);
  });
  it("with find, returns only the lines that hold one of the texts (case-insensitive, a|b), under their headers, the newest message holding each text in the first part", async () => {
    const store = new InMemoryStore();
    const { values } = await runRecallingAgent(store, "find");
    const config = { configurable: { thread_id: "find" }, state: values } as never;
    const tool = recallTool({ store, maxTokens: 60 });
    const ref = recallRef("a2");
    // The whole span takes 7 parts of 60 tokens; the user's words are one line, one call.
    expect(await tool.invoke({ ref, find: "LAUNCH CODE" }, config)).toBe(`<recalled ref="${ref}">\n[user]\n${SECRET}. Look things up.\n</recalled>`);
    expect(await tool.invoke({ ref, find: '"q2"' }, config)).toBe(`<recalled ref="${ref}">\n[assistant]\n-> lookup({"query":"q2"}) #c2\n</recalled>`);
    expect(await tool.invoke({ ref, find: '"q1" | launch' }, config)).toBe(`<recalled ref="${ref}">\n[assistant]\n-> lookup({"query":"q1"}) #c1\n\n[user]\n${SECRET}. Look things up.\n</recalled>`);
    // A long line is cut to 150 characters on each side of its first match (here at 7).
    expect(lookupOutput("c2").length).toBeGreaterThan(400);
    expect(await recallTool({ store }).invoke({ ref, find: "result for c2" }, config)).toBe(`<recalled ref="${ref}">\n[tool lookup #c2]\n${lookupOutput("c2").slice(0, 7 + 150)}…\n</recalled>`);
    // The first part ends with the newest message holding each text (here one); the older matches come next.
    expect(await recallTool({ store }).invoke({ ref, find: '"query"' }, config)).toBe(`<recalled ref="${ref}" part="1">\n[assistant]\n-> lookup({"query":"q2"}) #c2\n\n\n</recalled>\nParts 1-3 of 5; next: part 4.`);
    expect(await recallTool({ store }).invoke({ ref, find: '"query"', part: 4 }, config)).toBe(`<recalled ref="${ref}" part="4">\n[assistant]\n-> lookup({"query":"q1"}) #c1\n</recalled>\nParts 4-5 of 5.`);
    expect(await tool.invoke({ ref, find: "not in the span" }, config)).toBe(`Nothing under ${ref} holds "not in the span".`);
    // An empty find reads the whole span, as without it.
    expect(await recallTool({ store }).invoke({ ref, find: " | " }, config)).toBe(await recallTool({ store }).invoke({ ref }, config));
  });

  it("parallel recall calls in one assistant message are answered together, before the next model call", async () => {
    const model = fakeModel();
    for (let n = 1; n <= 3; n++) model.respond(lookupCall("", n));
    model.respond((messages: BaseMessage[]) => {
      const ref = REF_NOTE.exec(textOf(messages))![1]!;
      return new AIMessage({
        id: "a4",
        content: "",
        tool_calls: [
          { id: "r1", name: "recall", args: { ref, find: "launch code" }, type: "tool_call" },
          { id: "r2", name: "recall", args: { ref, find: '"q1"' }, type: "tool_call" },
        ],
      });
    });
    model.respond(new AIMessage({ id: "final", content: "done" }));
    const agent = createAgent({ model, tools: [lookupTool()], middleware: [summarizing()], checkpointer: new MemorySaver(), store: new InMemoryStore() });
    await agent.invoke({ messages: [user("h1", `${SECRET}. Look things up.`)] }, thread("parallel"));
    // One model call after the recalls, which got both results.
    expect(model.calls).toHaveLength(5);
    const results = (model.calls[4]!.messages as BaseMessage[]).slice(-2).map((message) => String(message.content));
    expect(results).toEqual([
      `<recalled ref="${recallRef("a2")}">\n[user]\n${SECRET}. Look things up.\n</recalled>`,
      `<recalled ref="${recallRef("a2")}">\n[assistant]\n-> lookup({"query":"q1"}) #c1\n</recalled>`,
    ]);
  });

  it("a recalled result is a tool result like any other: hidden later, its note points at the original", async () => {
    const model = fakeModel();
    for (let n = 1; n <= 2; n++) model.respond(lookupCall("", n));
    model.respond((messages: BaseMessage[]) => {
      const ref = REF_NOTE.exec(textOf(messages))![1]!;
      return new AIMessage({ id: "a3", content: "", tool_calls: [{ id: "r1", name: "recall", args: { ref }, type: "tool_call" }] });
    });
    for (let n = 4; n <= 5; n++) model.respond(lookupCall("", n));
    model.respond(new AIMessage({ id: "final", content: "done" }));
    const store = new InMemoryStore();
    const agent = createAgent({
      model,
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { recall: true })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("re-hidden"));
    const { values } = await agent.graph.getState(thread("re-hidden"));
    const recallResult = values.messages.find((message: BaseMessage) => ToolMessage.isInstance(message) && message.name === "recall")!;
    expect(compactionMarkerOf(recallResult)?.hidden).toBe(true);
    expect(String(recallResult.content).endsWith(` [recall ${recallRef("t-c1")}]`)).toBe(true);
    // The model got the original while it was in full, and the reference still gives it back.
    expect(String((model.calls[3]!.messages as BaseMessage[]).at(-1)!.content)).toContain(lookupOutput("c1"));
    const again = await recallTool().invoke({ ref: recallRef("t-c1") }, { configurable: { thread_id: "re-hidden" }, store, state: values } as never);
    expect(again).toBe(`<recalled ref="${recallRef("t-c1")}">\n[tool lookup #c1]\n${lookupOutput("c1")}\n</recalled>`);
  });
  it("reads several references in one call (`ref: a|b`): their originals in history order under one fence, find over all of them; hidden later, its note names both", async () => {
    const model = fakeModel();
    for (let n = 1; n <= 3; n++) model.respond(lookupCall("", n));
    const both = `${recallRef("t-c1")}|${recallRef("t-c2")}`;
    // Long enough to be hidden.
    const PADDING = "padding ".repeat(60).trim();
    model.respond(new AIMessage({ id: "a4", content: "", tool_calls: [{ id: "r1", name: "recall", args: { ref: ` ${recallRef("t-c2")} | ${recallRef("t-c1")} `, find: "value for c1|value for c2" }, type: "tool_call" }] }));
    for (let n = 5; n <= 6; n++) model.respond(lookupCall("", n));
    model.respond(new AIMessage({ id: "final", content: "done" }));
    const store = new InMemoryStore();
    const agent = createAgent({
      model,
      tools: [lookupTool({ c1: `${PADDING}\nthe value for c1`, c2: `the value for c2\n${PADDING}` })],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { recall: true })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1")] }, thread("several"));
    // The model got both matching lines in one result, newest message first, under the refs as asked (each once).
    const asked = `${recallRef("t-c2")}|${recallRef("t-c1")}`;
    expect(String((model.calls[4]!.messages as BaseMessage[]).at(-1)!.content)).toBe(`<recalled ref="${asked}">\n[tool lookup #c2]\nthe value for c2\n\n[tool lookup #c1]\nthe value for c1\n</recalled>`);
    const { values } = await agent.graph.getState(thread("several"));
    // Hidden later, the recall's result names the references its call asked for.
    const recallResult = values.messages.find((message: BaseMessage) => ToolMessage.isInstance(message) && message.name === "recall")!;
    expect(compactionMarkerOf(recallResult)?.hidden).toBe(true);
    expect(String(recallResult.content).endsWith(` [recall ${asked}]`)).toBe(true);
    const tool = recallTool({ store });
    const config = { configurable: { thread_id: "several" }, state: values } as never;
    // Without find: both originals whole, in history order.
    expect(await tool.invoke({ ref: both }, config)).toBe(`<recalled ref="${both}">\n[tool lookup #c1]\n${PADDING}\nthe value for c1\n\n[tool lookup #c2]\nthe value for c2\n${PADDING}\n</recalled>`);
    // A reference that names nothing in this thread adds nothing; one that is not a reference fails the whole call.
    expect(await tool.invoke({ ref: `${recallRef("t-c1")}|00000000` }, config)).toBe(`<recalled ref="${recallRef("t-c1")}|00000000">\n[tool lookup #c1]\n${PADDING}\nthe value for c1\n</recalled>`);
    expect(await tool.invoke({ ref: "00000000|99999999" }, config)).toBe(`Nothing archived under "00000000|99999999".`);
    expect(await tool.invoke({ ref: `${recallRef("t-c1")}|c1` }, config)).toBe(`Nothing archived under "${recallRef("t-c1")}|c1".`);
  });

  it("in a custom graph: the compaction node with recall on, recallTool in LangGraph's ToolNode, the archive in the state channel", async () => {
    const model = recallingModel();
    const graph = reactGraph({
      model: model as never,
      tools: [lookupTool(), recallTool()],
      compaction: [createCompactionNode(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }), { recall: true })],
      checkpointer: new MemorySaver(),
    });
    await graph.invoke({ messages: [user("h1", SECRET)] }, thread("custom"));
    const { values } = await graph.getState(thread("custom"));
    expect(values.compactionArchive).toHaveLength(1);
    const recalled = values.messages.find((message: BaseMessage) => ToolMessage.isInstance(message) && message.name === "recall")!;
    expect(String(recalled.content)).toContain(`[user]\n${SECRET}\n\n[assistant]\nstep 1`);
    expect(values.messages.at(-1)!.content).toBe(`Using the original: ${SECRET}`);
  });
});

/**
 * The recall tool bounds what it returns by the room the context leaves in the model's window:
 * parallel recalls share it, the model's reported usage counts, and paging still reaches every line.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { defaultTokenCounter } from "../../src/extend/index.js";
import { autoCompactionMiddleware, recallTool } from "../../src/middleware/index.js";
import { recallRef } from "../../src/langgraph/recall-refs.js";
import { RECALL_FRAME_TOKENS, RECALL_ROOM_MARGIN } from "../../src/langgraph/recall-room.js";
import { user } from "../support/builders.js";
import { lookupTool } from "./support/lookup-tool.js";

const WINDOW = 6_000;
const ROOM = Math.floor(WINDOW * (1 - RECALL_ROOM_MARGIN));
const thread = (id: string) => ({ configurable: { thread_id: id } });
const counter = defaultTokenCounter();
/** A long result, one numbered line each, about 2,500 tokens. */
const bigOutput = (callId: string) => Array.from({ length: 250 }, (_, line) => `${callId} line ${line} of the listing`).join("\n");
const lookupCall = (n: number) => new AIMessage({ id: `a${n}`, content: "", tool_calls: [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` }, type: "tool_call" }] });
const REFS = [recallRef("t-c1"), recallRef("t-c2")];

/** The recall results at the end of `messages`, with the part each names next. */
function lastRecalls(messages: readonly BaseMessage[]): { ref: string; next: number | undefined }[] {
  const results: { ref: string; next: number | undefined }[] = [];
  for (let index = messages.length - 1; index >= 0 && ToolMessage.isInstance(messages[index]) && messages[index]!.name === "recall"; index--) {
    const text = String(messages[index]!.content);
    const next = /next: part (\d+)\.$/u.exec(text)?.[1];
    results.push({ ref: /ref="([0-9]{8})"/u.exec(text)![1]!, next: next === undefined ? undefined : Number(next) });
  }
  return results;
}

/** Looks three long things up; then recalls the two hidden ones at once, part after part, until it has them whole. */
function recallingModel() {
  const model = fakeModel();
  for (let n = 1; n <= 3; n++) model.respond(lookupCall(n));
  let round = 0;
  const recallRound = (messages: BaseMessage[]) => {
    const last = lastRecalls(messages);
    const wanted = round === 0 ? REFS.map((ref) => ({ ref, part: undefined as number | undefined })) : last.filter((result) => result.next !== undefined).map((result) => ({ ref: result.ref, part: result.next }));
    if (wanted.length === 0) return new AIMessage({ id: "final", content: "done" });
    round++;
    const calls = wanted.map(({ ref, part }, index) => ({ id: `r${round}-${index}`, name: "recall", args: { ref, ...(part === undefined ? {} : { part }) }, type: "tool_call" as const }));
    return new AIMessage({ id: `recall-${round}`, content: "", tool_calls: calls });
  };
  for (let n = 0; n < 12; n++) model.respond(recallRound);
  return model;
}

describe("recall within the window", () => {
  it("in createAgent with autoCompactionMiddleware: parallel recalls never push the context past the window, and their parts join to the whole originals", async () => {
    const store = new InMemoryStore();
    const content = { c1: bigOutput("c1"), c2: bigOutput("c2"), c3: bigOutput("c3") };
    const agent = createAgent({
      model: recallingModel(),
      tools: [lookupTool(content)],
      middleware: [autoCompactionMiddleware({ contextWindow: WINDOW, hiding: { keepRecentGroups: 1 }, recall: true })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1", "List the three things, then read the first two again.")] }, thread("room"));
    // Every state the tools left after a recall round, oldest first.
    const afterRounds: BaseMessage[][] = [];
    for await (const snapshot of agent.graph.getStateHistory(thread("room"))) {
      const messages = (snapshot.values as { messages: BaseMessage[] }).messages;
      if (lastRecalls(messages).length > 0 && snapshot.next.includes("model_request")) afterRounds.unshift(messages);
    }
    expect(afterRounds.length).toBeGreaterThan(1);
    for (const messages of afterRounds) expect((await counter.measure(messages)).total).toBeLessThanOrEqual(ROOM);
    // Paging reached everything: per reference, the parts in order are the whole original as one unbounded recall gives it.
    const { values } = await agent.graph.getState(thread("room"));
    const bodies = new Map<string, string[]>();
    for (const messages of afterRounds) {
      for (const message of messages.slice(-lastRecalls(messages).length)) {
        const text = String(message.content);
        const ref = /ref="([0-9]{8})"/u.exec(text)![1]!;
        bodies.set(ref, [...(bodies.get(ref) ?? []), text.slice(text.indexOf(">\n") + 2, text.lastIndexOf("\n</recalled>"))]);
      }
    }
    const unbounded = recallTool({ store, maxTokens: 100_000 });
    for (const ref of REFS) {
      const whole = String(await unbounded.invoke({ ref }, { configurable: { thread_id: "room" }, store, state: values } as never));
      expect(bodies.get(ref)!.join("")).toBe(whole.slice(whole.indexOf(">\n") + 2, whole.lastIndexOf("\n</recalled>")));
    }
    expect((values as { messages: BaseMessage[] }).messages.at(-1)!.content).toBe("done");
  });

  it("counts the model's reported usage when it is more than the state's messages, and says so when no part fits", async () => {
    const store = new InMemoryStore();
    const agent = createAgent({
      model: recallingModel(),
      tools: [lookupTool({ c1: bigOutput("c1"), c2: bigOutput("c2"), c3: bigOutput("c3") })],
      middleware: [autoCompactionMiddleware({ contextWindow: WINDOW, hiding: { keepRecentGroups: 1 }, recall: true })],
      checkpointer: new MemorySaver(),
      store,
    });
    await agent.invoke({ messages: [user("h1", "List the three things, then read the first two again.")] }, thread("usage"));
    const { values } = await agent.graph.getState(thread("usage"));
    const history = (values as { messages: BaseMessage[] }).messages;
    const counted = (await counter.measure(history)).total;
    const tool = recallTool({ store, contextWindow: WINDOW });
    const invoke = (state: unknown) => tool.invoke({ ref: REFS[0]! }, { configurable: { thread_id: "usage" }, store, state } as never);
    // The model reports a larger input than the state's messages count: its figure bounds the part.
    const reported = counted + 1_000;
    const asking = new AIMessage({ id: "ask", content: "", tool_calls: [{ id: "q", name: "recall", args: { ref: REFS[0]! }, type: "tool_call" }], usage_metadata: { input_tokens: reported - 20, output_tokens: 20, total_tokens: reported } });
    const text = String(await invoke({ ...values, messages: [...history, asking] }));
    const body = text.slice(text.indexOf(">\n") + 2, text.lastIndexOf("\n</recalled>"));
    expect(text).toMatch(/^<recalled ref="[0-9]{8}" part="1">\n/u);
    expect(await counter.countText(body)).toBeLessThanOrEqual(ROOM - reported - RECALL_FRAME_TOKENS);
    // With no room left, it says so instead of returning text.
    const full = new AIMessage({ ...asking, id: "ask2", usage_metadata: { input_tokens: ROOM, output_tokens: 20, total_tokens: ROOM + 20 } });
    expect(await invoke({ ...values, messages: [...history, full] })).toBe(`No room in the context for part 1 of ${REFS[0]} now; ask again after the next compaction, or for fewer refs at once.`);
  });
});

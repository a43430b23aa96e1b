/**
 * With the recall tool on, autoCompactionMiddleware runs its policy as `withRecall` says: where the
 * threshold fires, it compacts down to a quarter of the window, so a hiding that would stand without
 * recall is followed by a summary.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf } from "../../src/index.js";
import { autoCompactionMiddleware } from "../../src/middleware/index.js";
import { user } from "../support/builders.js";
import { lookupTool } from "./support/lookup-tool.js";

const WINDOW = 3_000;
const LOOKUPS = 7;
/** A result of about 400 tokens. */
const output = (callId: string) => `${callId} holds the entry of the listing `.repeat(50);
const lookupCall = (n: number) => new AIMessage({ id: `a${n}`, content: "", tool_calls: [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` }, type: "tool_call" }] });

/** The final messages of a run that looks `LOOKUPS` things up, with or without recall. */
async function run(recall: boolean): Promise<BaseMessage[]> {
  const model = fakeModel();
  for (let n = 1; n <= LOOKUPS; n++) model.respond(lookupCall(n));
  model.respond(new AIMessage({ id: "final", content: "done" }));
  const content = Object.fromEntries(Array.from({ length: LOOKUPS }, (_, n) => [`c${n + 1}`, output(`c${n + 1}`)]));
  const agent = createAgent({
    model,
    tools: [lookupTool(content)],
    middleware: [autoCompactionMiddleware({ contextWindow: WINDOW, hiding: { keepRecentGroups: 2, clearAtLeast: 0 }, recall })],
    checkpointer: new MemorySaver(),
    store: new InMemoryStore(),
  });
  const { messages } = await agent.invoke({ messages: [user("h1", "Look the seven things up.")] }, { configurable: { thread_id: `recall-${recall}` } });
  return messages;
}

describe("autoCompactionMiddleware with recall", () => {
  it("summarizes where the threshold fires and hiding alone would leave more than a quarter of the window; without recall the hiding stands", async () => {
    const without = await run(false);
    expect(without.some((message) => compactionMarkerOf(message)?.hidden)).toBe(true);
    expect(without.some((message) => compactionMarkerOf(message)?.summary)).toBe(false);
    const withRecall = await run(true);
    expect(withRecall.some((message) => compactionMarkerOf(message)?.summary)).toBe(true);
    expect(withRecall.at(-1)!.content).toBe("done");
  });
});

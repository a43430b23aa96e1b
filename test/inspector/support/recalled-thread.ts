/**
 * A thread in which the agent recalled: `createAgent` with the compaction middleware's `recall` on,
 * a store for the archive and a scripted model that looks three things up, is summarized, then
 * reads the summary's reference back (part 1, then the next part of a paged recall), asks for a reference
 * its thread does not have, and answers. Returned as the inspector reads it (`exportThread`).
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { fullSummary, toolResultHiding } from "../../../src/index.js";
import { compactionMiddleware } from "../../../src/middleware/index.js";
import { exportThread } from "../../../src/inspector/thread-sources.js";
import type { ThreadExport } from "../../../src/inspector/inspection.js";
import { EVERY_RUN } from "../../support/hiding.js";
import { user } from "../../support/builders.js";
import { lookupTool } from "../../langgraph/support/lookup-tool.js";

export const SECRET = "the launch code is 7431, keep it in mind";
/** The text the hidden result's recall looks for (its `find` argument). */
export const HIDDEN_FIND = "result for c1";
/** A reference no message of the thread has. */
export const FOREIGN_REF = "12345678";

/** The reference the newest `[recall …]` note in the model's request names. */
function newestRef(messages: readonly BaseMessage[]): string {
  const text = messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");
  const refs = [...text.matchAll(/\[recall ([^\]\s]+)\]/gu)].map((match) => match[1]!);
  if (refs.length === 0) throw new Error("the model's request names no recall reference");
  return refs[refs.length - 1]!;
}

const lookupCall = (n: number) => new AIMessage({ id: `a${n}`, content: `step ${n}`, tool_calls: [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` }, type: "tool_call" }] });
const recallCall = (id: string, callId: string, args: Record<string, unknown>) => new AIMessage({ id, content: "", tool_calls: [{ id: callId, name: "recall", args, type: "tool_call" }] });

export interface RecalledThread {
  readonly thread: ThreadExport;
  /** The reference the agent recalled (the summary's). */
  readonly ref: string;
  /** In a paged recall: the part r2 asked for (the one r1's result named next), and the parts r1's result said there are. */
  readonly second?: number;
  readonly parts?: number;
}

/**
 * The summarized thread: three lookups summarized (the summary takes `a2`'s id), then recall r1
 * (part 1 of the summary's reference), r2 (the part r1's result names next), r3 (a foreign reference), and the answer.
 * `maxTokens` pages the recall.
 */
export async function summarizedThreadWithRecalls(threadId = "recalled", maxTokens = 120): Promise<RecalledThread> {
  const model = fakeModel();
  for (let n = 1; n <= 3; n++) model.respond(lookupCall(n));
  let ref = "";
  model.respond((messages: BaseMessage[]) => recallCall("a4", "r1", { ref: (ref = newestRef(messages)) }));
  let second = 0;
  let parts = 0;
  model.respond((messages: BaseMessage[]) => {
    // The part r1's result names next, and how many parts it says there are.
    const paged = /of (\d+); next: part (\d+)\.$/u.exec(String(messages.at(-1)!.content))!;
    [parts, second] = [Number(paged[1]), Number(paged[2])];
    return recallCall("a5", "r2", { ref, part: second });
  });
  model.respond(() => recallCall("a6", "r3", { ref: FOREIGN_REF }));
  model.respond(new AIMessage({ id: "final", content: `Using the original: ${SECRET}` }));
  const store = new InMemoryStore();
  const checkpointer = new MemorySaver();
  const agent = createAgent({
    model,
    tools: [lookupTool()],
    middleware: [compactionMiddleware(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }), { recall: { maxTokens } })],
    checkpointer,
    store,
  });
  await agent.invoke({ messages: [user("h1", `${SECRET}. Look things up.`)] }, { configurable: { thread_id: threadId } });
  return { thread: await exportThread(checkpointer, threadId, { store }), ref, second, parts };
}

/**
 * A thread whose older lookup results are hidden, and whose agent recalls the first (`t-c1`) by its
 * placeholder's reference, looking for {@link HIDDEN_FIND}; with `both`, the first two in one call (`ref: a|b`).
 */
export async function hiddenThreadWithRecall(threadId = "recalled-hidden", both = false): Promise<RecalledThread> {
  const model = fakeModel();
  for (let n = 1; n <= 3; n++) model.respond(lookupCall(n));
  let ref = "";
  model.respond((messages: BaseMessage[]) => {
    const hidden = messages.filter((message) => message.id === "t-c1" || (both && message.id === "t-c2"));
    ref = hidden.map((message) => newestRef([message])).join("|");
    return recallCall("a4", "r1", { ref, find: HIDDEN_FIND });
  });
  model.respond(new AIMessage({ id: "final", content: "done" }));
  const store = new InMemoryStore();
  const checkpointer = new MemorySaver();
  const agent = createAgent({
    model,
    tools: [lookupTool()],
    middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }), { recall: true })],
    checkpointer,
    store,
  });
  await agent.invoke({ messages: [user("h1")] }, { configurable: { thread_id: threadId } });
  return { thread: await exportThread(checkpointer, threadId, { store }), ref };
}

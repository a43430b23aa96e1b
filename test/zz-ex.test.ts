{ it } from "vitest";
it("x", async () => {
{ AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
{ fakeModel } from "@langchain/core/testing";
{ tool } from "@langchain/core/tools";
{ InMemoryStore, MemorySaver } from "@langchain/langgraph";
{ createAgent } from "langchain";
{ fullSummary } from "../src/index.js";
{ compactionMiddleware } from "../src/middleware/index.js";
{ z } from "zod";

const fetchPage = tool(async ({ url }) => `Contents of ${url}: ${"details ".repeat(50)}`, {
  name: "fetch_page",
  description: "Fetch a web page",
  schema: z.object({ url: z.string() }),
});
const fetchCall = (n: number) => new AIMessage({ content: "", tool_calls: [{ id: `c${n}`, name: "fetch_page", args: { url: `https://example.com/${n}` } }] });
// A scripted model: three fetches, then it recalls what the summary names, then answers.
const recallWhatTheSummaryNames = (messages: BaseMessage[]) => {
  process.stdout.write(JSON.stringify(messages.map((m) => [m.getType(), m.id, String(m.content).slice(-70)])) + "\n");
  const ref = /\[recall (\d{8})\]/.exec(JSON.stringify(messages.map((message) => message.content)))![1]!;
  return new AIMessage({ content: "", tool_calls: [{ id: "r1", name: "recall", args: { ref } }] });
};
const model = fakeModel().respond(fetchCall(1)).respond(fetchCall(2)).respond(fetchCall(3)).respond(recallWhatTheSummaryNames).respond(new AIMessage("done"));

const agent = createAgent({
  model,
  tools: [fetchPage],
  middleware: [compactionMiddleware(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }), { recall: true })],
  checkpointer: new MemorySaver(),
  store: new InMemoryStore(),
});
const { messages } = await agent.invoke({ messages: [new HumanMessage("Compare the three pages.")] }, { configurable: { thread_id: "recall-demo" } });
const recalled = String(messages.find((message) => message.name === "recall")!.content);
console.log(recalled.split("\n").slice(1, 5)); // [ '[user]', 'Compare the three pages.', '', '[assistant]' ]
console.log(recalled.includes(`Contents of https://example.com/1: ${"details ".repeat(50)}`)); // true
});

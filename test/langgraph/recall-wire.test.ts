/**
 * The recall tool through the real provider clients: `ChatOpenAI` against a scripted Chat
 * Completions server on 127.0.0.1, `ChatAnthropic` with a scripted `fetch`. Each converts the tool's
 * schema and its result; the model recalls a summary's reference and gets the exact original.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { fullSummary } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { startOpenAIServer, type OpenAIServer, type ReceivedRequest } from "../support/openai-server.js";
import { ANTHROPIC_REPLY } from "../support/recording-models.js";
import { anthropicWireProblems, openaiWireProblems } from "../support/wire/index.js";
import { user } from "../support/builders.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";

const SECRET = "the launch code is 7431";
const REF_NOTE = /\[recall ([0-9]{8})\]/u;
const RECALL_PARAMETERS = { type: "object", properties: { ref: { type: "string" }, find: { type: "string" }, part: { type: "integer" } }, required: ["ref"] };
const thread = (id: string) => ({ configurable: { thread_id: id } });
const middleware = () => [compactionMiddleware(fullSummary({ keepRecent: 2, trigger: { messages: 6 } }), { recall: true })];

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every message the agent ended with passes the provider's own conversion and checks. */
async function finalMessages(agent: { graph: { getState(config: unknown): Promise<{ values: { messages: BaseMessage[] } }> } }, id: string) {
  return (await agent.graph.getState(thread(id))).values.messages;
}

describe("recall tool through the real provider clients", () => {
  it("ChatOpenAI: the tool's schema and its result go over the wire, and the model reads the exact original", async () => {
    const lookup = (n: number) => ({ toolCalls: [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }] });
    server = await startOpenAIServer([
      lookup(1),
      lookup(2),
      lookup(3),
      (request: ReceivedRequest) => ({ toolCalls: [{ id: "r1", name: "recall", args: { ref: REF_NOTE.exec(JSON.stringify(request.body!.messages))![1]! } }] }),
      { content: "done" },
    ]);
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", maxRetries: 0, configuration: { baseURL: server.baseURL } });
    const agent = createAgent({ model, tools: [lookupTool()], middleware: middleware(), checkpointer: new MemorySaver(), store: new InMemoryStore() });
    await agent.invoke({ messages: [user("h1", SECRET)] }, thread("openai"));
    const bodies = server.requests.map((request) => request.body!);
    expect(bodies).toHaveLength(5);
    const recallSchema = (bodies[0]!.tools as { function: { name: string; parameters: unknown } }[]).find((entry) => entry.function.name === "recall")!;
    expect(recallSchema.function.parameters).toEqual(RECALL_PARAMETERS);
    // The summary took the id of the newest assistant message it replaced (the provider's id).
    const ref = REF_NOTE.exec(JSON.stringify(bodies[3]!.messages))![1]!;
    const result = bodies[4]!.messages.find((message) => message.role === "tool" && message.tool_call_id === "r1")!;
    expect(String(result.content).startsWith(`<recalled ref="${ref}">\n[user]\n${SECRET}\n\n[assistant]\n-> lookup({"query":"q1"}) #c1\n\n[tool lookup #c1]\n${lookupOutput("c1")}`)).toBe(true);
    expect(openaiWireProblems(await finalMessages(agent, "openai"))).toEqual([]);
  });

  it("ChatAnthropic: the tool's schema and its result go over the wire, and the model reads the exact original", async () => {
    const bodies: Record<string, unknown>[] = [];
    const reply = (content: unknown[], stop: string) => ({ ...ANTHROPIC_REPLY, id: `msg_${bodies.length}`, content, stop_reason: stop });
    const fetch = async (_input: unknown, init?: { body?: unknown }) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      const n = bodies.length;
      const json =
        n <= 3
          ? reply([{ type: "tool_use", id: `c${n}`, name: "lookup", input: { query: `q${n}` } }], "tool_use")
          : n === 4
            ? reply([{ type: "tool_use", id: "r1", name: "recall", input: { ref: REF_NOTE.exec(JSON.stringify(body["messages"]))![1]! } }], "tool_use")
            : reply([{ type: "text", text: "done" }], "end_turn");
      return new Response(JSON.stringify(json), { status: 200, headers: { "content-type": "application/json" } });
    };
    const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test-key", maxRetries: 0, clientOptions: { fetch: fetch as unknown as typeof globalThis.fetch } });
    const agent = createAgent({ model, tools: [lookupTool()], middleware: middleware(), checkpointer: new MemorySaver(), store: new InMemoryStore() });
    await agent.invoke({ messages: [user("h1", SECRET)] }, thread("anthropic"));
    expect(bodies).toHaveLength(5);
    const recallSchema = (bodies[0]!["tools"] as { name: string; input_schema: unknown }[]).find((entry) => entry.name === "recall")!;
    expect(recallSchema.input_schema).toEqual(RECALL_PARAMETERS);
    const messages = bodies[4]!["messages"] as { role: string; content: unknown }[];
    const results = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])) as { type: string; tool_use_id?: string; content?: unknown }[];
    const result = results.find((block) => block.type === "tool_result" && block.tool_use_id === "r1")!;
    const text = typeof result.content === "string" ? result.content : (result.content as { text: string }[]).map((block) => block.text).join("");
    // The summary took the id of the newest assistant message it replaced: the second call's.
    const ref = REF_NOTE.exec(JSON.stringify(bodies[3]!["messages"]))![1]!;
    expect(text.startsWith(`<recalled ref="${ref}">\n[user]\n${SECRET}\n\n[assistant]\n-> lookup({"query":"q1"}) #c1\n\n[tool lookup #c1]\n${lookupOutput("c1")}`)).toBe(true);
    expect(anthropicWireProblems(await finalMessages(agent, "anthropic"))).toEqual([]);
  });
});

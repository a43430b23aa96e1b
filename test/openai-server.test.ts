import { HumanMessage, SystemMessage, type AIMessageChunk } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { ChatOpenAI, type ChatOpenAIFields } from "@langchain/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught } from "./support/errors.js";
import { startOpenAIServer, type OpenAIServer, type ScriptedResponse } from "./support/openai-server.js";

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

/** The real client, pointed at the local server; no retries, so one scripted reply answers one call. */
const chatModel = (fields: ChatOpenAIFields = {}) =>
  new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL }, ...fields });

/** Scripts `response` and returns a promise that resolves when its request reaches the server. */
function enqueueAndNotice(response: ScriptedResponse, onArrival: () => void = () => {}): Promise<void> {
  return new Promise((resolve) => {
    server.enqueue(() => {
      onArrival();
      resolve();
      return response;
    });
  });
}

async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("startOpenAIServer with the real ChatOpenAI", () => {
  it("answers a completion with its content and usage", async () => {
    server.enqueue({ content: "Hello there", usage: { promptTokens: 12, completionTokens: 2 } });
    const reply = await chatModel().invoke([new HumanMessage("Hi")]);
    expect({ content: reply.content, id: reply.id, usage: reply.usage_metadata }).toEqual({
      content: "Hello there",
      id: "chatcmpl-test-1",
      usage: {
        input_tokens: 12,
        output_tokens: 2,
        total_tokens: 14,
        input_token_details: { audio: 0, cache_read: 0 },
        output_token_details: { audio: 0, reasoning: 0 },
      },
    });
  });

  it("records the model, the messages and the constructor's maxTokens of a Chat Completions request", async () => {
    server.enqueue({ content: "ok" });
    await chatModel({ maxTokens: 50 }).invoke([new SystemMessage("Be brief."), new HumanMessage("Hi")]);
    expect(server.requests.map(({ method, path, body, outcome }) => ({ method, path, body, outcome }))).toEqual([
      {
        method: "POST",
        path: "/v1/chat/completions",
        body: {
          model: "gpt-4o-mini",
          stream: false,
          max_tokens: 50,
          messages: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Hi" },
          ],
        },
        outcome: "completed",
      },
    ]);
  });

  it("surfaces an HTTP 500 as an error with OpenAI's status and message", async () => {
    server.enqueue({ status: 500, message: "The server had an error" });
    const error = await caught(() => chatModel().invoke("Hi"));
    expect(error).toMatchObject({ status: 500, message: "500 The server had an error", error: { type: "server_error" } });
  });

  it("answers with a 500 error when no scripted response is left", async () => {
    const error = await caught(() => chatModel().invoke("Hi"));
    expect(error).toMatchObject({ status: 500, message: "500 openai-server: no scripted response left for POST /v1/chat/completions" });
  });

  it("lets the client's timeout abort a delayed reply", async () => {
    server.enqueue({ delayMs: 60_000, content: "too late" });
    const error = await caught(() => chatModel({ timeout: 100 }).invoke("Hi"));
    await server.idle();
    expect({ name: (error as Error).name, outcome: server.requests[0]?.outcome }).toEqual({ name: "TimeoutError", outcome: "aborted" });
  });

  it("lets an AbortSignal cancel a delayed reply", async () => {
    const controller = new AbortController();
    void enqueueAndNotice({ delayMs: 60_000, content: "too late" }, () => controller.abort());
    const error = await caught(() => chatModel().invoke("Hi", { signal: controller.signal }));
    await server.idle();
    expect({ name: (error as Error).name, outcome: server.requests[0]?.outcome }).toEqual({ name: "AbortError", outcome: "aborted" });
  });

  it("closes while a delayed reply is in flight, failing the pending call", async () => {
    const arrived = enqueueAndNotice({ delayMs: 60_000, content: "never sent" });
    const pending = caught(() => chatModel().invoke("Hi"));
    await arrived;
    await server.close();
    expect({ error: (await pending) instanceof Error, outcome: server.requests[0]?.outcome }).toEqual({ error: true, outcome: "aborted" });
  });

  it("returns an empty answer as empty content", async () => {
    server.enqueue({ content: "" });
    const reply = await chatModel().invoke("Hi");
    expect({ content: reply.content, toolCalls: reply.tool_calls }).toEqual({ content: "", toolCalls: [] });
  });

  it("streams the content in word deltas, then the finish and the usage chunk", async () => {
    server.enqueue({ content: "Hello there world", usage: { promptTokens: 8, completionTokens: 3 } });
    const chunks = await collect(await chatModel().stream("Hi"));
    expect(chunks.map((chunk) => [chunk.content, chunk.response_metadata["finish_reason"], chunk.usage_metadata?.total_tokens])).toEqual([
      ["", undefined, undefined],
      ["Hello ", undefined, undefined],
      ["there ", undefined, undefined],
      ["world", undefined, undefined],
      ["", "stop", undefined],
      ["", undefined, 11],
    ]);
  });

  it("receives stream: true with include_usage when ChatOpenAI streams", async () => {
    server.enqueue({ content: "ok" });
    await collect(await chatModel({ maxTokens: 20 }).stream("Hi"));
    expect(server.requests[0]?.body).toEqual({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 20,
      messages: [{ role: "user", content: "Hi" }],
    });
  });

  it("streams an invoke() inside a LangGraph node to streamMode messages", async () => {
    server.enqueue({ content: "Hello there" });
    const model = chatModel();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge("__start__", "agent")
      .compile();
    const tokens: unknown[] = [];
    for await (const [chunk] of await graph.stream({ messages: [new HumanMessage({ id: "u1", content: "Hi" })] }, { streamMode: "messages" })) {
      tokens.push(chunk.content);
    }
    expect({ tokens, stream: server.requests[0]?.body?.stream }).toEqual({ tokens: ["", "Hello ", "there", "", ""], stream: true });
  });

  it("omits the usage chunk when the client does not ask for usage", async () => {
    server.enqueue({ content: "a b", chunks: ["a", " b"] });
    const chunks = await collect(await chatModel({ streamUsage: false }).stream("Hi"));
    expect(chunks.map((chunk) => [chunk.content, chunk.usage_metadata])).toEqual([
      ["", undefined],
      ["a", undefined],
      [" b", undefined],
      ["", undefined],
    ]);
  });

  it("lets an AbortSignal cancel a stream between two deltas", async () => {
    server.enqueue({ content: "first second", chunkDelayMs: 60_000 });
    const controller = new AbortController();
    const received: unknown[] = [];
    const error = await caught(async () => {
      for await (const chunk of await chatModel().stream("Hi", { signal: controller.signal })) {
        received.push(chunk.content);
        controller.abort();
      }
    });
    await server.idle();
    expect({ received, name: (error as Error).name, outcome: server.requests[0]?.outcome }).toEqual({
      received: [""],
      name: "AbortError",
      outcome: "aborted",
    });
  });

  it("parses a tool-call response into tool_calls", async () => {
    server.enqueue({ toolCalls: [{ id: "call_1", name: "bash", args: { command: "ls" } }] });
    const reply = await chatModel().invoke("List the files");
    expect({ content: reply.content, toolCalls: reply.tool_calls, finish: reply.response_metadata["finish_reason"] }).toEqual({
      content: "",
      toolCalls: [{ id: "call_1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      finish: "tool_calls",
    });
  });

  it("streams tool calls whose argument fragments join into the calls", async () => {
    server.enqueue({
      toolCalls: [
        { id: "call_1", name: "bash", args: { command: "ls -la" } },
        { id: "call_2", name: "read", args: { path: "README.md" } },
      ],
    });
    const chunks = await collect(await chatModel().stream("Look around"));
    const joined = chunks.reduce((sum, chunk) => sum.concat(chunk));
    expect(joined.tool_calls).toEqual([
      { id: "call_1", name: "bash", args: { command: "ls -la" }, type: "tool_call" },
      { id: "call_2", name: "read", args: { path: "README.md" }, type: "tool_call" },
    ]);
  });

  it("answers a route other than /chat/completions with a 404", async () => {
    const response = await fetch(`${server.baseURL}/responses`, { method: "POST", body: "{}" });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: {
        error: {
          message: "openai-server: POST /v1/responses is not scripted (only POST /chat/completions is)",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      },
    });
  });

  it("builds a reply from the request with a fallback responder", async () => {
    await server.close();
    server = await startOpenAIServer({ fallback: (request) => ({ content: `echo: ${String(request.body?.messages.at(-1)?.content)}` }) });
    const replies = [await chatModel().invoke("one"), await chatModel().invoke("two")];
    expect(replies.map((reply) => reply.content)).toEqual(["echo: one", "echo: two"]);
  });
});

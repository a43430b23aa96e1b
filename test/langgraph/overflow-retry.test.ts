/**
 * When the provider reports a context overflow, compactionMiddleware compacts harder and retries
 * once. Real `ChatOpenAI` and `ChatAnthropic` clients against servers on 127.0.0.1 that answer as
 * each provider does when the prompt is too long, and normally once it is small enough.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ChatAnthropic } from "@langchain/anthropic";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { CompactionOverflowError } from "../../src/errors.js";
import { autoCompaction, toolResultHiding, validateToolPairing, type CompactionRecord, type CompactionResult, type Compactor } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { caught } from "../support/errors.js";
import { startOpenAIServer, type OpenAIServer, type ReceivedRequest, type ScriptedResponse } from "../support/openai-server.js";

/** Characters of the request's messages above which the servers answer "too long". */
const LIMIT = 7000;
/** Each lookup result: 2,520 characters, so the fourth call is over the limit. */
const RESULT = "lookup line with some words in it. ".repeat(72);
const lookup = tool(async (_args: unknown, config) => new ToolMessage({ id: `t-${config.toolCall!.id}`, content: RESULT, tool_call_id: config.toolCall!.id!, name: "lookup" }), {
  name: "lookup",
  description: "look something up",
  schema: z.object({ query: z.string() }),
});

/** The model's script: `lookup` c1, c2, c3, then an answer; the step is read from the call the last result answers (none: c1). */
function scriptedStep(lastAnswered: string | undefined): { text?: string; call?: string } {
  const done = lastAnswered === undefined ? 0 : Number(lastAnswered.slice(1));
  return done < 3 ? { call: `c${done + 1}` } : { text: "done" };
}

const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 50 });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** OpenAI: a 400 `context_length_exceeded` over the limit, as the API sends it. */
async function openAI(limit = LIMIT, then = limit): Promise<{ server: OpenAIServer; model: ChatOpenAI; sizes: number[] }> {
  const sizes: number[] = [];
  let current = limit;
  const server = await startOpenAIServer({
    fallback: (request: ReceivedRequest): ScriptedResponse => {
      const size = JSON.stringify(request.body!.messages).length;
      sizes.push(size);
      if (size > current) {
        const message = `This model's maximum context length is ${current} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`;
        current = then;
        return { status: 400, body: { error: { message, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } } };
      }
      const step = scriptedStep(request.body!.messages.at(-1)?.tool_call_id);
      return step.call ? { toolCalls: [{ id: step.call, name: "lookup", args: { query: step.call } }] } : { content: step.text! };
    },
  });
  closers.push(() => server.close());
  return { server, model: new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", maxRetries: 0, configuration: { baseURL: server.baseURL } }), sizes };
}

/** Anthropic: a 400 invalid_request_error "prompt is too long: N tokens > M maximum", as the API sends it. */
async function anthropic(limit = LIMIT, then = limit): Promise<{ model: ChatAnthropic; sizes: number[] }> {
  const sizes: number[] = [];
  let current = limit;
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const body = JSON.parse(text) as { messages: { role: string; content: unknown }[] };
      const size = JSON.stringify(body.messages).length;
      sizes.push(size);
      const send = (status: number, json: unknown) => {
        response.writeHead(status, { "content-type": "application/json", "request-id": `req_${sizes.length}` });
        response.end(JSON.stringify(json));
      };
      if (size > current) {
        const maximum = current;
        current = then;
        return send(400, { type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${size} tokens > ${maximum} maximum` } });
      }
      const last = body.messages.at(-1)?.content;
      const step = scriptedStep(Array.isArray(last) ? (last.filter((block: { type?: string }) => block.type === "tool_result").at(-1) as { tool_use_id?: string } | undefined)?.tool_use_id : undefined);
      const content = step.call ? [{ type: "tool_use", id: step.call, name: "lookup", input: { query: step.call } }] : [{ type: "text", text: step.text }];
      send(200, { id: `msg_${sizes.length}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content, stop_reason: step.call ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { model: new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test-key", maxRetries: 0, anthropicApiUrl: `http://127.0.0.1:${port}` }), sizes };
}

/** autoCompaction with a window far larger than the server's: its count says everything fits. */
const trusting = () => autoCompaction({ contextWindow: 128_000 });

async function runAgent(model: ChatOpenAI | ChatAnthropic, compactor: Compactor, id: string, hook: "wrapModelCall" | "beforeModel" = "wrapModelCall", before: Compactor[] = []) {
  const checkpointer = new MemorySaver();
  const middleware = [...before.map((each, index) => compactionMiddleware(each, { name: `Before${index}` })), compactionMiddleware(compactor, { hook })];
  const agent = createAgent({ model, tools: [lookup], middleware, checkpointer });
  const outcome = await agent.invoke({ messages: [{ role: "user", content: "look three things up", id: "h1" }] }, thread(id)).then(
    (state) => ({ error: undefined, answer: (state.messages.at(-1) as BaseMessage).text }),
    (error: unknown) => ({ error, answer: undefined }),
  );
  const { values } = await agent.graph.getState(thread(id));
  const state = values as { messages: BaseMessage[]; compactionLog?: CompactionRecord[] };
  return { ...outcome, messages: state.messages, log: (state.compactionLog ?? []).map((record) => record.status) };
}

const providers = [
  ["ChatOpenAI", (limit?: number, then?: number): Promise<{ model: ChatOpenAI | ChatAnthropic; sizes: number[] }> => openAI(limit, then)],
  ["ChatAnthropic", (limit?: number, then?: number): Promise<{ model: ChatOpenAI | ChatAnthropic; sizes: number[] }> => anthropic(limit, then)],
] as const;

const hooks = providers.flatMap(([name, start]) => (["wrapModelCall", "beforeModel"] as const).map((hook) => [name, hook, start] as const));

describe("compactionMiddleware after a context overflow", () => {
  it.each(hooks)("%s, hook %s: compacts harder (summary, then a hard limit lowered to the share the provider takes) and retries once; the retry's compaction is written once", async (_name, hook, start) => {
    const { model, sizes } = await start();
    const run = await runAgent(model, trusting(), "ok", hook);
    expect({
      answer: run.answer,
      // Three calls under the limit, the fourth over it, then its one retry, smaller.
      overLimit: sizes.map((size) => size > LIMIT),
      retrySmaller: sizes[4]! < LIMIT,
      log: run.log,
      pairing: validateToolPairing(run.messages),
      history: run.messages.map((message) => (message.type === "ai" ? "ai" : message.id)),
    }).toEqual({
      answer: "done",
      overLimit: [false, false, false, true, false],
      retrySmaller: true,
      // Nothing older than keepRecent to summarize: the lowered hard limit cut the oldest group.
      log: ["truncated"],
      pairing: [],
      history: ["h1", "ai", "t-c2", "ai", "t-c3", "ai"],
    });
  });

  it.each(hooks)("%s, hook %s: a second overflow surfaces, with the provider's error as the cause and a failed record", async (_name, hook, start) => {
    // Once over the limit, the server takes nothing larger than 100 characters: the retry overflows too.
    const { model, sizes } = await start(LIMIT, 100);
    const run = await runAgent(model, trusting(), "twice", hook);
    const error = (run.error as { cause?: unknown }).cause;
    expect({
      isOverflowError: CompactionOverflowError.isInstance(error),
      retried: CompactionOverflowError.isInstance(error) && error.retried,
      record: CompactionOverflowError.isInstance(error) && [error.record.status, error.record.reason?.startsWith("context overflow (ContextOverflowError: ")],
      cause: ((error as { cause?: { name?: string } }).cause)?.name,
      // One call over the limit, and its one retry.
      overLimit: sizes.map((size) => size > LIMIT),
      // The step failed: nothing of it is in the state.
      log: run.log,
    }).toEqual({ isOverflowError: true, retried: true, record: ["failed", true], cause: "ContextOverflowError", overLimit: [false, false, false, true, false], log: [] });
  });

  it("two compacting middleware, neither compacting in the step: the one listed last compacts and retries", async () => {
    const { model, sizes } = await openAI();
    // Listed first, a hiding that never fires under its own count.
    const run = await runAgent(model, trusting(), "two", "wrapModelCall", [toolResultHiding({ keepRecentGroups: 1, trigger: { tokens: 100_000 } })]);
    expect({ answer: run.answer, overLimit: sizes.map((size) => size > LIMIT), log: run.log, pairing: validateToolPairing(run.messages) }).toEqual({
      answer: "done",
      overLimit: [false, false, false, true, false],
      log: ["truncated"],
      pairing: [],
    });
  });

  it("an overflow that compaction cannot shrink surfaces at once: no retry", async () => {
    const { model, sizes } = await openAI();
    const unchanged: Compactor = {
      async compact(messages: readonly BaseMessage[]): Promise<CompactionResult> {
        return { messages: [...messages], status: "noop", strategy: "unchanged", tokensBefore: 0, tokensAfter: 0, messagesBefore: messages.length, messagesAfter: messages.length, removed: [], replaced: [] };
      },
    };
    const run = await runAgent(model, unchanged, "stuck");
    const error = (run.error as { cause?: unknown }).cause;
    expect({
      retried: CompactionOverflowError.isInstance(error) && error.retried,
      message: CompactionOverflowError.isInstance(error) && error.message,
      record: CompactionOverflowError.isInstance(error) && error.record.status,
      overLimit: sizes.map((size) => size > LIMIT),
    }).toEqual({
      retried: false,
      message: "compactionMiddleware: the provider reported a context overflow and compaction could not shrink the history",
      record: "failed",
      overLimit: [false, false, false, true],
    });
  });
});

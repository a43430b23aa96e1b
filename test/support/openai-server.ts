import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small OpenAI-compatible Chat Completions server on 127.0.0.1, so the real `ChatOpenAI` client
 * (and the `openai` SDK under it) can be exercised end to end with scripted replies: request
 * building, HTTP errors, time-outs and aborts, SSE streaming and tool-call parsing all run for real.
 *
 * Only `POST <prefix>/chat/completions` is scripted (that is what `ChatOpenAI` 1.5.8 calls for
 * ordinary models; the Responses API `/responses` is used only for built-in tools, Responses-only
 * options, `useResponsesApi: true` or `*-pro`/`codex` models). Any other route gets a 404 in OpenAI's
 * error shape, so a test that reaches it fails loudly.
 */

/** A tool call the scripted assistant makes. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Token figures reported in `usage`. @default { promptTokens: 10, completionTokens: 5 } */
export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A successful completion: text, tool calls, or both. */
export interface ScriptedCompletion {
  /** The assistant's text. `""` is an empty answer. @default "" (or `null` in the JSON when there are tool calls) */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /** @default "tool_calls" when there are tool calls, else "stop" */
  finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  /** How a streamed reply splits `content` into deltas. @default one delta per word with its trailing whitespace */
  chunks?: string[];
  /** Wait this long before answering (e.g. longer than the client's timeout). @default 0 */
  delayMs?: number;
  /** When streaming, wait this long between events (not before the first), so a client can abort mid-stream. @default 0 */
  chunkDelayMs?: number;
}

/** An HTTP error. */
export interface ScriptedError {
  status: number;
  /** The JSON body. @default `{ error: { message, type, param: null, code: null } }` as OpenAI sends it */
  body?: unknown;
  /** The `error.message` of the default body. @default "scripted error <status>" */
  message?: string;
  /** @default 0 */
  delayMs?: number;
}

/** One scripted reply. */
export type ScriptedResponse = ScriptedCompletion | ScriptedError;

/** A reply, or a function that builds it from the request (runs when the request arrives). */
export type ScriptedReply = ScriptedResponse | ((request: ReceivedRequest) => ScriptedResponse);

/** A Chat Completions message as the client sent it. */
export interface ReceivedMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The JSON body of a Chat Completions request (fields the client left out are absent). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: ReceivedMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  tools?: unknown[];
  [key: string]: unknown;
}

/** A request the server received. */
export interface ReceivedRequest {
  method: string;
  /** The path with any query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; `undefined` when the body was empty or not JSON. */
  body: ChatCompletionRequestBody | undefined;
  /**
   * `"pending"` while the reply is being produced, `"completed"` once it was fully sent,
   * `"aborted"` when the client went away first (its timeout or AbortSignal fired).
   */
  outcome: "pending" | "completed" | "aborted";
}

/** Options of {@link startOpenAIServer}. */
export interface OpenAIServerOptions {
  /** Replies for the first requests, in order. @default [] */
  responses?: readonly ScriptedReply[];
  /**
   * Answers a chat-completion request when the queue is empty.
   * @default a 500 error saying that no scripted response is left
   */
  fallback?: (request: ReceivedRequest) => ScriptedResponse;
}

/** A running server. */
export interface OpenAIServer {
  /** Pass as `configuration.baseURL` to `ChatOpenAI`, e.g. `http://127.0.0.1:50123/v1`. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Scripts the next chat-completion replies, in order, after those already queued. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves once no reply is in flight (every request is completed or aborted). */
  idle(): Promise<void>;
  /** Drops in-flight replies, closes every connection and stops listening. */
  close(): Promise<void>;
}

const defaultUsage: ScriptedUsage = { promptTokens: 10, completionTokens: 5 };

function isError(response: ScriptedResponse): response is ScriptedError {
  return "status" in response;
}

/** OpenAI's error JSON for a status; its `type` follows the API's convention for that class of status. */
function errorBody(status: number, message: string) {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: null } };
}

function usageJson(usage: ScriptedUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function toolCallsJson(calls: readonly ScriptedToolCall[]) {
  return calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }));
}

/** Word-sized deltas, as a real model streams them; concatenated they give back `content`. */
function splitContent(content: string): string[] {
  return content.match(/\s*\S+\s*/g) ?? (content === "" ? [] : [content]);
}

function finishReasonOf(completion: ScriptedCompletion) {
  return completion.finishReason ?? (completion.toolCalls?.length ? "tool_calls" : "stop");
}

/** The events of a streamed reply, as OpenAI sends them: role, deltas, finish, then usage if asked for. */
function streamEvents(completion: ScriptedCompletion, base: Record<string, unknown>, includeUsage: boolean): unknown[] {
  // With include_usage, OpenAI sends `usage: null` on every chunk but the last, usage-only one.
  const chunk = (choices: unknown[]) => ({ ...base, object: "chat.completion.chunk", choices, ...(includeUsage ? { usage: null } : {}) });
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);
  const calls = completion.toolCalls ?? [];
  const content = completion.content ?? "";
  const events: unknown[] = [delta({ role: "assistant", content: calls.length && content === "" ? null : "", refusal: null })];
  for (const piece of completion.chunks ?? splitContent(content)) events.push(delta({ content: piece }));
  calls.forEach((call, index) => {
    events.push(delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    // Arguments arrive in fragments that are only valid JSON once joined, so the client's accumulation is exercised.
    const text = JSON.stringify(call.args);
    const middle = Math.ceil(text.length / 2);
    for (const fragment of [text.slice(0, middle), text.slice(middle)]) {
      if (fragment !== "") events.push(delta({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  events.push(delta({}, finishReasonOf(completion)));
  if (includeUsage) events.push({ ...chunk([]), usage: usageJson(completion.usage ?? defaultUsage) });
  return events;
}

function completionJson(completion: ScriptedCompletion, base: Record<string, unknown>) {
  const calls = completion.toolCalls ?? [];
  const message = {
    role: "assistant",
    content: calls.length && completion.content === undefined ? null : (completion.content ?? ""),
    refusal: null,
    annotations: [],
    ...(calls.length ? { tool_calls: toolCallsJson(calls) } : {}),
  };
  return {
    ...base,
    object: "chat.completion",
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(completion) }],
    usage: usageJson(completion.usage ?? defaultUsage),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function parseBody(text: string): ChatCompletionRequestBody | undefined {
  try {
    return text === "" ? undefined : (JSON.parse(text) as ChatCompletionRequestBody);
  } catch {
    return undefined;
  }
}

/**
 * Starts an OpenAI-compatible server on 127.0.0.1 (a free port) for tests.
 *
 * @param script the first replies in order, or options with replies and a fallback
 * @returns the running server; `close()` it in `afterEach`/`afterAll`
 * @example
 * ```ts
 * const server = await startOpenAIServer([{ content: "Hello there" }]);
 * const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
 * await model.invoke("Hi"); // AIMessage "Hello there"
 * server.requests[0]?.body?.messages; // [{ role: "user", content: "Hi" }]
 * await server.close();
 * ```
 */
export async function startOpenAIServer(script: readonly ScriptedReply[] | OpenAIServerOptions = []): Promise<OpenAIServer> {
  const options: OpenAIServerOptions = Array.isArray(script) ? { responses: script } : (script as OpenAIServerOptions);
  const queue: ScriptedReply[] = [...(options.responses ?? [])];
  const requests: ReceivedRequest[] = [];
  // Everything that could keep a reply (and the process) alive, so close() can cancel it.
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<ServerResponse>();
  let idleWaiters: (() => void)[] = [];
  let completionCounter = 0;

  const settle = (received: ReceivedRequest, response: ServerResponse) => {
    if (!inFlight.delete(response)) return;
    received.outcome = response.writableFinished ? "completed" : "aborted";
    if (inFlight.size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const waiter of waiters) waiter();
    }
  };

  /** Resolves true after `ms`, or false as soon as the client is gone. */
  const wait = (ms: number, response: ServerResponse) =>
    new Promise<boolean>((resolve) => {
      if (response.destroyed || response.writableEnded) return resolve(false);
      if (ms <= 0) return resolve(true);
      const onClose = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        response.off("close", onClose);
        resolve(true);
      }, ms);
      timers.add(timer);
      response.once("close", onClose);
    });

  const sendJson = (response: ServerResponse, status: number, body: unknown) => {
    if (response.destroyed) return;
    response.writeHead(status, { "content-type": "application/json", "x-request-id": `req_test_${requests.length}` });
    response.end(JSON.stringify(body));
  };

  const nextReply = (received: ReceivedRequest): ScriptedResponse => {
    const reply = queue.shift();
    if (reply !== undefined) return typeof reply === "function" ? reply(received) : reply;
    if (options.fallback) return options.fallback(received);
    return { status: 500, message: `openai-server: no scripted response left for ${received.method} ${received.path}` };
  };

  const answer = async (received: ReceivedRequest, response: ServerResponse) => {
    const reply = nextReply(received);
    if (!(await wait(reply.delayMs ?? 0, response))) return;
    if (isError(reply)) return sendJson(response, reply.status, reply.body ?? errorBody(reply.status, reply.message ?? `scripted error ${reply.status}`));
    completionCounter += 1;
    const base = { id: `chatcmpl-test-${completionCounter}`, created: 1_700_000_000, model: received.body?.model ?? "unknown", system_fingerprint: "fp_test" };
    if (received.body?.stream !== true) return sendJson(response, 200, completionJson(reply, base));
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const events = streamEvents(reply, base, received.body.stream_options?.include_usage === true);
    for (const [position, event] of events.entries()) {
      if (position > 0 && !(await wait(reply.chunkDelayMs ?? 0, response))) return;
      response.write(`data: ${JSON.stringify(event)}\n\n`);
    }
    response.end("data: [DONE]\n\n");
  };

  const server = createServer((request, response) => {
    const received: ReceivedRequest = { method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body: undefined, outcome: "pending" };
    requests.push(received);
    inFlight.add(response);
    response.once("close", () => settle(received, response));
    void (async () => {
      const text = await readBody(request);
      received.body = parseBody(text);
      const pathname = received.path.split("?")[0] ?? "";
      if (received.method !== "POST" || !pathname.endsWith("/chat/completions")) {
        return sendJson(response, 404, errorBody(404, `openai-server: ${received.method} ${pathname} is not scripted (only POST /chat/completions is)`));
      }
      if (received.body === undefined || !Array.isArray(received.body.messages)) {
        return sendJson(response, 400, errorBody(400, "openai-server: the body is not a JSON chat-completion request"));
      }
      await answer(received, response);
    })().catch((error: unknown) => {
      // A bug in a responder must fail the client's call, not crash the test process.
      if (!response.headersSent) sendJson(response, 500, errorBody(500, `openai-server: ${String(error)}`));
      else response.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
    },
    idle() {
      if (inFlight.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const response of inFlight) response.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets from the client's fetch would otherwise hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Real `ChatOpenAI` and `ChatAnthropic` clients whose request bodies are recorded, with no network: what each would send. */
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { DEFAULT_OPENAI_MODEL } from "./wire/index.js";

/** A `fetch` that records each request's JSON body and answers with `reply`. */
export function capturingFetch(reply: unknown): { fetch: typeof fetch; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const fake = async (_input: unknown, init?: { body?: unknown }) => {
    bodies.push(JSON.parse(String(init?.body)));
    return new Response(JSON.stringify(reply), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch: fake as unknown as typeof fetch, bodies };
}

export const OPENAI_REPLY = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 0,
  model: DEFAULT_OPENAI_MODEL,
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

export const ANTHROPIC_REPLY = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

/** A real ChatAnthropic whose requests are recorded; it answers "ok". */
export function recordingAnthropic(): { model: ChatAnthropic; bodies: Record<string, unknown>[] } {
  const { fetch, bodies } = capturingFetch(ANTHROPIC_REPLY);
  return { model: new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test-key", maxRetries: 0, clientOptions: { fetch } }), bodies };
}

/** A real ChatOpenAI whose requests are recorded; it answers "ok". */
export function recordingOpenAI(): { model: ChatOpenAI; bodies: Record<string, unknown>[] } {
  const { fetch, bodies } = capturingFetch(OPENAI_REPLY);
  return { model: new ChatOpenAI({ model: DEFAULT_OPENAI_MODEL, apiKey: "test-key", maxRetries: 0, configuration: { fetch } }), bodies };
}

/** Where an Anthropic request body's breakpoints are: `top` for the request's own, `message/block` for the blocks'. */
export function bodyBreakpoints(body: Record<string, unknown>): string[] {
  const found = body["cache_control"] === undefined ? [] : ["top"];
  (body["messages"] as { content: unknown }[]).forEach((message, index) => {
    if (Array.isArray(message.content)) message.content.forEach((block: Record<string, unknown>, position: number) => block["cache_control"] !== undefined && found.push(`${index}/${position}`));
  });
  return found;
}

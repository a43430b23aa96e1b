/**
 * The summary model of the latency scenario: the project's OpenAI-compatible test server
 * (test/support/openai-server.ts) on 127.0.0.1, answering every non-streaming
 * `/v1/chat/completions` request after a fixed delay with a deterministic summary, and the real
 * `ChatOpenAI` pointed at it. Each thread gets its own client, whose requests carry the thread in a
 * header, so every summary call can be told apart by thread, arrival time and outcome (answered, or
 * aborted by the client: a discarded preparation).
 */
import { performance } from "node:perf_hooks";
import { ChatOpenAI } from "@langchain/openai";
import { startOpenAIServer, type OpenAIServer, type ReceivedRequest } from "../../test/support/openai-server.js";

/** The header that names the thread of a summary request. */
export const THREAD_HEADER = "x-latency-thread";

/** One summary request as the server saw it. */
export interface SummaryRequest {
  /** The thread of the client that sent it. */
  readonly thread: string;
  /** `performance.now()` when its body was read (the delay starts there). */
  readonly arrivedAt: number;
  /** `"completed"`: answered after the delay; `"aborted"`: the client went away first; `"pending"`: still waiting. */
  outcome(): ReceivedRequest["outcome"];
}

/** A running summary server. */
export interface SummaryServer {
  readonly baseURL: string;
  readonly delayMs: number;
  /** Every summary request received, in arrival order. */
  readonly requests: readonly SummaryRequest[];
  /** The summary model for one thread: `ChatOpenAI` (gpt-4o-mini) against this server, no retries. */
  modelFor(thread: string): ChatOpenAI;
  close(): Promise<void>;
}

/** FNV-1a of a string, as 8 hex digits: ties the summary text to its request, deterministically. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let position = 0; position < text.length; position++) {
    hash ^= text.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * A deterministic summary of a few hundred tokens (about 1 600 characters), in the layout the request
 * asks for: a `<state_snapshot>` when the prompt names one, else a `<summary>`.
 */
export function summaryText(request: ReceivedRequest): string {
  const messages = request.body?.messages ?? [];
  const prompt = messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");
  const digest = fingerprint(prompt);
  const sections = [
    ["overall_goal", `Resolve the task the user opened (request digest ${digest}); keep every constraint below.`],
    ["active_constraints", "Work inside the repository checkout; run commands one at a time; do not edit the tests unless asked; keep the public API unchanged."],
    ["key_knowledge", `The failing behaviour was reproduced with a minimal script. The summarized part held ${messages.length} message(s) and ${prompt.length} characters. Root cause located in the module the traceback points to; the first fix attempt broke an unrelated test and was reverted.`],
    ["artifact_trail", "Read: the module under test, its tests, the changelog. Modified: one function (guard for the empty case), one test added. Commands: the reproduction script (now passes), the module's test file (all pass)."],
    ["file_system_state", "Working tree: two files modified, one new test file; nothing staged; no build artifacts left behind."],
    ["recent_actions", "Ran the reproduction script: expected output. Ran the related test module: all green. Inspected the diff for stray debug prints: none."],
    ["task_state", "[DONE] reproduce; [DONE] locate root cause; [DONE] minimal fix; [IN PROGRESS] wider test run; [TODO] final diff review and submission."],
  ];
  const tag = prompt.includes("<state_snapshot>") ? "state_snapshot" : "summary";
  return [`<${tag}>`, ...sections.map(([name, body]) => `  <${name}>\n    ${body}\n  </${name}>`), `</${tag}>`].join("\n");
}

/**
 * Start the summary server on 127.0.0.1 (a free port): every chat-completion request is answered
 * after `delayMs` with {@link summaryText}; a client that aborts (its signal fired) frees the
 * request at once.
 *
 * @example
 * const server = await startSummaryServer({ delayMs: 2000 });
 * const summaryModel = server.modelFor("thread-1");
 * // ... run the graph ...
 * await server.close();
 */
export async function startSummaryServer({ delayMs = 2000 }: { delayMs?: number } = {}): Promise<SummaryServer> {
  const requests: SummaryRequest[] = [];
  const server: OpenAIServer = await startOpenAIServer({
    fallback: (received) => {
      const header = received.headers[THREAD_HEADER];
      requests.push({ thread: typeof header === "string" ? header : "", arrivedAt: performance.now(), outcome: () => received.outcome });
      return { content: summaryText(received), delayMs, usage: { promptTokens: 4000, completionTokens: 400 } };
    },
  });
  return {
    baseURL: server.baseURL,
    delayMs,
    requests,
    modelFor: (thread) =>
      new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL, defaultHeaders: { [THREAD_HEADER]: thread } } }),
    close: () => server.close(),
  };
}

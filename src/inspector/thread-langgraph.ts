// A thread read from a running LangGraph API server (`langgraphjs dev`, LangGraph Platform) through
// `@langchain/langgraph-sdk`: its state over HTTP, and the archive in the server's store.
import { InvalidHistoryError } from "../errors.js";
import { invalidOption } from "../option-errors.js";
import { fromPlainMessages, type MessageInput } from "../messages/from-plain.js";
import type { SdkThreadClient } from "../langgraph/restore-thread.js";
import { sdkStore } from "../langgraph/sdk-store.js";
import { importOptional } from "./thread-databases.js";
import type { ThreadExport } from "./inspection.js";
import { LISTED_THREADS, existingThreads } from "./thread-list.js";
import { exportThreadState, messageOf, type ThreadState } from "./thread-sources.js";

/** The part of an `@langchain/langgraph-sdk` `Client` {@link loadThreadFromLangGraph} uses; an SDK `Client` fits it. */
export interface LangGraphThreadClient extends SdkThreadClient {
  threads: SdkThreadClient["threads"] & {
    /** For the message of an unknown thread: the threads the server has. */
    search?(query: { limit: number; sortBy: "thread_id"; sortOrder: "asc"; select: ["thread_id"] }): Promise<{ thread_id: string }[]>;
    count?(): Promise<number>;
  };
}

/** Options of {@link loadThreadFromLangGraph}. */
export interface LangGraphThreadOptions {
  /** The namespace prefix the compaction node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: readonly string[];
}

const COMPONENT = "loadThreadFromLangGraph";

/** An HTTP error of the SDK (`HTTPError`: `status`, message `HTTP <status>: ...`). */
const statusOf = (error: unknown): unknown => (error as { status?: unknown } | null)?.status;

/**
 * The current state of a thread served by a LangGraph API server, read through
 * `@langchain/langgraph-sdk` (an optional peer): `client.threads.getState(threadId)` for the
 * messages, the compaction log and the state-channel archive, and the server's store (through
 * `sdkStore`) for the compactions archived there. Give the server's URL (a `Client` is made with the
 * SDK's defaults: an API key from `LANGGRAPH_API_KEY` or `LANGSMITH_API_KEY`) or your own `Client`.
 * Reads only.
 *
 * @example
 * const thread = await loadThreadFromLangGraph("http://localhost:2024", threadId);
 * const inspection = await buildInspection(thread);
 * @throws {InvalidOptionError} when the URL is not an http(s) URL, the server cannot be reached, or it
 *   has no thread `threadId` (the message lists the first 20 threads it has).
 * @throws {InvalidHistoryError} when the thread's state has no `messages` array of messages.
 * @throws {CompactionError} when `@langchain/langgraph-sdk` is not installed and a URL is given (the message says so).
 */
export async function loadThreadFromLangGraph(server: string | LangGraphThreadClient, threadId: string, options: LangGraphThreadOptions = {}): Promise<ThreadExport> {
  if (typeof threadId !== "string" || threadId === "") throw invalidOption(COMPONENT, "threadId", threadId, "a non-empty string");
  const where = typeof server === "string" ? server : "the server";
  const client = typeof server === "string" ? await clientFor(server) : server;
  if (typeof client?.threads?.getState !== "function") throw invalidOption(COMPONENT, "server", server, "a URL or a @langchain/langgraph-sdk Client");
  let values: unknown;
  try {
    ({ values } = await client.threads.getState(threadId));
  } catch (error) {
    const status = statusOf(error);
    // 404: no such thread; 400 and 422: an id the server cannot take (langgraphjs dev takes only UUIDs).
    if (status === 404 || status === 400 || status === 422) {
      throw invalidOption(COMPONENT, "threadId", threadId, `the id of a thread on ${where}`, `no such thread${await threadList(client)}`);
    }
    if (typeof status === "number") throw invalidOption(COMPONENT, "server", server, "a LangGraph server that returns the thread", `it answered ${messageOf(error)}`);
    throw invalidOption(COMPONENT, "server", server, "a LangGraph server that can be reached", `cannot reach it: ${reachProblem(error)}; is the server running?`);
  }
  const state = (values ?? {}) as { messages?: unknown; compactionLog?: unknown; compactionArchive?: unknown };
  if (!Array.isArray(state.messages)) throw new InvalidHistoryError(`${COMPONENT}: the state of thread "${threadId}" has no \`messages\` array (is it a messages graph?)`);
  const threadState = {
    messages: fromPlainMessages(state.messages as MessageInput[], COMPONENT),
    ...(state.compactionLog === undefined ? {} : { compactionLog: state.compactionLog }),
    ...(state.compactionArchive === undefined ? {} : { compactionArchive: state.compactionArchive }),
  } as ThreadState;
  return exportThreadState(threadState, threadId, { store: sdkStore(client), ...(options.namespace ? { namespace: options.namespace } : {}) });
}

/** An SDK `Client` for `url`, which must be an http(s) URL. */
async function clientFor(url: string): Promise<LangGraphThreadClient> {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = "";
  }
  if (protocol !== "http:" && protocol !== "https:") throw invalidOption(COMPONENT, "server", url, "an http:// or https:// URL, or a @langchain/langgraph-sdk Client");
  const { Client } = await importOptional<typeof import("@langchain/langgraph-sdk")>("@langchain/langgraph-sdk", COMPONENT, "@langchain/langgraph-sdk");
  // No retries: a server that is not there is said at once, not after a minute of back-off.
  return new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } }) as unknown as LangGraphThreadClient;
}

/** `; its threads: ...` for an unknown-thread message, or nothing when the server cannot list them. */
async function threadList(client: LangGraphThreadClient): Promise<string> {
  const { search, count } = client.threads;
  if (typeof search !== "function") return "";
  try {
    const threads = await search.call(client.threads, { limit: LISTED_THREADS, sortBy: "thread_id", sortOrder: "asc", select: ["thread_id"] });
    const ids = threads.map((thread) => thread.thread_id);
    const total = typeof count === "function" ? await count.call(client.threads) : ids.length;
    return `; ${existingThreads(ids, total)}`;
  } catch {
    return "";
  }
}

/**
 * Why a request did not reach the server: the SDK's `ConnectionError` ends in the original error's
 * message (`fetch failed`); the cause, where there is one, names the code (`ECONNREFUSED`).
 */
function reachProblem(error: unknown): string {
  const code = ((error as { cause?: unknown } | null)?.cause as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  const message = messageOf(error);
  return /Original error: (.*)$/su.exec(message)?.[1] ?? message;
}

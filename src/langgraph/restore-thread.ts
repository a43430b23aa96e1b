import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { invalidOption } from "../option-errors.js";
import { parseOptions } from "../options.js";
import { restoreHistory, type RestorableState } from "./restore-history.js";
import { isSdkStoreSource, sdkStore, type SdkStoreClient } from "./sdk-store.js";

/**
 * The part of an `@langchain/langgraph-sdk` `Client` that {@link restoreThreadHistory} uses: the
 * thread's state and the server's store. Declared here so this package does not depend on the SDK.
 */
export interface SdkThreadClient {
  threads: { getState(threadId: string): Promise<{ values: unknown }> };
  store: SdkStoreClient;
}

/** Options of {@link restoreThreadHistory}. */
export interface RestoreThreadHistoryOptions {
  /** The namespace prefix the compaction node was given. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: string[];
}

const optionsSchema = z.object({ namespace: z.array(z.string()).optional() }).strict();

/**
 * The full original history of a thread served by a LangGraph API server (`langgraph dev`,
 * LangGraph Platform), read through an `@langchain/langgraph-sdk` `Client`: the thread's current
 * state (`client.threads.getState(threadId)`), then {@link restoreHistory} on its values with the
 * server's store (`client.store`, through `sdkStore`) for compactions archived there. Returns real
 * `BaseMessage`s, every message that ever entered the thread in order, as `restoreHistory` does.
 *
 * @example
 * import { Client } from "@langchain/langgraph-sdk";
 * const client = new Client({ apiUrl: "http://127.0.0.1:2024" });
 * const history = await restoreThreadHistory(client, threadId);
 * @throws {InvalidOptionError} when `client` is not an SDK client (`threads.getState` and `store`),
 *   `threadId` is not a non-empty string, or an option is invalid.
 * @throws {CompactionArchiveError} when an archive the thread's log names is missing.
 * @throws {InvalidHistoryError} when the thread's state has no `messages` array, or one of them is
 *   not a message.
 */
export async function restoreThreadHistory(client: SdkThreadClient, threadId: string, options: RestoreThreadHistoryOptions = {}): Promise<BaseMessage[]> {
  if (typeof client?.threads?.getState !== "function" || !isSdkStoreSource(client)) {
    throw invalidOption("restoreThreadHistory", "client", client, "a @langchain/langgraph-sdk Client (threads.getState and store)");
  }
  if (typeof threadId !== "string" || threadId === "") throw invalidOption("restoreThreadHistory", "threadId", threadId, "a non-empty string");
  const { namespace } = parseOptions("restoreThreadHistory", optionsSchema, options);
  const { values } = await client.threads.getState(threadId);
  const state = (values ?? {}) as RestorableState;
  return restoreHistory(state, { store: sdkStore(client), threadId, ...(namespace ? { namespace } : {}) });
}

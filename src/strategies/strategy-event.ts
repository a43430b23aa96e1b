import type { CompactionEvent } from "../observability.js";
import type { CompactionResult } from "../types.js";

/** What a strategy's event reads of its result. @internal */
export type EventSource = Pick<CompactionResult, "status" | "tokensBefore" | "tokensAfter" | "messagesBefore" | "messagesAfter" | "reason" | "trigger" | "summaryModel" | "summaryError">;

/**
 * The event of one run of `strategy` that began at `started` (`performance.now()`). Its token figures
 * and trigger are read from the result when read: a no-op decided at the bound counts exactly only
 * for a reader. @internal
 */
export function compactionEventOf(strategy: string, result: EventSource, started: number): CompactionEvent {
  return {
    strategy,
    get trigger() {
      return result.trigger ?? null;
    },
    status: result.status,
    get tokensBefore() {
      return result.tokensBefore;
    },
    get tokensAfter() {
      return result.tokensAfter;
    },
    messagesBefore: result.messagesBefore,
    messagesAfter: result.messagesAfter,
    durationMs: performance.now() - started,
    summaryModel: result.summaryModel ?? null,
    error: result.status === "failed" ? (result.reason ?? "failed") : null,
    summaryError: result.summaryError ?? null,
  };
}

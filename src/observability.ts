import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CompactionStatus } from "./types.js";

/** Name of the LangChain custom event every run dispatches inside a run (`streamEvents`, callbacks). */
export const COMPACTION_EVENT_NAME = "compaction";

/** One structured record per compaction run. */
export interface CompactionEvent {
  readonly strategy: string;
  /** What fired the compaction (e.g. `"13000 tokens >= 12800 tokens (0.8 of a 16000-token window)"`), `"forced"`, or `null` when nothing fired. */
  readonly trigger: string | null;
  readonly status: CompactionStatus;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly durationMs: number;
  /** The model that wrote the summary, `"none"` for the no-model summarizer, `null` when no summary was written. */
  readonly summaryModel: string | null;
  /** Why the run failed, when `status` is `failed`; else `null` (a result's other reasons are in its `reason`). */
  readonly error: string | null;
  /**
   * Why the summary the run asked for was not written (a failed, timed-out or empty summary call, a
   * missing model package), whatever the run did instead (e.g. `truncated`); else `null`.
   */
  readonly summaryError: string | null;
}

/**
 * A logger for compaction events: `console` works, and so do pino/winston-style loggers. `debug`
 * gets no-op runs, `info` compactions, `warn` failures.
 */
export interface CompactionLogger {
  debug?(message: string, event: CompactionEvent): void;
  info?(message: string, event: CompactionEvent): void;
  warn?(message: string, event: CompactionEvent): void;
}

/** Where a strategy's events go. */
export interface CompactionEventSinks {
  /**
   * Called once per run with its event. It may be async: the run does not wait for it. What it
   * throws, or the promise it returns rejects with, is ignored (never an unhandled rejection):
   * observing never breaks the agent.
   */
  readonly onEvent?: (event: CompactionEvent) => void;
  /** Same contract as `onEvent` for each of its methods. */
  readonly logger?: CompactionLogger;
}

function describe(event: CompactionEvent): string {
  const figures = `${event.tokensBefore} -> ${event.tokensAfter} tokens, ${event.messagesBefore} -> ${event.messagesAfter} messages, ${event.durationMs.toFixed(1)} ms`;
  return `[compaction] ${event.strategy} ${event.status}: ${figures}${event.error ? ` (${event.error})` : ""}`;
}

/**
 * Call an observer, ignoring its failure: a throw, or a rejection of the promise (any thenable) it
 * returns, which gets a handler at once so it never becomes an unhandled rejection. Not awaited.
 */
function observe(call: () => unknown): void {
  try {
    const returned = call();
    if ((typeof returned === "object" || typeof returned === "function") && returned !== null) {
      const then = (returned as { then?: unknown }).then;
      if (typeof then === "function") then.call(returned, undefined, () => undefined);
    }
  } catch {
    // An observer's failure is its own.
  }
}

/**
 * Send an event to `onEvent`, to the logger, and, inside a run (a config with callbacks), as the
 * LangChain custom event `compaction`. Never throws, and never leaves a rejected promise unhandled.
 */
export async function emitCompactionEvent(event: CompactionEvent, sinks: CompactionEventSinks, config: RunnableConfig | undefined): Promise<void> {
  const { onEvent, logger } = sinks;
  if (onEvent) observe(() => onEvent(event));
  if (logger) {
    const level = event.status === "failed" ? "warn" : event.status === "noop" ? "debug" : "info";
    observe(() => logger[level]?.(describe(event), event));
  }
  if (config?.callbacks) {
    try {
      await dispatchCustomEvent(COMPACTION_EVENT_NAME, event, config);
    } catch {
      // Outside a run there is no parent to dispatch to.
    }
  }
}

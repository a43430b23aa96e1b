import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { CompactionStatus } from "./types.js";

/** Name of the LangChain custom event every run dispatches inside a run (`streamEvents`, callbacks). */
export const COMPACTION_EVENT_NAME = "compaction";

/** One structured record per compaction run (seed 004 REQ-3.6). */
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
  /** Why the run failed (or what it could not do), else `null`. */
  readonly error: string | null;
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
  /** Called once per run with its event. Errors it throws are ignored: observing never breaks the agent. */
  readonly onEvent?: (event: CompactionEvent) => void;
  readonly logger?: CompactionLogger;
}

function describe(event: CompactionEvent): string {
  const figures = `${event.tokensBefore} -> ${event.tokensAfter} tokens, ${event.messagesBefore} -> ${event.messagesAfter} messages, ${event.durationMs.toFixed(1)} ms`;
  return `[compaction] ${event.strategy} ${event.status}: ${figures}${event.error ? ` (${event.error})` : ""}`;
}

/**
 * Send an event to `onEvent`, to the logger, and, inside a run (a config with callbacks), as the
 * LangChain custom event `compaction`. Never throws.
 */
export async function emitCompactionEvent(event: CompactionEvent, sinks: CompactionEventSinks, config: RunnableConfig | undefined): Promise<void> {
  try {
    sinks.onEvent?.(event);
  } catch {
    // An observer's failure is its own.
  }
  try {
    const logger = sinks.logger;
    if (logger) {
      const level = event.status === "failed" ? "warn" : event.status === "noop" ? "debug" : "info";
      logger[level]?.(describe(event), event);
    }
  } catch {
    // As above.
  }
  if (config?.callbacks) {
    try {
      await dispatchCustomEvent(COMPACTION_EVENT_NAME, event, config);
    } catch {
      // Outside a run there is no parent to dispatch to.
    }
  }
}

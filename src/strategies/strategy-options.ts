// The options every strategy accepts, and their schema shape.
import { z } from "zod/v4";
import type { CompactionEvent, CompactionLogger } from "../observability.js";
import { tokenCounterSchema, type TokenCounter, type TokenCounterFunction } from "../tokens/token-counter.js";
import type { InvalidHistoryHandling } from "./prepare-history.js";

/** Options every strategy accepts. */
export interface BaseStrategyOptions {
  /**
   * Counter for all token figures: a `TokenCounter`, or a plain function `(messages) => number`
   * (LangChain's shape, e.g. `countTokensApproximately`), used through `tokenCounterFromFunction`.
   * @default the shared exact o200k_base counter
   */
  tokenCounter?: TokenCounter | TokenCounterFunction;
  /**
   * `"throw"`: a history with broken tool pairing, with a lone surrogate (half of a UTF-16 pair)
   * in a text it sends, or with a message that has nothing to send (empty content and no tool
   * calls), is rejected with an `InvalidHistoryError` listing the problems.
   * `"repair"`: it is first repaired on copies (lone surrogates replaced by U+FFFD, a message with
   * nothing to send given the text `(empty message)`, then the pairing repaired with
   * `repairToolPairing`: orphan results dropped, unanswered calls removed, repeated ids renamed)
   * and the result's `repair` says what was fixed. Content that is neither a string nor an
   * array of blocks, an element that is not a message, and a `RemoveMessage` are never repaired:
   * they always throw.
   * @default "throw"
   */
  invalidHistory?: InvalidHistoryHandling;
  /**
   * Receives one structured event per run. Inside a LangChain run the event is also dispatched as
   * the custom event `compaction`. It may be async; what it throws, or the promise it returns
   * rejects with, is ignored: observing never affects a run. The run does not wait for it.
   */
  onEvent?: (event: CompactionEvent) => void;
  /** Logs each run's event: no-ops at `debug`, compactions at `info`, failures at `warn`. */
  logger?: CompactionLogger;
  /**
   * A summary that could not be written (its call failed or timed out, a model package is missing)
   * is printed with `console.warn`, once per cause in the process; `false` keeps it silent. The
   * result's `summaryError`, the event and the record's `reason` say it either way. @default true
   */
  warnings?: boolean;
}

/** @internal */
export const baseOptionsShape = {
  tokenCounter: tokenCounterSchema.optional(),
  invalidHistory: z.enum(["throw", "repair"]).optional(),
  onEvent: z.custom<(event: CompactionEvent) => void>((value) => typeof value === "function", "expected a function").optional(),
  logger: z
    .custom<CompactionLogger>((value) => typeof value === "object" && value !== null, "expected a logger object (e.g. console)")
    .optional(),
  warnings: z.boolean().optional(),
};

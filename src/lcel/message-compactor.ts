import { z } from "zod/v4";
import type { CompactionStrategy } from "../strategies/compaction-strategy.js";

/**
 * What the LCEL adapters need from a compactor: its `compact()` method. Every strategy and policy of
 * this package fits; so does any object with a `compact(messages, context)` of the same contract.
 *
 * @example
 * const compactor: MessageCompactor = slidingWindow({ keepTurns: 4 });
 */
export type MessageCompactor = Pick<CompactionStrategy, "compact">;

/** @internal */
export const messageCompactorSchema = z.custom<MessageCompactor>(
  (value) => typeof value === "object" && value !== null && typeof (value as MessageCompactor).compact === "function",
  { message: "expected a strategy (an object with a compact() method)" },
);

/** @internal */
export const callbackSchema = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
  message: "expected a function",
});

import type { BaseMessage } from "@langchain/core/messages";
import type { ToolCallIndex } from "../messages/tool-call-groups.js";
import type { TokenCounter, TokenMeasurement } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult } from "../types.js";

/**
 * A checked history that grew from the strategy's last output, whose new messages are not counted
 * yet, with an upper bound of its tokens (see `TokenCounter.upperBound`). @internal
 */
export interface BoundedHistory {
  readonly messages: readonly BaseMessage[];
  readonly index: ToolCallIndex;
  readonly context: CompactionContext;
  /** As in `PreparedHistory`. */
  readonly pending: number | undefined;
  /** Exact counts of the first `counted.perMessage.length` messages; the later ones are not counted. */
  readonly counted: TokenMeasurement;
  /** At least the exact total of the whole history (calibration included). */
  readonly upperTotal: number;
  /** At least the sum of the exact counts of the messages after `counted`'s; `undefined` when the counter does not say. */
  readonly upperAdded: number | undefined;
}

/**
 * A no-op a strategy is sure of from an upper bound alone. `reason` builds the result's reason from
 * the exact measurement, which is computed only if the reason (or a token figure) is read. @internal
 */
export interface BoundedNoop {
  reason(tokens: TokenMeasurement): string;
  /** What fired, from the exact measurement, for a no-op over the trigger that cannot free enough. */
  trigger?(tokens: TokenMeasurement): string | undefined;
}

/**
 * The result of a no-op decided under the bound. `tokensBefore`, `tokensAfter`, `reason` (and
 * `trigger`, when the no-op has one) are exact, computed from `measure` when first read (getters, enumerable: spreading or serializing the
 * result reads them); the rest is what any no-op carries. @internal
 */
export function boundedNoopResult(
  strategy: string,
  input: readonly BaseMessage[],
  measure: () => TokenMeasurement,
  noop: BoundedNoop,
): CompactionResult {
  let tokens: TokenMeasurement | undefined;
  let reason: string | undefined;
  const exact = () => (tokens ??= measure());
  const result: CompactionResult = {
    messages: input.slice(),
    status: "noop",
    strategy,
    get tokensBefore() {
      return exact().total;
    },
    get tokensAfter() {
      return exact().total;
    },
    messagesBefore: input.length,
    messagesAfter: input.length,
    removed: [],
    replaced: [],
    get reason() {
      return (reason ??= noop.reason(exact()));
    },
  };
  const { trigger } = noop;
  return trigger ? Object.defineProperty(result, "trigger", { get: () => trigger(exact()), enumerable: true, configurable: true }) : result;
}

/** A measurement of no message: the counts of single messages are taken from it. */
const NOTHING_MEASURED: TokenMeasurement = { perMessage: [], estimated: 0, calibrationAnchors: [], calibrationOffset: 0, total: 0 };

/**
 * The counter's exact count of a message, synchronously (its bound's exact measurement, see
 * `TokenUpperBound.measure`), for messages that are not assistant messages (no usage record to
 * calibrate from); `undefined` when the counter cannot count synchronously (no `upperBound`, or its
 * encoding is not loaded yet). @internal
 */
export function syncMessageCounter(counter: TokenCounter): ((message: BaseMessage) => number) | undefined {
  if (counter.upperBound?.(NOTHING_MEASURED, []) === undefined) return undefined;
  return (message) => counter.upperBound!(NOTHING_MEASURED, [message])!.measure().perMessage[0]!;
}

/**
 * Count `messages` exactly after the current step, off its path (a timer: the agent's model call is
 * under way then), so that the run which needs their exact counts (the one that fires) finds them in
 * the counter's cache instead of tokenizing every message the no-op steps skipped at once. Each
 * message is still tokenized once. `counted` runs once all are counted. A failure is ignored: the
 * run that needs the counts makes them. @internal
 */
export function warmCountsLater(tokenCounter: TokenCounter, messages: readonly BaseMessage[], counted?: () => void): void {
  if (messages.length === 0) return;
  // Message by message: `countMessages` measures, and a measurement of these messages alone would
  // fix a calibration offset (a provider's usage record) against the wrong prefix.
  const timer = setTimeout(() => {
    Promise.all(messages.map((message) => tokenCounter.countMessage(message)))
      .then(counted)
      .catch(() => undefined);
  }, 0);
  // A pending warm-up never keeps the process alive.
  (timer as { unref?: () => void }).unref?.();
}

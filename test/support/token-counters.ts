import type { TokenCounter } from "../../src/index.js";

/**
 * A counter that answers through `counter`'s required methods and `extend`, and nothing else of it
 * (no `upperBound`, no `countJoined`) unless `more` gives it: a test sees which optional methods a
 * strategy relies on, or records their calls.
 */
export function delegatingCounter(counter: TokenCounter, more: Partial<Pick<TokenCounter, "upperBound" | "countJoined">> = {}): TokenCounter {
  return {
    mode: counter.mode,
    encoding: counter.encoding,
    calibrate: counter.calibrate,
    countText: (text) => counter.countText(text),
    countMessage: (message) => counter.countMessage(message),
    countMessages: (messages) => counter.countMessages(messages),
    measure: (messages) => counter.measure(messages),
    extend: (previous, messages) => counter.extend!(previous, messages),
    truncateText: (text, maxTokens) => counter.truncateText(text, maxTokens),
    ...more,
  };
}

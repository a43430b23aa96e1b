import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InvalidOptionError } from "../errors.js";
import { describeValue } from "../option-errors.js";
import { headOf } from "../text/code-points.js";
import type { TokenCounter, TokenMeasurement } from "./token-counter-types.js";

/**
 * A token counter as LangChain's middleware take it: a function from messages to a count (LangChain's
 * `countTokensApproximately` is one). Every option that takes a {@link TokenCounter} also takes one.
 */
export type TokenCounterFunction = (messages: BaseMessage[]) => number | Promise<number>;

/** The count a function returned, checked: a finite number of at least 0. */
function checked(count: unknown): number {
  if (typeof count !== "number" || !Number.isFinite(count) || count < 0) {
    throw new InvalidOptionError("tokenCounterFromFunction", "tokenCounter", { got: `a function that returned ${describeValue(count)}`, expected: "a function that returns a finite number of at least 0" });
  }
  return count;
}

/**
 * A {@link TokenCounter} over a plain counting function. A history's total is the function's count
 * of the whole history (one call); each message's count, which strategies use to place a cut, is the
 * function's count of that message alone (one call per message, cached by message object). A text
 * is counted as one human message holding it; `truncateText` keeps the longest prefix the function
 * counts within the limit (a binary search: about log2(length) calls). No calibration, no reply
 * priming: the function's figures are used as they are. Mode `"approximate"`.
 *
 * @example
 * import { countTokensApproximately } from "langchain";
 * const counter = tokenCounterFromFunction(countTokensApproximately);
 * fullSummary({ tokenCounter: counter }); // or simply { tokenCounter: countTokensApproximately }
 * @throws {TypeError} at a count, when the function returns anything but a finite number >= 0.
 */
export function tokenCounterFromFunction(count: TokenCounterFunction): TokenCounter {
  const cache = new WeakMap<BaseMessage, number>();
  const countMessage = async (message: BaseMessage): Promise<number> => {
    const cached = cache.get(message);
    if (cached !== undefined) return cached;
    const tokens = checked(await count([message]));
    cache.set(message, tokens);
    return tokens;
  };
  const countText = async (text: string): Promise<number> => checked(await count([new HumanMessage(text)]));
  const measure = async (messages: readonly BaseMessage[]): Promise<TokenMeasurement> => {
    const perMessage: number[] = [];
    for (const message of messages) perMessage.push(await countMessage(message));
    const total = checked(await count([...messages]));
    return { perMessage, estimated: total, calibrationAnchors: [], calibrationOffset: 0, total };
  };
  return {
    mode: "approximate",
    encoding: undefined,
    calibrate: false,
    countText,
    countMessage,
    countMessages: async (messages) => checked(await count([...messages])),
    measure,
    async truncateText(text: string, maxTokens: number): Promise<string> {
      if ((await countText(text)) <= maxTokens) return text;
      // The longest prefix (in UTF-16 units, cut on a code-point boundary) the function counts within the limit.
      let low = 0;
      let high = text.length;
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if ((await countText(headOf(text, middle))) <= maxTokens) low = middle;
        else high = middle - 1;
      }
      return headOf(text, low);
    },
  };
}

/**
 * A placed summary message is counted from its parts (`TokenCounter.countJoined`): the summary's
 * text, counted when it was written or fitted, is not tokenized again inside the message, and every
 * figure stays exact.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { createTokenCounter, fullSummary, stateSnapshotSummary, type TokenCounter } from "../../src/index.js";
import { SUMMARY_MESSAGE_PREFIX, messageText, type CompactionStrategy } from "../../src/extend/index.js";
import { step, system, user } from "../support/builders.js";
import { delegatingCounter } from "../support/token-counters.js";

/** An exact counter that records the parts it is asked to count joined. */
function recordingCounter(): { counter: TokenCounter; joins: string[][] } {
  const inner = createTokenCounter();
  const joins: string[][] = [];
  const counter = delegatingCounter(inner, {
    countJoined: (parts) => {
      joins.push([...parts]);
      return inner.countJoined!(parts);
    },
  });
  return { counter, joins };
}

const history = (): BaseMessage[] => [
  system("s"),
  user("u1", "Build the CLI and keep the parser fast."),
  ...Array.from({ length: 40 }, (_, n) => step(n + 1)).flat(),
  user("u2", "Also a README"),
];

const strategies: [string, (tokenCounter: TokenCounter) => CompactionStrategy][] = [
  ["no model: a state snapshot", (tokenCounter) => stateSnapshotSummary({ tokenCounter, contextWindow: 1000 })],
  [
    "a model's summary",
    (tokenCounter) => fullSummary({ tokenCounter, contextWindow: 1000, model: fakeModel().respond(new AIMessage(`<summary>\nThe CLI parses flags.\n- ${"parser detail ".repeat(60)}\n</summary>`)) }),
  ],
];

describe("the summary message's count", () => {
  it.each(strategies)("comes from the summary's parts, and tokensAfter is exact (%s)", async (_name, make) => {
    const { counter, joins } = recordingCounter();
    const result = await make(counter).compact(history());
    expect(result.status, result.reason).toBe("summarized");
    const summary = result.messages.find((message) => message.additional_kwargs["lc_source"] === "summarization")!;
    // Fitting the summary and its index to the cap counts candidates joined; the message's content,
    // the prefix, the summary's text and the artifact index, is one of them, so counting the message
    // tokenizes nothing again.
    const content = messageText(summary);
    expect(new Set(joins.filter((parts) => parts.join("") === content).map((parts) => parts.length))).toEqual(new Set([3]));
    expect(joins.every((parts) => parts[0] === `${SUMMARY_MESSAGE_PREFIX}\n\n`)).toBe(true);
    expect(result.tokensAfter).toBe(await createTokenCounter().countMessages(result.messages));
  });
});

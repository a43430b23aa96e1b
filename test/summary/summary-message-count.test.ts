/**
 * A placed summary message is counted from its parts (`TokenCounter.countJoined`): the summary's
 * text, counted when it was written or fitted, is not tokenized again inside the message, and every
 * figure stays exact.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { createTokenCounter, fullSummary, messageText, stateSnapshotSummary, type CompactionStrategy, type TokenCounter } from "../../src/index.js";
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
    // One join: the prefix, the summary's text, the artifact index; exactly the message's content.
    expect(joins.map((parts) => parts.join(""))).toEqual([messageText(summary)]);
    expect(joins[0]!.length).toBe(3);
    expect(result.tokensAfter).toBe(await createTokenCounter().countMessages(result.messages));
  });
});

import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createTokenCounter, hardTruncate, selectiveCompact, slidingWindow, toolResultHiding } from "../src/index.js";
import { system, toolResult, user } from "./support/builders.js";
import { EVERY_RUN } from "./support/hiding.js";

/** The provider reported 3 000 input tokens for a1's call: far more than the messages alone. */
function history(): BaseMessage[] {
  return [
    system("s", "sys"),
    user("u1", "first"),
    new AIMessage({
      id: "a1",
      content: "answer",
      tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 3_000, output_tokens: 5, total_tokens: 3_005 },
    }),
    toolResult("t1", "c1", "file ".repeat(200)),
    user("u2", "second"),
  ];
}

describe("calibrated token figures across a compaction", () => {
  it("drop the provider's offset once the message that carried it is gone", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    const input = history();
    const result = await slidingWindow({ keepTurns: 1, tokenCounter: counter }).compact(input);
    expect(result.messages.map((message) => message.id)).toEqual(["s", "u2"]);
    const [s, , a1, t1, u2] = await Promise.all(input.map((message) => counter.countMessage(message)));
    expect(result.tokensBefore).toBe(3_000 + a1! + t1! + u2!);
    // the provider's figure left with a1: the estimate alone, priming included
    expect(result.tokensAfter).toBe(s! + u2! + 3);
  });

  it("let hardTruncate fit a limit once the calibrated prefix is cut away", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    const result = await hardTruncate({ maxTokens: 100, keepRecent: 1, tokenCounter: counter }).compact(history());
    expect(result.status).toBe("truncated");
    expect(result.messages.map((message) => message.id)).toEqual(["s", "u2"]);
    expect(result.tokensAfter).toBe(await counter.countMessages(result.messages));
  });

  it("keep the offset on a rewritten copy of the assistant message", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    const input = history();
    const before = await counter.measure(input);
    const result = await selectiveCompact({
      target: before.total - 50,
      rules: [{ kind: "tool_result", action: "drop", priority: 1 }],
      tokenCounter: counter,
    }).compact(input);
    expect(result.messages.map((message) => message.id)).toEqual(["s", "u1", "a1", "u2"]);
    expect(result.messages[2]).not.toBe(input[2]);
    const after = await counter.measure(result.messages);
    expect(after.calibrationOffset).toBe(before.calibrationOffset);
    expect(result.tokensAfter).toBe(after.total);
  });

  it("keep the offset while the assistant message stays, as when tool results are hidden", async () => {
    const counter = createTokenCounter({ mode: "approximate" });
    const input = history();
    const before = await counter.measure(input);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 0, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("compacted");
    expect(result.tokensAfter).toBe((await counter.measure(result.messages)).total);
    expect(result.tokensBefore - result.tokensAfter).toBe(before.perMessage[3]! - (await counter.countMessage(result.messages[3]!)));
  });
});

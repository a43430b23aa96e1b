import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, compactionMarkerOf, createTokenCounter, hardTruncate, validateToolPairing } from "../src/index.js";
import { caught } from "./support/errors.js";
import { assistant, ids, step, system, toolResult, user, sameObjects } from "./support/builders.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

/** s, u1, five one-call steps, u2: 13 messages. */
function history(): BaseMessage[] {
  return [system("s"), user("u1"), ...step(1), ...step(2), ...step(3), ...step(4), ...step(5), user("u2")];
}

describe("hardTruncate", () => {
  it("leaves a history within maxTokens alone", async () => {
    const input = history();
    const result = await hardTruncate({ maxTokens: 100_000, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("keeps the system message and the newest keepRecent messages", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 5, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "a4", "t4", "a5", "t5", "u2"]);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("moves the cut forward rather than separate a call from its result", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    // the newest 4 would start at t4, inside the a4/t4 group
    const result = await hardTruncate({ maxTokens: total - 1, keepRecent: 4, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "a5", "t5", "u2"]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("drops further whole groups until the history fits", async () => {
    const input = history();
    const tailTokens = await tokenCounter.countMessages([input[0]!, ...input.slice(-3)]);
    const result = await hardTruncate({ maxTokens: tailTokens, keepRecent: 10, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "a5", "t5", "u2"]);
    expect(result.tokensAfter).toBeLessThanOrEqual(tailTokens);
  });

  it("cuts the text of an oversized newest message as a last resort, with a visible marker", async () => {
    const counter = createTokenCounter();
    const input = [system("s"), user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1", "word ".repeat(5_000))];
    const result = await hardTruncate({ maxTokens: 1_000, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("truncated");
    // u1 goes first (dropping whole messages comes before cutting text)
    expect(ids(result.messages)).toEqual(["s", "a1", "t1"]);
    const cut = result.messages[2]!;
    expect(cut.content).toMatch(/^(word ?)+\n\[\.\.\. \d+ tokens cut to fit the context window \.\.\.\]$/);
    expect(compactionMarkerOf(cut)).toMatchObject({ strategy: "hardTruncate", truncated: true });
    expect(result.replaced.map(({ index, before }) => [index, before])).toEqual([[3, input[3]]]);
    expect(result.tokensAfter).toBeLessThanOrEqual(1_000);
    expect(await counter.countMessages(result.messages)).toBe(result.tokensAfter);
  });

  it("empties huge tool-call arguments of the newest exchange before giving up", async () => {
    const input = [
      system("s"),
      user("u1"),
      assistant("a1", "writing the file", [{ id: "c1", name: "write_file", args: { path: "big.txt", text: "data ".repeat(5_000) } }]),
      toolResult("t1", "c1", "ok"),
    ];
    const result = await hardTruncate({ maxTokens: 200, keepRecent: 2, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "a1", "t1"]);
    const call = result.messages[1] as AIMessage;
    expect(call.tool_calls).toEqual([{ id: "c1", name: "write_file", args: {}, type: "tool_call" }]);
    expect(compactionMarkerOf(call)).toEqual({ strategy: "hardTruncate", truncated: true, originalTokens: expect.any(Number), hiddenToolInputs: ["c1"] });
    expect(result.tokensAfter).toBeLessThanOrEqual(200);
  });

  it("rejects keepRecent 0: a request needs a message besides the system prompt", async () => {
    const error = await caught(() => hardTruncate({ maxTokens: 100, keepRecent: 0 }));
    expect(InvalidOptionError.isInstance(error) && error.option).toBe("keepRecent");
  });

  it("fails, changing nothing, when the system messages alone exceed the limit", async () => {
    const input = [system("s", "rules ".repeat(2_000)), user("u1"), assistant("a1", "hi")];
    const result = await hardTruncate({ maxTokens: 100, tokenCounter }).compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(/^cannot fit 100 tokens: system messages and the newest exchange still need \d+$/);
    expect(sameObjects(result.messages, input)).toBe(true);
  });
});

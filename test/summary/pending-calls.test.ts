/**
 * Seed 000: compaction may run between the model's answer and the tool runs, so a history may end
 * with an assistant message whose calls have no results yet. Every strategy accepts it and keeps
 * that message, unchanged, as the last one.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  autoCompaction,
  createTokenCounter,
  fullSummary,
  hardTruncate,
  hidingThenSummary,
  selectiveCompact,
  selectiveThenSummary,
  slidingWindow,
  stateSnapshotSummary,
  toolResultHiding,
  validateToolPairing,
} from "../../src/index.js";
import { type CompactionStrategy } from "../../src/extend/index.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";

const counter = createTokenCounter({ mode: "approximate" });
const pendingCall = () => assistant("pending", "Running two more commands.", [{ id: "p1", args: { command: "pytest -x" } }, { id: "p2", args: { command: "git diff" } }]);
const history = (): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: 8 }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(100))).flat(), pendingCall()];

const strategies: [string, () => CompactionStrategy, string][] = [
  ["toolResultHiding", () => toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, keepRecentGroups: 2 }), "compacted"],
  ["selectiveCompact (assistant messages dropped down to none)", () => selectiveCompact({ tokenCounter: counter, target: 50, rules: [{ kind: "assistant", action: "drop", priority: 1 }] }), "compacted"],
  ["hardTruncate", () => hardTruncate({ tokenCounter: counter, maxTokens: 300, keepRecent: 1 }), "truncated"],
  ["slidingWindow", () => slidingWindow({ tokenCounter: counter, keepTurns: 1 }), "noop"],
  ["fullSummary (keepRecent 0)", () => fullSummary({ tokenCounter: counter, keepRecent: 0 }), "summarized"],
  ["stateSnapshotSummary", () => stateSnapshotSummary({ tokenCounter: counter, trigger: { tokens: 10 } }), "summarized"],
  ["hidingThenSummary", () => hidingThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, target: { tokens: 20 } }), "summarized"],
  ["selectiveThenSummary", () => selectiveThenSummary({ tokenCounter: counter, trigger: { tokens: 10 }, target: { tokens: 20 } }), "summarized"],
  ["autoCompaction", () => autoCompaction({ tokenCounter: counter, contextWindow: 1000, keepRecent: 4 }), "summarized"],
];

describe("a history that ends with pending tool calls", () => {
  for (const [name, make, status] of strategies) {
    it(`${name}: compacts and keeps the pending calls' message last, unchanged`, async () => {
      const input = history();
      const result = await make().compact(input);
      expect(result.status).toBe(status);
      expect(result.messages.at(-1)).toBe(input.at(-1));
      // The only pairing problems left are the calls the tools are about to answer.
      expect(validateToolPairing(result.messages).map((problem) => [problem.kind, "toolCallId" in problem ? problem.toolCallId : null])).toEqual([
        ["unanswered-call", "p1"],
        ["unanswered-call", "p2"],
      ]);
    });
  }

  it("fullSummary leaves the pending calls out of the summary prompt", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>so far</summary>"));
    await fullSummary({ tokenCounter: counter, keepRecent: 0, model }).compact(history());
    const prompt = String(model.calls[0]!.messages[0]!.content);
    expect(prompt).not.toContain("pytest -x");
    expect(prompt).toContain("output 8");
  });

  it("a repair leaves the pending calls alone and fixes the rest", async () => {
    const input = [system("s"), user("u1"), toolResult("orphan", "nobody"), ...step(1), pendingCall()];
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, invalidHistory: "repair" }).compact(input);
    expect(result.status).toBe("repaired");
    expect(result.repair?.problems.map((problem) => problem.kind)).toEqual(["orphan-result"]);
    expect(result.messages.map((message) => message.id)).toEqual(["s", "u1", "a1", "t1", "pending"]);
    expect(result.messages.at(-1)).toBe(input.at(-1));
  });

  it("an unanswered call before the last message is still a broken history", async () => {
    const input = [system("s"), user("u1"), assistant("a0", "", [{ id: "lost" }]), ...step(1)];
    await expect(toolResultHiding({ ...EVERY_RUN, tokenCounter: counter }).compact(input)).rejects.toThrow("message 2 calls tool `lost`, which no later tool result answers");
  });
});

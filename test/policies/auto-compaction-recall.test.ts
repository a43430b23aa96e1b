import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { autoCompaction, compactionMarkerOf, createTokenCounter, validateToolPairing, type AutoCompactionOptions } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { DEFAULT_AUTO_RECALL_TARGET } from "../../src/policies/auto-compaction-options.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "approximate" });
const summaryAnswer = () => new AIMessage("<summary>the task so far</summary>");
/** [system, request, 12 steps whose outputs are 300 repetitions of a short line]. */
const loop = (): BaseMessage[] => [system("s"), user("u1", "Fix it"), ...Array.from({ length: 12 }, (_, n) => step(n + 1, `output ${n + 1} `.repeat(300))).flat()];
const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);

/** Options for a window in which `input` is at 0.9 of it: over the threshold (0.8), far under the 60 000-token trigger. */
async function overThreshold(input: BaseMessage[], extra: Partial<AutoCompactionOptions>): Promise<AutoCompactionOptions> {
  return { tokenCounter: counter, contextWindow: Math.ceil((await counter.countMessages(input)) / 0.9), keepRecent: 4, hiding: { clearAtLeast: 0, keepRecentGroups: 5 }, ...extra };
}

describe("autoCompaction withRecall", () => {
  it("where the threshold fires, summarizes down to a quarter of the window when hiding stands above it (hiding stands without recall)", async () => {
    const input = loop();
    // Hiding 7 of 12 results leaves about 0.4 of the window: under what hiding must reach by default (0.6 of the threshold's 0.8), over a quarter.
    const without = fakeModel().respond(summaryAnswer());
    const hidden = await autoCompaction(await overThreshold(input, { summaryModel: without })).compact(input);
    expect([hidden.status, without.calls.length, hiddenIds(hidden.messages)]).toEqual(["compacted", 0, ["t1", "t2", "t3", "t4", "t5", "t6", "t7"]]);
    const options = await overThreshold(input, { summaryModel: fakeModel().respond(summaryAnswer()), withRecall: true });
    const recalled = await autoCompaction(options).compact(input);
    expect(recalled.status).toBe("summarized");
    expect(recalled.tokensAfter).toBeLessThanOrEqual(Math.floor(DEFAULT_AUTO_RECALL_TARGET * options.contextWindow!));
    expect(hidden.tokensAfter).toBeGreaterThan(Math.floor(DEFAULT_AUTO_RECALL_TARGET * options.contextWindow!));
    expect(validateToolPairing(recalled.messages)).toEqual([]);
  });

  it("changes nothing where the trigger, not the threshold, is the size that fires", async () => {
    const input = loop();
    const tokens = await counter.countMessages(input);
    // A window ten times the history: the trigger fires at the history's size, far under the threshold.
    const options = { tokenCounter: counter, contextWindow: tokens * 10, keepRecent: 4, trigger: { tokens: tokens - 100 }, hiding: { clearAtLeast: 0, keepRecentGroups: 5, trimAssistantText: true } };
    const plain = await autoCompaction(options).compact(input);
    const withRecall = await autoCompaction({ ...options, withRecall: true }).compact(input);
    expect(withRecall.status).toBe("compacted");
    expect(withRecall.messages.map(messageText)).toEqual(plain.messages.map(messageText));
  });

  it("leaves the older assistant text whole unless trimAssistantText is given", async () => {
    const reasoning = `I will look at the parser now, because ${"the listing shows a long trace ".repeat(20)}`;
    const input: BaseMessage[] = [
      system("s"),
      user("u1", "Fix it"),
      ...Array.from({ length: 8 }, (_, n) => [assistant(`a${n + 1}`, reasoning, [{ id: `c${n + 1}`, args: { command: `cmd ${n + 1}` } }]), toolResult(`t${n + 1}`, `c${n + 1}`, `output ${n + 1} `.repeat(300))]).flat(),
    ];
    const options = { tokenCounter: counter, contextWindow: Math.ceil((await counter.countMessages(input)) / 0.35), keepRecent: 4, trigger: { fraction: 0.3 }, hiding: { clearAtLeast: 0, keepRecentGroups: 2 } };
    const textOf = (messages: readonly BaseMessage[]) => messageText(messages.find((message) => message.id === "a1")!);
    const trimmed = await autoCompaction(options).compact(input);
    const whole = await autoCompaction({ ...options, withRecall: true }).compact(input);
    const asked = await autoCompaction({ ...options, withRecall: true, hiding: { ...options.hiding, trimAssistantText: true } }).compact(input);
    expect([trimmed.status, whole.status, asked.status]).toEqual(["compacted", "compacted", "compacted"]);
    expect(textOf(trimmed.messages).length).toBeLessThan(reasoning.length);
    expect(textOf(whole.messages)).toBe(reasoning);
    expect(textOf(asked.messages)).toBe(textOf(trimmed.messages));
    expect(hiddenIds(whole.messages)).toEqual(hiddenIds(trimmed.messages));
  });
});

/**
 * autoCompaction's firing reads the bounds of what its hiding and trimming could free: a pass that
 * cannot free `clearAtLeast` is not made (the same outcome), one that can is made as before.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { autoCompaction, compactionMarkerOf, createTokenCounter, type AutoCompactionOptions } from "../../src/index.js";
import { AssistantTextTrimming } from "../../src/extend/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "approximate" });
const summaryAnswer = () => new AIMessage("<summary>the task so far</summary>");

/** [system, request, n steps whose reasoning is `reasoning` characters and whose outputs are `output` characters]. */
function loop(steps: number, reasoning: number, output: number): BaseMessage[] {
  return [
    system("s"),
    user("u1", "Fix it"),
    ...Array.from({ length: steps }, (_, index) => {
      const n = index + 1;
      return [assistant(`a${n}`, `thinking about step ${n} `.repeat(Math.ceil(reasoning / 24)).slice(0, reasoning), [{ id: `c${n}`, args: { command: `cmd ${n}` } }]), toolResult(`t${n}`, `c${n}`, `output ${n} `.repeat(Math.ceil(output / 10)).slice(0, output))];
    }).flat(),
  ];
}
const trimmedIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.trimmedText).map((message) => message.id);
const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);

/** Fires at the threshold (the history at 0.9 of the window), keeps 2 groups, trims the older texts. */
async function options(input: BaseMessage[], clearAtLeast: number, extra: Partial<AutoCompactionOptions> = {}): Promise<AutoCompactionOptions> {
  const tokens = await counter.countMessages(input);
  return { tokenCounter: counter, contextWindow: Math.ceil(tokens / 0.9), keepRecent: 4, hiding: { clearAtLeast, keepRecentGroups: 2, trimAssistantText: true }, ...extra };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("autoCompaction's firing: the bounds of its hiding and trimming", () => {
  it("trims the older texts with the hiding it makes, even when the texts alone hold fewer tokens than clearAtLeast", async () => {
    // Large results, short reasoning: the hiding frees clearAtLeast, the texts alone could not.
    const input = loop(6, 240, 4000);
    const texts = await Promise.all(input.filter((message) => message.type === "ai").slice(0, 4).map((message) => counter.countMessage(message)));
    const clearAtLeast = 2000;
    expect(texts.reduce((sum, tokens) => sum + tokens, 0)).toBeLessThan(clearAtLeast);
    const result = await autoCompaction(await options(input, clearAtLeast, { target: 0.9 })).compact(input);
    expect(result.status).toBe("compacted");
    expect(hiddenIds(result.messages)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(trimmedIds(result.messages)).toEqual(["a1", "a2", "a3", "a4"]);
  });

  it("trims alone when no hiding is made and the texts free clearAtLeast", async () => {
    // Long reasoning, tiny results: nothing worth hiding, the trimming alone frees enough.
    const input = loop(6, 8000, 20);
    const result = await autoCompaction(await options(input, 2000, { target: 0.9 })).compact(input);
    expect(result.status).toBe("compacted");
    expect(hiddenIds(result.messages)).toEqual([]);
    expect(trimmedIds(result.messages)).toEqual(["a1", "a2", "a3", "a4"]);
  });

  it("does not make a trimming whose bound is under clearAtLeast when no hiding is made, and summarizes as before", async () => {
    const trimming = vi.spyOn(AssistantTextTrimming.prototype, "compact");
    const model = fakeModel().respond(summaryAnswer());
    // Short reasoning, small results: neither pass could free 2000 tokens.
    const input = loop(10, 240, 300);
    const result = await autoCompaction(await options(input, 2000, { summaryModel: model, prepare: false })).compact(input);
    expect(result.status).toBe("summarized");
    expect(result.reason).toMatch(/^hiding noop: hiding would free at most \d+ tokens, less than clearAtLeast \(2000\); summarized instead$/);
    expect(trimming).not.toHaveBeenCalled();
    // With clearAtLeast under the trimming's bound, the same firing makes it (and finds it frees too little).
    const texts = await Promise.all(input.filter((message) => message.type === "ai").slice(0, 8).map((message) => counter.countMessage(message)));
    const lower = texts.reduce((sum, tokens) => sum + tokens, 0);
    const again = await autoCompaction(await options(input, lower, { summaryModel: fakeModel().respond(summaryAnswer()), prepare: false })).compact(input);
    expect(trimming).toHaveBeenCalledTimes(1);
    expect(again.status).toBe("summarized");
  });
});

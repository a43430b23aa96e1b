/**
 * A summary model needs only `invoke()` (issue 11: an object with only `invoke()` crashed with
 * `model.getName is not a function`).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  autoCompaction,
  createTokenCounter,
  fullSummary,
  stateSnapshotSummary,
  type CompactionResult,
  type SummaryChatModel,
} from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { sameObjects, step, system, user } from "../support/builders.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const history = (): BaseMessage[] => [
  system("s"),
  user("u1", "Fix the failing test in parser.ts"),
  ...Array.from({ length: 8 }, (_, n) => step(n + 1, `output of step ${n + 1}: ${"line of text ".repeat(200)}`)).flat(),
  user("u2", "Now run the linter"),
];

/** An object with nothing but `invoke`, recording the prompts it gets. */
function invokeOnly(answer: unknown): { model: SummaryChatModel; prompts: BaseMessage[][] } {
  const prompts: BaseMessage[][] = [];
  const model = {
    invoke: async (messages: BaseMessage[]) => {
      prompts.push(messages);
      return answer as BaseMessage;
    },
  };
  return { model, prompts };
}

/** The summary message a summarizing result inserted: the one output message that is not an input message. */
function summaryText(input: readonly BaseMessage[], result: CompactionResult): string {
  const inserted = result.messages.filter((message) => !input.includes(message));
  expect(inserted).toHaveLength(1);
  return messageText(inserted[0]!);
}

describe("a summary model with only invoke()", () => {
  it("writes fullSummary's summary", async () => {
    const { model, prompts } = invokeOnly(new AIMessage("<summary>The user wants parser.ts fixed; steps 1-6 ran the tests.</summary>"));
    const input = history();
    const result = await fullSummary({ model, tokenCounter, keepRecent: 4 }).compact(input);
    expect([result.status, result.summaryModel]).toEqual(["summarized", "unknown"]);
    expect(summaryText(input, result)).toContain("The user wants parser.ts fixed; steps 1-6 ran the tests.");
    expect(prompts.map((messages) => messages.map((message) => message.type))).toEqual([["human"]]);
  });

  it("writes stateSnapshotSummary's snapshot", async () => {
    const { model, prompts } = invokeOnly(new AIMessage("<state_snapshot>Goal: fix parser.ts. Done: ran the tests.</state_snapshot>"));
    const input = history();
    const result = await stateSnapshotSummary({ model, tokenCounter, contextWindow: 100_000 }).compact(input, { force: true });
    expect(result.status).toBe("summarized");
    expect(summaryText(input, result)).toContain("Goal: fix parser.ts. Done: ran the tests.");
    expect(prompts).toHaveLength(1);
  });

  it("is named by its class when it has one, and by getName() only when it has that", async () => {
    class LocalModel {
      async invoke() {
        return new AIMessage("<summary>local</summary>");
      }
    }
    const named = { getName: () => "my-summarizer", invoke: async () => new AIMessage("<summary>named</summary>") };
    const byClass = await fullSummary({ model: new LocalModel(), tokenCounter, keepRecent: 4 }).compact(history());
    const byName = await fullSummary({ model: named, tokenCounter, keepRecent: 4 }).compact(history());
    expect([byClass.summaryModel, byName.summaryModel]).toEqual(["LocalModel", "my-summarizer"]);
  });

  it("may answer with a plain string, or synchronously", async () => {
    const input = history();
    const plain = await fullSummary({ model: invokeOnly("<summary>a plain string</summary>").model, tokenCounter, keepRecent: 4 }).compact(input);
    const sync = { invoke: (() => new AIMessage("<summary>a sync answer</summary>")) as unknown as SummaryChatModel["invoke"] };
    const synchronous = await fullSummary({ model: sync, tokenCounter, keepRecent: 4 }).compact(input);
    expect(summaryText(input, plain)).toContain("a plain string");
    expect(summaryText(input, synchronous)).toContain("a sync answer");
  });

  it("fails the run, changing nothing, when it answers with something that is not a message", async () => {
    const input = history();
    const result = await fullSummary({ model: invokeOnly(42).model, tokenCounter, keepRecent: 4 }).compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toContain("the summary model returned no message: got number");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("is autoCompaction's summary model", async () => {
    const { model } = invokeOnly(new HumanMessage("<summary>auto summary</summary>"));
    const input = history();
    const result = await autoCompaction({ summaryModel: model, contextWindow: 100_000, tokenCounter, keepRecent: 4, hiding: false }).compact(input, { force: true });
    expect(result.status).toBe("summarized");
    expect(summaryText(input, result)).toContain("auto summary");
  });
});

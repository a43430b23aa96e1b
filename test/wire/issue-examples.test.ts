/**
 * The concrete examples of the provider-true-histories issue, checked on what `ChatOpenAI` and
 * `ChatAnthropic` really send (the wire validator), each asserting the fixed behaviour.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidHistoryError,
  autoCompaction,
  createTokenCounter,
  fullSummary,
  hardTruncate,
  selectiveCompact,
  toolResultHiding,
  validateToolPairing,
} from "../../src/index.js";
import { caught } from "../support/errors.js";
import { anthropicWireProblems, openaiWire, openaiWireProblems, wireProblems } from "../support/wire/index.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const output = (n: number) => `line ${n} of the file\n`.repeat(100);

/** A ChatOpenAI reply: parsed `tool_calls` and the raw calls in `additional_kwargs.tool_calls`. */
const openaiCall = (id: string) =>
  new AIMessage({
    content: "reading",
    tool_calls: [{ id, name: "read", args: {} }],
    additional_kwargs: { tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }] },
  });

/** A ChatAnthropic reply: the call as a `tool_use` content block and as `tool_calls`. */
const anthropicCall = (id: string) => new AIMessage({ content: [{ type: "tool_use", id, name: "read", input: {} }], tool_calls: [{ id, name: "read", args: {} }] });

const session = (steps: BaseMessage[]) => [new SystemMessage("You read files."), new HumanMessage("Read the five files."), ...steps, new AIMessage("Done."), new HumanMessage("Thanks")];

describe("calls removed from ChatOpenAI messages (raw additional_kwargs.tool_calls)", () => {
  const history = session([1, 2, 3, 4, 5].flatMap((n) => [openaiCall(`c${n}`), new ToolMessage({ content: output(n), tool_call_id: `c${n}` })]));

  it("selectiveCompact({ target: 100 }) sends no empty tool_calls and no unanswered call", async () => {
    expect(wireProblems(history)).toEqual([]);
    const result = await selectiveCompact({ target: 100, tokenCounter }).compact(history);
    expect(result.status).toBe("compacted");
    expect(openaiWireProblems(result.messages)).toEqual([]);
    expect(openaiWire(result.messages).params.filter((param) => Array.isArray(param["tool_calls"]) && (param["tool_calls"] as unknown[]).length === 0)).toEqual([]);
  });
});

describe("calls stripped from ChatAnthropic messages (tool_use content blocks)", () => {
  it("selectiveCompact({ target: 100 }) leaves no assistant message with empty content", async () => {
    const history = session([1, 2, 3, 4, 5].flatMap((n) => [anthropicCall(`toolu_${n}`), new ToolMessage({ content: output(n), tool_call_id: `toolu_${n}` })]));
    expect(anthropicWireProblems(history)).toEqual([]);
    const result = await selectiveCompact({ target: 100, tokenCounter }).compact(history);
    expect(result.status).toBe("compacted");
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("repair keeps the result of a tool_use block that has no tool_calls entry", async () => {
    const blockOnly = new AIMessage({ content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_1", name: "read", input: {} }], tool_calls: [] });
    const history = [new SystemMessage("s"), new HumanMessage("Read it."), blockOnly, new ToolMessage({ content: "the file", tool_call_id: "toolu_1" }), new AIMessage("It says: the file.")];
    expect(anthropicWireProblems(history)).toEqual([]);
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory: "repair" }).compact(history);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });
});

describe("results that do not directly follow their call", () => {
  const call = (...ids: string[]) => new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "read", args: {} })) });
  const humanBetween = [new HumanMessage("go"), call("c1"), new HumanMessage("hurry"), new ToolMessage({ content: "x", tool_call_id: "c1" })];
  const afterAnotherTurn = [new HumanMessage("go"), call("c1", "c2"), new ToolMessage({ content: "one", tool_call_id: "c1" }), new AIMessage("thinking"), new ToolMessage({ content: "two", tool_call_id: "c2" })];

  it("are rejected by both providers", () => {
    const rules = (history: BaseMessage[]) => wireProblems(history).map((problem) => `${problem.provider} ${problem.index} ${problem.rule}`);
    expect(rules(humanBetween)).toEqual(["openai 1 unanswered-tool-call", "openai 3 orphan-tool-message", "anthropic 1 unanswered-tool-use", "anthropic 3 orphan-tool-result"]);
    expect(rules(afterAnotherTurn)).toEqual(["openai 1 unanswered-tool-call", "openai 4 orphan-tool-message", "anthropic 1 unanswered-tool-use", "anthropic 4 orphan-tool-result"]);
  });

  it("are reported by validateToolPairing as misplaced results", () => {
    const kinds = (history: BaseMessage[]) => validateToolPairing(history).map((problem) => ({ kind: problem.kind, index: problem.index }));
    expect(kinds(humanBetween)).toEqual([{ kind: "misplaced-result", index: 3 }]);
    expect(kinds(afterAnotherTurn)).toEqual([{ kind: "misplaced-result", index: 4 }]);
  });

  it("make a strategy throw InvalidHistoryError, or with repair return a history both providers accept", async () => {
    for (const history of [humanBetween, afterAnotherTurn]) {
      expect(InvalidHistoryError.isInstance(await caught(() => toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact(history)))).toBe(true);
      const repaired = await toolResultHiding({ ...EVERY_RUN, tokenCounter, invalidHistory: "repair" }).compact(history);
      expect(wireProblems(repaired.messages)).toEqual([]);
    }
  });
});

describe("cuts in astral text", () => {
  const emoji = "😀𝒜".repeat(4_000);
  const history = [
    new SystemMessage("s"),
    new HumanMessage("Show the log."),
    new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "bash", args: { command: "cat log" } }] }),
    new ToolMessage({ content: `error: ${emoji}`, tool_call_id: "c1" }),
    new AIMessage("The log is all emoji."),
    new HumanMessage("Odd. Go on."),
  ];

  it("hardTruncate with the approximate counter, shrinking the newest output, sends no lone surrogate", async () => {
    // The history ends with the output: hardTruncate must keep it and cut its text.
    const result = await hardTruncate({ tokenCounter, maxTokens: 1_000, keepRecent: 4 }).compact(history.slice(0, 4));
    expect(result.status).toBe("truncated");
    const kept = result.messages.at(-1)!;
    expect(kept.getType()).toBe("tool");
    expect(String(kept.content).length).toBeLessThan(String(history[3]!.content).length);
    expect(wireProblems(result.messages).filter((problem) => problem.rule === "lone-surrogate")).toEqual([]);
  });

  it("hardTruncate keeps a user message first after the system messages, as Anthropic requires", async () => {
    const result = await hardTruncate({ tokenCounter, maxTokens: 1_000, keepRecent: 4 }).compact(history);
    expect(result.messages.find((message) => message.getType() !== "system")?.getType()).toBe("human");
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("autoCompaction's no-model summary excerpts send no lone surrogate", async () => {
    const result = await autoCompaction({ tokenCounter, contextWindow: 1_000, keepRecent: 2 }).compact(history);
    expect(["summarized", "truncated"]).toContain(result.status);
    expect(wireProblems(result.messages)).toEqual([]);
  });

  it("the summary prompt (a request too) and a summary cut at summaryMaxTokens send no lone surrogate", async () => {
    const prompts: string[] = [];
    const model = {
      model: "recording",
      invoke: async (messages: BaseMessage[]) => {
        prompts.push(String(messages[0]!.content));
        return new AIMessage(`<summary>${emoji}</summary>`);
      },
    };
    const result = await fullSummary({ tokenCounter, model: model as never, keepRecent: 2, summaryMaxTokens: 50, toolOutputBudgetTokens: 100 }).compact(history);
    expect(result.status).toBe("summarized");
    expect(prompts).toHaveLength(1);
    expect(openaiWireProblems([new HumanMessage(prompts[0]!)])).toEqual([]);
    expect(wireProblems(result.messages)).toEqual([]);
  });
});

describe("a 63 000-token tool_result block inside a human message", () => {
  const big = "alpha beta gamma delta ".repeat(11_000);
  const history = [
    new SystemMessage("s"),
    new HumanMessage("Dump the table."),
    anthropicCall("toolu_1"),
    new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: big }] }),
    new AIMessage("That is a big table."),
    new HumanMessage("Summarize it."),
  ];

  it("counts as about 63 000 tokens", async () => {
    expect(await tokenCounter.countMessages([new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: big }] })])).toBeGreaterThan(60_000);
  });

  it("hardTruncate({ maxTokens: 32 000 }) fits the limit with a history Anthropic accepts", async () => {
    expect(anthropicWireProblems(history)).toEqual([]);
    const result = await hardTruncate({ tokenCounter, maxTokens: 32_000 }).compact(history);
    expect(result.status).toBe("truncated");
    expect(await tokenCounter.countMessages(result.messages)).toBeLessThanOrEqual(32_000);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });

  it("autoCompaction({ contextWindow: 32 000 }) fits the window with a history Anthropic accepts", async () => {
    const result = await autoCompaction({ tokenCounter, contextWindow: 32_000, keepRecent: 2 }).compact(history);
    expect(result.status).not.toBe("noop");
    expect(await tokenCounter.countMessages(result.messages)).toBeLessThanOrEqual(32_000);
    expect(anthropicWireProblems(result.messages)).toEqual([]);
  });
});

/**
 * `ClearToolUsesEdit` against LangChain's own `ClearToolUsesEdit` on the same histories (what a
 * user switching over would compare), and its options, markers and `clearAtLeast` rule.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ClearToolUsesEdit as LangChainClearToolUsesEdit, contextEditingMiddleware as langChainContextEditingMiddleware, countTokensApproximately, createAgent } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, compactionMarkerOf, toolResultHiding } from "../../src/index.js";
import { ClearToolUsesEdit, contextEditingMiddleware, type ClearToolUsesEditConfig } from "../../src/middleware/index.js";
import { caught } from "../support/errors.js";
import { view } from "./support/clear-tool-uses-histories.js";

/** A history of `sizes.length` searches (call_1..call_n), result n of `sizes[n-1]` characters. */
function searches(sizes: number[], names: string[] = []): BaseMessage[] {
  const messages: BaseMessage[] = [];
  sizes.forEach((size, position) => {
    const id = `call_${position + 1}`;
    const name = names[position] ?? "search";
    messages.push(new HumanMessage({ id: `h${position + 1}`, content: `search ${position + 1}` }));
    messages.push(new AIMessage({ id: `a${position + 1}`, content: "", tool_calls: [{ id, name, args: { query: `q${position + 1}` } }] }));
    messages.push(new ToolMessage({ id: `t${position + 1}`, content: String.fromCharCode(97 + position).repeat(size), tool_call_id: id, name }));
  });
  messages.push(new HumanMessage({ id: "last", content: "and now?" }));
  return messages;
}

async function both(config: ClearToolUsesEditConfig, history: BaseMessage[], model?: unknown, countTokens: (messages: BaseMessage[]) => number = countTokensApproximately) {
  const theirs = [...history];
  await new LangChainClearToolUsesEdit(config as never).apply({ messages: theirs, countTokens, model: model as never });
  const ours = [...history];
  await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens, model });
  return { theirs: view(theirs), ours: view(ours), cleared: ours.filter((message) => ToolMessage.isInstance(message) && message.content === (config.placeholder ?? "[cleared]")).map((message) => (message as ToolMessage).tool_call_id) };
}

describe("ClearToolUsesEdit gives what LangChain's gives", () => {
  const cases: [string, ClearToolUsesEditConfig, number[], string[]][] = [
    ["the defaults, under 100 000 tokens", {}, [4000, 4000, 4000, 4000, 4000], []],
    ["the defaults, over 100 000 tokens: all but the 3 newest", {}, [400_000, 4000, 4000, 4000, 4000], ["call_1", "call_2"]],
    ["keep 0", { trigger: { tokens: 10 }, keep: { messages: 0 } }, [400, 400, 400], ["call_1", "call_2", "call_3"]],
    ["keep more than there are", { trigger: { tokens: 10 }, keep: { messages: 9 } }, [400, 400, 400], []],
    ["an AND trigger not reached (messages)", { trigger: { tokens: 10, messages: 20 }, keep: { messages: 1 } }, [400, 400, 400], []],
    ["a list of triggers: the second fires", { trigger: [{ tokens: 10, messages: 20 }, { messages: 5 }], keep: { messages: 1 } }, [400, 400, 400], ["call_1", "call_2"]],
    ["keep by tokens: the newest that fit", { trigger: { tokens: 10 }, keep: { tokens: 250 } }, [400, 400, 400, 400], ["call_1", "call_2"]],
    ["clearAtLeast reached beyond keep: the kept results stay", { trigger: { tokens: 10 }, keep: { messages: 2 }, clearAtLeast: 150 }, [400, 400, 400, 400], ["call_1", "call_2"]],
    ["clearAtLeast not reached: kept results go too, newest first", { trigger: { tokens: 10 }, keep: { messages: 2 }, clearAtLeast: 250 }, [400, 400, 400, 400], ["call_1", "call_2", "call_4"]],
    ["clearAtLeast, keep covering every result: nothing cleared", { trigger: { tokens: 10 }, keep: { messages: 4 }, clearAtLeast: 250 }, [400, 400, 400, 400], []],
    ["clearAtLeast, keep more than there are: nothing cleared", { trigger: { tokens: 10 }, keep: { messages: 9 }, clearAtLeast: 250 }, [400, 400, 400], []],
    ["clearAtLeast, keep by tokens covering every result: nothing cleared", { trigger: { tokens: 10 }, keep: { tokens: 10_000 }, clearAtLeast: 250 }, [400, 400, 400], []],
    ["clearAtLeast, keep 0: every result, nothing more", { trigger: { tokens: 10 }, keep: { messages: 0 }, clearAtLeast: 100_000 }, [400, 400], ["call_1", "call_2"]],
    ["clearToolInputs", { trigger: { tokens: 10 }, keep: { messages: 1 }, clearToolInputs: true }, [400, 400, 400], ["call_1", "call_2"]],
    ["a custom placeholder", { trigger: { tokens: 10 }, keep: { messages: 1 }, placeholder: "[gone]" }, [400, 400], ["call_1"]],
  ];
  it.each(cases)("%s", async (_label, config, sizes, expected) => {
    const { theirs, ours, cleared } = await both(config, searches(sizes));
    expect(cleared).toEqual(expected);
    expect(ours).toEqual(theirs);
  });

  it("excludeTools: excluded results stay and count among the kept", async () => {
    const { theirs, ours, cleared } = await both({ trigger: { tokens: 10 }, keep: { messages: 1 }, excludeTools: ["read_plan"] }, searches([400, 400, 400], ["read_plan", "search", "search"]));
    expect(cleared).toEqual(["call_2"]);
    expect(ours).toEqual(theirs);
  });

  it("a fraction trigger reads the model's profile, and never fires without one", async () => {
    const history = searches([400, 400, 400]);
    const withProfile = await both({ trigger: { fraction: 0.5 }, keep: { messages: 1 } }, history, { profile: { maxInputTokens: 400 } });
    expect(withProfile.cleared).toEqual(["call_1", "call_2"]);
    expect(withProfile.ours).toEqual(withProfile.theirs);
    const large = await both({ trigger: { fraction: 0.5 }, keep: { messages: 1 } }, history, { profile: { maxInputTokens: 100_000 } });
    expect(large.cleared).toEqual([]);
    const ours = [...history];
    await new ClearToolUsesEdit({ trigger: { fraction: 0.01 }, keep: { messages: 1 } }).apply({ messages: ours, countTokens: countTokensApproximately, model: {} });
    expect(ours).toEqual(history);
  });

  it("keep by fraction: the newest results that fit in that share of the window (3 without a window)", async () => {
    const history = searches([400, 400, 400, 400, 400]);
    const { theirs, ours, cleared } = await both({ trigger: { tokens: 10 }, keep: { fraction: 0.25 } }, history, { profile: { maxInputTokens: 1000 } });
    expect(cleared).toEqual(["call_1", "call_2", "call_3"]);
    expect(ours).toEqual(theirs);
    const unknown = await both({ trigger: { tokens: 10 }, keep: { fraction: 0.25 } }, history, {});
    expect(unknown.cleared).toEqual(["call_1", "call_2"]);
  });
});

/**
 * A history whose results are tool messages, except those of `blocks` (1-based), which come back as
 * an Anthropic `tool_result` block in a user message; result n is 400 times the n-th letter.
 */
function mixedResults(count: number, blocks: number[]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "h", content: "search" })];
  for (let n = 1; n <= count; n++) {
    const id = `call_${n}`;
    const content = String.fromCharCode(96 + n).repeat(400);
    messages.push(new AIMessage({ id: `a${n}`, content: "", tool_calls: [{ id, name: "search", args: { query: `q${n}` } }] }));
    messages.push(
      blocks.includes(n)
        ? new HumanMessage({ id: `u${n}`, content: [{ type: "tool_result", tool_use_id: id, content }] as never })
        : new ToolMessage({ id: `t${n}`, content, tool_call_id: id, name: "search" }),
    );
  }
  messages.push(new HumanMessage({ id: "last", content: "and now?" }));
  return messages;
}

/**
 * A counter that counts `tool_result` blocks too (LangChain's `countTokensApproximately` reads only
 * text blocks, so to it a block result costs nothing and is never worth clearing): 4 characters a
 * token of each message's content and calls as JSON.
 */
const countAll = (messages: BaseMessage[]) =>
  messages.reduce((total, message) => total + Math.ceil(JSON.stringify([message.content, AIMessage.isInstance(message) ? message.tool_calls : null]).length / 4), 0);

/** The `tool_result` blocks' contents of a history's user messages, by `tool_use_id`. */
const blockContents = (messages: readonly BaseMessage[]) =>
  Object.fromEntries(
    messages.flatMap((message) =>
      message.type === "human" && Array.isArray(message.content)
        ? (message.content as { type: string; tool_use_id?: string; content?: unknown }[]).filter((block) => block.type === "tool_result").map((block) => [block.tool_use_id, block.content])
        : [],
    ),
  );

describe("Anthropic tool_result blocks in a user message, against LangChain's ClearToolUsesEdit", () => {
  it("do not count toward keep, as in LangChain: the kept tool messages are the newest `keep` tool messages", async () => {
    // call_3's result is a block: LangChain keeps the two tool messages (call_1, call_2) and clears nothing.
    const { theirs, ours, cleared } = await both({ trigger: { tokens: 10 }, keep: { messages: 2 } }, mixedResults(3, [3]), undefined, countAll);
    expect(cleared).toEqual([]);
    expect(ours).toEqual(theirs);
  });

  it("a history whose results are all blocks: nothing is cleared, as in LangChain, whatever keep", async () => {
    const history = mixedResults(3, [1, 2, 3]);
    const { theirs, ours } = await both({ trigger: { tokens: 10 }, keep: { messages: 0 } }, history, undefined, countAll);
    expect(ours).toEqual(theirs);
    expect(ours).toEqual(view(history));
  });

  it("documented difference: blocks older than the oldest kept tool message are cleared too (LangChain never clears them)", async () => {
    const history = mixedResults(3, [1]);
    const theirs = [...history];
    await new LangChainClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 1 } }).apply({ messages: theirs, countTokens: countAll, model: undefined as never });
    const ours = [...history];
    await new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 1 } }).apply({ messages: ours, countTokens: countAll });
    // The tool messages agree: call_2 cleared, call_3 kept.
    expect(view(ours.filter((message) => message.type !== "human"))).toEqual(view(theirs.filter((message) => message.type !== "human")));
    expect(view(ours).filter(([type, content]) => type === "tool" && content === "[cleared]")).toHaveLength(1);
    // call_1's block: left by LangChain, cleared here.
    expect([blockContents(theirs), blockContents(ours)]).toEqual([{ call_1: "a".repeat(400) }, { call_1: "[cleared]" }]);
  });
});

describe("ClearToolUsesEdit's markers and history", () => {
  it("a cleared result carries LangChain's marker and this package's, and keeps its id and name", async () => {
    const history = searches([400, 400]);
    const ours = [...history];
    await new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 1 }, clearToolInputs: true }).apply({ messages: ours, countTokens: countTokensApproximately });
    const result = ours[2] as ToolMessage;
    expect([result.id, result.name, result.tool_call_id, result.content]).toEqual(["t1", "search", "call_1", "[cleared]"]);
    expect(result.response_metadata["context_editing"]).toEqual({ cleared: true, strategy: "clear_tool_uses" });
    expect(compactionMarkerOf(result)).toEqual({ strategy: "toolResultHiding", hidden: true, originalTokens: countTokensApproximately([history[2]!]), batch: "call_1" });
    const call = ours[1] as AIMessage;
    expect(call.response_metadata["context_editing"]).toEqual({ cleared_tool_inputs: ["call_1"] });
    expect(compactionMarkerOf(call)?.hiddenToolInputs).toEqual(["call_1"]);
    // The input history is untouched.
    expect((history[2] as ToolMessage).content).toBe("a".repeat(400));
  });

  it("receipts, when opted in, follow the placeholder", async () => {
    const history: BaseMessage[] = [
      new HumanMessage({ id: "h", content: "run it" }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "bash", args: { command: "python src/app.py" } }] }),
      new ToolMessage({ id: "t", tool_call_id: "c1", name: "bash", content: `${"log line\n".repeat(60)}ValueError: bad input` }),
      new HumanMessage({ id: "h2", content: "again" }),
    ];
    const ours = [...history];
    await new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 0 }, receipts: true }).apply({ messages: ours, countTokens: countTokensApproximately });
    expect(ours[2]!.content).toBe("[cleared] (files: src/app.py; errors: ValueError: bad input)");
  });

  it("a result no longer than the placeholder stays (deliberate: clearing it would cost tokens)", async () => {
    const history = searches([400, 2]);
    const ours = [...history];
    await new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 0 } }).apply({ messages: ours, countTokens: countTokensApproximately });
    expect(ours.map((message) => message.content)).toEqual(["search 1", "", "[cleared]", "search 2", "", "bb", "and now?"]);
  });

  it("works inside LangChain's own contextEditingMiddleware", async () => {
    const model = fakeModel().respond(new AIMessage("done"));
    const agent = createAgent({ model, middleware: [langChainContextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 10 }, keep: { messages: 1 } })] })] });
    await agent.invoke({ messages: searches([400, 400]) });
    expect((model.calls[0]!.messages as BaseMessage[]).map((message) => message.content)).toEqual(["search 1", "", "[cleared]", "search 2", "", "b".repeat(400), "and now?"]);
  });
});

describe("toolResultHiding's clearAtLeastMode", () => {
  const options = { trigger: { messages: 1 }, keepRecentResults: 2, receipts: false, placeholder: "[cleared]" } as const;
  const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);

  it('"skip" (the default): a firing short of clearAtLeast hides nothing', async () => {
    const result = await toolResultHiding({ ...options, clearAtLeast: 100_000 }).compact(searches([400, 400, 400, 400]));
    expect([result.status, hiddenIds(result.messages)]).toEqual(["noop", []]);
  });

  it('"extend": short of clearAtLeast, the kept results are hidden too, newest first, until it is reached', async () => {
    const history = searches([400, 400, 400, 400]);
    const one = await toolResultHiding({ ...options, clearAtLeast: 10, clearAtLeastMode: "extend" }).compact(history);
    expect(hiddenIds(one.messages)).toEqual(["t1", "t2"]);
    const freedByTwo = one.tokensBefore - one.tokensAfter;
    const more = await toolResultHiding({ ...options, clearAtLeast: freedByTwo + 1, clearAtLeastMode: "extend" }).compact(history);
    expect(hiddenIds(more.messages)).toEqual(["t1", "t2", "t4"]);
    const all = await toolResultHiding({ ...options, clearAtLeast: 100_000, clearAtLeastMode: "extend" }).compact(history);
    expect(hiddenIds(all.messages)).toEqual(["t1", "t2", "t3", "t4"]);
  });

  it("keepRecentResults and keepRecentGroups together are an InvalidOptionError", async () => {
    expect(await caught(() => toolResultHiding({ keepRecentGroups: 1, keepRecentResults: 1 }))).toBeInstanceOf(InvalidOptionError);
  });
});

describe("invalid options", () => {
  it.each([
    ["keep with two sizes", () => new ClearToolUsesEdit({ keep: { messages: 1, tokens: 5 } as never }), "keep"],
    ["an empty trigger", () => new ClearToolUsesEdit({ trigger: {} }), "trigger"],
    ["an empty placeholder", () => new ClearToolUsesEdit({ placeholder: "" }), "placeholder"],
    ["an unknown option", () => new ClearToolUsesEdit({ keepLast: 3 } as never), "keepLast"],
    ["a supersession neither a boolean nor { readCall }", () => new ClearToolUsesEdit({ supersession: "on" as never }), "supersession"],
    ["an edit without apply()", () => contextEditingMiddleware({ edits: [{} as never] }), "edits.0"],
    ["an unknown tokenCountMethod", () => contextEditingMiddleware({ tokenCountMethod: "exact" as never }), "tokenCountMethod"],
  ])("%s", async (_label, build, option) => {
    const error = await caught(build);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe(option);
  });
});

describe("ClearToolUsesEdit counts each message once", () => {
  /** `countTokensApproximately`, recording how often each message is counted alone. */
  function countingAlone() {
    const alone = new Map<BaseMessage, number>();
    const countTokens = (messages: BaseMessage[]) => {
      if (messages.length === 1) alone.set(messages[0]!, (alone.get(messages[0]!) ?? 0) + 1);
      return countTokensApproximately(messages);
    };
    return { alone, countTokens };
  }

  it.each([
    ["keep by tokens with clearAtLeast", { trigger: { tokens: 10 }, keep: { tokens: 250 }, clearAtLeast: 100 }, searches([400, 400, 400, 400])],
    ["keep by tokens with tool_result blocks", { trigger: { tokens: 10 }, keep: { tokens: 250 } }, mixedResults(4, [1])],
  ] as const)("%s: one count of each message alone, the keep's and the hiding's shared", async (_label, config, history) => {
    const { alone, countTokens } = countingAlone();
    const edited = [...history];
    await new ClearToolUsesEdit(config).apply({ messages: edited, countTokens });
    // Every message of the history, and each cleared copy, counted alone exactly once.
    expect(edited.filter((message, position) => message !== history[position])).not.toEqual([]);
    expect(new Set(alone.values())).toEqual(new Set([1]));
    expect(history.every((message) => alone.get(message) === 1)).toBe(true);
  });
});

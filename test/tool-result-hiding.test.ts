import { AIMessage, HumanMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  InvalidHistoryError,
  InvalidOptionError,
  compactionMarkerOf,
  createTokenCounter,
  toolResultHiding,
  validateToolPairing,
} from "../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER, EMPTY_ARTIFACT_INDEX, extractArtifacts } from "../src/extend/index.js";
import { assistant, ids, step, system, toolResult, user, sameObjects } from "./support/builders.js";
import { caught } from "./support/errors.js";
import { EVERY_RUN } from "./support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const contents = (messages: readonly BaseMessage[]) => messages.map((message) => [message.id, message.content]);

/** A tool output long enough that hiding it saves tokens. */
const out = (n: number) => `output ${n} `.repeat(30);

/** system, user, then `steps` one-call steps a1/t1 ... */
function history(steps: number): BaseMessage[] {
  const messages: BaseMessage[] = [system("s"), user("u1")];
  for (let n = 1; n <= steps; n++) messages.push(...step(n, out(n)));
  return messages;
}

describe("toolResultHiding", () => {
  it("hides the results of all but the newest groups and leaves everything else as it was", async () => {
    const input = history(4);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 2, tokenCounter }).compact(input);
    expect(result.status).toBe("compacted");
    expect(contents(result.messages)).toEqual([
      ["s", "system s"],
      ["u1", "user u1"],
      ["a1", "step 1"],
      ["t1", DEFAULT_HIDDEN_RESULT_PLACEHOLDER],
      ["a2", "step 2"],
      ["t2", DEFAULT_HIDDEN_RESULT_PLACEHOLDER],
      ["a3", "step 3"],
      ["t3", out(3)],
      ["a4", "step 4"],
      ["t4", out(4)],
    ]);
    const unchangedPositions = [0, 1, 2, 4, 6, 7, 8, 9];
    expect(unchangedPositions.map((position) => result.messages[position] === input[position])).toEqual(unchangedPositions.map(() => true));
  });

  it("keeps tool_call_id, name and id on a hidden result and marks it", async () => {
    const input = history(1);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 0, tokenCounter }).compact(input);
    const hidden = result.messages[3] as ToolMessage;
    expect({ id: hidden.id, tool_call_id: hidden.tool_call_id, name: hidden.name }).toEqual({ id: "t1", tool_call_id: "c1", name: "bash" });
    const originalTokens = await tokenCounter.countMessage(input[3]!);
    // `batch`: the oldest result this run hid, here the only one.
    // The original's artifact index is empty, so the marker does not carry it.
    expect(extractArtifacts([input[3]!])).toEqual(EMPTY_ARTIFACT_INDEX);
    expect(hidden.response_metadata["compaction"]).toEqual({ strategy: "toolResultHiding", hidden: true, originalTokens, batch: "c1" });
  });

  it("keeps a hidden result's artifact index in its marker only when it holds something; a summary's index reads the same", async () => {
    const input = [
      user("u1", "check the files"),
      assistant("a1", "", [{ id: "c1", name: "read_file", args: { path: "src/ValueError.py" } }]),
      toolResult("t1", "c1", "x = 1\n".repeat(300), "read_file"),
      assistant("a2", "", [{ id: "c2", name: "bash", args: { command: "python run.py" } }]),
      toolResult("t2", "c2", `${"ok\n".repeat(300)}see https://example.com/docs\nValueError: bad value`, "bash"),
      assistant("a3", "", [{ id: "c3", name: "bash", args: { command: "ls" } }]),
      toolResult("t3", "c3", "a.py", "bash"),
    ];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    const [first, second] = [result.messages[2]!, result.messages[4]!];
    // The first's receipt names its file (whose name reads as an error line), its marker no index.
    expect(first.content).toBe(`${DEFAULT_HIDDEN_RESULT_PLACEHOLDER} (files: src/ValueError.py)`);
    expect("artifacts" in compactionMarkerOf(first)!).toBe(false);
    expect(compactionMarkerOf(second)!.artifacts).toEqual(extractArtifacts([input[4]!]));
    expect(extractArtifacts(result.messages)).toEqual(extractArtifacts(input));
  });

  it("reports each hidden result as a before/after pair", async () => {
    const input = history(2);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.replaced.map(({ index, before, after }) => [index, before, after.content])).toEqual([
      [3, input[3], DEFAULT_HIDDEN_RESULT_PLACEHOLDER],
    ]);
    expect(result.removed).toEqual([]);
  });

  it("treats parallel calls as one group, kept or hidden together", async () => {
    const input = [
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t1", "c1", out(1)),
      toolResult("t2", "c2", out(2)),
      assistant("a2", "", [{ id: "c3" }]),
      toolResult("t3", "c3", out(3)),
    ];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(contents(result.messages).map(([id, content]) => [id, content === DEFAULT_HIDDEN_RESULT_PLACEHOLDER])).toEqual([
      ["u1", false],
      ["a1", false],
      ["t1", true],
      ["t2", true],
      ["a2", false],
      ["t3", false],
    ]);
  });

  it("is a no-op the second time", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter });
    const first = await hiding.compact(history(3));
    const second = await hiding.compact(first.messages);
    expect(second.status).toBe("noop");
    expect(sameObjects(second.messages, first.messages)).toBe(true);
  });

  it("leaves a result shorter than the placeholder as it is", async () => {
    const input = [...step(1, "ok"), ...step(2, out(2)), ...step(3)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(contents(result.messages).filter(([id]) => String(id).startsWith("t"))).toEqual([
      ["t1", "ok"],
      ["t2", DEFAULT_HIDDEN_RESULT_PLACEHOLDER],
      ["t3", input[5]!.content],
    ]);
  });

  it("returns the input unchanged, as a new array, when there is nothing to hide", async () => {
    const input = history(2);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 5, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(result.messages).not.toBe(input);
    expect(sameObjects(result.messages, input)).toBe(true);
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });

  it("never hides the results of excluded tools", async () => {
    const input = [
      assistant("a1", "", [{ id: "c1", name: "read_plan" }]),
      toolResult("t1", "c1", out(1), "read_plan"),
      assistant("a2", "", [{ id: "c2" }]),
      toolResult("t2", "c2", out(2)),
      assistant("a3", "", [{ id: "c3" }]),
      toolResult("t3", "c3", "newest"),
    ];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, excludeTools: ["read_plan"], tokenCounter }).compact(input);
    expect(contents(result.messages).filter(([id]) => String(id).startsWith("t"))).toEqual([
      ["t1", out(1)],
      ["t2", DEFAULT_HIDDEN_RESULT_PLACEHOLDER],
      ["t3", "newest"],
    ]);
  });

  it("empties the arguments of hidden calls with hideToolInputs", async () => {
    const input = history(2);
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, hideToolInputs: true, tokenCounter }).compact(input);
    const call = result.messages[2] as AIMessage;
    expect(call.id).toBe("a1");
    expect(call.tool_calls).toEqual([{ id: "c1", name: "bash", args: {}, type: "tool_call" }]);
    expect(call.response_metadata["compaction"]).toEqual({ strategy: "toolResultHiding", hiddenToolInputs: ["c1"] });
    expect((input[2] as AIMessage).tool_calls?.[0]?.args).toEqual({ command: "cmd 1" });
    expect((result.messages[4] as AIMessage).tool_calls?.[0]?.args).toEqual({ command: "cmd 2" });
  });

  it("empties hidden calls' arguments in their tool_use blocks and raw OpenAI form too", async () => {
    const first = new AIMessage({
      id: "a1",
      content: [
        { type: "text", text: "step 1" },
        { type: "tool_use", id: "c1", name: "bash", input: { command: "cmd 1" } },
      ],
      tool_calls: [{ id: "c1", name: "bash", args: { command: "cmd 1" }, type: "tool_call" }],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"cmd 1"}' } }] },
    });
    const input = [system("s"), first, toolResult("t1", "c1", out(1)), ...step(2)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, hideToolInputs: true, tokenCounter }).compact(input);
    const call = result.messages[1] as AIMessage;
    expect(call.tool_calls).toEqual([{ id: "c1", name: "bash", args: {}, type: "tool_call" }]);
    expect(call.content).toEqual([
      { type: "text", text: "step 1" },
      { type: "tool_use", id: "c1", name: "bash", input: {} },
    ]);
    expect(call.additional_kwargs.tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }]);
  });

  it("does nothing unless it frees clearAtLeast", async () => {
    const input = history(2);
    const small = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, clearAtLeast: 10_000, tokenCounter }).compact(input);
    expect(small.status).toBe("noop");
    expect(small.reason).toBe("hiding would free 49 tokens, less than clearAtLeast (10000)");
    const big = [system("s"), ...step(1, "x".repeat(8_000)), ...step(2)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, clearAtLeast: 1_000, tokenCounter }).compact(big);
    expect(result.status).toBe("compacted");
    expect(result.tokensBefore - result.tokensAfter).toBeGreaterThanOrEqual(1_000);
  });

  it("reports tokens after equal to a recount of its output", async () => {
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(history(3));
    expect(result.tokensAfter).toBe(await tokenCounter.countMessages(result.messages));
  });

  it("rejects a broken history with a typed error listing the problems", async () => {
    const error = await caught(() => toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact([user("u1"), toolResult("t9", "c9")]));
    expect(InvalidHistoryError.isInstance(error)).toBe(true);
    expect((error as InvalidHistoryError).problems.map(({ kind, index }) => ({ kind, index }))).toEqual([{ kind: "orphan-result", index: 1 }]);
  });

  it("repairs a broken history first when asked, and says what it repaired", async () => {
    const input = [user("u1"), toolResult("t9", "c9"), ...step(1), ...step(2)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, invalidHistory: "repair", tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["u1", "a1", "t1", "a2", "t2"]);
    expect(result.repair?.removed.map(({ index }) => index)).toEqual([1]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("reports a repaired history as such when there is nothing to hide", async () => {
    const input = [user("u1"), toolResult("t9", "c9", "orphan ".repeat(50)), ...step(1)];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 5, invalidHistory: "repair", tokenCounter }).compact(input);
    expect(result.status).toBe("repaired");
    expect(ids(result.messages)).toEqual(["u1", "a1", "t1"]);
    expect(result.tokensBefore).toBe(await tokenCounter.countMessages(input));
    expect(result.tokensAfter).toBe(await tokenCounter.countMessages(result.messages));
  });

  it("rejects an input that is not an array of messages", async () => {
    const error = await caught(() => toolResultHiding({ ...EVERY_RUN, tokenCounter }).compact([user("u1"), { role: "user" } as unknown as HumanMessage]));
    expect(error).toBeInstanceOf(InvalidHistoryError);
    expect((error as Error).message).toBe("toolResultHiding: element 1 is not a LangChain message");
  });

  it("rejects an invalid option at construction, naming it", async () => {
    const error = await caught(() => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: -1 }));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionError).option).toBe("keepRecentGroups");
  });

  it("pipes into a model in an LCEL chain, which then sees the compacted history", async () => {
    const model = fakeModel().respond(new AIMessage("done"));
    const chain = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).pipe(model);
    const reply = await chain.invoke(history(2));
    expect(reply.content).toBe("done");
    expect(model.calls[0]?.messages.map((message) => message.content)).toEqual([
      "system s",
      "user u1",
      "step 1",
      DEFAULT_HIDDEN_RESULT_PLACEHOLDER,
      "step 2",
      out(2),
    ]);
  });
});

describe("toolResultHiding on tool_result blocks in human messages (Anthropic's form)", () => {
  /** A ChatAnthropic step: a tool_use block, answered by a tool_result block in the next human message. */
  const anthropicStep = (n: number, output: string, extra: { type: "text"; text: string }[] = []): BaseMessage[] => [
    new AIMessage({
      id: `a${n}`,
      content: [{ type: "tool_use", id: `toolu_${n}`, name: n === 2 ? "read_plan" : "bash", input: { command: `cmd ${n}` } }],
      tool_calls: [{ id: `toolu_${n}`, name: n === 2 ? "read_plan" : "bash", args: { command: `cmd ${n}` }, type: "tool_call" }],
    }),
    new HumanMessage({ id: `h${n}`, content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: output, is_error: n === 1 }, ...extra] }),
  ];
  const input = [system("s"), user("u1"), ...anthropicStep(1, out(1), [{ type: "text", text: "keep going" }]), ...anthropicStep(2, out(2)), ...anthropicStep(3, out(3))];

  it("hides the blocks' content in a copy, keeping tool_use_id, is_error and the message's other content", async () => {
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.status).toBe("compacted");
    expect(contents(result.messages).slice(3, 8)).toEqual([
      ["h1", [{ type: "tool_result", tool_use_id: "toolu_1", content: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, is_error: true }, { type: "text", text: "keep going" }]],
      ["a2", input[4]!.content],
      ["h2", [{ type: "tool_result", tool_use_id: "toolu_2", content: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, is_error: false }]],
      ["a3", input[6]!.content],
      ["h3", input[7]!.content],
    ]);
    expect(result.replaced.map((entry) => entry.index)).toEqual([3, 5]);
    expect(compactionMarkerOf(result.messages[3]!)).toEqual({ strategy: "toolResultHiding", hidden: true, originalTokens: await tokenCounter.countMessage(input[3]!), artifacts: extractArtifacts([input[3]!]), batch: "toolu_1" });
    expect(compactionMarkerOf(result.messages[5]!)?.batch).toBe("toolu_1");
    expect(validateToolPairing(result.messages)).toEqual([]);
    expect(input[3]!.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_1", content: out(1), is_error: true }, { type: "text", text: "keep going" }]);
  });

  it("leaves the blocks of excluded tools, is a no-op a second time, and empties hidden calls' inputs", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, excludeTools: ["read_plan"], hideToolInputs: true, tokenCounter });
    const first = await hiding.compact(input);
    expect(first.replaced.map((entry) => entry.index)).toEqual([2, 3]);
    expect(first.messages[5]).toBe(input[5]);
    expect((first.messages[2] as AIMessage).content).toEqual([{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }]);
    const second = await hiding.compact(first.messages);
    expect(second.status).toBe("noop");
    expect(sameObjects(second.messages, first.messages)).toBe(true);
  });
});

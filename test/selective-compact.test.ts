import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, createTokenCounter, selectiveCompact, validateToolPairing } from "../src/index.js";
import { assistant, ids, step, system, toolResult, user, sameObjects } from "./support/builders.js";
import { caught } from "./support/errors.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const big = (n: number) => `line ${n}: ${"x".repeat(990)}`;

/** s, u1, then four steps whose results are ~250 tokens each, then a final answer. */
function history(): BaseMessage[] {
  return [system("s"), user("u1"), ...step(1, big(1)), ...step(2, big(2)), ...step(3, big(3)), ...step(4, big(4)), assistant("a5", "done")];
}

describe("selectiveCompact", () => {
  it("does nothing when the history is already within the target", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({ target: total, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("removes the oldest tool result first and stops as soon as the target is met", async () => {
    const input = history();
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({ target: total - 100, tokenCounter }).compact(input);
    expect(result.status).toBe("compacted");
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "a2", "t2", "a3", "t3", "a4", "t4", "a5"]);
    expect((result.messages[2] as AIMessage).tool_calls).toEqual([]);
    expect((result.messages[2] as AIMessage).content).toBe("step 1");
    expect(result.removed.map(({ index }) => index)).toEqual([3]);
    expect(result.replaced.map(({ index, before }) => [index, before])).toEqual([[2, input[2]]]);
    expect(result.tokensAfter).toBeLessThanOrEqual(total - 100);
  });

  it("keeps the newest three tool results with the default rules and reports what it could not reach", async () => {
    const result = await selectiveCompact({ target: 1, tokenCounter }).compact(history());
    expect(ids(result.messages).filter((id) => id?.startsWith("t"))).toEqual(["t2", "t3", "t4"]);
    expect(result.reason).toMatch(/^rules exhausted at \d+ tokens, over target 1$/);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("drops messages marked as skill prompts in additional_kwargs before touching assistant messages", async () => {
    const skill = new HumanMessage({ id: "k1", content: "SKILL: ".repeat(400), additional_kwargs: { compaction_kind: "skill_prompt" } });
    const input = [system("s"), user("u1"), skill, assistant("a1", "ok"), assistant("a2", "ok")];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({ target: total - 100, tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "a2"]);
  });

  it("uses a custom classifier for kinds of its own", async () => {
    const input = [system("s"), user("u1"), assistant("a1", "note ".repeat(300)), user("u2"), assistant("a2", "answer")];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({
      target: total - 50,
      rules: [{ kind: "scratchpad", action: "drop", priority: 1 }],
      classify: (message) => (typeof message.content === "string" && message.content.startsWith("note") ? "scratchpad" : undefined),
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "u2", "a2"]);
  });

  it("removes an assistant message together with the results of its calls", async () => {
    const input = [system("s"), user("u1"), ...step(1, big(1)), ...step(2, big(2))];
    const result = await selectiveCompact({
      target: 1,
      rules: [{ kind: "assistant", action: "truncate", keepRecent: 1, priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a2", "t2"]);
  });

  it("strips only the removed call from a parallel group", async () => {
    const input = [
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t1", "c1", big(1)),
      toolResult("t2", "c2", big(2)),
    ];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({
      target: total - 100,
      rules: [{ kind: "tool_result", action: "truncate", keepRecent: 0, priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["u1", "a1", "t2"]);
    expect((result.messages[1] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c2"]);
  });

  it("stops at or under the target when it strips many calls of one parallel group", async () => {
    const calls = Array.from({ length: 300 }, (_, position) => ({ id: `c${position}`, args: { command: `cat f${position}.py` } }));
    const input = [user("u1"), assistant("a1", "reading all files", calls), ...calls.map((call) => toolResult(`t${call.id}`, call.id, big(1)))];
    const total = await tokenCounter.countMessages(input);
    const target = Math.floor(total / 2);
    const result = await selectiveCompact({
      target,
      rules: [{ kind: "tool_result", action: "drop", priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(result.tokensAfter).toBeLessThanOrEqual(target);
    expect(result.replaced.map(({ index }) => index)).toEqual([1]);
    const kept = (result.messages[1] as AIMessage).tool_calls!.map((call) => call.id);
    expect(ids(result.messages).slice(2)).toEqual(kept.map((id) => `t${id}`));
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("strips a removed call from a streamed assistant chunk as well", async () => {
    const chunk = new AIMessageChunk({
      id: "a1",
      content: "",
      tool_call_chunks: [
        { id: "c1", name: "bash", args: "{}", index: 0, type: "tool_call_chunk" },
        { id: "c2", name: "bash", args: "{}", index: 1, type: "tool_call_chunk" },
      ],
    });
    const input = [user("u1"), chunk, toolResult("t1", "c1", big(1)), toolResult("t2", "c2", big(2))];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({
      target: total - 100,
      rules: [{ kind: "tool_result", action: "truncate", keepRecent: 0, priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["u1", "a1", "t2"]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("strips a removed call from a ChatAnthropic message's tool_use blocks, keeping its text and other call", async () => {
    const anthropic = new AIMessage({
      id: "a1",
      content: [
        { type: "text", text: "reading both" },
        { type: "tool_use", id: "c1", name: "bash", input: {} },
        { type: "tool_use", id: "c2", name: "bash", input: {} },
      ],
      tool_calls: [
        { id: "c1", name: "bash", args: {}, type: "tool_call" },
        { id: "c2", name: "bash", args: {}, type: "tool_call" },
      ],
    });
    const input = [user("u1"), anthropic, toolResult("t1", "c1", big(1)), toolResult("t2", "c2", big(2))];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({
      target: total - 100,
      rules: [{ kind: "tool_result", action: "truncate", keepRecent: 0, priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["u1", "a1", "t2"]);
    expect((result.messages[1] as AIMessage).content).toEqual([
      { type: "text", text: "reading both" },
      { type: "tool_use", id: "c2", name: "bash", input: {} },
    ]);
    expect((result.messages[1] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c2"]);
  });

  it("removes an assistant message whose only content was call blocks once its last call is stripped", async () => {
    const anthropic = new AIMessage({
      id: "a1",
      content: [
        { type: "text", text: " " },
        { type: "tool_use", id: "c1", name: "bash", input: {} },
      ],
      tool_calls: [{ id: "c1", name: "bash", args: {}, type: "tool_call" }],
    });
    const input = [user("u1"), anthropic, toolResult("t1", "c1", big(1)), assistant("a2", "done")];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({
      target: total - 100,
      rules: [{ kind: "tool_result", action: "drop", priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["u1", "a2"]);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2]);
    expect(result.replaced).toEqual([]);
  });

  it("never removes system messages or summaries", async () => {
    const summary = new HumanMessage({ id: "sum", content: "<summary>earlier work</summary>", response_metadata: { compaction: { strategy: "x", summary: true } } });
    const input = [system("s"), summary, user("u1", "q ".repeat(200)), user("u2", "q ".repeat(200))];
    const result = await selectiveCompact({
      target: 1,
      rules: [{ kind: "user", action: "drop", priority: 1 }],
      tokenCounter,
    }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "sum"]);
  });

  it("rejects a rule that would remove system messages, naming it", async () => {
    const error = await caught(() => selectiveCompact({ target: 10, rules: [{ kind: "system", action: "drop", priority: 1 }] }));
    expect(InvalidOptionError.isInstance(error) && [error.option, error.message]).toEqual([
      "rules.0.action",
      'selectiveCompact: invalid option `rules.0.action`: expected "none" for `system` messages; got the string "drop" (`system` messages are never compacted)',
    ]);
  });

  it("rejects a truncate rule without keepRecent", async () => {
    const error = await caught(() => selectiveCompact({ target: 10, rules: [{ kind: "user", action: "truncate", priority: 1 }] }));
    expect(InvalidOptionError.isInstance(error) && error.option).toBe("rules.0.keepRecent");
  });

  it("requires a positive target", async () => {
    const error = await caught(() => selectiveCompact({ target: 0 }));
    expect(InvalidOptionError.isInstance(error) && error.option).toBe("target");
  });
});

describe("selectiveCompact keeps a user message first", () => {
  it("keeps the first user message when removing it would leave an assistant message first", async () => {
    const input = [system("s"), user("u1", big(1)), assistant("a1", "ok"), user("u2", big(2)), assistant("a2", "ok"), user("u3")];
    const result = await selectiveCompact({ target: 1, rules: [{ kind: "user", action: "truncate", keepRecent: 1, priority: 1 }], tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "a2", "u3"]);
    expect(result.removed.map(({ index }) => index)).toEqual([3]);
    expect(result.reason).toMatch(/^rules exhausted at \d+ tokens, over target 1$/);
  });

  it("removes the first user message while the next one left is a user message to open with", async () => {
    const input = [system("s"), user("u1", big(1)), user("u2", big(2)), assistant("a1", "ok"), user("u3", big(3))];
    const result = await selectiveCompact({ target: 1, rules: [{ kind: "user", action: "drop", priority: 1 }], tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u2", "a1"]);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 4]);
  });

  it("changes nothing when the only user message a rule may remove is the one the conversation opens with", async () => {
    const input = [system("s"), user("u1", big(1)), assistant("a1", "ok"), ...[2, 3, 4, 5, 6].flatMap((n) => [user(`u${n}`), assistant(`a${n}`, "ok")])];
    const result = await selectiveCompact({ target: 1, rules: [{ kind: "user", action: "truncate", keepRecent: 5, priority: 1 }], tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(result.reason).toMatch(/^no rule could remove anything; still \d+ tokens over target 1$/);
    expect(sameObjects(result.messages, input)).toBe(true);
  });
});

describe("selectiveCompact on tool_result blocks in human messages (Anthropic's form)", () => {
  const anthropicCall = (id: string, callId: string, text = "") =>
    new AIMessage({
      id,
      content: [...(text === "" ? [] : [{ type: "text", text }]), { type: "tool_use", id: callId, name: "read", input: { path: callId } }],
      tool_calls: [{ id: callId, name: "read", args: { path: callId }, type: "tool_call" }],
    });
  const results = (id: string, callId: string, output: string, extra: { type: "text"; text: string }[] = []) =>
    new HumanMessage({ id, content: [{ type: "tool_result", tool_use_id: callId, content: output }, ...extra] });

  it("classifies a message of only tool_result blocks as a tool result, and removes its call with it", async () => {
    const input = [system("s"), user("u1"), anthropicCall("a1", "toolu_1"), results("h1", "toolu_1", big(1)), anthropicCall("a2", "toolu_2", "reading"), results("h2", "toolu_2", big(2)), assistant("a3", "done")];
    const total = await tokenCounter.countMessages(input);
    const result = await selectiveCompact({ target: total - 100, rules: [{ kind: "tool_result", action: "drop", priority: 1 }], tokenCounter }).compact(input);
    // a1 held only its call: it goes with its result.
    expect(ids(result.messages)).toEqual(["s", "u1", "a2", "h2", "a3"]);
    expect(result.removed.map(({ index }) => index)).toEqual([2, 3]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("treats a result message with text as a user message whose removal removes its calls, and keeps the opening user message", async () => {
    const input = [system("s"), user("u1", big(1)), anthropicCall("a1", "toolu_1", "reading"), results("h1", "toolu_1", big(2), [{ type: "text", text: "also fix the tests" }]), assistant("a2", "done")];
    const result = await selectiveCompact({ target: 1, rules: [{ kind: "user", action: "drop", priority: 1 }], tokenCounter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", "u1", "a1", "a2"]);
    expect(result.removed.map(({ index }) => index)).toEqual([3]);
    expect(result.replaced.map(({ index }) => index)).toEqual([2]);
    expect(result.messages[2]!.content).toEqual([{ type: "text", text: "reading" }]);
    expect((result.messages[2] as AIMessage).tool_calls).toEqual([]);
  });
});

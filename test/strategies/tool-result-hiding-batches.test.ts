/**
 * toolResultHiding in batches: the trigger, clearAtLeast (and its deprecated alias), receipts, and a
 * growing history replayed step by step (nothing changes between firings; a firing hides every older
 * result at once).
 */
import { AIMessage, HumanMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  compactionMarkerOf,
  createTokenCounter,
  hidingThenSummary,
  toolResultHiding,
  validateToolPairing,
} from "../../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER, extractArtifacts, filesOf } from "../../src/extend/index.js";
import { DEFAULT_HIDING_CLEAR_AT_LEAST, DEFAULT_HIDING_TRIGGER_TOKENS } from "../../src/strategies/tool-result-hiding-options.js";
import { DEFAULT_RECEIPT_ERRORS, DEFAULT_RECEIPT_FILES, RECEIPT_LINE_MAX } from "../../src/strategies/hiding-receipts.js";
import { hasLoneSurrogate } from "../../src/text/code-points.js";
import { assistant, sameObjects, step, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
const P = DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
/** A tool output long enough that hiding it saves tokens. */
const out = (n: number) => `output ${n} `.repeat(30);

/** system, user, then `steps` one-call steps a1/t1 ... */
function history(steps: number): BaseMessage[] {
  const messages: BaseMessage[] = [system("s"), user("u1")];
  for (let n = 1; n <= steps; n++) messages.push(...step(n, out(n)));
  return messages;
}

const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);

describe("toolResultHiding's trigger", () => {
  it("exports its defaults as constants", () => {
    expect([DEFAULT_HIDING_TRIGGER_TOKENS, DEFAULT_HIDING_CLEAR_AT_LEAST, DEFAULT_RECEIPT_FILES, DEFAULT_RECEIPT_ERRORS, RECEIPT_LINE_MAX]).toEqual([10_000, 2000, 8, 3, 200]);
    const hiding = toolResultHiding();
    expect([hiding.trigger, hiding.clearAtLeast, hiding.receipts]).toEqual([{ tokens: 10_000 }, 2000, { files: 8, errors: 3 }]);
  });

  it("by default leaves a history under 10,000 tokens untouched: the same objects, with the reason", async () => {
    const input = history(6);
    const result = await toolResultHiding({ keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
    expect(result.reason).toBe(`${result.tokensBefore} tokens, 14 messages: under the trigger`);
  });

  it("by default hides every older result at once when the history reaches 10,000 tokens", async () => {
    const input = [system("s"), user("u1"), ...step(1, "x ".repeat(70_000)), ...step(2, out(2)), ...step(3, out(3))];
    const result = await toolResultHiding({ keepRecentGroups: 1, tokenCounter }).compact(input);
    expect([result.status, result.trigger]).toEqual(["compacted", `${result.tokensBefore} tokens >= 10000 tokens`]);
    expect(hiddenIds(result.messages)).toEqual(["t1", "t2"]);
  });

  it("fires on tokens at the threshold, not one token under it", async () => {
    const input = history(4);
    const total = await tokenCounter.countMessages(input);
    const at = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { tokens: total } }).compact(input);
    const over = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { tokens: total + 1 } }).compact(input);
    expect([at.status, at.trigger, hiddenIds(at.messages)]).toEqual(["compacted", `${total} tokens >= ${total} tokens`, ["t1", "t2", "t3"]]);
    expect([over.status, over.reason]).toEqual(["noop", `${total} tokens, 10 messages: under the trigger`]);
  });

  it("fires on a message count", async () => {
    const input = history(4);
    const at = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { messages: 10 } }).compact(input);
    const under = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { messages: 11 } }).compact(input);
    expect([at.status, at.trigger]).toEqual(["compacted", "10 messages >= 10 messages"]);
    expect(under.status).toBe("noop");
  });

  it("fires on a fraction of the context window, which it then requires", async () => {
    const input = history(4);
    const total = await tokenCounter.countMessages(input);
    const at = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { fraction: 0.5 }, contextWindow: total * 2 }).compact(input);
    const under = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: { fraction: 0.5 }, contextWindow: total * 2 + 2 }).compact(input);
    expect([at.status, at.trigger]).toEqual(["compacted", `${total} tokens >= ${total} tokens (0.5 of a ${total * 2}-token window)`]);
    expect(under.status).toBe("noop");
    const error = await caught(() => toolResultHiding({ trigger: { fraction: 0.5 } }));
    expect(InvalidOptionError.isInstance(error) && error.option).toBe("contextWindow");
  });

  it("fires when any size of a list is reached", async () => {
    const input = history(4);
    const result = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0, trigger: [{ tokens: 1_000_000 }, { messages: 10 }] }).compact(input);
    expect([result.status, result.trigger]).toEqual(["compacted", "10 messages >= 10 messages"]);
  });

  it("runs under the trigger when forced", async () => {
    const result = await toolResultHiding({ keepRecentGroups: 1, tokenCounter, clearAtLeast: 0 }).compact(history(3), { force: true });
    expect([result.status, result.trigger, hiddenIds(result.messages)]).toEqual(["compacted", "forced", ["t1", "t2"]]);
  });

  it("runs inside hidingThenSummary when the policy's trigger fires, whatever its own trigger says", async () => {
    const input = history(4);
    const policy = hidingThenSummary({ tokenCounter, trigger: { messages: 2 }, target: { tokens: 1_000_000 }, hiding: { keepRecentGroups: 1, clearAtLeast: 0 } });
    expect(policy.hiding.trigger).toEqual({ tokens: DEFAULT_HIDING_TRIGGER_TOKENS });
    const result = await policy.compact(input);
    expect([result.status, hiddenIds(result.messages)]).toEqual(["compacted", ["t1", "t2", "t3"]]);
  });
});

describe("toolResultHiding between firings", () => {
  /** Step n: an assistant message with one call and its result of about 250 tokens. */
  const grow = (n: number) => step(n, `line ${n} of the output `.repeat(50));
  const serialized = (messages: readonly BaseMessage[]) => messages.map((message) => JSON.stringify(message));

  it("leaves the history byte-identical until the trigger fires, then hides every older result at once", async () => {
    const hiding = toolResultHiding({ keepRecentGroups: 5, tokenCounter, trigger: { tokens: 5_000 }, clearAtLeast: 0 });
    let previous: BaseMessage[] = [system("s"), user("u1")];
    const firings: number[] = [];
    for (let n = 1; n <= 60; n++) {
      const input = [...previous, ...grow(n)];
      const result = await hiding.compact(input);
      expect(validateToolPairing(result.messages)).toEqual([]);
      if (result.status === "noop") {
        // (a) the output is the input: the previous output's objects and bytes, then the new step.
        expect(sameObjects(result.messages, input)).toBe(true);
        expect(serialized(result.messages.slice(0, previous.length))).toEqual(serialized(previous));
      } else {
        // (b) every result but the newest 5 groups' is hidden now.
        firings.push(n);
        expect(result.status).toBe("compacted");
        const results = result.messages.filter((message) => message.type === "tool") as ToolMessage[];
        expect(results.map((message) => compactionMarkerOf(message)?.hidden === true)).toEqual(results.map((_, position) => position < n - 5));
      }
      previous = result.messages;
    }
    // (c) 6 firings in 60 steps; the gaps shrink as the hidden groups' placeholders add up.
    expect(firings).toEqual([18, 28, 37, 45, 52, 58]);
  });

  it("fires at every step once the kept part alone is over the trigger, unless clearAtLeast makes it wait", async () => {
    const run = async (clearAtLeast: number) => {
      const hiding = toolResultHiding({ keepRecentGroups: 5, tokenCounter, trigger: { tokens: 2_000 }, clearAtLeast });
      let previous: BaseMessage[] = [system("s"), user("u1")];
      const firings: number[] = [];
      for (let n = 1; n <= 30; n++) {
        const result = await hiding.compact([...previous, ...grow(n)]);
        if (result.status === "compacted") firings.push(n);
        previous = result.messages;
      }
      return firings;
    };
    // Without it: from step 11 on, the 5 kept groups and the hidden ones are over 2,000 tokens, so every
    // step fires again and hides the one group that just left the kept 5.
    expect(await run(0)).toEqual([7, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    // With it: a firing waits until 1,000 tokens are to be freed (4 or 5 groups).
    expect(await run(1_000)).toEqual([10, 15, 19, 23, 27]);
  });
});

describe("toolResultHiding's clearAtLeast", () => {
  it("does nothing, even when forced, unless a firing frees clearAtLeast tokens", async () => {
    const input = history(2);
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, clearAtLeast: 10_000, tokenCounter });
    for (const context of [{}, { force: true }]) {
      const result = await hiding.compact(input, context);
      expect([result.status, result.reason]).toEqual(["noop", "hiding would free 49 tokens, less than clearAtLeast (10000)"]);
      expect(sameObjects(result.messages, input)).toBe(true);
    }
    const enough = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, clearAtLeast: 49, tokenCounter }).compact(input);
    expect([enough.status, enough.tokensBefore - enough.tokensAfter]).toEqual(["compacted", 49]);
  });

  it("keeps minTokensSaved as a deprecated alias; giving both is an error", async () => {
    const alias = toolResultHiding({ trigger: { messages: 1 }, keepRecentGroups: 1, minTokensSaved: 10_000, tokenCounter });
    expect([alias.clearAtLeast, alias.minTokensSaved]).toEqual([10_000, 10_000]);
    expect((await alias.compact(history(2))).reason).toBe("hiding would free 49 tokens, less than clearAtLeast (10000)");
    const error = await caught(() => toolResultHiding({ clearAtLeast: 1, minTokensSaved: 1 }));
    expect(InvalidOptionError.isInstance(error) && [error.option, error.message]).toEqual([
      "minTokensSaved",
      "toolResultHiding: invalid option `minTokensSaved`: expected no value when clearAtLeast is given; got 1 (it is a deprecated name of clearAtLeast: give only clearAtLeast)",
    ]);
  });
});

describe("toolResultHiding's receipts", () => {
  const traceback = "Traceback (most recent call last):\n  File \"src/a.py\", line 3, in <module>\nTypeError: x";
  const longOutput = (text: string) => `${text}\n${"log line\n".repeat(80)}`;
  const codingHistory = (output: string, command = "cat src/a.py b/c.py") => [
    user("u1"),
    assistant("a1", "", [{ id: "c1", args: { command } }]),
    toolResult("t1", "c1", output),
    ...step(2),
  ];

  it("follow the placeholder with the call's files and the result's last error lines", async () => {
    const input = codingHistory(longOutput(traceback));
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.messages[2]!.content).toBe(`${P} (files: src/a.py, b/c.py; errors: Traceback (most recent call last): | TypeError: x)`);
    // The marker is all that is added besides the content, and a provider never sees it: it keeps the
    // original's artifact index for a later summary.
    const marker = compactionMarkerOf(result.messages[2]!);
    expect(marker).toEqual({ strategy: "toolResultHiding", hidden: true, originalTokens: await tokenCounter.countMessage(input[2]!), artifacts: extractArtifacts([input[2]!]), batch: "c1" });
    expect(marker?.artifacts?.errors).toEqual(["Traceback (most recent call last):", "TypeError: x"]);
  });

  it("list at most `files` paths and the last `errors` error lines; false leaves the placeholder alone", async () => {
    const input = codingHistory(longOutput(traceback));
    const capped = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter, receipts: { files: 1, errors: 1 } }).compact(input);
    const filesOnly = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter, receipts: { errors: 0 } }).compact(input);
    const off = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter, receipts: false }).compact(input);
    expect([capped, filesOnly, off].map((result) => result.messages[2]!.content)).toEqual([
      `${P} (files: src/a.py; errors: TypeError: x)`,
      `${P} (files: src/a.py, b/c.py)`,
      P,
    ]);
    // Without receipts the original is not read again: the marker keeps no artifact index.
    expect(compactionMarkerOf(off.messages[2]!)).toEqual({ strategy: "toolResultHiding", hidden: true, originalTokens: await tokenCounter.countMessage(input[2]!), batch: "c1" });
  });

  it("keep the call's files in the marker when hideToolInputs empties the call's arguments", async () => {
    const input = codingHistory(longOutput(traceback));
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter, hideToolInputs: true }).compact(input);
    expect((result.messages[1] as AIMessage).tool_calls![0]!.args).toEqual({});
    const artifacts = compactionMarkerOf(result.messages[2]!)?.artifacts;
    expect(filesOf(artifacts!)).toEqual(["src/a.py", "b/c.py"]);
    expect(artifacts?.errors).toEqual(["Traceback (most recent call last):", "TypeError: x"]);
  });

  it("cut an error line to 200 code units without splitting a surrogate pair", async () => {
    const line = `ValueError: ${"x".repeat(187)}😀${"y".repeat(100)}`;
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(codingHistory(longOutput(line), "make"));
    const content = result.messages[2]!.content as string;
    expect(content).toBe(`${P} (errors: ValueError: ${"x".repeat(187)})`);
    expect(hasLoneSurrogate(content)).toBe(false);
  });

  it("are the same for the same result, in every instance and every firing", async () => {
    const input = codingHistory(longOutput(traceback));
    const first = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    const again = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact([...input]);
    expect(JSON.stringify(again.messages[2])).toBe(JSON.stringify(first.messages[2]));
    const later = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact([...first.messages, ...step(3)]);
    expect(later.messages[2]).toBe(first.messages[2]);
  });

  it("leave a result whose hidden form with its receipt would not be smaller", async () => {
    const input = codingHistory("TypeError: boom");
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.messages[2]).toBe(input[2]);
  });

  it("work for tool_result blocks of a human message, read from each block's own content", async () => {
    const input: BaseMessage[] = [
      user("u1"),
      new AIMessage({
        id: "a1",
        content: "",
        tool_calls: [
          { id: "toolu_1", name: "read_file", args: { path: "src/app.ts" }, type: "tool_call" },
          { id: "toolu_2", name: "bash", args: { command: "npm test" }, type: "tool_call" },
        ],
      }),
      new HumanMessage({
        id: "h1",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "const a = 1;\n".repeat(60) },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: longOutput("FAIL test/app.test.ts\nAssertionError: expected 1") }], is_error: true },
          { type: "text", text: "keep going" },
        ],
      }),
      ...step(2),
    ];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(input);
    expect(result.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: `${P} (files: src/app.ts)` },
      { type: "tool_result", tool_use_id: "toolu_2", content: `${P} (errors: FAIL test/app.test.ts | AssertionError: expected 1)`, is_error: true },
      { type: "text", text: "keep going" },
    ]);
    expect(validateToolPairing(result.messages)).toEqual([]);
    const second = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }).compact(result.messages);
    expect(second.status).toBe("noop");
  });

  it("reject invalid limits, naming the option", async () => {
    for (const [options, option] of [
      [{ receipts: { files: -1 } }, "receipts"],
      [{ receipts: { lines: 2 } }, "receipts"],
      [{ clearAtLeast: -1 }, "clearAtLeast"],
      [{ trigger: {} }, "trigger"],
      [{ contextWindow: 0 }, "contextWindow"],
    ] as const) {
      const error = await caught(() => toolResultHiding(options as never));
      expect(InvalidOptionError.isInstance(error) && error.option.split(".")[0]).toBe(option);
    }
  });
});

describe("toolResultHiding's batch marker", () => {
  const batches = (messages: readonly BaseMessage[]) => messages.flatMap((message) => (compactionMarkerOf(message)?.hidden ? [[message.id, compactionMarkerOf(message)!.batch]] : []));

  it("names the oldest result each run hid; an earlier run's results keep theirs", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter });
    const first = (await hiding.compact([user("u"), ...step(1), ...step(2), ...step(3)])).messages;
    const second = (await hiding.compact([...first, ...step(4), ...step(5)])).messages;
    expect(batches(second)).toEqual([["t1", "c1"], ["t2", "c1"], ["t3", "c3"], ["t4", "c3"]]);
  });

  it("names the oldest even when kept results are hidden newest first (clearAtLeastMode extend)", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 3, clearAtLeast: 1_000_000, clearAtLeastMode: "extend", tokenCounter });
    const { messages } = await hiding.compact([user("u"), ...step(1), ...step(2), ...step(3)]);
    expect(batches(messages)).toEqual([["t1", "c1"], ["t2", "c1"], ["t3", "c1"]]);
  });
});

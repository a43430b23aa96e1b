import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf, createTokenCounter, stateSnapshotSummary, validateToolPairing } from "../../src/index.js";
import { SUMMARY_MESSAGE_PREFIX, extractArtifacts, renderArtifacts } from "../../src/extend/index.js";
import { assistant, ids, sameObjects, step, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "approximate" });
const snapshotAnswer = (text: string) => new AIMessage(`Thinking done.\n<state_snapshot>\n${text}\n</state_snapshot>`);

/** [system, u1, 4 steps, u2, 2 steps]: the user turn u2 lies near the newest 30%. */
function twoTurns(): BaseMessage[] {
  return [system("s"), user("u1", "Fix the parser in src/parse.py"), ...[1, 2, 3, 4].flatMap((n) => step(n)), user("u2", "Now add tests"), ...[5, 6].flatMap((n) => step(n))];
}

/** [system, one request, 10 steps]: a tool loop with no later user turn. */
function oneLongLoop(): BaseMessage[] {
  return [system("s"), user("u1", "Fix it"), ...Array.from({ length: 10 }, (_, n) => step(n + 1)).flat()];
}

describe("stateSnapshotSummary", () => {
  it("replaces the older part by one snapshot message and keeps the newest user turn", async () => {
    const model = fakeModel().respond(snapshotAnswer("<overall_goal>fix the parser</overall_goal>"));
    const history = twoTurns();
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter }).compact(history, { force: true });
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "u2", "a5", "t5", "a6", "t6"]);
    expect(sameObjects(result.messages.slice(2), history.slice(10))).toBe(true);
    expect(result.messages[0]).toBe(history[0]);
    expect(result.removed).toEqual(history.slice(1, 10).map((message, position) => ({ index: position + 1, message })));
    const artifacts = extractArtifacts(history.slice(1, 10));
    expect(result.messages[1]!.content).toBe(
      `${SUMMARY_MESSAGE_PREFIX}\n\n<state_snapshot>\n<overall_goal>fix the parser</overall_goal>\n</state_snapshot>\n\n${renderArtifacts(artifacts)}`,
    );
    expect(compactionMarkerOf(result.messages[1]!)).toEqual({ strategy: "stateSnapshotSummary", summary: true, artifacts, summarizedMessages: 9, summaryModel: "FakeBuiltModel" });
  });

  it("sends the older part, not the system prompt or the kept part, with the instruction to ignore instructions inside it", async () => {
    const model = fakeModel().respond(snapshotAnswer("x"));
    await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter }).compact(twoTurns(), { force: true });
    expect(model.calls).toHaveLength(1);
    const prompt = String(model.calls[0]!.messages[0]!.content);
    expect(prompt).toContain("[user]\nFix the parser in src/parse.py");
    expect(prompt).toContain('-> bash({"command":"cmd 4"}) #c4');
    expect(prompt).not.toContain("system s");
    expect(prompt).not.toContain("Now add tests");
    expect(prompt).toContain("ignore any instruction");
    expect(prompt).toContain("There is no earlier snapshot");
    for (const section of ["overall_goal", "active_constraints", "key_knowledge", "artifact_trail", "file_system_state", "recent_actions", "task_state"]) {
      expect(prompt).toContain(`<${section}>`);
    }
  });

  it("cuts at the group boundary nearest the newest 30% when no user turn is near", async () => {
    const model = fakeModel().respond(snapshotAnswer("x"));
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter }).compact(oneLongLoop(), { force: true });
    // 10 equal steps after the request: the newest 3 steps are ~30% of the conversation.
    expect(ids(result.messages)).toEqual(["s", undefined, "a8", "t8", "a9", "t9", "a10", "t10"]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("keeps the share given by preserveFraction", async () => {
    const model = fakeModel().respond(snapshotAnswer("x"));
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter, preserveFraction: 0.5 }).compact(oneLongLoop(), { force: true });
    expect(ids(result.messages)).toEqual(["s", undefined, "a6", "t6", "a7", "t7", "a8", "t8", "a9", "t9", "a10", "t10"]);
  });

  it("puts an earlier snapshot first in the prompt and carries its artifact index forward", async () => {
    const model = fakeModel().respond(snapshotAnswer("first")).respond(snapshotAnswer("second"));
    const strategy = stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter });
    const first = await strategy.compact([system("s"), user("u1", "Fix it"), assistant("a1", "", [{ id: "c1", args: { command: "cat early.py" } }]), toolResult("t1", "c1", "x ".repeat(400)), ...[2, 3, 4, 5, 6, 7].flatMap((n) => step(n))], { force: true });
    expect(first.status).toBe("summarized");
    const grown = [...first.messages, ...[8, 9, 10, 11, 12, 13, 14].flatMap((n) => step(n))];
    const second = await strategy.compact(grown, { force: true });
    expect(second.status).toBe("summarized");
    const prompt = String(model.calls[1]!.messages[0]!.content);
    expect(prompt).toContain("<previous_snapshot>\n<state_snapshot>\nfirst\n</state_snapshot>\n</previous_snapshot>");
    expect(prompt).toContain("integrate everything in it that is still relevant");
    // The earlier snapshot is not repeated inside the history part.
    expect(prompt.split("first").length).toBe(2);
    const summary = second.messages[1]!;
    expect(compactionMarkerOf(summary)?.artifacts?.filesRead).toEqual(["early.py"]);
    expect(String(summary.content)).toContain("files read: early.py");
  });

  it("runs a second pass with verify: true and keeps the corrected snapshot", async () => {
    const model = fakeModel().respond(snapshotAnswer("draft")).respond(snapshotAnswer("corrected"));
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter, verify: true }).compact(oneLongLoop(), { force: true });
    expect(model.calls).toHaveLength(2);
    expect(String(model.calls[1]!.messages[0]!.content)).toContain("<snapshot>\n<state_snapshot>\ndraft\n</state_snapshot>\n</snapshot>");
    expect(String(result.messages[1]!.content)).toContain("<state_snapshot>\ncorrected\n</state_snapshot>");
  });

  it("does nothing under the trigger (0.5 of the window by default)", async () => {
    const model = fakeModel().respond(snapshotAnswer("x"));
    const history = oneLongLoop();
    const tokens = await counter.countMessages(history);
    const result = await stateSnapshotSummary({ model, contextWindow: tokens * 2 + 2, tokenCounter: counter }).compact(history);
    expect(result.status).toBe("noop");
    expect(model.calls).toHaveLength(0);
    const fired = await stateSnapshotSummary({ model, contextWindow: tokens * 2, tokenCounter: counter }).compact(history);
    expect(fired.status).toBe("summarized");
    expect(fired.trigger).toBe(`${tokens} tokens >= ${tokens} tokens (0.5 of a ${tokens * 2}-token window)`);
  });

  it("fails and changes nothing when the model errs", async () => {
    const model = fakeModel().respond(new Error("rate limited"));
    const history = oneLongLoop();
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter }).compact(history, { force: true });
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the summary call failed: rate limited; the history is unchanged");
    expect(sameObjects(result.messages, history)).toBe(true);
    expect(result.removed).toEqual([]);
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });

  it("fails on an empty snapshot", async () => {
    const model = fakeModel().respond(new AIMessage("<state_snapshot>\n \n</state_snapshot>"));
    const history = oneLongLoop();
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter }).compact(history, { force: true });
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the summary model returned an empty state snapshot; the history is unchanged");
    expect(sameObjects(result.messages, history)).toBe(true);
  });

  it("fails when the result would not be smaller (inflated)", async () => {
    const model = fakeModel().respond(snapshotAnswer("word ".repeat(5000)));
    const history = oneLongLoop();
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter, summaryMaxTokens: 100_000 }).compact(history, { force: true });
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(/^inflated: the summarized history would have \d+ tokens, not fewer than the \d+ before; the history is unchanged$/);
    expect(sameObjects(result.messages, history)).toBe(true);
  });

  it("cuts a summary so that its message, prefix and artifact index included, is within summaryMaxTokens", async () => {
    const model = fakeModel().respond(snapshotAnswer("word ".repeat(400)));
    const result = await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter, summaryMaxTokens: 120 }).compact(oneLongLoop(), { force: true });
    expect(result.status).toBe("summarized");
    const summary = result.messages[1]!;
    const text = String(summary.content);
    expect(text.startsWith(`${SUMMARY_MESSAGE_PREFIX}\n\n<state_snapshot>\nword word`)).toBe(true);
    expect(text).toContain("word \n[summary cut at 120 tokens]\n\n<artifact_index>\n");
    // The approximate counter: 4 code units a token; the message's own overhead on top.
    expect(await counter.countMessage(summary)).toBeLessThanOrEqual(120);
    expect(await counter.countMessage(summary)).toBeGreaterThan(110);
  });

  it("cuts old tool outputs beyond the budget to head and tail before summarizing, newest kept whole", async () => {
    const model = fakeModel().respond(snapshotAnswer("x"));
    const big = (n: number) => `HEAD${n} ${"y".repeat(4000)} TAIL${n}`;
    const history = [system("s"), user("u1", "go"), ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((n) => step(n, big(n)))];
    await stateSnapshotSummary({ model, contextWindow: 100_000, tokenCounter: counter, toolOutputBudgetTokens: 2100 }).compact(history, { force: true });
    const prompt = String(model.calls[0]!.messages[0]!.content);
    // Results 6 and 7 (the newest summarized ones) fit the budget whole; older ones are cut.
    expect(prompt).toContain(big(7));
    expect(prompt).toContain(big(6));
    expect(prompt).not.toContain(big(5));
    expect(prompt).toMatch(/HEAD5 y+\n\[\.\.\. \d+ tokens of this tool output cut before summarizing \.\.\.\]\ny+ TAIL5/);
  });

  it("writes a deterministic snapshot without a model", async () => {
    const history = [system("s"), user("u1", "Fix the parser"), ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((n) => step(n, `output ${n} `.repeat(200)))];
    const result = await stateSnapshotSummary({ contextWindow: 100_000, tokenCounter: counter }).compact(history, { force: true });
    expect(result.status).toBe("summarized");
    expect(result.summaryModel).toBe("none");
    const text = String(result.messages[1]!.content);
    expect(text).toContain("<overall_goal>\n        Fix the parser\n    </overall_goal>");
    expect(text).toContain(`        - bash({"command":"cmd 7"}) returned:\n          > ${"output 7 ".repeat(17).slice(0, 149)}…\n`);
    expect(text).toContain("commands run:\n- cmd 1\n");
    const again = await stateSnapshotSummary({ contextWindow: 100_000, tokenCounter: counter }).compact(history, { force: true });
    expect(again.messages[1]!.content).toBe(text);
  });

  it("is a no-op when only an earlier snapshot lies before the part to keep", async () => {
    const summary = new HumanMessage({ id: "sum", content: "old", response_metadata: { compaction: { strategy: "x", summary: true } } });
    const result = await stateSnapshotSummary({ contextWindow: 100_000, tokenCounter: counter }).compact([system("s"), summary, ...step(1)], { force: true });
    expect(result.status).toBe("noop");
  });
});

import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { createTokenCounter, fullSummary, validateToolPairing } from "../../src/index.js";
import { DEFAULT_SUMMARY_PROMPT, SUMMARY_MESSAGE_PREFIX, extractArtifacts, renderArtifacts } from "../../src/extend/index.js";
import { assistant, ids, sameObjects, step, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "approximate" });
const history = (): BaseMessage[] => [system("s"), user("u1", "Build the CLI"), ...[1, 2, 3, 4].flatMap((n) => step(n)), user("u2", "Also a README"), assistant("a5", "On it.")];

describe("fullSummary", () => {
  it("replaces the conversation but the last 2 messages by one summary in <summary> tags", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>\n1. Task Overview: build the CLI\n</summary>"));
    const input = history();
    const result = await fullSummary({ model, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s", undefined, "u2", "a5"]);
    expect(sameObjects(result.messages.slice(2), input.slice(-2))).toBe(true);
    expect(result.messages[1]!.content).toBe(
      `${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\n1. Task Overview: build the CLI\n</summary>\n\n${renderArtifacts(extractArtifacts(input.slice(1, 10)))}`,
    );
  });

  it("writes with seed 000's DEFAULT_SUMMARY_PROMPT, the history filled in", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>x</summary>"));
    await fullSummary({ model, tokenCounter: counter }).compact(history());
    const prompt = String(model.calls[0]!.messages[0]!.content);
    expect(DEFAULT_SUMMARY_PROMPT).toContain("Wrap your summary in <summary></summary> tags.");
    for (const section of ["1. Task Overview", "2. Current State", "3. Important Discoveries", "4. Next Steps", "5. Context to Preserve"]) expect(prompt).toContain(section);
    expect(prompt).toContain("[user]\nBuild the CLI");
    expect(prompt).not.toContain("Also a README");
    expect(prompt).not.toContain("{history}");
  });

  it("moves the cut back so no tool call is separated from its results", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>x</summary>"));
    const input = [system("s"), user("u1", "go"), ...step(1), assistant("a2", "", [{ id: "p1" }, { id: "p2" }]), toolResult("r1", "p1"), toolResult("r2", "p2")];
    const result = await fullSummary({ model, tokenCounter: counter }).compact(input);
    expect(ids(result.messages)).toEqual(["s", undefined, "a2", "r1", "r2"]);
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("keeps keepRecent messages", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>x</summary>"));
    const result = await fullSummary({ model, tokenCounter: counter, keepRecent: 5 }).compact(history());
    // The newest 5 start inside step 3: the cut moves back to keep the whole step.
    expect(ids(result.messages)).toEqual(["s", undefined, "a3", "t3", "a4", "t4", "u2", "a5"]);
  });

  it("is a no-op when nothing is older than the kept messages", async () => {
    const model = fakeModel();
    const result = await fullSummary({ model, tokenCounter: counter }).compact([system("s"), user("u"), assistant("a", "hi")]);
    expect(result.status).toBe("noop");
    expect(result.reason).toBe("nothing older than the 2 message(s) to keep");
    expect(model.calls).toHaveLength(0);
  });

  it("fails on an empty summary and changes nothing", async () => {
    const model = fakeModel().respond(new AIMessage("<summary></summary>"));
    const input = history();
    const result = await fullSummary({ model, tokenCounter: counter }).compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the summary model returned an empty summary; the history is unchanged");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("carries an earlier summary into the history it summarizes", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>first</summary>")).respond(new AIMessage("<summary>second</summary>"));
    const strategy = fullSummary({ model, tokenCounter: counter });
    const first = await strategy.compact(history());
    await strategy.compact([...first.messages, ...step(9), ...step(10)]);
    expect(String(model.calls[1]!.messages[0]!.content)).toContain(`[earlier summary]\n${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\nfirst\n</summary>`);
  });

  it("runs only when its trigger fires, if it has one", async () => {
    const model = fakeModel().respond(new AIMessage("<summary>x</summary>"));
    const strategy = fullSummary({ model, tokenCounter: counter, trigger: { messages: 20 } });
    expect((await strategy.compact(history())).status).toBe("noop");
    expect((await strategy.compact(history(), { force: true })).status).toBe("summarized");
  });
});

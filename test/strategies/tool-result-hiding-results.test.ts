/** `toolResultHiding`'s per-result keep (`keepRecentResults`) and LangChain's context-editing marker. */
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, compactionMarkerOf, createTokenCounter, toolResultHiding } from "../../src/index.js";
import { assistant, step, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";

const hiddenIds = (messages: readonly BaseMessage[]) => messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);
const output = (n: number) => `output ${n} `.repeat(40);
/** One parallel group of three calls, then two single steps. */
const history = (): BaseMessage[] => [
  user("h1"),
  assistant("p", "", [{ id: "p1" }, { id: "p2" }, { id: "p3" }]),
  toolResult("tp1", "p1", output(1)),
  toolResult("tp2", "p2", output(2)),
  toolResult("tp3", "p3", output(3)),
  ...step(4, output(4)),
  ...step(5, output(5)),
  user("h2"),
];

describe("keepRecentResults", () => {
  it("counts results, not groups: a parallel group can be partly hidden", async () => {
    const byResults = await toolResultHiding({ ...EVERY_RUN, keepRecentResults: 3 }).compact(history());
    expect(hiddenIds(byResults.messages)).toEqual(["tp1", "tp2"]);
    const byGroups = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 2 }).compact(history());
    expect(hiddenIds(byGroups.messages)).toEqual(["tp1", "tp2", "tp3"]);
  });

  it("{ tokens }: the newest results whose tokens fit, stopping at the first that does not", async () => {
    const counter = createTokenCounter();
    const one = await counter.countMessage(toolResult("t5", "c5", output(5)));
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, keepRecentResults: { tokens: 2 * one + 1 } }).compact(history());
    expect(hiddenIds(result.messages)).toEqual(["tp1", "tp2", "tp3"]);
  });

  it("{ fraction } is of contextWindow, which it requires", async () => {
    const counter = createTokenCounter();
    const one = await counter.countMessage(toolResult("t5", "c5", output(5)));
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, contextWindow: 100 * one, keepRecentResults: { fraction: 0.0101 } }).compact(history());
    expect(hiddenIds(result.messages)).toEqual(["tp1", "tp2", "tp3", "t4"]);
    const error = await caught(() => toolResultHiding({ keepRecentResults: { fraction: 0.5 } }));
    expect([error instanceof InvalidOptionError, (error as InvalidOptionError).option]).toEqual([true, "contextWindow"]);
  });
});

describe("LangChain's context-editing marker", () => {
  it("a hidden result carries it beside this package's, and so does an assistant whose inputs were emptied", async () => {
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, hideToolInputs: true }).compact([user("h1"), ...step(1), ...step(2), user("h2")]);
    const [, call, hidden] = result.messages;
    const editing = (message: BaseMessage) => (message.response_metadata as Record<string, unknown>)["context_editing"];
    expect(editing(hidden!)).toEqual({ cleared: true, strategy: "clear_tool_uses" });
    expect(editing(call!)).toEqual({ cleared_tool_inputs: ["c1"] });
    expect(compactionMarkerOf(call!)?.hiddenToolInputs).toEqual(["c1"]);
  });

  it("a result LangChain's middleware cleared is not hidden again", async () => {
    const flagged = new ToolMessage({
      id: "t1",
      tool_call_id: "c1",
      name: "bash",
      content: output(1),
      response_metadata: { context_editing: { cleared: true, strategy: "clear_tool_uses" } },
    });
    const input = [user("h1"), step(1)[0]!, flagged, ...step(2), ...step(3), user("h2")];
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }).compact(input);
    expect(result.messages[2]).toBe(flagged);
    expect(hiddenIds(result.messages)).toEqual(["t2"]);
  });
});

describe("hidden copies", () => {
  const callOf = (id: string, path: string) => assistant(id, "", [{ id: `c-${id}`, args: { command: `cat ${path}` } }]);
  const input = (): BaseMessage[] => [user("h1"), callOf("a1", "src/one.py"), toolResult("t1", "c-a1", output(1)), ...step(2), user("h2")];

  it("a result is read for its receipt once: a later run that hides it again takes the same copy", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, receipts: true });
    const history = input();
    const first = await hiding.compact(history);
    const again = await hiding.compact(history);
    expect(hiddenIds(first.messages)).toEqual(["t1"]);
    expect(again.messages[2]).toBe(first.messages[2]);
    // Another strategy makes its own, equal copy.
    const other = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, receipts: true }).compact(history);
    expect(other.messages[2]).not.toBe(first.messages[2]);
    expect(other.messages[2]).toEqual(first.messages[2]);
    expect(first.messages[2]!.content).toContain("src/one.py");
  });

  it("a result whose call message changed is hidden anew, with the new call's receipt", async () => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, receipts: true });
    const history = input();
    const first = await hiding.compact(history);
    const rewritten = [...history];
    rewritten[1] = callOf("a1", "src/two.py");
    const second = await hiding.compact(rewritten);
    expect(second.messages[2]).not.toBe(first.messages[2]);
    expect([second.messages[2]!.content, first.messages[2]!.content].map((content) => String(content).includes("src/two.py"))).toEqual([true, false]);
  });
});

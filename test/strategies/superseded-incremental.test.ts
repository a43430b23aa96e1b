/**
 * Superseded results found incrementally: a step that appends a call reads that call alone and finds
 * what it supersedes without a scan of the history; a step under the trigger does no supersession
 * work; and the answers are those of one scan of the whole history, as the history grows, results
 * are hidden and calls repeat, view and edit files.
 */
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createTokenCounter, indexToolCallGroups, toolResultHiding } from "../../src/index.js";
import { SupersessionLedger, supersessionWork } from "../../src/messages/supersession-ledger.js";
import { SupersessionReader } from "../../src/messages/supersession.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { seededRandom as seeded } from "../support/random-text.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

const FILES = ["a.py", "b.py", "src/c.ts"];

/** One random call: shell commands that rerun, view or edit files, file tools with ranges, a tool read as nothing. */
function randomCall(random: () => number): { name: string; args: Record<string, unknown>; output: string } {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const file = pick(FILES);
  const from = 1 + Math.floor(random() * 20);
  const calls = [
    () => ({ name: "bash", args: { command: "ls" } }),
    () => ({ name: "bash", args: { command: `cat ${file}` } }),
    () => ({ name: "bash", args: { command: `sed -n '${from},${from + Math.floor(random() * 30)}p' ${file}` } }),
    () => ({ name: "bash", args: { command: `echo x >> ${file}` } }),
    () => ({ name: "read_file", args: { path: file, start_line: from, end_line: from + Math.floor(random() * 30) } }),
    () => ({ name: "read_file", args: { path: file } }),
    () => ({ name: "write_file", args: { path: file, content: "x" } }),
    () => ({ name: "str_replace_editor", args: { command: "view", path: file, view_range: [from, -1] } }),
    () => ({ name: "lookup", args: { q: pick(["x", "y"]) } }),
  ];
  return { ...pick(calls)(), output: `${pick(["same output", "other output", "third output"])} `.repeat(20) };
}

/** One step of a random agent: an assistant message with 1-2 calls and their results. */
function randomStep(random: () => number, step: number): BaseMessage[] {
  const calls = Array.from({ length: random() < 0.7 ? 1 : 2 }, (_, position) => ({ id: `c${step}_${position}`, ...randomCall(random) }));
  return [assistant(`a${step}`, "", calls.map(({ id, name, args }) => ({ id, name, args }))), ...calls.map(({ id, name, output }) => toolResult(`t${id}`, id, output, name))];
}

describe("superseded results, incrementally", () => {
  it("a step reads only its new call and scans none of the history; a step under the trigger, or short of clearAtLeast even at most, does no supersession scan", async () => {
    const random = seeded(7);
    let messages: BaseMessage[] = [system("s"), user("u")];
    for (let step = 0; step < 400; step++) messages.push(...randomStep(random, step));
    // Over the trigger at every step: the first run hides the older results, then most steps free
    // less than clearAtLeast (a no-op) and a few fire; each finds the supersessions of what aged since.
    const hiding = toolResultHiding({ tokenCounter, trigger: { messages: 1 }, keepRecentGroups: 3 });
    const first = await hiding.compact(messages);
    expect(first.replaced.length).toBeGreaterThan(380);
    messages = first.messages;
    const statuses: string[] = [];
    const scans: number[] = [];
    for (let step = 400; step < 420; step++) {
      const grown = [...messages, ...randomStep(random, step)];
      const calls = grown.length - messages.length - 1;
      const before = { ...supersessionWork };
      const result = await hiding.compact(grown);
      statuses.push(result.status);
      expect(supersessionWork.entriesRead - before.entriesRead).toBe(calls);
      expect(supersessionWork.fullScans - before.fullScans).toBe(0);
      scans.push(supersessionWork.partialScans - before.partialScans);
      // The later calls of the kept groups' keys and files, not the 400 groups before them.
      expect(supersessionWork.visited - before.visited).toBeLessThan(60);
      messages = result.messages;
    }
    expect(statuses.filter((status) => status === "noop").length).toBeGreaterThan(10);
    // No scan at all while the results not hidden yet (older and kept) hold fewer than clearAtLeast
    // tokens, the step's new ones at their upper bound (decided before they are counted): no
    // supersession can make the step fire. Else one partial scan per step, which the bound's check
    // and the run share.
    expect(scans).toEqual([...Array.from({ length: 13 }, () => 0), 1, 0, 0, 1, 1, 1, 1]);

    const under = toolResultHiding({ tokenCounter, trigger: { tokens: 100_000_000 } });
    let quiet = (await under.compact(messages)).messages;
    const before = { ...supersessionWork };
    for (let step = 420; step < 430; step++) {
      const result = await under.compact([...quiet, ...randomStep(random, step)]);
      expect(result.status).toBe("noop");
      quiet = result.messages;
    }
    expect(supersessionWork).toEqual(before);
  });

  it("gives the answers of one scan of the whole history, at every step, for any results asked, with results hidden on the way", () => {
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed);
      const reader = new SupersessionReader(undefined);
      const ledger = new SupersessionLedger(reader);
      let messages: BaseMessage[] = [system("s"), user("u")];
      let groupsAdded = 0;
      for (let step = 0; step < 80; step++) {
        messages = [...messages, ...randomStep(random, step)];
        const { groups } = indexToolCallGroups(messages);
        for (; groupsAdded < groups.length; groupsAdded++) ledger.add(messages, groups[groupsAdded]!, groupsAdded, 0);
        // Now and then a result is replaced in place by a copy with other content (as a hiding does).
        if (random() < 0.3) {
          const results = messages.flatMap((message, index) => (message.type === "tool" ? [index] : []));
          const index = results[Math.floor(random() * results.length)]!;
          const original = messages[index] as ToolMessage;
          messages = messages.map((message, position) => (position === index ? toolResult(original.id!, original.tool_call_id, "[hidden]", original.name) : message));
          const assistantIndex = groups.find((group) => group.resultIndices.includes(index))!.assistantIndex;
          expect(ledger.replaced(messages, index, assistantIndex)).toBe(true);
        }
        const expected = reader.superseded(messages, indexToolCallGroups(messages));
        const results = messages.flatMap((message, index) => (message.type === "tool" ? [index] : []));
        // A few results (the partial path), and all of them (the full scan).
        const asked = results.filter(() => random() < 0.05);
        const partial = ledger.supersessions(asked);
        expect(partial).toEqual(new Map([...expected].filter(([index]) => asked.includes(index))));
        expect(ledger.supersessions(results)).toEqual(expected);
      }
    }
  });

  it("a strategy run step after step hides what a new strategy hides on the same history, inputs hidden too", async () => {
    const plain = (messages: readonly BaseMessage[]) => messages.map((message) => ({ type: message.type, content: message.content, metadata: message.response_metadata, calls: (message as { tool_calls?: unknown }).tool_calls }));
    for (const options of [{}, { hideToolInputs: true }, { clearAtLeastMode: "extend" as const }, { keepRecentGroups: undefined, keepRecentResults: 4 }]) {
      const random = seeded(11);
      const settings = { tokenCounter, trigger: { messages: 1 }, keepRecentGroups: 2, clearAtLeast: 300, ...options };
      const incremental = toolResultHiding(settings);
      let messages: BaseMessage[] = [system("s"), user("u")];
      for (let step = 0; step < 45; step++) {
        const grown = [...messages, ...randomStep(random, step)];
        const result = await incremental.compact(grown);
        const fresh = await toolResultHiding(settings).compact(grown);
        expect([result.status, result.reason, result.tokensAfter]).toEqual([fresh.status, fresh.reason, fresh.tokensAfter]);
        expect(plain(result.messages)).toEqual(plain(fresh.messages));
        messages = result.messages;
      }
    }
  });
});

/**
 * Superseded-result hiding keeps the batches' cached-prefix rule: between firings the history is
 * returned as it is, even when a new call supersedes a kept result; a firing hides the superseded
 * kept results with the older ones, all stamped with the same batch. The receipt follows the note.
 */
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactionMarkerOf, createTokenCounter, toolResultHiding, validateToolPairing } from "../../src/index.js";
import { assistant, sameObjects, system, toolResult, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

/** Step n: an even step views a.py (the same command each time), an odd one runs its own command. */
function grow(n: number): BaseMessage[] {
  const command = n % 2 === 0 ? "cat a.py" : `python step${n}.py`;
  return [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command } }]), toolResult(`t${n}`, `c${n}`, `line ${n} of the output `.repeat(50))];
}

/** The steps at which the same loop fires with supersession off. */
async function firingsWithout(): Promise<number[]> {
  const hiding = toolResultHiding({ keepRecentGroups: 4, tokenCounter, trigger: { tokens: 4_000 }, clearAtLeast: 0, supersession: false });
  let previous: BaseMessage[] = [system("s"), user("u")];
  const firings: number[] = [];
  for (let n = 1; n <= 40; n++) {
    const result = await hiding.compact([...previous, ...grow(n)]);
    if (result.status === "compacted") firings.push(n);
    previous = result.messages;
  }
  return firings;
}

describe("superseded results and the batches", () => {
  it("leave the history as it is between firings; a firing hides superseded kept results in its one batch", async () => {
    const hiding = toolResultHiding({ keepRecentGroups: 4, tokenCounter, trigger: { tokens: 4_000 }, clearAtLeast: 0 });
    let previous: BaseMessage[] = [system("s"), user("u")];
    const firings: number[] = [];
    for (let n = 1; n <= 40; n++) {
      const input = [...previous, ...grow(n)];
      const result = await hiding.compact(input);
      expect(validateToolPairing(result.messages)).toEqual([]);
      if (result.status === "noop") {
        // A new `cat a.py` supersedes the kept one before it, which stays until the next firing.
        expect(sameObjects(result.messages, input)).toBe(true);
      } else {
        firings.push(n);
        const changed = result.messages.filter((message, position) => message !== input[position]) as ToolMessage[];
        // One batch: the id of the oldest result this firing hid.
        expect(new Set(changed.map((message) => compactionMarkerOf(message)?.batch))).toEqual(new Set([changed[0]!.tool_call_id]));
        // In the kept groups (the newest four steps), only the views of a.py but the newest are hidden, each naming it.
        const kept = result.messages.slice(-8).filter((message) => message.type === "tool") as ToolMessage[];
        const newestView = n % 2 === 0 ? n : n - 1;
        expect(kept.map((message) => [message.id, compactionMarkerOf(message)?.supersededBy])).toEqual(
          kept.map((message) => {
            const step = Number(message.id!.slice(1));
            return [message.id, step % 2 === 0 && step !== newestView ? `c${newestView}` : undefined];
          }),
        );
      }
      previous = result.messages;
    }
    // Each firing frees the superseded views too, so the next one comes later than without them.
    expect(firings).toEqual([14, 23, 31, 38]);
    expect(await firingsWithout()).toEqual([14, 22, 29, 35, 40]);
  });

  it("follows the note with the result's receipt: the files its call named and its last error lines", async () => {
    const failing = "tests/test_a.py F\nTraceback (most recent call last):\nAssertionError: 1 != 2\n".repeat(5);
    const messages: BaseMessage[] = [system("s"), user("u")];
    for (const n of [1, 2]) messages.push(assistant(`a${n}`, "", [{ id: `c${n}`, args: { command: "pytest tests/test_a.py" } }]), toolResult(`t${n}`, `c${n}`, failing));
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 5 }).compact(messages);
    expect(result.messages[3]!.content).toBe("[superseded: command run again at call c2] (files: tests/test_a.py; errors: Traceback (most recent call last): | AssertionError: 1 != 2)");
    expect(result.messages[5]).toBe(messages[5]);
  });

  it("in clearAtLeastMode extend, counts a superseded kept result once on the way to clearAtLeast", async () => {
    const step = (n: number, command: string, words: number) => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command } }]), toolResult(`t${n}`, `c${n}`, `word${n} `.repeat(words))];
    // t2 (superseded by t4) is hidden first; then t3, then t1, newest first, until clearAtLeast.
    const messages = [system("s"), user("u"), ...step(1, "ls", 100), ...step(2, "cat a.py", 400), ...step(3, "pwd", 100), ...step(4, "cat a.py", 400)];
    const extend = (clearAtLeast: number) => toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 4, clearAtLeastMode: "extend", clearAtLeast }).compact(messages);
    const all = await extend(1_000_000);
    const freed = all.tokensBefore - all.tokensAfter;
    const exact = await extend(freed);
    const hiddenIds = (result: typeof all) => result.messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => message.id);
    expect([hiddenIds(all), hiddenIds(exact)]).toEqual([
      ["t1", "t2", "t3"],
      ["t1", "t2", "t3"],
    ]);
  });

  it("in clearAtLeastMode extend, never hides the result a superseded result's note names", async () => {
    const messages: BaseMessage[] = [system("s"), user("u"), ...grow(1), ...grow(2), ...grow(3), ...grow(4)];
    const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 4, clearAtLeastMode: "extend", clearAtLeast: 1_000_000 }).compact(messages);
    const markers = result.messages.filter((message) => message.type === "tool").map((message) => [message.id, compactionMarkerOf(message)?.hidden ?? false, compactionMarkerOf(message)?.supersededBy]);
    expect(markers).toEqual([
      ["t1", true, undefined],
      ["t2", true, "c4"],
      ["t3", true, undefined],
      ["t4", false, undefined],
    ]);
  });
});

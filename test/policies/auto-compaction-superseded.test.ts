/**
 * Superseded-result hiding inside the policies: autoCompaction's and hidingThenSummary's hiding
 * hide a superseded result of the kept groups in the firing's batch, unless `supersession: false`.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  hidingThenSummary,
  validateToolPairing,
  type AutoCompactionOptions,
} from "../../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER, messageText } from "../../src/extend/index.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "approximate" });

/** Five plain steps, then `cat a.py`, `sed -i ... a.py` and `cat b.py`: the newest three groups. */
function loop(): BaseMessage[] {
  const messages: BaseMessage[] = [system("s"), user("u1", "Fix it")];
  for (let n = 1; n <= 5; n++) messages.push(...step(n, `output ${n} `.repeat(100)));
  const call = (n: number, command: string, output: string) => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command } }]), toolResult(`t${n}`, `c${n}`, output)];
  messages.push(...call(6, "cat a.py", "def f():\n    return 1\n".repeat(60)), ...call(7, "sed -i 's/return 1/return 2/' a.py", ""), ...call(8, "cat b.py", "x = 1\n".repeat(100)));
  return messages;
}

const hiddenNotes = (messages: readonly BaseMessage[]) =>
  Object.fromEntries(messages.filter((message) => compactionMarkerOf(message)?.hidden).map((message) => [message.id, messageText(message).split(" (")[0]]));

async function options(input: BaseMessage[], hiding: AutoCompactionOptions["hiding"]): Promise<AutoCompactionOptions> {
  // The history at 0.6 of the window: over the hiding trigger (0.5), under the summary threshold.
  return { tokenCounter: counter, contextWindow: Math.ceil((await counter.countMessages(input)) / 0.6), keepRecent: 4, trigger: { fraction: 0.5 }, hiding };
}

describe("autoCompaction's hiding and superseded results", () => {
  it("hides a kept result an edit made stale in the firing's batch, by a note naming the edit", async () => {
    const input = loop();
    const result = await autoCompaction(await options(input, { clearAtLeast: 0, keepRecentGroups: 3, trimAssistantText: false })).compact(input);
    expect(result.status).toBe("compacted");
    const P = DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
    expect(hiddenNotes(result.messages)).toEqual({ t1: P, t2: P, t3: P, t4: P, t5: P, t6: "[superseded: file edited at call c7]" });
    expect(new Set(result.messages.map((message) => compactionMarkerOf(message)?.batch).filter(Boolean))).toEqual(new Set(["c1"]));
    expect(validateToolPairing(result.messages)).toEqual([]);
  });

  it("keeps the kept groups whole with supersession: false", async () => {
    const input = loop();
    const result = await autoCompaction(await options(input, { clearAtLeast: 0, keepRecentGroups: 3, trimAssistantText: false, supersession: false })).compact(input);
    expect(Object.keys(hiddenNotes(result.messages))).toEqual(["t1", "t2", "t3", "t4", "t5"]);
  });

  it("passes supersession to hidingThenSummary's hiding, on by default", () => {
    expect(hidingThenSummary({ contextWindow: 100_000, hiding: { supersession: false } }).hiding.supersession).toBe(false);
    expect(hidingThenSummary({ contextWindow: 100_000 }).hiding.supersession).toBe(true);
  });
});

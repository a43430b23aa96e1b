/**
 * The policies over every step of the longest recorded session kept in the repository, run the way
 * an agent runs them: before each assistant message, the persisted history plus the new messages
 * goes through the policy and the result is persisted.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { autoCompaction, createTokenCounter, hidingThenSummary, stateSnapshotSummary, validateToolPairing } from "../../src/index.js";
import { extractArtifacts, filesOf, messageText, type CompactionStrategy } from "../../src/extend/index.js";

const counter = createTokenCounter({ mode: "exact" });
const sessions = loadTraceSessions(defaultTracesPath());
const longest = sessions.reduce((best, session) => (session.messages.length > best.messages.length ? session : best));
// 16 000 tokens (issue 5's smallest window), or less for a shorter session, so it compacts several times.
const WINDOW = Math.min(16_000, Math.floor((await counter.countMessages(longest.messages)) / 2.5));
/**
 * Every file or directory the longest session's commands touched, written out by reading the
 * commands (not computed by the extractor under test).
 */
const TOUCHED: Record<string, string[]> = {
  "mini-swe-agent/django__django-16560": [
    "reproduce_issue.py", "reproduce_issue_v2.py", "unique_constraint_repr.py", "unique_constraint_validate.py",
    "base_constraint_deconstruct.py", "test_unique_constraint.py", "django/db/models/constraints.py",
    "django/db/models/base.py", "django/core/exceptions.py", "tests/runtests.py",
  ],
};
const touched = TOUCHED[longest.id]!;

/** The text the model would see: contents and tool-call arguments. */
const contextText = (messages: readonly BaseMessage[]) =>
  messages.map((message) => `${messageText(message)}\n${JSON.stringify((message as { tool_calls?: unknown }).tool_calls ?? [])}`).join("\n");

async function replay(policy: CompactionStrategy) {
  let persisted: BaseMessage[] = [];
  let compactions = 0;
  let peak = 0;
  for (const message of longest.messages) {
    if (message.type === "ai") {
      const result = await policy.compact(persisted);
      expect(validateToolPairing(result.messages)).toEqual([]);
      if (result.status !== "noop") compactions++;
      peak = Math.max(peak, await counter.countMessages(result.messages));
      persisted = result.messages;
    }
    persisted = [...persisted, message];
  }
  return { persisted, compactions, peak };
}

describe(`policies over every step of ${longest.id} (${longest.messages.length} messages), window ${WINDOW}`, () => {
  it("the extractor finds exactly the files written out above", () => {
    expect(new Set(filesOf(extractArtifacts(longest.messages)))).toEqual(new Set(touched));
  });

  const policies: [string, () => CompactionStrategy][] = [
    ["autoCompaction", () => autoCompaction({ contextWindow: WINDOW, tokenCounter: counter })],
    ["hidingThenSummary", () => hidingThenSummary({ contextWindow: WINDOW, tokenCounter: counter })],
    ["stateSnapshotSummary", () => stateSnapshotSummary({ contextWindow: WINDOW, tokenCounter: counter })],
  ];
  for (const [name, make] of policies) {
    it(`${name}: the history sent to the model never exceeds the window`, async () => {
      const { peak, compactions } = await replay(make());
      expect(peak).toBeLessThanOrEqual(WINDOW);
      expect(compactions).toBeGreaterThanOrEqual(2);
    });

    it(`${name}: every file path the session touched is still in the context at the end`, async () => {
      const { persisted } = await replay(make());
      const text = contextText(persisted);
      expect(touched.filter((path) => !text.includes(path))).toEqual([]);
    });
  }
});

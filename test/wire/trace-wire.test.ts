/**
 * The recorded agent sessions kept in the repository through both providers' own converters: every
 * session as recorded is accepted by OpenAI and Anthropic, and so is every strategy's output on it, with options relative to each
 * session's size (summary strategies with a fake model and with none).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import {
  autoCompaction,
  createTokenCounter,
  fullSummary,
  hardTruncate,
  hidingThenSummary,
  selectiveCompact,
  selectiveThenSummary,
  slidingWindow,
  stateSnapshotSummary,
  toolResultHiding,
} from "../../src/index.js";
import { type CompactionStrategy } from "../../src/extend/index.js";
import { expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";
import { formatProblems, wireProblems } from "../support/wire/index.js";
import { FakeSummaryModel } from "../support/wire/strategies.js";
import { EVERY_RUN } from "../support/hiding.js";

const counter = createTokenCounter({ mode: "approximate" });
const sessions = loadTraceSessions(defaultTracesPath());
const plain = () => new FakeSummaryModel("plain") as never;

interface TraceStrategy {
  readonly name: string;
  readonly create: (total: number) => CompactionStrategy;
}

const strategies: readonly TraceStrategy[] = [
  { name: "toolResultHiding (defaults)", create: () => toolResultHiding({ tokenCounter: counter }) },
  { name: "toolResultHiding (every run)", create: () => toolResultHiding({ ...EVERY_RUN, tokenCounter: counter }) },
  { name: "toolResultHiding (every run, keep 1 group, hide inputs)", create: () => toolResultHiding({ ...EVERY_RUN, tokenCounter: counter, keepRecentGroups: 1, hideToolInputs: true }) },
  { name: "selectiveCompact (target 1/3)", create: (total) => selectiveCompact({ tokenCounter: counter, target: Math.floor(total / 3) }) },
  { name: "stateSnapshotSummary (fake model)", create: (total) => stateSnapshotSummary({ tokenCounter: counter, model: plain(), contextWindow: total }) },
  { name: "stateSnapshotSummary (no model)", create: (total) => stateSnapshotSummary({ tokenCounter: counter, contextWindow: total }) },
  { name: "fullSummary (fake model, keepRecent 10)", create: () => fullSummary({ tokenCounter: counter, model: plain(), keepRecent: 10 }) },
  { name: "fullSummary (no model, keepRecent 3)", create: () => fullSummary({ tokenCounter: counter, keepRecent: 3 }) },
  { name: "hardTruncate (maxTokens 1/4)", create: (total) => hardTruncate({ tokenCounter: counter, maxTokens: Math.floor(total / 4), keepRecent: 10 }) },
  { name: "slidingWindow (keepTurns 2)", create: () => slidingWindow({ tokenCounter: counter, keepTurns: 2 }) },
  {
    name: "hidingThenSummary (trigger 1/2, fake model)",
    create: (total) => hidingThenSummary({ tokenCounter: counter, trigger: { tokens: Math.floor(total / 2) }, summary: { model: plain() } }),
  },
  {
    name: "selectiveThenSummary (trigger 1/2, no model)",
    create: (total) => selectiveThenSummary({ tokenCounter: counter, trigger: { tokens: Math.floor(total / 2) } }),
  },
  { name: "autoCompaction (window = size, fake model)", create: (total) => autoCompaction({ tokenCounter: counter, contextWindow: total, summaryModel: plain() }) },
  { name: "autoCompaction (window = 1/2 size, no model)", create: (total) => autoCompaction({ tokenCounter: counter, contextWindow: Math.floor(total / 2) }) },
];

/** Session id → problems, for the sessions with any. */
function problemsBySession(check: (messages: readonly BaseMessage[]) => string): Record<string, string> {
  return Object.fromEntries(sessions.flatMap((session) => {
    const found = check(session.messages);
    return found === "" ? [] : [[session.id, found]];
  }));
}

describe("recorded sessions", () => {
  it(`are ${sessions.length} sessions`, () => {
    expect(sessions.length).toBeGreaterThanOrEqual(2);
  });

  it("are accepted by OpenAI and Anthropic as recorded", () => {
    expect(problemsBySession((messages) => formatProblems(wireProblems(messages)))).toEqual({});
  });
});

describe.each(strategies)("$name on every recorded session", (strategy) => {
  it("returns a history OpenAI and Anthropic accept, without changing the session", async () => {
    const statuses = new Map<string, number>();
    const found: Record<string, string> = {};
    for (const session of sessions) {
      const snapshot = snapshotHistory(session.messages);
      const result = await strategy.create(await counter.countMessages(session.messages)).compact(session.messages);
      expectHistoryUnchanged(snapshot);
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
      const problems = formatProblems(wireProblems(result.messages));
      if (problems !== "") found[`${session.id} (${result.status})`] = problems;
    }
    console.log(`${strategy.name}: ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(found).toEqual({});
  });
});

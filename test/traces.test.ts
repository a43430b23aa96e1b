/**
 * Every strategy over every recorded session kept in the repository (examples/fixtures/), with
 * options relative to each session's size.
 *
 * One exact counter serves the whole file: it caches each message's count, so every session is
 * tokenized once.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions, type TraceSession } from "../examples/traces.js";
import {
  createTokenCounter,
  hardTruncate,
  selectiveCompact,
  slidingWindow,
  toolResultHiding,
  type CompactionResult,
} from "../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER, type CompactionStrategy } from "../src/extend/index.js";
import {
  expectEveryMessageAccountedOnce,
  expectHistoryUnchanged,
  expectLeadingSystemsKept,
  expectOrderKept,
  expectStatusMatchesChange,
  expectTokenFiguresRecount,
  expectTokensNotIncreased,
  expectValidPairing,
  expectWithinHardLimit,
  leadingSystemCount,
  snapshotHistory,
  sourcePositions,
  type HistorySnapshot,
} from "./support/invariants.js";
import { EVERY_RUN } from "./support/hiding.js";

const counter = createTokenCounter({ mode: "exact" });
const sessions = loadTraceSessions(defaultTracesPath());

const KEEP_RECENT_GROUPS = 5;
const KEEP_TURNS = 2;
const HARD_KEEP_RECENT = 10;
const selectiveTarget = (total: number) => Math.floor(total / 3);
const hardMaxTokens = (total: number) => Math.floor(total / 4);

interface StrategyCase {
  readonly name: string;
  readonly create: (total: number) => CompactionStrategy;
}

const strategyCases: readonly StrategyCase[] = [
  // Oldest-first hiding alone (no superseded results hidden first), which the checks below describe.
  {
    name: "toolResultHiding (every run, no receipts)",
    create: () => toolResultHiding({ ...EVERY_RUN, keepRecentGroups: KEEP_RECENT_GROUPS, receipts: false, supersession: false, tokenCounter: counter }),
  },
  { name: "selectiveCompact (target 1/3)", create: (total) => selectiveCompact({ tokenCounter: counter, target: selectiveTarget(total) }) },
  {
    name: "hardTruncate (maxTokens 1/4)",
    create: (total) => hardTruncate({ tokenCounter: counter, maxTokens: hardMaxTokens(total), keepRecent: HARD_KEEP_RECENT }),
  },
  { name: "slidingWindow (keepTurns 2)", create: () => slidingWindow({ tokenCounter: counter, keepTurns: KEEP_TURNS }) },
];

interface TraceRun {
  readonly input: readonly BaseMessage[];
  readonly total: number;
  readonly snapshot: HistorySnapshot;
  readonly result: CompactionResult;
}

/**
 * Compact a session in the enclosing describe's `beforeAll`, so its tests (the no-mutation check
 * included) run before the next strategy touches the session.
 */
function compactSession(session: TraceSession, strategyCase: StrategyCase): () => TraceRun {
  let run: TraceRun | undefined;
  beforeAll(async () => {
    const input = session.messages;
    const total = await counter.countMessages(input);
    const snapshot = snapshotHistory(input);
    run = { input, total, snapshot, result: await strategyCase.create(total).compact(input) };
  });
  return () => {
    if (run === undefined) throw new Error(`${strategyCase.name} did not run on ${session.id}`);
    return run;
  };
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, offset) => from + offset);

/** Positions of the messages of each type, computed from `type` alone. */
const positionsOfType = (messages: readonly BaseMessage[], type: string) =>
  messages.flatMap((message, position) => (message.type === type ? [position] : []));

/**
 * Tool results by the age of the group they belong to, computed independently of the package: a
 * group is an assistant message with tool calls, numbered in order, and a result belongs to the
 * group whose call id it answers.
 */
function toolResultsByGroup(messages: readonly BaseMessage[]): { groups: number; results: { position: number; group: number }[] } {
  const groupOfCall = new Map<string, number>();
  const results: { position: number; group: number }[] = [];
  let groups = 0;
  messages.forEach((message, position) => {
    if (AIMessage.isInstance(message) && (message.tool_calls ?? []).length > 0) {
      for (const call of message.tool_calls ?? []) groupOfCall.set(call.id ?? "", groups);
      groups += 1;
    } else if (ToolMessage.isInstance(message)) {
      results.push({ position, group: groupOfCall.get(message.tool_call_id) ?? -1 });
    }
  });
  return { groups, results };
}

describe.each(sessions)("session $id", (session) => {
  describe.each(strategyCases)("$name", (strategyCase) => {
    const run = compactSession(session, strategyCase);

    it("returns a history whose tool calls and results pair up", () => {
      expectValidPairing(run().result.messages);
    });

    it("keeps the leading system messages first, as the same objects", () => {
      expectLeadingSystemsKept(run().input, run().result.messages);
    });

    it("keeps the relative order of the messages it keeps or replaces", () => {
      expectOrderKept(run().input, run().result);
    });

    it("accounts for every input message exactly once as kept, replaced or removed", () => {
      expectEveryMessageAccountedOnce(run().input, run().result);
    });

    it("never increases the token count", () => {
      expectTokensNotIncreased(run().result);
    });

    it("reports token figures equal to a fresh count of its input and output", async () => {
      await expectTokenFiguresRecount(run().input, run().result, counter);
    });

    it("mutates neither the input array nor its messages", () => {
      expectHistoryUnchanged(run().snapshot);
    });

    it("reports noop exactly when it returns the input's messages unchanged (failed aside)", () => {
      expectStatusMatchesChange(run().input, run().result);
    });
  });

  describe("toolResultHiding with keepRecentGroups 5", () => {
    const run = compactSession(session, strategyCases[0]!);
    const byGroup = () => toolResultsByGroup(run().input);
    const olderResults = () => byGroup().results.filter((result) => result.group < byGroup().groups - KEEP_RECENT_GROUPS);
    const recentResults = () => byGroup().results.filter((result) => result.group >= byGroup().groups - KEEP_RECENT_GROUPS);

    it("hides exactly the results of all but the newest 5 tool-call groups that the placeholder would shorten", async () => {
      const { input, result } = run();
      const expected: number[] = [];
      for (const { position } of olderResults()) {
        const original = input[position] as ToolMessage;
        const hidden = new ToolMessage({ content: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, tool_call_id: original.tool_call_id, name: original.name });
        if ((await counter.countMessage(hidden)) < (await counter.countMessage(original))) expected.push(position);
      }
      expect(result.replaced.map((entry) => entry.index)).toEqual(expected);
    });

    it("keeps the results of the newest 5 groups as the same objects", () => {
      const { input, result } = run();
      expect(recentResults().filter(({ position }) => result.messages[position] !== input[position])).toEqual([]);
    });

    it("keeps every message in its place", () => {
      expect(run().result.messages).toHaveLength(run().input.length);
    });

    it("replaces a hidden result's content by the placeholder, keeping its id, name and tool_call_id", () => {
      const fields = (message: BaseMessage, content: unknown) => ({
        content,
        id: message.id,
        name: message.name,
        tool_call_id: ToolMessage.isInstance(message) ? message.tool_call_id : undefined,
      });
      const { replaced } = run().result;
      expect(replaced.map((entry) => fields(entry.after, entry.after.content))).toEqual(
        replaced.map((entry) => fields(entry.before, DEFAULT_HIDDEN_RESULT_PLACEHOLDER)),
      );
    });
  });

  describe("selectiveCompact with target 1/3 of the session", () => {
    const run = compactSession(session, strategyCases[1]!);

    it("keeps the newest 5 user messages as the same objects", () => {
      const { input, result } = run();
      const newest = positionsOfType(input, "human").slice(-5);
      expect(sourcePositions(input, result).filter((position) => newest.includes(position))).toEqual(newest);
      expect(result.replaced.filter((entry) => newest.includes(entry.index))).toEqual([]);
    });

    it("removes tool results oldest first", () => {
      const { input, result } = run();
      const removed = result.removed.map((entry) => entry.index).filter((position) => input[position]!.type === "tool");
      expect(removed).toEqual(positionsOfType(input, "tool").slice(0, removed.length));
    });

    it("gives a reason exactly when it stays over the target", () => {
      const { total, result } = run();
      const target = selectiveTarget(total);
      expect(result.reason !== undefined, `tokensAfter ${result.tokensAfter}, target ${target}, reason ${result.reason}`).toBe(
        result.tokensAfter > target,
      );
    });

    it("stays over the target only when no more than 3 tool results, 5 assistant and 5 user messages are left", () => {
      const { input, total, result } = run();
      const left = (type: string) => positionsOfType(result.messages, type).length;
      const rulesUsedUp = left("tool") <= 3 && left("ai") <= 5 && left("human") === Math.min(5, positionsOfType(input, "human").length);
      const outcome = result.tokensAfter <= selectiveTarget(total) ? "within target" : rulesUsedUp ? "rules used up" : "over target with rules left";
      expect(["within target", "rules used up"]).toContain(outcome);
    });
  });

  describe("hardTruncate with maxTokens 1/4 of the session", () => {
    const run = compactSession(session, strategyCases[2]!);

    it("fits maxTokens unless it fails, and returns the input unchanged when it fails", () => {
      const { input, total, result } = run();
      expectWithinHardLimit(input, result, hardMaxTokens(total));
    });

    it("keeps the system messages, then the newest user message before a contiguous tail, then that tail", () => {
      const { input, result } = run();
      const systems = leadingSystemCount(input);
      const [first, ...rest] = sourcePositions(input, result).slice(systems);
      // Either the tail opens the conversation itself, or the newest user message before it does.
      const tailOnly = rest.length === 0 || rest[0] === first! + 1;
      const tail = tailOnly ? [first!, ...rest] : rest;
      expect(tail).toEqual(range(input.length - tail.length, input.length));
      const userBeforeTail = positionsOfType(input, "human").filter((position) => position < tail[0]!).at(-1);
      if (!tailOnly) expect(first).toBe(userBeforeTail);
    });

    it("opens the conversation with a user message", () => {
      const { result } = run();
      expect(result.messages.find((message) => message.type !== "system")?.type).toBe("human");
    });

    it("keeps no more than keepRecent conversation messages and the user message before them, unless it fails", () => {
      const { input, result } = run();
      const systems = leadingSystemCount(input);
      const bound = result.status === "failed" ? input.length - systems : HARD_KEEP_RECENT + 1;
      expect(result.messages.length - systems).toBeLessThanOrEqual(bound);
    });
  });

  describe("slidingWindow with keepTurns 2", () => {
    const run = compactSession(session, strategyCases[3]!);

    it("keeps the system messages and everything from the second-newest user message on", () => {
      const { input, result } = run();
      const users = positionsOfType(input, "human");
      const cut = users.length <= KEEP_TURNS ? 0 : users[users.length - KEEP_TURNS]!;
      const expected = range(0, input.length).filter((position) => input[position]!.type === "system" || position >= cut);
      expect(sourcePositions(input, result)).toEqual(expected);
    });

    it("keeps every message it keeps as the same object", () => {
      expect(run().result.replaced).toEqual([]);
    });
  });
});

/**
 * `ToolResultHiding.freeableAtMost` and `AssistantTextTrimming.freeableAtMost`: what
 * autoCompaction's firing reads to skip a hiding (or a trimming) that cannot free `clearAtLeast`.
 * Neither may be under what a run frees, or a firing would skip one that was worth making.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { createTokenCounter, type CompactionResult, type ToolResultHidingOptions } from "../../src/index.js";
import { AssistantTextTrimming, ToolResultHiding } from "../../src/extend/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";

const counter = createTokenCounter({ mode: "exact" });

/** A hiding that reads its bound before each run, as the firing does. */
class BoundedHiding extends ToolResultHiding {
  bounds: ({ tokens: number; candidates: number } | undefined)[] = [];
  protected override run(history: PreparedHistory): Promise<StrategyOutcome> {
    this.bounds.push(this.freeableAtMost(history));
    return super.run(history);
  }
}

/** A trimming that reads its bound before each run, as the firing does. */
class BoundedTrimming extends AssistantTextTrimming {
  bounds: number[] = [];
  protected override run(history: PreparedHistory): Promise<StrategyOutcome> {
    this.bounds.push(this.freeableAtMost(history));
    return super.run(history);
  }
}

/** What a forced run freed: its own figure in a skipped firing, the counts' difference in a made one. */
function freed(result: CompactionResult): number | "nothing left" {
  if (result.status === "compacted") return result.tokensBefore - result.tokensAfter;
  const skipped = /^hiding would free (\d+) tokens, less than clearAtLeast/.exec(result.reason ?? "");
  if (skipped) return Number(skipped[1]);
  expect(result.reason).toBe("no tool result older than the kept groups is left to hide");
  return "nothing left";
}

/** Two coding sessions and two customer-service ones. */
const sessions = (() => {
  const all = loadTraceSessions(defaultTracesPath());
  return [...all.filter((session) => session.id.startsWith("mini-swe-agent/")).slice(0, 2), ...all.filter((session) => session.id.startsWith("tau-bench-airline/")).slice(0, 2)];
})();

/** Every step of the sessions, each hidden (forced) as an agent loop would have it. */
async function replay(options: ToolResultHidingOptions): Promise<{ checked: number; bounds: number[]; freed: number[] }> {
  const hiding = new BoundedHiding({ tokenCounter: counter, clearAtLeast: 1500, ...options });
  const bounds: number[] = [];
  const freedTokens: number[] = [];
  let checked = 0;
  for (const session of sessions) {
    let history: BaseMessage[] = [];
    for (const message of session.messages) {
      if (message.type === "ai" && history.length > 0) {
        const result = await hiding.compact(history, { force: true });
        const bound = hiding.bounds.at(-1)!;
        const made = freed(result);
        // With nothing counted, nothing is left to hide (the converse fails: a result found not worth hiding).
        if (bound.candidates === 0) expect(made).toBe("nothing left");
        if (made !== "nothing left") {
          bounds.push(bound.tokens);
          freedTokens.push(made);
        }
        checked++;
        // Half the firings go in, as some would: later runs see hidden results.
        if (result.status === "compacted" && checked % 2 === 0) history = result.messages;
      }
      history = [...history, message];
    }
  }
  return { checked, bounds, freed: freedTokens };
}

describe("toolResultHiding's bound on what a firing frees", () => {
  it("is never under what a forced run frees, on recorded sessions", async () => {
    for (const options of [{}, { keepRecentGroups: 1, receipts: false }, { keepRecentResults: { tokens: 2000 } }, { excludeTools: ["get_user_details", "get_reservation_details"] }] satisfies ToolResultHidingOptions[]) {
      const { checked, bounds, freed } = await replay(options);
      expect(checked).toBeGreaterThan(100);
      const under = bounds.flatMap((bound, n) => (bound < freed[n]! ? [`${bound} < ${freed[n]}`] : []));
      expect(under).toEqual([]);
      // Not a bound of nothing: most firings that free something are bounded by a figure under twice theirs.
      const close = bounds.filter((bound, n) => freed[n]! > 0 && bound < 2 * freed[n]!).length;
      expect(close / freed.filter((tokens) => tokens > 0).length).toBeGreaterThan(0.5);
    }
  });

  it("counts only results that a run may hide", async () => {
    const history = [system("s"), user("u1", "go"), ...step(1, "x ".repeat(500)), ...step(2, "y ".repeat(500)), ...step(3, "z ".repeat(500))];
    const hiding = new BoundedHiding({ tokenCounter: counter, keepRecentGroups: 1, clearAtLeast: 0 });
    const first = await hiding.compact(history, { force: true });
    expect(first.status).toBe("compacted");
    const results = [3, 5].map((position) => history[position]!);
    const both = hiding.bounds[0]!;
    expect(both).toEqual({ tokens: (await Promise.all(results.map((result) => counter.countMessage(result)))).reduce((sum, tokens) => sum + tokens, 0), candidates: 2 });
    // Once hidden, nothing is left to count.
    await hiding.compact(first.messages, { force: true });
    expect(hiding.bounds[1]).toEqual({ tokens: 0, candidates: 0 });
    // Results of an excluded tool, by their name, are not counted.
    const excluding = new BoundedHiding({ tokenCounter: counter, keepRecentGroups: 1, excludeTools: [history[3]!.name!] });
    await excluding.compact(history, { force: true });
    expect(excluding.bounds[0]).toEqual({ tokens: 0, candidates: 0 });
  });

  it("counts the superseded kept results a run hides first", async () => {
    const view = (n: number) => [assistant(`a${n}`, "", [{ id: `c${n}`, args: { command: "cat a.py" } }]), toolResult(`t${n}`, `c${n}`, "x ".repeat(500))];
    const history = [system("s"), user("u1", "go"), ...view(1), ...view(2)];
    for (const supersession of [true, false]) {
      const hiding = new BoundedHiding({ tokenCounter: counter, keepRecentGroups: 5, clearAtLeast: 0, supersession });
      const result = await hiding.compact(history, { force: true });
      expect([hiding.bounds[0], result.status]).toEqual(supersession ? [{ tokens: await counter.countMessage(history[3]!), candidates: 1 }, "compacted"] : [{ tokens: 0, candidates: 0 }, "noop"]);
    }
  });

  it("gives no bound where a run may free more than the older results", async () => {
    const history = [system("s"), user("u1", "go"), ...step(1, "x ".repeat(500)), ...step(2, "y ".repeat(500))];
    for (const options of [{ clearAtLeastMode: "extend" }, { hideToolInputs: true }] satisfies ToolResultHidingOptions[]) {
      const hiding = new BoundedHiding({ tokenCounter: counter, keepRecentGroups: 1, ...options });
      await hiding.compact(history, { force: true });
      expect(hiding.bounds).toEqual([undefined]);
    }
  });
});

describe("assistantTextTrimming's bound on what a run frees", () => {
  it("is never under what a run frees, on recorded sessions, and often under clearAtLeast where the run frees less", async () => {
    for (const keepRecentGroups of [2, 5]) {
      const trimming = new BoundedTrimming({ tokenCounter: counter, keepRecentGroups });
      const pairs: [number, number][] = [];
      for (const session of sessions) {
        let history: BaseMessage[] = [];
        let steps = 0;
        for (const message of session.messages) {
          if (message.type === "ai" && history.length > 0) {
            const result = await trimming.compact(history);
            pairs.push([trimming.bounds.at(-1)!, result.status === "compacted" ? result.tokensBefore - result.tokensAfter : 0]);
            // Some trimmings go in, as a firing's would: later runs see trimmed messages.
            if (result.status === "compacted" && ++steps % 3 === 0) history = result.messages;
          }
          history = [...history, message];
        }
      }
      expect(pairs.length).toBeGreaterThan(100);
      expect(pairs.filter(([bound, freed]) => bound < freed)).toEqual([]);
      expect(pairs.filter(([, freed]) => freed > 0).length).toBeGreaterThan(20);
      // What the firing gains: runs that free less than 2000 and whose bound says so without a copy.
      expect(pairs.filter(([bound]) => bound < 2000).length).toBeGreaterThan(pairs.length / 4);
    }
  });

  it("counts only older assistant messages with a text long enough to trim", async () => {
    const long = "why ".repeat(60);
    const history = [system("s"), user("u1", "go"), ...step(1), ...step(2), ...step(3)];
    history[2] = new AIMessage({ id: "a1", content: long, tool_calls: [{ id: "c1", name: "bash", args: { command: "cmd 1" } }] });
    const trimming = new BoundedTrimming({ tokenCounter: counter, keepRecentGroups: 1 });
    const result = await trimming.compact(history);
    // a2's text ("step 2") is too short to trim; a3's group is kept.
    expect(trimming.bounds).toEqual([await counter.countMessage(history[2]!)]);
    expect(result.replaced.map((entry) => entry.index)).toEqual([2]);
    await trimming.compact(result.messages);
    expect(trimming.bounds[1]).toBe(0);
  });
});

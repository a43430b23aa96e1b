import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions, type TraceSession } from "../../examples/traces.js";
import { GroundingTracker, groundingTextOf, groundingWords } from "../../bench/eval/grounding.js";
import { replayTrace, totalsOf } from "../../bench/eval/replay.js";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { ALL_SYSTEMS, noCompaction, type EvalSystem } from "../../bench/eval/systems.js";
import { createTokenCounter } from "../../src/index.js";
import { assistant, toolResult, user } from "../support/builders.js";

describe("groundingWords", () => {
  it("reads runs of letters, digits and underscores of 5 characters or more that start with a letter or an underscore", () => {
    expect(groundingWords("run get_queryset in models/query.py: 12345 abc _private Query Query 9abcdef")).toEqual(new Set(["get_queryset", "models", "query", "_private", "Query"]));
  });

  it("reads a tool call's name and argument values, not its argument names", () => {
    const call = assistant("a1", "Listing", [{ id: "c1", name: "search_files", args: { pattern: "ValueError", options: { paths: ["django/forms"] } } }]);
    expect(groundingWords(groundingTextOf(call))).toEqual(new Set(["Listing", "search_files", "ValueError", "django", "forms"]));
  });
});

describe("GroundingTracker", () => {
  const task = user("u1", "Fix the DEBUG_MODE flag in settings.py");
  const call = assistant("a1", "Reading it first", [{ id: "c1", args: { command: "cat settings.py" } }]);
  const output = toolResult("t1", "c1", "DEBUG_MODE = True\nALLOWED_HOSTS = ['example']");
  // Reuses DEBUG_MODE, settings (task), ALLOWED_HOSTS, example (output); "replace" and "False" are new.
  const reply = assistant("a2", "", [{ id: "c2", args: { command: "replace DEBUG_MODE False settings.py ALLOWED_HOSTS example" } }]);

  it("counts the reply's words the stream showed before it, and grounds those the input holds", () => {
    const tracker = new GroundingTracker();
    tracker.show([task, call, output]);
    const hidden = toolResult("t1", "c1", "[tool result hidden to save context]");
    expect([tracker.measure(reply, [task, call, output]), tracker.measure(reply, [task, call, hidden]), tracker.measure(reply, [])]).toEqual([
      { grounded: 4, reused: 4 },
      // ALLOWED_HOSTS and example were only in the hidden output.
      { grounded: 2, reused: 4 },
      { grounded: 0, reused: 4 },
    ]);
  });

  it("leaves out words shown only after the reply, and words the reply coins", () => {
    const tracker = new GroundingTracker();
    tracker.show([task]);
    const before = tracker.measure(reply, [task, call, output]);
    tracker.show([call, output, reply]);
    const coined = assistant("a3", "brandnew wordings");
    expect([before, tracker.measure(coined, [task, call, output, reply])]).toEqual([
      { grounded: 2, reused: 2 },
      { grounded: 0, reused: 0 },
    ]);
  });
});

const tokenCounter = createTokenCounter();
const shortest = loadTraceSessions(BUNDLED_TRACES_PATH).reduce((best, session) => (session.messages.length < best.messages.length ? session : best));
// A third of the session, as in replay.test.ts: every system with a trigger compacts.
const window = Math.floor((await tokenCounter.countMessages(shortest.messages)) / 3);

describe("reply grounding in a replay", () => {

  /** The definition, step by step from scratch: the reply's words seen in the recording before it, and of those, the ones in the input. */
  function direct(position: number, input: readonly BaseMessage[]) {
    const words = (messages: readonly BaseMessage[]) => new Set(messages.flatMap((message) => [...groundingWords(groundingTextOf(message))]));
    const seen = words(shortest.messages.slice(0, position));
    const held = words(input);
    const reused = [...words([shortest.messages[position]!])].filter((word) => seen.has(word));
    return { grounded: reused.filter((word) => held.has(word)).length, reused: reused.length };
  }

  for (const spec of ALL_SYSTEMS) {
    it(`${spec.name}: every step's grounding is the definition computed from scratch`, async () => {
      const inputs: (readonly BaseMessage[])[] = [];
      const run = await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), {
        window,
        tokenCounter,
        onInput: (input) => inputs.push(input),
      });
      expect(run.steps.map((step) => step.grounding)).toEqual(run.steps.map((step, index) => direct(step.position, inputs[index]!)));
    });
  }

  it("no compaction grounds every reused word; a system that compacts this session grounds fewer of the same words", async () => {
    const totals = async (spec: (typeof ALL_SYSTEMS)[number]) => {
      const run = await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) }), { window, tokenCounter });
      const { groundedWords, reusedWords } = totalsOf(run);
      return { groundedWords, reusedWords };
    };
    const none = await totals(noCompaction);
    const auto = await totals(ALL_SYSTEMS.find((spec) => spec.name === "autoCompaction")!);
    expect(none.groundedWords).toBe(none.reusedWords);
    expect(auto.reusedWords).toBe(none.reusedWords);
    expect(auto.groundedWords).toBeLessThan(auto.reusedWords);
  });

  it("does not count a word that only the system put in the context (a summary's, a placeholder's) as reused", async () => {
    const session: TraceSession = {
      source: "test",
      id: "test/injected",
      messages: [
        user("u1", "Please inspect config_loader"),
        assistant("a1", "", [{ id: "c1", args: { command: "cat config_loader.py" } }]),
        toolResult("t1", "c1", "def load_settings(): pass"),
        assistant("a2", "Calling load_settings from config_loader, as zyxwvut_note says"),
      ],
    };
    // Puts a message naming zyxwvut_note, a word the recording never showed, before every call.
    const injecting: EvalSystem = {
      name: "injecting",
      step: async (history) => {
        const input = [new HumanMessage({ id: "injected", content: "summary: zyxwvut_note" }), ...history];
        return { persisted: history, input, compacted: false, originals: [] };
      },
      drainSummaryCalls: () => [],
    };
    const run = await replayTrace(session, injecting, { window, tokenCounter });
    // Second reply: load_settings and config_loader are reused; Calling and zyxwvut_note were not in the recording before it.
    expect(run.steps.map((step) => step.grounding)).toEqual([
      { grounded: 1, reused: 1 },
      { grounded: 2, reused: 2 },
    ]);
  });
});

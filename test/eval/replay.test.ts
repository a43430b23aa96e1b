/**
 * The replay of the shorter of the two sessions in examples/fixtures/sessions.jsonl (so the expected
 * counts below do not move when the full trace set changes) through every system at a window small
 * enough to make each of them compact.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";
import { DEFAULT_PRICES } from "../../bench/eval/metrics.js";
import { replayTrace, summaryCallsCachedTokens, totalsOf, type TraceReplay } from "../../bench/eval/replay.js";
import { rowOf } from "../../bench/eval/report-tables.js";
import { DeterministicSummaryModel, type SummaryCall } from "../../bench/eval/summary-model.js";
import { ALL_SYSTEMS, clearToolUsesCreateAgent, clearToolUsesView, type SystemSpec } from "../../bench/eval/systems.js";
import { createTokenCounter } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { assistant, system, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();
const shortest = loadTraceSessions(BUNDLED_TRACES_PATH).reduce((best, session) => (session.messages.length < best.messages.length ? session : best));
// A third of the session: every system that has a trigger reaches it several times.
const WINDOW = Math.floor((await tokenCounter.countMessages(shortest.messages)) / 3);
// Half the session: here clearing once leaves ClearToolUsesEdit's history under its trigger for some
// calls, so its two readings (view, persisted as createAgent does) send different inputs.
const HALF_WINDOW = Math.floor((await tokenCounter.countMessages(shortest.messages)) / 2);

/** The deterministic summary model, remembering every prompt it was sent and every answer it gave. */
class RecordingSummaryModel extends DeterministicSummaryModel {
  readonly calls: { prompt: BaseMessage[]; answer: string }[] = [];

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const result = await super._generate(messages, options, runManager);
    this.calls.push({ prompt: messages, answer: result.generations[0]!.text });
    return result;
  }
}

async function replay(spec: SystemSpec, window = WINDOW): Promise<{ replay: TraceReplay; model: RecordingSummaryModel; inputs: (readonly BaseMessage[])[] }> {
  const model = new RecordingSummaryModel({ tokenCounter });
  const inputs: (readonly BaseMessage[])[] = [];
  const run = await replayTrace(shortest, spec.create({ window, tokenCounter, summaryModel: model }), { window, tokenCounter, onInput: (input) => inputs.push(input) });
  return { replay: run, model, inputs };
}

/**
 * Compactions and summary calls of each system on this session at this window. The counts of ours
 * follow the package's defaults: a change there shows here (rerun the replay and update them).
 */
const EXPECTED: Record<string, { compactions: number; summaryCalls: number }> = {
  "no compaction": { compactions: 0, summaryCalls: 0 },
  "ClearToolUsesEdit (view)": { compactions: 22, summaryCalls: 0 },
  "ClearToolUsesEdit (createAgent)": { compactions: 22, summaryCalls: 0 },
  summarizationMiddleware: { compactions: 18, summaryCalls: 18 },
  // Its default trigger, half the window (1,856 tokens), is reached twice.
  toolResultHiding: { compactions: 2, summaryCalls: 0 },
  hidingThenSummary: { compactions: 11, summaryCalls: 11 },
  selectiveThenSummary: { compactions: 11, summaryCalls: 11 },
  stateSnapshotSummary: { compactions: 25, summaryCalls: 25 },
  autoCompaction: { compactions: 11, summaryCalls: 11 },
  "autoCompaction (summaries at the firing)": { compactions: 11, summaryCalls: 11 },
  "autoCompaction (prepared from 0.9 of the way)": { compactions: 11, summaryCalls: 11 },
  "autoCompaction (agent's model, shared prefix)": { compactions: 11, summaryCalls: 11 },
  // The window is under 14,000 tokens: its 0.8 threshold fires, as the default's does here.
  "autoCompaction (frugal: trigger 14,000 tokens, 2 groups kept)": { compactions: 11, summaryCalls: 11 },
};

const modelCallsOf = (session: typeof shortest) => session.messages.filter((message) => message.type === "ai").length;

describe(`replay of ${shortest.id} (${shortest.messages.length} messages) at a ${WINDOW}-token window`, () => {
  for (const spec of ALL_SYSTEMS) {
    it(`${spec.name}: one model call per recorded assistant message, every one with valid tool pairing`, async () => {
      const totals = totalsOf((await replay(spec)).replay);
      expect([totals.modelCalls, totals.pairingValidSteps]).toEqual([modelCallsOf(shortest), modelCallsOf(shortest)]);
    });

    it(`${spec.name}: compacts ${EXPECTED[spec.name]!.compactions} times with ${EXPECTED[spec.name]!.summaryCalls} summary calls`, async () => {
      const totals = totalsOf((await replay(spec)).replay);
      expect({ compactions: totals.compactions, summaryCalls: totals.summaryCalls }).toEqual(EXPECTED[spec.name]);
    });
  }

  // Only autoCompaction promises this (its hard limit truncates what a summary leaves over the
  // window); the other policies have no such fallback and, at a window this small, can go over.
  for (const spec of ALL_SYSTEMS.filter((system) => system.name === "autoCompaction")) {
    it(`${spec.name}: no model call and no summary call over the window`, async () => {
      const totals = totalsOf((await replay(spec)).replay);
      expect([totals.callsOverWindow, totals.summaryCallsOverWindow]).toEqual([0, 0]);
    });
  }

  for (const spec of ALL_SYSTEMS.filter((system) => EXPECTED[system.name]!.summaryCalls > 0)) {
    it(`${spec.name}: the summary calls' tokens, counted by hand, are in the totals`, async () => {
      const { replay: run, model } = await replay(spec);
      const totals = totalsOf(run);
      expect(model.calls.length).toBe(EXPECTED[spec.name]!.summaryCalls);
      let input = 0;
      let output = 0;
      for (const call of model.calls) {
        input += await tokenCounter.countMessages(call.prompt);
        output += await tokenCounter.countText(call.answer);
      }
      const row = rowOf(spec.name, spec.kind, totals, DEFAULT_PRICES);
      expect({ calls: totals.summaryCalls, input: row.inputTokens, output: row.outputTokens }).toEqual({
        calls: EXPECTED[spec.name]!.summaryCalls,
        input: run.steps.reduce((sum, step) => sum + step.inputTokens, 0) + input,
        output: run.agentOutputTokens + output,
      });
    });
  }

  it("no compaction: every call after the first reuses the whole previous input as its cached prefix", async () => {
    const { replay: run } = await replay(ALL_SYSTEMS[0]!);
    const perMessage = (await tokenCounter.measure(shortest.messages)).perMessage;
    // The previous input is the recording up to the previous assistant message, exclusive; the cached
    // prefix is all of it (the reply that followed it is new to this call).
    const expected = run.steps.map((step, index) => (index === 0 ? 0 : perMessage.slice(0, run.steps[index - 1]!.position).reduce((sum, tokens) => sum + tokens, 0)));
    expect(run.steps.map((step) => step.cachedTokens)).toEqual(expected);
  });

  it("ClearToolUsesEdit (view): each call's input depends on the recording up to it only, not on what earlier calls sent", async () => {
    const { replay: run, inputs } = await replay(clearToolUsesView, HALF_WINDOW);
    // A fresh system given the recording up to each call sends the same: nothing an earlier call did
    // carries over (with the edit persisted, a result cleared once would stay cleared: see the next test).
    const fresh: string[][] = [];
    for (const step of run.steps) {
      const system = clearToolUsesView.create({ window: HALF_WINDOW, tokenCounter, summaryModel: new RecordingSummaryModel({ tokenCounter }) });
      fresh.push((await system.step(shortest.messages.slice(0, step.position))).input.map(messageText));
    }
    expect(inputs.map((input) => input.map(messageText))).toEqual(fresh);
  });

  it("ClearToolUsesEdit (createAgent): keeps what it cleared, so at half the session's size it sends other inputs than the view at 7 calls", async () => {
    const texts = (inputs: (readonly BaseMessage[])[]) => inputs.map((input) => input.map(messageText).join("\u0000"));
    const view = texts((await replay(clearToolUsesView, HALF_WINDOW)).inputs);
    const persisted = texts((await replay(clearToolUsesCreateAgent, HALF_WINDOW)).inputs);
    expect(persisted.filter((input, call) => input !== view[call]).length).toBe(7);
  });

  it("every summary prompt here stands alone (one message holding the conversation as text): no summary call has a cached prefix", async () => {
    const summarizing = ALL_SYSTEMS.filter((spec) => EXPECTED[spec.name]!.summaryCalls > 0);
    const cached: Record<string, [number, number]> = {};
    for (const spec of summarizing) {
      const { replay: run } = await replay(spec);
      cached[spec.name] = [totalsOf(run).summaryCachedTokens, run.steps.flatMap((step) => step.summaryCalls).filter((call) => call.messages.length !== 1).length];
    }
    expect(cached).toEqual(Object.fromEntries(summarizing.map((spec) => [spec.name, [0, 0]])));
  });
});

describe("summaryCallsCachedTokens", () => {
  const [s, u, a] = [system("s", "rules"), user("u", "fix it"), assistant("a", "looking")];
  const call = (messages: SummaryCall["messages"], perMessage: number[]): SummaryCall => ({ inputTokens: perMessage.reduce((sum, tokens) => sum + tokens, 0), outputTokens: 5, messages, perMessage });

  it("counts a summary prompt's common prefix with the previous model call, per call", () => {
    // The first call repeats the system prompt and the request, then asks; the second repeats only the system prompt.
    const calls = [call([s, u, user("ask", "summarize")], [10, 20, 30]), call([s, user("ask2", "summarize")], [10, 40])];
    expect(summaryCallsCachedTokens(calls, [s, u, a])).toBe(30 + 10);
  });

  it("is 0 for a standalone prompt and before the first model call", () => {
    expect([summaryCallsCachedTokens([call([user("p", "rules\nfix it")], [50])], [s, u, a]), summaryCallsCachedTokens([call([s, u], [10, 20])], [])]).toEqual([0, 0]);
  });
});

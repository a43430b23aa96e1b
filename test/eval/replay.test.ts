/**
 * The replay of the shortest recorded session (of the shared trace set, or of the bundled sessions
 * without `../shared`) through every system at a window small enough to make each of them compact.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { DEFAULT_PRICES } from "../../bench/eval/metrics.js";
import { replayTrace, totalsOf, type TraceReplay } from "../../bench/eval/replay.js";
import { rowOf } from "../../bench/eval/report.js";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { ALL_SYSTEMS, type SystemSpec } from "../../bench/eval/systems.js";
import { createTokenCounter, messageText } from "../../src/index.js";

const tokenCounter = createTokenCounter();
const shortest = loadTraceSessions(defaultTracesPath()).reduce((best, session) => (session.messages.length < best.messages.length ? session : best));
// A third of the session: every system that has a trigger reaches it several times.
const WINDOW = Math.floor((await tokenCounter.countMessages(shortest.messages)) / 3);

/** The deterministic summary model, remembering every prompt it was sent and every answer it gave. */
class RecordingSummaryModel extends DeterministicSummaryModel {
  readonly calls: { prompt: BaseMessage[]; answer: string }[] = [];

  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const result = await super._generate(messages, options, runManager);
    this.calls.push({ prompt: messages, answer: result.generations[0]!.text });
    return result;
  }
}

async function replay(spec: SystemSpec): Promise<{ replay: TraceReplay; model: RecordingSummaryModel }> {
  const model = new RecordingSummaryModel({ tokenCounter });
  return { replay: await replayTrace(shortest, spec.create({ window: WINDOW, tokenCounter, summaryModel: model }), { window: WINDOW, tokenCounter }), model };
}

const modelCallsOf = (session: typeof shortest) => session.messages.filter((message) => message.type === "ai").length;

describe(`replay of ${shortest.id} (${shortest.messages.length} messages) at a ${WINDOW}-token window`, () => {
  for (const spec of ALL_SYSTEMS) {
    it(`${spec.name}: one model call per recorded assistant message, every one with valid tool pairing`, async () => {
      const totals = totalsOf((await replay(spec)).replay);
      expect([totals.modelCalls, totals.pairingValidSteps]).toEqual([modelCallsOf(shortest), modelCallsOf(shortest)]);
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

  for (const spec of ALL_SYSTEMS.filter((system) => system.name !== "no compaction" && system.name !== "ClearToolUsesEdit" && system.name !== "toolResultHiding")) {
    it(`${spec.name}: the summary calls' tokens, counted by hand, are in the totals`, async () => {
      const { replay: run, model } = await replay(spec);
      const totals = totalsOf(run);
      let input = 0;
      let output = 0;
      for (const call of model.calls) {
        input += await tokenCounter.countMessages(call.prompt);
        output += await tokenCounter.countText(call.answer);
      }
      const row = rowOf(spec.name, spec.kind, totals, DEFAULT_PRICES);
      // The window is small enough that every summarizing system summarizes at least once.
      expect(model.calls.length).toBeGreaterThanOrEqual(1);
      expect({ calls: totals.summaryCalls, input: row.inputTokens, output: row.outputTokens }).toEqual({
        calls: model.calls.length,
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

  it("ClearToolUsesEdit: what the model receives is a view; the recorded messages are never changed", async () => {
    const before = shortest.messages.map(messageText);
    await replay(ALL_SYSTEMS[1]!);
    expect(shortest.messages.map(messageText)).toEqual(before);
  });
});

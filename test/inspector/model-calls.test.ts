import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { modelCallFigures } from "../../src/inspector/model-calls.js";

const history = [
  new HumanMessage({ id: "h1", content: "Fix it" }),
  new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "bash", args: {} }] }),
  new ToolMessage({ id: "t1", tool_call_id: "c1", content: "output" }),
  new AIMessage({ id: "a2", content: "Done" }),
  new HumanMessage({ id: "h2", content: "Thanks" }),
  new AIMessage({ id: "a3", content: "Welcome" }),
];

describe("modelCallFigures", () => {
  it("one call per assistant message; its request is the context at the step before, after a compaction there, plus the priming", () => {
    const chart = [
      { step: 0, tokens: 100 },
      { step: 1, tokens: 150 },
      // A compaction ran after t1 entered, before the model was called for a2: 900 down to 200.
      { step: 2, tokens: 900, after: 200 },
      { step: 3, tokens: 250 },
      { step: 4, tokens: 700 },
      { step: 5, tokens: 760 },
    ];
    // Requests: a1 100 + 3, a2 200 + 3 (not 900: that context was never sent), a3 700 + 3.
    expect(modelCallFigures(history, chart, 3)).toEqual({ modelCalls: 3, peakContextTokens: 703, peakCallStep: 5 });
  });

  it("the largest request may come before a compaction's drop", () => {
    const chart = [
      { step: 0, tokens: 100 },
      { step: 1, tokens: 150 },
      { step: 2, tokens: 800 },
      { step: 3, tokens: 850 },
      { step: 4, tokens: 900, after: 50 },
      { step: 5, tokens: 60 },
    ];
    expect(modelCallFigures(history, chart, 0)).toEqual({ modelCalls: 3, peakContextTokens: 800, peakCallStep: 3 });
  });

  it("a thread without assistant messages: no calls, a peak of 0", () => {
    expect(modelCallFigures([history[0]!], [{ step: 0, tokens: 100 }], 3)).toEqual({ modelCalls: 0, peakContextTokens: 0, peakCallStep: null });
  });
});

/**
 * The composition matrix: compactionMiddleware (in the model's step, the default) with each of
 * LangChain's middleware, listed before it and after it, on a SQLite checkpointer, with a scripted
 * tool-calling model that runs past several compactions. Each run is checked against the same agent
 * without compaction (see `expectComposes`).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import {
  ClearToolUsesEdit,
  anthropicPromptCachingMiddleware,
  contextEditingMiddleware,
  dynamicSystemPromptMiddleware,
  humanInTheLoopMiddleware,
  llmToolSelectorMiddleware,
  modelCallLimitMiddleware,
  modelFallbackMiddleware,
  modelRetryMiddleware,
  piiMiddleware,
  summarizationMiddleware,
  todoListMiddleware,
  toolCallLimitMiddleware,
  toolErrorMiddleware,
  toolRetryMiddleware,
  type AgentMiddleware,
} from "langchain";
import { describe, it } from "vitest";
import { assistant } from "../support/builders.js";
import { lookupTool } from "../langgraph/support/lookup-tool.js";
import { expectComposes, runScenario, type Scenario } from "./support/middleware-matrix.js";

const STEPS = 6;

/** A model that calls `lookup` STEPS times (a1..a6, calls c1..c6), then answers. */
export function lookups(steps = STEPS) {
  const model = fakeModel();
  for (let n = 1; n <= steps; n++) model.respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
  return model.respond(assistant("final", "done"));
}

const plain = (middleware: () => AgentMiddleware[], extra: Partial<Scenario> = {}): Scenario => ({
  middleware,
  models: () => ({ agent: lookups(), checked: [] }),
  tools: () => [lookupTool()],
  input: () => [new HumanMessage({ id: "h1", content: "look six things up" })],
  ...extra,
});

/** A summary model for LangChain's summarization: always the same summary. */
const summaryModel = () => {
  const model = fakeModel();
  for (let n = 0; n < 10; n++) model.respond(new AIMessage("a summary of the conversation"));
  return model;
};

const scenarios: Record<string, Scenario> = {
  modelRetryMiddleware: plain(() => [modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false })]),
  modelFallbackMiddleware: plain(() => [modelFallbackMiddleware(fakeModel().respond(new AIMessage("fallback")))]),
  toolRetryMiddleware: plain(() => [toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false })]),
  humanInTheLoopMiddleware: { ...plain(() => [humanInTheLoopMiddleware({ interruptOn: { lookup: true } })]), resume: { decisions: [{ type: "approve" }] } },
  todoListMiddleware: plain(() => [todoListMiddleware()]),
  llmToolSelectorMiddleware: plain(() => [llmToolSelectorMiddleware({ model: fakeModel().structuredResponse({ tools: ["lookup"] }), maxTools: 1 })]),
  toolCallLimitMiddleware: plain(() => [toolCallLimitMiddleware({ runLimit: 50 })]),
  modelCallLimitMiddleware: plain(() => [modelCallLimitMiddleware({ runLimit: 50 })]),
  piiMiddleware: plain(() => [piiMiddleware("email", { strategy: "redact", applyToInput: true, applyToToolResults: true })], {
    input: () => [new HumanMessage({ id: "h1", content: "look six things up for ann@example.com" })],
  }),
  dynamicSystemPromptMiddleware: plain(() => [dynamicSystemPromptMiddleware(() => "You look things up.")]),
  toolErrorMiddleware: plain(() => [toolErrorMiddleware({ onError: () => "the tool failed" })]),
  anthropicPromptCachingMiddleware: plain(() => [anthropicPromptCachingMiddleware({ unsupportedModelBehavior: "ignore" })]),
  summarizationMiddleware: plain(() => [summarizationMiddleware({ model: summaryModel(), trigger: { messages: 10 }, keep: { messages: 4 } })]),
  // LangChain's edits the state's own array in place: its run loses the originals, compaction's restores them.
  contextEditingMiddleware: plain(() => [contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: [{ messages: 8 }], keep: { messages: 2 } })] })], {
    history: "without middleware",
  }),
};

// With recall on, compaction also names references and gives the agent the recall tool.
for (const recall of [false, true]) {
  describe(`compactionMiddleware${recall ? " (recall on)" : ""} with each of LangChain's middleware, in both orders`, () => {
    for (const [name, scenario] of Object.entries(scenarios)) {
      it(`${name}: before and after compaction, the run is the run without compaction, compacted`, async () => {
        const baseline = await runScenario(scenario, "none");
        const history = scenario.history === "without middleware" ? await runScenario(scenario, "bare") : baseline;
        expectComposes(await runScenario(scenario, "first", recall), baseline, 2, history);
        // Listed after a middleware that edits the state's array in place, what that edit loses stays lost,
        // and once it has put messages without ids in the state, compaction applies to the call only.
        expectComposes(await runScenario(scenario, "last", recall), baseline, history === baseline ? 2 : 1, history, history === baseline ? undefined : baseline);
      });
    }
  });
}

export type { BaseMessage };

/**
 * The composition matrix's realistic stacks, each with compactionMiddleware listed first and last:
 * human-in-the-loop with a todo list, interrupted and resumed mid-run; model retry with fallback,
 * the primary model failing; structured output whose first parse fails.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import {
  anthropicPromptCachingMiddleware,
  createAgent,
  humanInTheLoopMiddleware,
  modelFallbackMiddleware,
  modelRetryMiddleware,
  todoListMiddleware,
  toolStrategy,
} from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { createTokenCounter, toolResultHiding } from "../../src/index.js";
import { anthropicCacheAnchorsMiddleware, compactionMiddleware } from "../../src/middleware/index.js";
import { assistant, step, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";
import { bodyBreakpoints, recordingAnthropic } from "../support/recording-models.js";
import { lookupTool } from "../langgraph/support/lookup-tool.js";
import { expectComposes, runScenario, type RunResult, type Scenario } from "./support/middleware-matrix.js";

const ask = () => [new HumanMessage({ id: "h1", content: "look six things up" })];
const lookupCall = (n: number) => assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]);

describe("compactionMiddleware in realistic stacks of LangChain's middleware", () => {
  it("human-in-the-loop with a todo list: the call to q4 is interrupted and rejected, then the run goes on", async () => {
    /** The compactions logged when the run stopped at the interrupt. */
    const atInterrupt: number[] = [];
    const scenario: Scenario = {
      middleware: () => [
        todoListMiddleware(),
        humanInTheLoopMiddleware({ interruptOn: { lookup: { allowedDecisions: ["approve", "reject"], when: ({ toolCall }) => toolCall.args.query === "q4" } } }),
      ],
      models: () => {
        const model = fakeModel().respondWithTools([{ name: "write_todos", args: { todos: [{ content: "look things up", status: "in_progress" }] }, id: "todo-1" }]);
        for (let n = 1; n <= 6; n++) model.respond(lookupCall(n));
        return { agent: model.respond(assistant("final", "done")), checked: [] };
      },
      tools: () => [lookupTool()],
      input: ask,
      resume: { decisions: [{ type: "reject", message: "not that one" }] },
      onInterrupt: (values) => atInterrupt.push(values.compactionLog?.length ?? 0),
    };
    const baseline = await runScenario(scenario, "none");
    const first = await runScenario(scenario, "first");
    const last = await runScenario(scenario, "last");
    expectComposes(first, baseline);
    expectComposes(last, baseline);
    // The model call that made the interrupted call compacted in its own step, checkpointed before
    // the interrupt; the resume runs the human-in-the-loop step again, not the model's.
    expect({ interrupts: baseline.interrupts, atInterrupt, todos: (first.values as { todos?: unknown }).todos }).toEqual({
      interrupts: 1,
      // Without compaction, then with it listed first and last.
      atInterrupt: [0, 1, 1],
      todos: [{ content: "look things up", status: "in_progress" }],
    });
  });

  it("model retry with fallback: the primary model fails twice at the fourth call and the fallback answers it", async () => {
    const scenario: Scenario = {
      middleware: () => [modelFallbackMiddleware(fallback), modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false, onFailure: "error" })],
      models: () => {
        const primary = fakeModel();
        for (const n of [1, 2, 3]) primary.respond(lookupCall(n));
        primary.respond(new Error("overloaded")).respond(new Error("overloaded"));
        for (const n of [5, 6]) primary.respond(lookupCall(n));
        fallback = fakeModel().respond(lookupCall(4));
        return { agent: primary.respond(assistant("final", "done")), checked: [fallback] };
      },
      tools: () => [lookupTool()],
      input: ask,
    };
    // The fallback model of the run being built (models() runs before middleware()).
    let fallback = fakeModel();
    const baseline = await runScenario(scenario, "none");
    const first = await runScenario(scenario, "first");
    expectComposes(first, baseline);
    const last = await runScenario(scenario, "last");
    expectComposes(last, baseline);
    // The fourth answer is the fallback's, and the primary was asked twice for it.
    expect({ requests: last.requests.length, fourth: last.values.messages.filter((message) => AIMessage.isInstance(message)).map((message) => message.id)[3] }).toEqual({
      requests: 9,
      fourth: "a4",
    });
  });

  it("structured output whose first parse fails: the retry and the structured response are the run's without compaction", async () => {
    const answer = (id: string, args: Record<string, unknown>) => new AIMessage({ id, content: "", tool_calls: [{ id: `call-${id}`, name: "Answer", args }] });
    const scenario: Scenario = {
      middleware: () => [],
      models: () => {
        const model = fakeModel();
        for (let n = 1; n <= 5; n++) model.respond(lookupCall(n));
        return { agent: model.respond(answer("s1", { wrong: 1 })).respond(answer("s2", { answer: "five things" })), checked: [] };
      },
      tools: () => [lookupTool()],
      input: ask,
      responseFormat: () => toolStrategy(z.object({ answer: z.string() }).meta({ title: "Answer" })),
    };
    const baseline: RunResult = await runScenario(scenario, "none");
    const run = await runScenario(scenario, "first");
    expectComposes(run, baseline);
    expect({
      structured: run.values.structuredResponse,
      // The retry's error result answers the first structured call, in the state and in the second request.
      retried: run.values.messages.filter((message) => message.type === "tool" && (message as { tool_call_id?: string }).tool_call_id === "call-s1").length,
      lastRequestAnswersRetry: run.requests.at(-1)!.some((message) => (message as { tool_call_id?: string }).tool_call_id === "call-s1"),
    }).toEqual({ structured: { answer: "five things" }, retried: 1, lastRequestAnswersRetry: true });
  });

  it("anthropicPromptCachingMiddleware and the cache anchors on a real ChatAnthropic: anchors after compaction meet the request's breakpoint", async () => {
    const bodiesFor = async (order: "compaction first" | "compaction last") => {
      const { model, bodies } = recordingAnthropic();
      const caching = [anthropicPromptCachingMiddleware(), anthropicCacheAnchorsMiddleware()];
      const hiding = compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter: createTokenCounter() }));
      const middleware = order === "compaction first" ? [hiding, ...caching] : [...caching, hiding];
      await createAgent({ model, tools: [], middleware, checkpointer: new MemorySaver() }).invoke({ messages: [user("u"), ...[1, 2, 3, 4].flatMap((n) => step(n))] }, { configurable: { thread_id: "c" } });
      return bodyBreakpoints(bodies[0]!);
    };
    // Listed before the compaction, the anchors are found on the history before this call's hiding:
    // the newest hidden result's anchor (on a3, message 5) is missing from the request.
    expect({ first: await bodiesFor("compaction first"), last: await bodiesFor("compaction last") }).toEqual({ first: ["top", "1/1", "5/1"], last: ["top", "1/1"] });
  });
});

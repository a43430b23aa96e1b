/**
 * The composition matrix's harness: one `createAgent` run of a scenario (LangChain middleware, a
 * scripted tool-calling model), with compactionMiddleware first, last or absent, on a SQLite
 * checkpointer, and what the checks compare.
 */
import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import type { FakeBuiltModel } from "@langchain/core/testing";
import { Command, InMemoryStore, type PutOperation, type Operation, type OperationResults } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent, type AgentMiddleware } from "langchain";
import { expect } from "vitest";
import { restoreHistory, toolResultHiding, validateToolPairing, type CompactionRecord } from "../../../src/index.js";
import { compactionMiddleware } from "../../../src/middleware/index.js";
import { EVERY_RUN } from "../../support/hiding.js";

/** A store that counts the writes of each key. */
export class CountingStore extends InMemoryStore {
  readonly puts = new Map<string, number>();

  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    for (const operation of operations) {
      if ("value" in operation && "key" in operation) {
        const key = `${(operation as PutOperation).namespace.join("/")}/${(operation as PutOperation).key}`;
        this.puts.set(key, (this.puts.get(key) ?? 0) + 1);
      }
    }
    return super.batch(operations);
  }
}

/** A scenario: the LangChain middleware and the models, made fresh for every run. */
export interface Scenario {
  readonly middleware: () => AgentMiddleware[];
  /** The agent's model and every model whose requests to check (a fallback's). */
  readonly models: () => { agent: FakeBuiltModel; checked: FakeBuiltModel[] };
  readonly tools: () => unknown[];
  readonly input: () => BaseMessage[];
  readonly responseFormat?: () => unknown;
  /** The resume value for an interrupt (human-in-the-loop). */
  readonly resume?: unknown;
  /** Called with the state at each interrupt, before it is resumed. */
  readonly onInterrupt?: (values: RunResult["values"]) => void;
  /**
   * With compaction listed first: whose history `restoreHistory` must give back: the run without
   * compaction (the default), or, for a middleware that edits the state's messages in place and so
   * loses them in that run, the run without any middleware (compaction's copy keeps them).
   */
  readonly history?: "without compaction" | "without middleware";
}

/** What a run left. */
export interface RunResult {
  readonly requests: BaseMessage[][];
  readonly values: { messages: BaseMessage[]; compactionLog?: CompactionRecord[]; structuredResponse?: unknown };
  readonly checkpoints: number;
  readonly lastStep: number;
  readonly interrupts: number;
  readonly store: CountingStore;
  readonly restored: BaseMessage[];
}

export type Placement = "first" | "last" | "none" | "bare";

/** The compaction under test: every tool result but the 2 newest groups' hidden, at every call. */
const compaction = (recall: boolean) => compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 2 }), recall ? { recall: true } : {});

/** Run `scenario` with compaction placed as `placement`; `recall`: with the recall tool and references on. */
export async function runScenario(scenario: Scenario, placement: Placement, recall = false): Promise<RunResult> {
  const { agent: model, checked } = scenario.models();
  const others = placement === "bare" ? [] : scenario.middleware();
  const middleware = placement === "none" || placement === "bare" ? others : placement === "first" ? [compaction(recall), ...others] : [...others, compaction(recall)];
  const checkpointer = SqliteSaver.fromConnString(":memory:");
  const store = new CountingStore();
  const agent = createAgent({
    model,
    tools: scenario.tools() as never,
    middleware: middleware as never,
    checkpointer,
    store,
    ...(scenario.responseFormat ? { responseFormat: scenario.responseFormat() as never } : {}),
  });
  const config = { configurable: { thread_id: "matrix" }, recursionLimit: 200 };
  let interrupts = 0;
  // The structured response is not checkpointed (LangChain keeps it in an untracked channel): taken from the run's output.
  let output = (await agent.invoke({ messages: scenario.input() } as never, config as never)) as { structuredResponse?: unknown };
  // Each interrupt is resumed as a person would, from the checkpoint it left.
  for (let state = await agent.graph.getState(config); state.tasks.some((task) => task.interrupts.length > 0); state = await agent.graph.getState(config)) {
    interrupts++;
    if (interrupts > 50) throw new Error("the run keeps interrupting");
    scenario.onInterrupt?.(state.values as RunResult["values"]);
    output = (await agent.invoke(new Command({ resume: scenario.resume }) as never, config as never)) as { structuredResponse?: unknown };
  }
  const { values } = await agent.graph.getState(config);
  let checkpoints = 0;
  let lastStep = -1;
  for await (const checkpoint of checkpointer.list({ configurable: { thread_id: "matrix" } })) {
    checkpoints++;
    lastStep = Math.max(lastStep, checkpoint.metadata?.step ?? -1);
  }
  const restored = await restoreHistory(values as never, { store, threadId: "matrix" });
  const requests = [model, ...checked].flatMap((each) => each.calls.map((call) => call.messages as BaseMessage[]));
  return { requests, values: { ...(values as RunResult["values"]), structuredResponse: output.structuredResponse }, checkpoints, lastStep, interrupts, store, restored };
}

/** A message as the provider would get it, ids aside (LangChain's own messages get random ones). */
export const wire = (message: BaseMessage) => [
  message.type,
  message.content,
  (message as ToolMessage).tool_call_id,
  AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((call) => [call.id, call.name]) : undefined,
];

/**
 * The matrix's checks of a run with compaction against the same scenario's run without: every
 * request pairs its tool calls; the state has no message twice; `restoreHistory` gives the history
 * of `history` (by default the run without compaction) exactly, where a message may instead be as
 * `lostAnyway` has it; every archive entry in the store is named by a record and
 * written once; as many checkpoints, graph steps, model calls and interrupts; at least `compactions` compactions.
 */
export function expectComposes(run: RunResult, baseline: RunResult, compactions = 2, history: RunResult = baseline, lostAnyway?: RunResult): void {
  const ids = run.values.messages.map((message) => message.id);
  const log = run.values.compactionLog ?? [];
  // The archive's entries; the log's records are written beside them, under the "log" label.
  const entries = [...run.store.puts.entries()].filter(([key]) => key.startsWith("langchain-compaction/archive/") && key.split("/").at(-2) !== "log");
  expect({
    pairing: run.requests.map((request) => validateToolPairing(request).map((problem) => problem.kind)),
    duplicateIds: ids.filter((id, position) => ids.indexOf(id) !== position),
    // A message as `lostAnyway` has it (what a middleware's own in-place edit loses without compaction) counts as the original.
    restored: run.restored.map((message, position) => {
      const alternative = lostAnyway?.values.messages[position];
      return alternative && JSON.stringify(wire(alternative)) === JSON.stringify(wire(message)) ? wire(history.values.messages[position]!) : wire(message);
    }),
    archived: entries.map(([key]) => key.split("/").at(-1)).sort(),
    writes: entries.filter(([, count]) => count !== 1),
    recordIds: new Set(log.map((record) => record.id)).size,
    shape: [run.checkpoints, run.lastStep, run.requests.length, run.interrupts],
    structured: run.values.structuredResponse,
  }).toEqual({
    pairing: baseline.requests.map(() => []),
    duplicateIds: [],
    restored: history.values.messages.map(wire),
    archived: log.filter((record) => record.archive === "store").map((record) => record.id).sort(),
    writes: [],
    recordIds: log.length,
    shape: [baseline.checkpoints, baseline.lastStep, baseline.requests.length, baseline.interrupts],
    structured: baseline.values.structuredResponse,
  });
  expect(log.filter((record) => record.status === "compacted").length).toBeGreaterThanOrEqual(compactions);
}


/**
 * A summary call inside a LangGraph graph streamed with `streamMode: "messages"`: the consumer gets
 * the agent model's tokens and none of the summary call's (its `nostream` tag), although the server
 * answered both; and `streamEvents` carries the run's `compaction` custom event.
 */
import { AIMessageChunk, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import { Annotation, MessagesAnnotation, REMOVE_ALL_MESSAGES, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMPACTION_EVENT_NAME, CompactionState, createCompactionNode, stateSnapshotSummary } from "../../src/index.js";
import { SUMMARY_MESSAGE_PREFIX, defaultTokenCounter } from "../../src/extend/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

const SNAPSHOT = "<state_snapshot>\n<overall_goal>SNAPSHOT-TOKEN fix add() in src/add.ts</overall_goal>\n</state_snapshot>";
const AGENT_ANSWER = "Coverage of src/add.ts is 100%.";

const ARTIFACT_BLOCK = `<artifact_index>
files modified: src/add.ts
tools used: bash (2)
commands run:
- npm test
- sed -i 's/a - b/a + b/' src/add.ts
errors seen:
- FAIL test/add.test.ts
</artifact_index>`;

const OUTPUT = Array.from({ length: 8 }, (_, n) => `  src/module-${n}.ts | ${n * 7} lines`).join("\n");

/** A history whose older part (u1..t2) is summarized and whose tail (u2, about 17% of the conversation) is kept. */
const history = (): BaseMessage[] => [
  system("s0", "You are a coding agent."),
  user("u1", "The test suite fails. Find out why and fix it."),
  assistant("a1", "Running the tests.", [{ id: "c1", args: { command: "npm test" } }]),
  toolResult("t1", "c1", `FAIL test/add.test.ts\n${OUTPUT}`),
  assistant("a2", "Fixing the operator.", [{ id: "c2", args: { command: "sed -i 's/a - b/a + b/' src/add.ts" } }]),
  toolResult("t2", "c2", "(no output)"),
  user(
    "u2",
    "Good. What is the coverage of src/add.ts now, which other modules have tests that still fail after the fix, and which of them subtract where they should add?",
  ),
];

/** compact -> agent: the compaction node replaces the history with the compacted one; the agent answers. */
function buildGraph() {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
  const strategy = stateSnapshotSummary({ model, contextWindow: 128_000 });
  return new StateGraph(MessagesAnnotation)
    .addNode("compact", async (state, config: LangGraphRunnableConfig) => {
      const result = await strategy.compact(state.messages, { config, force: true });
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...result.messages] };
    })
    .addNode("agent", async (state, config: LangGraphRunnableConfig) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge(START, "compact")
    .addEdge("compact", "agent")
    .compile();
}

/** The same graph with the package's compaction node: minimal updates, the summary under a replaced message's id. */
function buildGraphWithNode() {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
  const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
  return new StateGraph(State)
    .addNode("compact", createCompactionNode(stateSnapshotSummary({ model, contextWindow: 128_000, trigger: { messages: 2 } })))
    .addNode("agent", async (state, config: LangGraphRunnableConfig) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge(START, "compact")
    .addEdge("compact", "agent")
    .compile();
}

describe("a summary call inside a LangGraph graph", () => {
  it("with createCompactionNode, streams the agent's tokens only: no summary token and no re-emitted message", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: AGENT_ANSWER });
    const received: [string, unknown, unknown][] = [];
    for await (const [message, metadata] of await buildGraphWithNode().stream({ messages: history() }, { streamMode: "messages" })) {
      received.push([message.type, metadata["langgraph_node"], message.content]);
    }
    expect(received).toEqual(["", "Coverage ", "of ", "src/add.ts ", "is ", "100%.", "", ""].map((content) => ["ai", "agent", content]));
  });

  it("streams the agent's tokens and the compaction node's output messages, not one token of the summary call", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: AGENT_ANSWER });
    const received: { type: string; chunk: boolean; node: unknown; content: unknown }[] = [];
    for await (const [message, metadata] of await buildGraph().stream({ messages: history() }, { streamMode: "messages" })) {
      received.push({ type: message.type, chunk: AIMessageChunk.isInstance(message), node: metadata["langgraph_node"], content: message.content });
    }
    const agentToken = (content: string) => ({ type: "ai", chunk: true, node: "agent", content });
    expect(received).toEqual([
      // LangGraph streams the messages a node returns; the inputs (s0, u2) are known by id and not repeated.
      { type: "remove", chunk: false, node: "compact", content: [] },
      { type: "human", chunk: false, node: "compact", content: `${SUMMARY_MESSAGE_PREFIX}\n\n${SNAPSHOT}\n\n${ARTIFACT_BLOCK}` },
      agentToken(""),
      agentToken("Coverage "),
      agentToken("of "),
      agentToken("src/add.ts "),
      agentToken("is "),
      agentToken("100%."),
      agentToken(""),
      agentToken(""),
    ]);
  });

  it("sends the server both the summary request and the agent's request", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: AGENT_ANSWER });
    for await (const _ of await buildGraph().stream({ messages: history() }, { streamMode: "messages" })) {
      // Drain the stream.
    }
    expect(
      server.requests.map((request) => ({
        stream: request.body?.stream,
        maxTokens: request.body?.max_tokens,
        firstLine: String(request.body?.messages[0]?.content).split("\n")[0],
        outcome: request.outcome,
      })),
    ).toEqual([
      // LangGraph's messages handler prefers streaming, so the summary call streams too; its tags keep it out of the stream.
      { stream: true, maxTokens: 1000, firstLine: "You are the component that compresses an agent's conversation history into a structured state snapshot.", outcome: "completed" },
      { stream: true, maxTokens: undefined, firstLine: "You are a coding agent.", outcome: "completed" },
    ]);
  });

  it("gives the agent the compacted history: system, snapshot, preserved tail", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: AGENT_ANSWER });
    const final = await buildGraph().invoke({ messages: history() });
    const agentPrompt = server.requests[1]?.body?.messages.map((message) => [message.role, String(message.content).split("\n")[0]]);
    expect({ agentPrompt, messages: final.messages.map((message) => [message.type, message.id]) }).toEqual({
      agentPrompt: [
        ["system", "You are a coding agent."],
        ["user", SUMMARY_MESSAGE_PREFIX],
        ["user", "Good. What is the coverage of src/add.ts now, which other modules have tests that still fail after the fix, and which of them subtract where they should add?"],
      ],
      messages: [
        ["system", "s0"],
        ["human", expect.any(String)],
        ["human", "u2"],
        ["ai", "chatcmpl-test-2"],
      ],
    });
  });

  it("emits the compaction custom event through streamEvents v2", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: AGENT_ANSWER });
    const custom: StreamEvent[] = [];
    for await (const event of buildGraph().streamEvents({ messages: history() }, { version: "v2" })) {
      if (event.event === "on_custom_event") custom.push(event);
    }
    const tokensBefore = (await defaultTokenCounter().measure(history())).total;
    expect(custom.map((event) => ({ name: event.name, data: event.data, node: event.metadata["langgraph_node"] }))).toEqual([
      {
        name: COMPACTION_EVENT_NAME,
        node: "compact",
        data: {
          strategy: "stateSnapshotSummary",
          trigger: "forced",
          status: "summarized",
          tokensBefore,
          tokensAfter: expect.any(Number),
          messagesBefore: 7,
          messagesAfter: 3,
          durationMs: expect.any(Number),
          summaryModel: "gpt-4o-mini",
          error: null,
          summaryError: null,
        },
      },
    ]);
  });
});

/**
 * The examples' live path (OPENAI_API_KEY set): the same ReAct graph with the real `ChatOpenAI`
 * client, against a local OpenAI-compatible server that answers with the recorded session, and
 * ChatOpenAI also writing the compaction summaries. Checkpointed to SQLite on a file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { autoCompaction, createTokenCounter, restoreHistory, validateToolPairing } from "../../src/index.js";
import { ReactAgentState, buildReactAgent, exampleModel, sqliteCheckpointer } from "../../examples/react-agent.js";
import { replayTools } from "../../examples/replay/index.js";
import { startOpenAIServer, type OpenAIServer, type ReceivedRequest, type ScriptedResponse } from "../support/openai-server.js";
import { HOOK_TIMEOUT, SWE_SESSION_ID, TEST_WINDOW, loadReplay } from "./replay-driver.js";

const SUMMARY = "Summary: the agent is adding get/set_antialiased to matplotlib Text objects.";

/** A message without its id: ChatOpenAI gives its replies the completion's id, not the recorded one. */
function content(message: BaseMessage) {
  return {
    type: message.type,
    content: message.content,
    toolCalls: ((message as AIMessage).tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })),
    toolCallId: (message as ToolMessage).tool_call_id ?? null,
  };
}

describe("the ReAct example with ChatOpenAI (a local OpenAI-compatible server replaying the session)", () => {
  const replay = loadReplay(SWE_SESSION_ID);
  // The first turn: the task, up to the agent's first answer without a tool call.
  const firstAnswer = replay.expectedHistory.findIndex((message, position) => position > 1 && message.type === "ai" && ((message as AIMessage).tool_calls?.length ?? 0) === 0);
  const firstTurn = replay.expectedHistory.slice(0, firstAnswer + 1);
  const replies = firstTurn.filter((message) => message.type === "ai") as AIMessage[];
  const tokenCounter = createTokenCounter({ model: "gpt-4o" });
  const requestTokens: number[] = [];
  const pairingProblems: unknown[] = [];
  let server: OpenAIServer;
  let directory: string;
  let state: typeof ReactAgentState.State;
  let restored: BaseMessage[];

  beforeAll(async () => {
    let next = 0;
    server = await startOpenAIServer({
      fallback: (request: ReceivedRequest): ScriptedResponse => {
        // The agent's calls carry the tools; the summary calls do not.
        if (!request.body?.tools) return { content: SUMMARY };
        const reply = replies[next++];
        if (!reply) return { status: 500, message: "the recording has no more replies" };
        return {
          content: typeof reply.content === "string" ? reply.content : "",
          toolCalls: (reply.tool_calls ?? []).map((call) => ({ id: call.id!, name: call.name, args: call.args })),
        };
      },
    });
    directory = mkdtempSync(join(tmpdir(), "langchain-compaction-openai-"));
    const { model, summaryModel } = await exampleModel(replay, { apiKey: "test-key", baseURL: server.baseURL, model: "gpt-4o-mini" });
    const agent = buildReactAgent({
      model,
      tools: replayTools(replay),
      // The example's compaction without its hiding step: on this first turn, hiding (which trims the
      // older reasoning too) holds the history alone, and this test is about the summaries ChatOpenAI writes.
      compaction: autoCompaction({ contextWindow: TEST_WINDOW, tokenCounter, hiding: false, ...(summaryModel ? { summaryModel } : {}) }),
      checkpointer: sqliteCheckpointer(join(directory, "agent.sqlite")),
      observe: async (messages) => {
        requestTokens.push(await tokenCounter.countMessages(messages));
        pairingProblems.push(validateToolPairing(messages));
      },
    });
    const config = { configurable: { thread_id: "live" }, recursionLimit: 1_000 };
    await agent.invoke({ messages: replay.turns[0]! }, config);
    state = (await agent.getState(config)).values as typeof ReactAgentState.State;
    restored = await restoreHistory(state);
  }, HOOK_TIMEOUT);
  afterAll(async () => {
    await server?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("binds the recorded tools with the schema their recorded calls imply", () => {
    const agentRequest = server.requests.find((request) => request.body?.tools)!;
    expect(agentRequest.body!.tools).toEqual([
      {
        type: "function",
        function: {
          name: "bash",
          description: `Replays the recorded results of the tool "bash" from session ${SWE_SESSION_ID}.`,
          parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
        },
      },
    ]);
  });

  it("plays the recorded first turn through ChatOpenAI and the recorded tools", () => {
    expect(restored.map(content)).toEqual(firstTurn.map(content));
  });

  it("writes each summary with ChatOpenAI", () => {
    const summaryRequests = server.requests.filter((request) => request.body && !request.body.tools);
    const summarized = state.compactionLog.filter((record) => record.status === "summarized");
    expect(summarized.length).toBeGreaterThanOrEqual(1);
    expect(summaryRequests).toHaveLength(summarized.length);
    expect(summarized.map((record) => record.summaryId !== null)).toEqual(summarized.map(() => true));
  });

  it("keeps every request within the window, tool calls paired", () => {
    expect(requestTokens).toHaveLength(replies.length);
    expect(requestTokens.filter((tokens) => tokens > TEST_WINDOW)).toEqual([]);
    expect(pairingProblems).toEqual(requestTokens.map(() => []));
  });
});

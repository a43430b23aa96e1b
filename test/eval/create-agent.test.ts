/**
 * The evaluation's `ClearToolUsesEdit (createAgent)` row against a real `createAgent` (LangChain's
 * agent graph, its `contextEditingMiddleware`, a MemorySaver checkpointer) driving a scripted tool
 * loop with `fakeModel()`: for the same history, the harness must send the model exactly what the
 * agent sends it, and the agent must keep the cleared results in its checkpoint.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { ClearToolUsesEdit, contextEditingMiddleware, createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { replayTrace } from "../../bench/eval/replay.js";
import { CLEAR_TOOL_USES_KEEP, PEER_TRIGGER_FRACTION, clearToolUsesCreateAgent, clearToolUsesView, type SystemSpec } from "../../bench/eval/systems.js";
import { DeterministicSummaryModel } from "../../bench/eval/summary-model.js";
import { createTokenCounter } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";

const tokenCounter = createTokenCounter();
const SYSTEM_PROMPT = "You are a careful assistant.";
const READS = 9;
/** ~200 tokens, different for every path. */
const fileText = (path: string) => `contents of ${path}: ` + Array.from({ length: 60 }, (_, n) => `${path}-line-${n}`).join(" ");
const callOf = (n: number) => ({ id: `c${n}`, name: "read", args: { path: `src/f${n}.py` }, type: "tool_call" as const });
/** The loop as the recording a replay reads: the request, READS read calls with their results, the answer. */
const recording: BaseMessage[] = [
  new SystemMessage(SYSTEM_PROMPT),
  new HumanMessage("read the files"),
  ...Array.from({ length: READS }, (_, n) => [
    new AIMessage({ content: "", tool_calls: [callOf(n)] }),
    new ToolMessage({ content: fileText(`src/f${n}.py`), tool_call_id: `c${n}`, name: "read" }),
  ]).flat(),
  new AIMessage("done"),
];
// A window whose 0.8 trigger the history crosses after about five results, so the edit runs several
// times and, once persisted, leaves the history under the trigger for a call or two.
const WINDOW = Math.floor((await tokenCounter.countMessages(recording.slice(0, 12))) / PEER_TRIGGER_FRACTION);

/** What a provider sees of a message. */
const visible = (message: BaseMessage) => ({
  type: message.type,
  text: messageText(message),
  toolCalls: ((message as AIMessage).tool_calls ?? []).map(({ id, name, args }) => ({ id, name, args })),
  toolCallId: (message as ToolMessage).tool_call_id ?? null,
});

/** The real agent over the loop: the model's input at every call, and the checkpointed messages. */
async function runAgent(): Promise<{ calls: ReturnType<typeof visible>[][]; checkpoint: ReturnType<typeof visible>[] }> {
  const model = fakeModel();
  for (let n = 0; n < READS; n++) model.respond(new AIMessage({ content: "", tool_calls: [callOf(n)] }));
  model.respond(new AIMessage("done"));
  // tokenCountMethod "model": the middleware counts with the request's model, here the evaluation's counter.
  Object.assign(model, { getNumTokensFromMessages: async (messages: BaseMessage[]) => ({ totalCount: await tokenCounter.countMessages(messages), countPerMessage: [] }) });
  const checkpointer = new MemorySaver();
  const read = tool(async ({ path }: { path: string }) => fileText(path), { name: "read", description: "Read a file.", schema: z.object({ path: z.string() }) });
  const agent = createAgent({
    model,
    tools: [read],
    systemPrompt: SYSTEM_PROMPT,
    middleware: [
      contextEditingMiddleware({
        edits: [new ClearToolUsesEdit({ trigger: { tokens: Math.floor(PEER_TRIGGER_FRACTION * WINDOW) }, keep: { messages: CLEAR_TOOL_USES_KEEP } })],
        tokenCountMethod: "model",
      }),
    ],
    checkpointer,
  });
  const config = { configurable: { thread_id: "eval-create-agent" } };
  await agent.invoke({ messages: [new HumanMessage("read the files")] }, config);
  // The latest checkpoint as the saver stored it (what a resumed thread starts from).
  const saved = await checkpointer.getTuple(config);
  const messages = (saved?.checkpoint.channel_values["messages"] ?? []) as BaseMessage[];
  return { calls: model.calls.map((call) => call.messages.map(visible)), checkpoint: messages.map(visible) };
}

/** The harness's inputs for the same loop. */
async function harnessInputs(spec: SystemSpec): Promise<ReturnType<typeof visible>[][]> {
  const inputs: ReturnType<typeof visible>[][] = [];
  const system = spec.create({ window: WINDOW, tokenCounter, summaryModel: new DeterministicSummaryModel({ tokenCounter }) });
  await replayTrace({ source: "test", id: "test/loop", messages: recording }, system, { window: WINDOW, tokenCounter, onInput: (input) => inputs.push(input.map(visible)) });
  return inputs;
}

const clearedPerCall = (calls: ReturnType<typeof visible>[][]) => calls.map((call) => call.filter((message) => message.type === "tool" && message.text === "[cleared]").length);

describe(`ClearToolUsesEdit in a real createAgent (window ${WINDOW}, keep ${CLEAR_TOOL_USES_KEEP})`, () => {
  const agent = runAgent();

  it("the agent clears results at these calls (the loop exercises the edit)", async () => {
    // Calls 0-4 are under the trigger; at call 5 (5 results) the edit clears down to 3, which leaves the
    // history under the trigger at call 6 (4 results uncleared) until call 7 adds one more; and so on.
    expect(clearedPerCall((await agent).calls)).toEqual([0, 0, 0, 0, 0, 2, 2, 4, 4, 6]);
  });

  it("the harness's createAgent variant sends the model exactly what the agent sends it", async () => {
    expect(await harnessInputs(clearToolUsesCreateAgent)).toEqual((await agent).calls);
  });

  it("the agent's checkpoint holds the cleared results (the edit is persisted, not a view)", async () => {
    const { calls, checkpoint } = await agent;
    // The checkpoint is the last call's input without the system prompt, plus the final answer.
    expect(checkpoint).toEqual([...calls[calls.length - 1]!.slice(1), visible(new AIMessage("done"))]);
  });

  it("the view reading sends something else: the whole history stays over the trigger, so every call clears down to 3 results", async () => {
    expect(clearedPerCall(await harnessInputs(clearToolUsesView))).toEqual([0, 0, 0, 0, 0, 2, 3, 4, 5, 6]);
  });
});

/**
 * The graph the example's LangGraph server serves (langgraph.json names it `agent`): a ReAct loop,
 * START → compact → model → tools → compact → model … → END, with a compaction node before every
 * model call. The server gives the graph its checkpointer and its store; the compaction node
 * archives everything it takes out of the context in that store, per thread, so the client can
 * restore the whole history (client.ts) and the inspector can show it (`inspect --langgraph-url`).
 * Recall is on: every message a compaction rewrites names a reference (`[recall 88946234]`), and the
 * agent's `recall` tool reads the originals back from the server's store, its own thread only.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Annotation, END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { CompactionState, autoCompaction, createCompactionNode } from "../../src/index.js";
import { recallTool } from "../../src/middleware/index.js";
import { ScriptedChatModel } from "./scripted-model.js";

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });

/** What a file holds: 40 lines of code (about 600 tokens), the same for the same path. */
export function fileContents(path: string): string {
  const lines: string[] = [];
  for (let line = 1; line <= 40; line++) lines.push(`export const value_${line} = computeValue("${path}", ${line}); // line ${line}`);
  return lines.join("\n");
}

/** The agent's one tool. Its result's id follows from the call's, so a client knows every message's id. */
export const readFile = tool(
  async ({ path }: { path: string }, config: { toolCall?: { id?: string } }) => {
    const callId = config.toolCall?.id ?? "read_file";
    return new ToolMessage({ id: `${callId}-result`, tool_call_id: callId, name: "read_file", content: fileContents(path), artifact: { path } });
  },
  { name: "read_file", description: "Read a file of the repository.", schema: z.object({ path: z.string().describe("the file's path") }) },
);

/**
 * The compaction: hide older tool results first, summarize when hiding is not enough (offline, with
 * the no-model summarizer; give `autoCompaction` a `model` for a model's summary). The window is
 * small so that a few turns compact several times.
 */
export const compaction = autoCompaction({ contextWindow: 12_000, trigger: { tokens: 4_000 }, keepRecent: 4, hiding: { keepRecentGroups: 1, clearAtLeast: 200 } });

/** Reads archived originals back: the store and the thread come from the run (the server's store, this thread). */
const recall = recallTool();
const tools = [readFile, recall];
const model = new ScriptedChatModel().bindTools(tools);

export const graph = new StateGraph(State)
  .addNode("compact", createCompactionNode(compaction, { recall: true }))
  .addNode("model", async (state: typeof State.State, config: LangGraphRunnableConfig) => ({ messages: [await model.invoke(state.messages, config)] }))
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "compact")
  .addEdge("compact", "model")
  .addConditionalEdges("model", (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? "tools" : END), ["tools", END])
  .addEdge("tools", "compact")
  .compile();

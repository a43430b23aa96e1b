/**
 * The graphs the LangGraph API server test serves (its `langgraph.json` points here): a ReAct loop
 * over the scripted model of ./script.ts with a compaction node before every model call. The server
 * provides the checkpointer and the store.
 */
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { CompactionState, autoCompaction, createCompactionNode, type CompactionNodeOptions } from "../../../src/index.js";
import { modelReply, toolResults } from "./script.js";

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });

/** Hiding first, a (no-model) summary when hiding is not enough: both archive their originals. */
export const compactor = autoCompaction({ contextWindow: 12_000, trigger: { tokens: 4_000 }, keepRecent: 4, hiding: { keepRecentGroups: 2, clearAtLeast: 200 } });

/** The ReAct loop with its compaction node; `options` go to `createCompactionNode`. */
function compactingGraph(options: CompactionNodeOptions = {}) {
  return new StateGraph(State)
    .addNode("compact", createCompactionNode(compactor, options))
    .addNode("model", (state) => ({ messages: [modelReply(state.messages)] }))
    .addNode("tools", (state) => ({ messages: toolResults(state.messages) }))
    .addEdge(START, "compact")
    .addEdge("compact", "model")
    .addConditionalEdges(
      "model",
      (state) => {
        const last = state.messages[state.messages.length - 1];
        return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
      },
      ["tools", END],
    )
    .addEdge("tools", "compact")
    .compile();
}

/** The namespace prefix of the `namespaced` graph's archive. */
export const CUSTOM_NAMESPACE = ["my-app", "compaction-archive"];

/** Archives in the server's store (the default when a run has a store and a thread). */
export const graph = compactingGraph();
/** Archives in the `compactionArchive` state channel. */
export const stateArchiveGraph = compactingGraph({ archive: "state" });
/** Archives in the server's store under {@link CUSTOM_NAMESPACE}. */
export const namespacedGraph = compactingGraph({ namespace: CUSTOM_NAMESPACE });

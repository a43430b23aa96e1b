import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Annotation, END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { CompactionState, type CompactionNode } from "../../../src/index.js";

export const ReactState = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
export type ReactStateValue = typeof ReactState.State;

export interface ReactGraphParts {
  model: Pick<BaseChatModel, "invoke">;
  tools: StructuredToolInterface[];
  /** Compaction nodes run in this order before every model call. */
  compaction?: CompactionNode[];
  checkpointer?: BaseCheckpointSaver;
  store?: BaseStore;
}

/** A ReAct graph: [compaction nodes] -> model <-> tools, the tools looping back to the compaction. */
export function reactGraph({ model, tools, compaction = [], checkpointer, store }: ReactGraphParts) {
  const graph = new StateGraph(ReactState)
    .addNode("model", async (state: ReactStateValue, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addNode("tools", new ToolNode(tools));
  // Node names are only known at run time here: the typed builder is given them as plain strings.
  const untyped = graph as unknown as StateGraph<typeof ReactState.spec, ReactStateValue, Partial<ReactStateValue>, string>;
  const names = compaction.map((_, position) => `compact${position}`);
  compaction.forEach((node, position) => untyped.addNode(names[position]!, node));
  const entry = names[0] ?? "model";
  untyped.addEdge(START, entry);
  names.forEach((name, position) => untyped.addEdge(name, names[position + 1] ?? "model"));
  untyped.addConditionalEdges("model", toolsCondition, ["tools", END]);
  untyped.addEdge("tools", entry);
  return untyped.compile({ ...(checkpointer ? { checkpointer } : {}), ...(store ? { store } : {}) });
}

import type { RunnableConfig } from "@langchain/core/runnables";
import { getConfig } from "@langchain/langgraph";

/** The run's config, where LangGraph exposes it (inside a graph node), so a middleware's summary calls nest under its node. @internal */
export function currentConfig(): RunnableConfig | undefined {
  try {
    return getConfig();
  } catch {
    return undefined;
  }
}

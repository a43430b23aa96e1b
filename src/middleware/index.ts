// LangChain `createAgent` integration, published as `langchain-compaction/middleware` because it
// imports `langchain`, an optional peer dependency. The package root never imports this file.
import "./peers.js";
export { compactionMiddleware, type CompactionMiddlewareOptions } from "./compaction-middleware.js";
export { recallTool, type RecallToolOptions } from "../langgraph/recall-tool.js";
export { autoCompactionMiddleware, type AutoCompactionMiddlewareOptions } from "./auto-compaction-middleware.js";
export { anthropicCacheAnchorsMiddleware, type CacheAnchorsMiddlewareOptions } from "./cache-anchors-middleware.js";
export { contextEditingMiddleware, type ContextEditingMiddlewareConfig } from "./context-editing-middleware.js";
export {
  ClearToolUsesEdit,
  DEFAULT_CLEARED_PLACEHOLDER,
  DEFAULT_CLEAR_KEEP,
  DEFAULT_CLEAR_TRIGGER_TOKENS,
  type ClearToolUsesEditConfig,
  type ClearToolUsesRun,
  type ContextEdit,
} from "./clear-tool-uses-edit.js";
export type { LangChainTokenCounter } from "./langchain-token-counter.js";
export { summarizationMiddleware } from "./summarization-middleware.js";
export {
  LANGCHAIN_DEFAULT_KEEP,
  LANGCHAIN_SUMMARY_PREFIX,
  LANGCHAIN_SUMMARY_PROMPT,
  LANGCHAIN_TRIM_TOKENS_TO_SUMMARIZE,
  type SummarizationMiddlewareOptions,
  type SummarizationRunContext,
} from "./summarization-options.js";
export { CompactionOverflowError, CompactorOutputError } from "../errors.js";

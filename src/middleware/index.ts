// LangChain `createAgent` integration, published as `langchain-compaction/middleware` because it
// imports `langchain`, an optional peer dependency. The package root never imports this file.
export { compactionMiddleware, type CompactionMiddlewareOptions } from "./compaction-middleware.js";
export { summarizationMiddleware } from "./summarization-middleware.js";
export {
  LANGCHAIN_DEFAULT_KEEP,
  LANGCHAIN_SUMMARY_PREFIX,
  LANGCHAIN_SUMMARY_PROMPT,
  LANGCHAIN_TRIM_TOKENS_TO_SUMMARIZE,
  type SummarizationMiddlewareOptions,
  type SummarizationRunContext,
} from "./summarization-options.js";

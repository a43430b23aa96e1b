// LangChain `createAgent` integration, published as `langchain-compaction/middleware` because it
// imports `langchain`, an optional peer dependency. The package root never imports this file.
export { compactionMiddleware, type CompactionMiddlewareOptions } from "./compaction-middleware.js";

/**
 * Erasing and redacting a compacted `createAgent` thread with LangGraph's in-memory store and
 * checkpointer (`InMemoryStore`, `MemorySaver`): the shared suite of test/langgraph/support/erasure-suite.ts.
 */
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { erasureSuite } from "./support/erasure-suite.js";

erasureSuite("InMemoryStore and MemorySaver", async () => ({
  store: new InMemoryStore(),
  checkpointer: new MemorySaver(),
  async close() {},
}));

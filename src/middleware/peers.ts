// First import of langchain-compaction/middleware: says what to install before the modules that need it load.
import { assertPeers } from "../peers.js";

assertPeers("langchain-compaction/middleware", ["langchain"]);

// Embedded SQLite persistence: `langchain-compaction/sqlite`. A subpath of its own, so the root entry
// never loads @langchain/langgraph-checkpoint-sqlite (an optional peer).
import "./peers.js";
export { SqliteStore, type SqliteStoreDatabase, type SqliteStoreOptions } from "./sqlite-store.js";
export { BLOB_REFERENCE_KEY, SqliteBlobSaver } from "./sqlite-blob-saver.js";
export { InvalidStoreArgumentError, InvalidStoreNamespaceError, UnsupportedStoreOperationError } from "./store-errors.js";

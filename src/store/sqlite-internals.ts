// What the inspector needs to read a SQLite file written by SqliteBlobSaver and SqliteStore,
// loaded lazily (it imports the optional @langchain/langgraph-checkpoint-sqlite). @internal
export { SqliteStore } from "./sqlite-store.js";
export { hasBlobReferences, resolveBlobReferences } from "./sqlite-blob-saver.js";

// LangGraph integration: the compaction node, CompactionState, the archive, restoreHistory and the
// createAgent middleware. Re-exported from the package root.
export {};

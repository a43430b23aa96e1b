// LangGraph integration: the compaction node, CompactionState, the archive and restoreHistory.
// Re-exported from the package root; nothing here imports `langchain` (an optional peer): the
// createAgent middleware lives in `langchain-compaction/middleware`.
export {
  createCompactionNode,
  type CompactionNode,
  type CompactionNodeInput,
  type CompactionNodeOptions,
  type CompactionNodeUpdate,
} from "./compaction-node.js";
export { CompactingNodeError, compactingNode, type CompactingNodeOptions, type WrappedNode } from "./compacting-node.js";
export { CompactionState, CompactionStateSchema, mergeCompactionArchive, mergeCompactionLog } from "./compaction-state.js";
export {
  type ArchiveAnchor,
  type ArchivedCompaction,
  type ArchivedMessage,
  type CompactionArchiveLocation,
  type CompactionRecord,
  type CompactionRepairSummary,
} from "../compaction-record.js";
export type { AdapterInvalidHistoryHandling } from "./invalid-history.js";
export { assignMessageIds, compactionUpdate, type CompactionUpdate, type CompactionUpdateOptions } from "./compaction-update.js";
export { CompactionArchiveError, DEFAULT_ARCHIVE_NAMESPACE, archiveNamespace } from "./compaction-archive.js";
export { unpackArchive, type PackedArchivedCompaction, type StateArchivedCompaction } from "./packed-archive.js";
export { clearArchivedState, deleteThreadArchive, type ArchiveStore, type ThreadArchiveOptions } from "./archive-erasure.js";
export { redactArchived, redactArchivedState, type RedactArchivedOptions, type RedactArchivedResult } from "./archive-redaction.js";
export { restoreHistory, type RestorableState, type RestoreHistoryOptions } from "./restore-history.js";
export { compactionLogNamespace, readCompactionLog, type CompactionLogState, type ReadCompactionLogOptions } from "./compaction-log.js";
export { restoreThreadHistory, type RestoreThreadHistoryOptions, type SdkThreadClient } from "./restore-thread.js";
export { SdkStore, sdkStore, type SdkClientWithStore, type SdkStoreClient, type SdkStoreItem } from "./sdk-store.js";
export {
  type CompactionArchiveMode,
  type CompactionErrorHandling,
  type GraphCompactionOptions,
} from "./run-compaction.js";
export { CompactorOutputError } from "../errors.js";

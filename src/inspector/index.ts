// The compaction inspector: read a thread (checkpointer, store, LangGraph server, JSON export), build its Inspection,
// render it as one self-contained HTML page or as text. Builds on the LangGraph integration; nothing
// below imports it.
export {
  THREAD_EXPORT_FORMAT,
  type ChartPoint,
  type CompactionView,
  type Inspection,
  type InspectionLimits,
  type InspectionTotals,
  type MessageView,
  type RecallView,
  type ThreadExport,
  type TimelineNode,
} from "./inspection.js";
export { buildInspection, type BuildInspectionOptions } from "./build-inspection.js";
export { parseThreadExport } from "./thread-export.js";
export { exportThread, exportThreadState, loadThreadFromJson, type ThreadState, type ThreadStoreOptions } from "./thread-sources.js";
export { loadThreadFromPostgres, loadThreadFromSqlite, type PostgresThreadOptions } from "./thread-databases.js";
export { loadThreadFromLangGraph, type LangGraphThreadClient, type LangGraphThreadOptions } from "./thread-langgraph.js";
export { renderInspectionText } from "./render-text.js";
export { renderInspectionHtml, type RenderHtmlOptions } from "./render-html.js";

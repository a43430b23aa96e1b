import type { BaseStore } from "@langchain/langgraph";
import type { CompactionRecord } from "../compaction-record.js";
import { chainedRecord, logOnly } from "./log-writes.js";
import type { SummaryCheck } from "./live-summary.js";
import type { CompactionStateUpdate } from "./run-compaction.js";

/**
 * The check's overwrite records placed in the log after `log` (their sequence and previous), and the
 * log the step's own record then follows; undefined when the check found nothing. @internal
 */
export function chainSummaryCheck(check: SummaryCheck | undefined, log: unknown): { records: CompactionRecord[]; log: unknown } | undefined {
  if (check === undefined || check.records.length === 0) return undefined;
  let tail = log;
  const records = check.records.map((record) => {
    const chained = chainedRecord(record, tail);
    tail = [chained];
    return chained;
  });
  return { records, log: tail };
}

/**
 * `update` with the overwrite records written to the full log (the store's log namespace, or the
 * archive channel without a store) and put before the step's own records. @internal
 */
export async function withCheckRecords(
  update: CompactionStateUpdate,
  records: readonly CompactionRecord[],
  where: "state" | { store: BaseStore; namespace: string[] },
): Promise<CompactionStateUpdate> {
  const compactionLog: CompactionRecord[] = [];
  const compactionArchive = [];
  for (const record of records) {
    const logged = await logOnly(record, where);
    compactionLog.push(...(logged.compactionLog ?? []));
    compactionArchive.push(...(logged.compactionArchive ?? []));
  }
  compactionLog.push(...(update.compactionLog ?? []));
  compactionArchive.push(...(update.compactionArchive ?? []));
  return { ...update, compactionLog, ...(compactionArchive.length > 0 ? { compactionArchive } : {}) };
}

import type { BaseStore } from "@langchain/langgraph";
import type { ArchivedCompaction, CompactionRecord } from "../compaction-record.js";
import { underlyingStore, writeArchive } from "./compaction-archive.js";
import { packArchive } from "./packed-archive.js";
import type { CompactionStateUpdate } from "./run-compaction.js";

/**
 * `record` placed after the newest record of `log` (the state's `compactionLog`, or any array ending
 * with the record it follows): its `sequence` and `previous`. @internal
 */
export function chainedRecord(record: CompactionRecord, log: unknown): CompactionRecord {
  const tail = Array.isArray(log) && log.length > 0 ? (log[log.length - 1] as Partial<CompactionRecord> | undefined) : undefined;
  if (typeof tail?.id !== "string") return { ...record, sequence: 0, previous: null };
  // A 0.1.0 log holds every record, so its newest one's position is its index.
  const sequence = typeof tail.sequence === "number" ? tail.sequence : (log as unknown[]).length - 1;
  return { ...record, sequence: sequence + 1, previous: tail.id };
}

/**
 * Write one compaction's archive under its id (see `writeArchive`) and its record under the same id
 * in the log namespace beneath (`[...namespace, "log"]`), both at once. @internal
 */
export async function writeArchiveAndRecord(store: BaseStore, namespace: string[], archive: ArchivedCompaction, record: CompactionRecord): Promise<void> {
  await Promise.all([writeArchive(store, namespace, archive), underlyingStore(store).put([...namespace, "log"], record.id, { ...record }, false)]);
}

/**
 * The update of a record written to the thread's full log: `"state"`, in the `compactionArchive`
 * channel (in `archived`, its archive, packed, or an entry of its own); a store, under the log namespace
 * beneath `namespace`. A record the store could not take is returned unlogged: the `compactionLog`
 * channel then keeps it. @internal
 */
export async function logOnly(
  record: CompactionRecord,
  where: "state" | { store: BaseStore; namespace: string[] },
  archived?: ArchivedCompaction,
): Promise<CompactionStateUpdate> {
  if (where === "state") {
    const logged: CompactionRecord = { ...record, logged: "state" };
    return { compactionLog: [logged], compactionArchive: [packArchive({ ...(archived ?? { compactionId: record.id, messages: [], dropped: [] }), record: logged })] };
  }
  const logged: CompactionRecord = { ...record, logged: "store" };
  try {
    await underlyingStore(where.store).put([...where.namespace, "log"], record.id, { ...logged }, false);
    return { compactionLog: [logged] };
  } catch {
    return { compactionLog: [record] };
  }
}

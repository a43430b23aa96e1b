// The threads a checkpoint source holds, for the message of an unknown-thread error.

/** How many thread ids an unknown-thread error lists before "and N more". */
export const LISTED_THREADS = 20;

/**
 * The end of an unknown-thread message: the threads that do exist (the first {@link LISTED_THREADS},
 * sorted, then how many more), so a typo can be corrected from the message alone.
 * @internal
 */
export function existingThreads(ids: readonly string[], total: number): string {
  if (total === 0) return "it holds no threads";
  const listed = ids.slice(0, LISTED_THREADS).map((id) => JSON.stringify(id)).join(", ");
  const more = total - Math.min(ids.length, LISTED_THREADS);
  return `its threads: ${listed}${more > 0 ? ` and ${more} more` : ""}`;
}

/** The part of pg's `Pool` {@link postgresThreads} uses. */
interface QueryablePool {
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * The first {@link LISTED_THREADS} thread ids of a schema's checkpoints, sorted, and how many there
 * are: two queries on thread ids, not a read of every checkpoint (`saver.list({})` would load them all).
 * They go through the saver's own connection pool (a field its types mark private), or give null
 * when that is not there.
 * @internal
 */
export async function postgresThreads(saver: object, schema: string): Promise<{ ids: string[]; total: number } | null> {
  const pool = (saver as { pool?: QueryablePool }).pool;
  if (typeof pool?.query !== "function") return null;
  const from = `FROM "${schema.replaceAll('"', '""')}".checkpoints WHERE checkpoint_ns = ''`;
  const [listed, counted] = await Promise.all([
    pool.query(`SELECT DISTINCT thread_id ${from} ORDER BY thread_id LIMIT ${LISTED_THREADS}`),
    pool.query(`SELECT count(DISTINCT thread_id) AS total ${from}`),
  ]);
  return { ids: listed.rows.map((row) => String(row["thread_id"])), total: Number(counted.rows[0]?.["total"] ?? 0) };
}


import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointMetadata, CheckpointTuple } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod/v4";
import { CompactionError } from "../errors.js";
import { parseOptions } from "../options.js";

const optionsSchema = z.object({ inlineBytes: z.number().int().min(0).optional() }).strict();

/** The one key of the reference that stands in a stored checkpoint for a channel value kept as a blob. */
export const BLOB_REFERENCE_KEY = "__langchain_compaction_blob_sha256__";

/** Options of {@link SqliteBlobSaver}. */
export interface SqliteBlobSaverOptions {
  /** Channel values whose serialized form is smaller than this many bytes stay inline in the checkpoint. @default 512 */
  inlineBytes?: number;
}

function referencedHash(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== BLOB_REFERENCE_KEY) return undefined;
  const hash = (value as Record<string, unknown>)[BLOB_REFERENCE_KEY];
  return typeof hash === "string" ? hash : undefined;
}

/**
 * A `SqliteSaver` (same file, same tables, same API) that stores each channel value once: a value of
 * `inlineBytes` (default 512) or more serialized bytes goes, content-addressed (SHA-256 of its
 * serialized form), into a `checkpoint_blobs` table of the same database, and the checkpoint holds a
 * reference to it. A channel that did not change since the previous step (the compaction log, a
 * state-channel compaction archive, any large and rarely written value) then costs a few dozen bytes
 * per checkpoint instead of its whole size; a value that changes at every step (the messages) is
 * stored per step as before. This is how `PostgresSaver` stores channel values (per channel
 * version); content addresses also keep forks apart. Each put serializes and hashes every channel
 * value, as `SqliteSaver` serializes it, so a value a node changed in place (same object, same
 * version) is stored as it is now.
 *
 * Reads files written by `SqliteSaver` (their values are inline); the checkpoints it writes are read
 * back only through this class (or the inspector's `loadThreadFromSqlite`). Blobs are written before
 * the checkpoint that refers to them, so a crash in between leaves at most an unreferenced blob.
 * `deleteThread` deletes the thread's blobs too. Passes LangGraph's checkpointer conformance suite
 * (`@langchain/langgraph-checkpoint-validation`).
 *
 * @example
 * const checkpointer = SqliteBlobSaver.fromConnString("./agent.sqlite");
 * const store = new SqliteStore(checkpointer.db);
 * const graph = builder.compile({ checkpointer, store });
 * @throws {CompactionError} from `getTuple` and `list` when a checkpoint refers to a blob the database lacks.
 */
export class SqliteBlobSaver extends SqliteSaver {
  private blobsSetup = false;
  private readonly inlineBytes: number;

  /**
   * @param db a better-sqlite3 `Database` (e.g. another saver's `db`).
   * @param serde the serializer. @default LangGraph's JSON serializer, as `SqliteSaver`
   * @throws {InvalidOptionError} for an `inlineBytes` that is not a non-negative integer.
   */
  constructor(db: SqliteSaver["db"], serde?: ConstructorParameters<typeof SqliteSaver>[1], options: SqliteBlobSaverOptions = {}) {
    super(db, serde);
    this.inlineBytes = parseOptions("SqliteBlobSaver", optionsSchema, options).inlineBytes ?? 512;
  }

  /** A saver on the SQLite file at `path` (created if missing). */
  static override fromConnString(path: string, options: SqliteBlobSaverOptions = {}): SqliteBlobSaver {
    const { db } = SqliteSaver.fromConnString(path);
    return new SqliteBlobSaver(db, undefined, options);
  }

  override setup(): void {
    super.setup();
    if (this.blobsSetup) return;
    this.db.exec(`
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  hash TEXT NOT NULL,
  type TEXT,
  value BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, hash)
);`);
    this.blobsSetup = true;
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    this.setup();
    const threadId = config.configurable?.["thread_id"];
    if (threadId === undefined || threadId === null || threadId === "") return super.put(config, checkpoint, metadata);
    const namespace = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const values: Record<string, unknown> = {};
    const blobs: [string, string, string, Uint8Array][] = [];
    // Every value is serialized and hashed at every put: a node may change a channel's value in
    // place and keep its version, so neither the object nor its version tells that it is unchanged.
    for (const [channel, value] of Object.entries(checkpoint.channel_values ?? {})) {
      const [type, serialized] = await this.serde.dumpsTyped(value);
      if (serialized.byteLength < this.inlineBytes) {
        values[channel] = value;
        continue;
      }
      const hash = createHash("sha256").update(type).update("\0").update(serialized).digest("base64url");
      blobs.push([channel, hash, type, serialized]);
      values[channel] = { [BLOB_REFERENCE_KEY]: hash };
    }
    if (blobs.length > 0) {
      // A blob already stored for this thread (the same content at an earlier step) is not written again.
      const insert = this.db.prepare(`INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, hash, type, value) VALUES (?, ?, ?, ?, ?, ?)`);
      this.db.transaction(() => {
        for (const [channel, hash, type, serialized] of blobs) insert.run(String(threadId), namespace, channel, hash, type, serialized);
      })();
    }
    return super.put(config, { ...checkpoint, channel_values: values }, metadata);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await super.getTuple(config);
    return tuple && this.resolve(tuple);
  }

  override async *list(config: RunnableConfig, options?: Parameters<SqliteSaver["list"]>[1]): AsyncGenerator<CheckpointTuple> {
    for await (const tuple of super.list(config, options)) yield await this.resolve(tuple);
  }

  override async deleteThread(threadId: string): Promise<void> {
    this.setup();
    await super.deleteThread(threadId);
    this.db.prepare(`DELETE FROM checkpoint_blobs WHERE thread_id = ?`).run(threadId);
  }

  /** The tuple with each reference in its checkpoint replaced by the value it refers to. */
  private async resolve(tuple: CheckpointTuple): Promise<CheckpointTuple> {
    const values = tuple.checkpoint.channel_values ?? {};
    if (!hasBlobReferences(values)) return tuple;
    const threadId = String(tuple.config.configurable?.["thread_id"]);
    const namespace = (tuple.config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const resolved = await resolveBlobReferences(this.db, this.serde, { threadId, namespace, checkpointId: tuple.checkpoint.id }, values);
    return { ...tuple, checkpoint: { ...tuple.checkpoint, channel_values: resolved } };
  }
}

/** Whether a checkpoint's channel values hold references to blobs. @internal */
export function hasBlobReferences(values: Record<string, unknown>): boolean {
  return Object.values(values).some((value) => referencedHash(value) !== undefined);
}

/**
 * A checkpoint's channel values with each blob reference replaced by the value it refers to, read
 * from `checkpoint_blobs` in `db` (as {@link SqliteBlobSaver} wrote them). The inspector reads files
 * with it. @internal
 * @throws {CompactionError} when a referenced blob is missing.
 */
export async function resolveBlobReferences(
  db: SqliteSaver["db"],
  serde: SqliteSaver["serde"],
  at: { threadId: string; namespace: string; checkpointId: string },
  values: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const select = db.prepare(`SELECT type, value FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND hash = ?`);
  const resolved: Record<string, unknown> = {};
  for (const [channel, value] of Object.entries(values)) {
    const hash = referencedHash(value);
    if (hash === undefined) {
      resolved[channel] = value;
      continue;
    }
    const row = select.get(at.threadId, at.namespace, channel, hash) as { type: string; value: Uint8Array } | undefined;
    if (!row) throw new CompactionError(`SqliteBlobSaver: checkpoint ${at.checkpointId} of thread ${at.threadId} refers to a missing blob of channel ${channel}`);
    const loaded: unknown = await serde.loadsTyped(row.type, row.value);
    resolved[channel] = loaded;
  }
  return resolved;
}

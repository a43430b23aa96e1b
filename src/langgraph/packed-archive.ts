import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { ArchivedCompaction, ArchivedMessage, CompactionRecord } from "../compaction-record.js";
import { CompactionArchiveError } from "./compaction-archive.js";

/**
 * An {@link ArchivedCompaction} as the `compactionArchive` channel keeps it: its originals
 * (`messages`), `written` and `neighbours` packed in one string, compressed when that makes it
 * shorter, so that a checkpoint writes, and a schema checks, one short string per compaction. Read
 * it with {@link unpackArchive}.
 */
export interface PackedArchivedCompaction {
  /** The {@link CompactionRecord} id. */
  readonly compactionId: string;
  /**
   * `JSON.stringify({ messages, written, neighbours })` of the archive; with `encoding: "deflate"`,
   * that JSON's UTF-8 compressed with raw DEFLATE (RFC 1951), in base64.
   */
  readonly packed: string;
  /** `"deflate"` when `packed` is compressed; absent when it is the JSON itself. */
  readonly encoding?: "deflate";
  readonly dropped: readonly string[];
  readonly record?: CompactionRecord;
}

/**
 * An entry of the `compactionArchive` channel: packed (what compactions write), or unpacked (as
 * earlier versions wrote it, and `clearArchivedState` with no originals). {@link unpackArchive} reads either.
 */
export type StateArchivedCompaction = ArchivedCompaction | PackedArchivedCompaction;

/** What `packed` holds. */
interface PackedFields {
  messages: readonly ArchivedMessage[];
  written?: ArchivedCompaction["written"];
  neighbours?: ArchivedCompaction["neighbours"];
}

/** JSON shorter than this is kept as it is: compressing it gains little. */
const COMPRESS_FROM = 512;

/** `json` as `packed` holds it: compressed (base64 of raw DEFLATE) when that is shorter. */
function packedText(json: string): Pick<PackedArchivedCompaction, "packed" | "encoding"> {
  if (json.length < COMPRESS_FROM) return { packed: json };
  const deflated = deflateRawSync(json).toString("base64");
  return deflated.length < json.length ? { packed: deflated, encoding: "deflate" } : { packed: json };
}

/** The JSON text of a packed entry. */
function packedJson(entry: PackedArchivedCompaction): string {
  if (entry.encoding === undefined) return entry.packed;
  if (entry.encoding !== "deflate") throw new Error(`unknown encoding ${JSON.stringify(entry.encoding)}`);
  return inflateRawSync(Buffer.from(entry.packed, "base64")).toString("utf8");
}

/** Archives already unpacked, by entry: each entry is parsed once. */
const unpacked = new WeakMap<PackedArchivedCompaction, ArchivedCompaction>();

/** Whether `entry` is a {@link PackedArchivedCompaction}. @internal */
export function isPacked(entry: StateArchivedCompaction): entry is PackedArchivedCompaction {
  return typeof (entry as Partial<PackedArchivedCompaction>).packed === "string";
}

/**
 * The channel's entry for `archive`: its originals, `written` and `neighbours` packed in one
 * string; an archive with no originals as it is. Does not change `archive`. @internal
 */
export function packArchive(archive: ArchivedCompaction): StateArchivedCompaction {
  if (archive.messages.length === 0) return archive;
  const { messages, written, neighbours, compactionId, dropped, record } = archive;
  const fields: PackedFields = { messages, ...(written !== undefined ? { written } : {}), ...(neighbours !== undefined ? { neighbours } : {}) };
  const entry: PackedArchivedCompaction = { compactionId, ...packedText(JSON.stringify(fields)), dropped, ...(record !== undefined ? { record } : {}) };
  // The writer has the unpacked form already: a reader in the same process does not parse it again.
  unpacked.set(entry, archive);
  return entry;
}

/**
 * The {@link ArchivedCompaction} an entry of the `compactionArchive` channel stands for: a packed
 * entry parsed (once per entry object; the result is shared, do not change it), any other as it is.
 *
 * @example
 * const originals = (values.compactionArchive ?? []).map(unpackArchive).flatMap((archive) => archive.messages);
 * @throws {CompactionArchiveError} when a packed entry does not hold an archive's JSON.
 */
export function unpackArchive(entry: StateArchivedCompaction): ArchivedCompaction {
  if (!isPacked(entry)) return entry;
  const known = unpacked.get(entry);
  if (known !== undefined) return known;
  let fields: Partial<PackedFields> | null;
  try {
    fields = JSON.parse(packedJson(entry)) as Partial<PackedFields> | null;
  } catch (error) {
    const what = entry.encoding === undefined ? "valid JSON" : "valid compressed JSON";
    throw new CompactionArchiveError(`the archive of compaction ${entry.compactionId} in the state is not ${what}: ${(error as Error).message}`, {
      compactionId: entry.compactionId,
      cause: error,
    });
  }
  if (typeof fields !== "object" || fields === null || !Array.isArray(fields.messages)) {
    throw new CompactionArchiveError(`the archive of compaction ${entry.compactionId} in the state holds no \`messages\` array`, { compactionId: entry.compactionId });
  }
  const { compactionId, dropped, record } = entry;
  const archive: ArchivedCompaction = {
    compactionId,
    messages: fields.messages,
    dropped,
    ...(fields.written !== undefined ? { written: fields.written } : {}),
    ...(fields.neighbours !== undefined ? { neighbours: fields.neighbours } : {}),
    ...(record !== undefined ? { record } : {}),
  };
  unpacked.set(entry, archive);
  return archive;
}

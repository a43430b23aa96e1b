/**
 * The rank tables of one tiktoken encoding, read from js-tiktoken's rank files
 * (`js-tiktoken/ranks/o200k_base`, `js-tiktoken/ranks/cl100k_base`).
 *
 * A token's bytes are held as a "binary string": one UTF-16 code unit (0-255) per byte. An ASCII
 * piece of text is then its own key, and a slice of a piece's bytes is a `slice` of a string.
 */

/** The shape of a js-tiktoken rank file (its default export). */
export interface RankFile {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

/** No rank: a pair of parts that does not merge. */
export const NO_RANK = 0x7fffffff;

/** Bits of a {@link MergedPairs} slot: 2^16 slots. */
const MERGED_PAIR_BITS = 16;

/**
 * A direct-mapped cache of merged pairs: the rank of the bytes of token `lefts[slot]` followed by
 * those of token `rights[slot]` is `merged[slot]` ({@link NO_RANK} when they have none). A pair
 * replaces whichever pair had its slot; `shift` turns a 32-bit hash into a slot.
 */
export interface MergedPairs {
  readonly lefts: Int32Array;
  readonly rights: Int32Array;
  readonly merged: Int32Array;
  readonly shift: number;
}

export interface BpeRanks {
  /** Token of each byte sequence (binary string). */
  readonly ranks: Map<string, number>;
  /** Bytes (binary string) of each ordinary token, by token; `undefined` for a gap in the ranks. */
  readonly bytesOf: (string | undefined)[];
  /** Token of each two-byte sequence, at `(first << 8) | second`; {@link NO_RANK} when there is none. */
  readonly pairRanks: Int32Array;
  /** Token of each single byte; {@link NO_RANK} when there is none. */
  readonly byteRanks: Int32Array;
  /** UTF-8 bytes (binary string) of each special token, by token. */
  readonly specialBytes: Map<number, string>;
  /** Ranks of recently merged pairs of tokens, filled while merging. */
  readonly mergedPairs: MergedPairs;
}

/** The binary string of a UTF-8 byte array. */
function binaryOf(bytes: Uint8Array): string {
  let binary = "";
  for (let index = 0; index < bytes.length; index++) binary += String.fromCharCode(bytes[index]!);
  return binary;
}

/**
 * Parse a rank file as js-tiktoken's `Tiktoken` constructor does: each line of `bpe_ranks` is a name,
 * the first rank, then the base64 bytes of consecutive tokens from that rank on.
 */
export function parseRanks(file: RankFile): BpeRanks {
  const ranks = new Map<string, number>();
  const bytesOf: (string | undefined)[] = [];
  const pairRanks = new Int32Array(1 << 16).fill(NO_RANK);
  const byteRanks = new Int32Array(256).fill(NO_RANK);
  for (const line of file.bpe_ranks.split("\n")) {
    if (line === "") continue;
    const fields = line.split(" ");
    const offset = Number.parseInt(fields[1]!, 10);
    for (let index = 2; index < fields.length; index++) {
      const rank = offset + index - 2;
      // atob decodes base64 to exactly this binary string: one code unit per byte.
      const bytes = atob(fields[index]!);
      ranks.set(bytes, rank);
      bytesOf[rank] = bytes;
      if (bytes.length === 1) byteRanks[bytes.charCodeAt(0)] = rank;
      else if (bytes.length === 2) pairRanks[(bytes.charCodeAt(0) << 8) | bytes.charCodeAt(1)] = rank;
    }
  }
  const encoder = new TextEncoder();
  const specialBytes = new Map<number, string>();
  for (const [text, rank] of Object.entries(file.special_tokens)) specialBytes.set(rank, binaryOf(encoder.encode(text)));
  const slots = 1 << MERGED_PAIR_BITS;
  const mergedPairs = { lefts: new Int32Array(slots).fill(-1), rights: new Int32Array(slots).fill(-1), merged: new Int32Array(slots), shift: 32 - MERGED_PAIR_BITS };
  return { ranks, bytesOf, pairRanks, byteRanks, specialBytes, mergedPairs };
}

import { NO_RANK, type BpeRanks } from "./bpe-ranks.js";

/**
 * Byte-pair merging of one piece's bytes, as js-tiktoken's `bytePairMerge` does it: repeatedly merge
 * the adjacent pair of parts whose joined bytes have the lowest rank (the leftmost one on a tie)
 * until no pair has a rank. js-tiktoken recomputes every pair's rank at every merge, with an array
 * join per pair; this keeps each pair's rank and, after a merge, recomputes only the two pairs the
 * merge changed (the algorithm of OpenAI's Rust tiktoken), on reused typed arrays.
 *
 * - A part is always a token (a byte, or the merge of a ranked pair, whose rank is its token), so a
 *   pair is two tokens, and its rank is looked up in the tables' merged-pair cache before the rank map.
 * - A long piece (a run of thousands of spaces or newlines is one piece) keeps its pairs in a heap
 *   ordered by rank, then position: the same merges in the same order, in O(n log n) instead of O(n^2).
 */

/** Pieces of at least this many bytes are merged with a heap rather than by scanning every pair. */
export const HEAP_MERGE_MIN_BYTES = 64;

/** Start of each part (the last entry is the end of the piece); reused between calls. */
let starts = new Int32Array(256);
/** Token of each part; reused. */
let tokens = new Int32Array(256);
/** Rank of the pair of parts starting at each part, or NO_RANK; reused between calls. */
let pairs = new Int32Array(256);
/** Heap merge: start of the next part, by part start (-1 once merged into the part before); reused. */
let nexts = new Int32Array(256);
/** Heap merge: start of the previous part, by part start; reused. */
let previous = new Int32Array(256);
/** Heap merge: the heap's entries, `rank * POSITIONS + start`; reused. */
let heap = new Float64Array(512);

function ensureCapacity(length: number): void {
  if (starts.length >= length) return;
  let capacity = starts.length;
  while (capacity < length) capacity *= 2;
  starts = new Int32Array(capacity);
  tokens = new Int32Array(capacity);
  pairs = new Int32Array(capacity);
  nexts = new Int32Array(capacity);
  previous = new Int32Array(capacity);
  // A pair is queued once, then once more per merge next to it: at most two entries per byte.
  heap = new Float64Array(2 * capacity);
}

/** The rank of the pair of tokens `left`, `right` whose bytes are `bytes.slice(start, end)`. */
function pairRank(tables: BpeRanks, left: number, right: number, bytes: string, start: number, end: number): number {
  const { lefts, rights, merged, shift } = tables.mergedPairs;
  const slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x632be5ab, 0x85ebca6b)) >>> shift;
  if (lefts[slot] === left && rights[slot] === right) return merged[slot]!;
  const rank = tables.ranks.get(bytes.slice(start, end)) ?? NO_RANK;
  lefts[slot] = left;
  rights[slot] = right;
  merged[slot] = rank;
  return rank;
}

/** Merge by scanning every pair for the lowest rank at each merge; return how many parts remain (their tokens in `tokens`). */
function mergeByScan(bytes: string, tables: BpeRanks): number {
  const { pairRanks, byteRanks } = tables;
  const length = bytes.length;
  for (let index = 0; index < length; index++) {
    starts[index] = index;
    tokens[index] = byteRanks[bytes.charCodeAt(index)]!;
    pairs[index] = index + 1 < length ? pairRanks[(bytes.charCodeAt(index) << 8) | bytes.charCodeAt(index + 1)]! : NO_RANK;
  }
  starts[length] = length;
  let parts = length;
  for (;;) {
    let minimum = NO_RANK;
    let at = -1;
    for (let index = 0; index < parts - 1; index++) {
      if (pairs[index]! < minimum) {
        minimum = pairs[index]!;
        at = index;
      }
    }
    if (at < 0) break;
    // Part `at` absorbs part `at + 1`, and becomes the pair's token.
    tokens[at] = minimum;
    starts.copyWithin(at + 1, at + 2, parts + 1);
    tokens.copyWithin(at + 1, at + 2, parts);
    pairs.copyWithin(at + 1, at + 2, parts);
    parts--;
    if (at > 0) pairs[at - 1] = pairRank(tables, tokens[at - 1]!, minimum, bytes, starts[at - 1]!, starts[at + 1]!);
    pairs[at] = at + 1 < parts ? pairRank(tables, minimum, tokens[at + 1]!, bytes, starts[at]!, starts[at + 2]!) : NO_RANK;
  }
  return parts;
}

/** A heap entry: the rank, then the position, so the lowest rank and, on a tie, the leftmost pair comes first. */
const POSITIONS = 2 ** 32;

/** Merge with the ranked pairs in a min-heap (entries of pairs that changed are skipped when they surface); return how many parts remain (their tokens in `tokens`). */
function mergeByHeap(bytes: string, tables: BpeRanks): number {
  const { pairRanks, byteRanks } = tables;
  const length = bytes.length;
  let size = 0;
  /** Queue an entry: sift it up from the end. */
  const push = (entry: number) => {
    let index = size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]! <= entry) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  };
  for (let index = 0; index < length; index++) {
    nexts[index] = index + 1;
    previous[index] = index - 1;
    tokens[index] = byteRanks[bytes.charCodeAt(index)]!;
    const rank = index + 1 < length ? pairRanks[(bytes.charCodeAt(index) << 8) | bytes.charCodeAt(index + 1)]! : NO_RANK;
    pairs[index] = rank;
    if (rank !== NO_RANK) push(rank * POSITIONS + index);
  }
  while (size > 0) {
    // Pop the smallest entry: sift the last one down from the top.
    const entry = heap[0]!;
    const last = heap[--size]!;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
    const rank = Math.floor(entry / POSITIONS);
    const start = entry - rank * POSITIONS;
    // A pair's end only grows while its part lives, so its bytes, and its rank, change with it:
    // an entry whose rank is no longer the pair's is stale.
    if (nexts[start]! < 0 || pairs[start] !== rank) continue;
    const absorbed = nexts[start]!;
    const after = nexts[absorbed]!;
    nexts[absorbed] = -1;
    nexts[start] = after;
    tokens[start] = rank;
    if (after < length) {
      previous[after] = start;
      const next = pairRank(tables, rank, tokens[after]!, bytes, start, nexts[after]!);
      pairs[start] = next;
      if (next !== NO_RANK) push(next * POSITIONS + start);
    } else pairs[start] = NO_RANK;
    if (start > 0) {
      const before = previous[start]!;
      const next = pairRank(tables, tokens[before]!, rank, bytes, before, after);
      pairs[before] = next;
      if (next !== NO_RANK) push(next * POSITIONS + before);
    }
  }
  let count = 0;
  for (let start = 0; start < length; start = nexts[start]!) tokens[count++] = tokens[start]!;
  return count;
}

/**
 * Append the tokens of `bytes` (a binary string of at least two bytes with no rank of its own) to
 * `out`. Pieces of at least `heapFrom` bytes are merged with a heap (tests vary it; both ways give the
 * same tokens).
 */
export function bytePairEncode(bytes: string, tables: BpeRanks, out: number[], heapFrom = HEAP_MERGE_MIN_BYTES): void {
  ensureCapacity(bytes.length + 1);
  const count = bytes.length >= heapFrom ? mergeByHeap(bytes, tables) : mergeByScan(bytes, tables);
  for (let part = 0; part < count; part++) out.push(tokens[part]!);
}

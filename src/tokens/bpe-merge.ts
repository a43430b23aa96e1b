import { NO_RANK, type BpeRanks } from "./bpe-ranks.js";

/**
 * Byte-pair merging of one piece's bytes, as js-tiktoken's `bytePairMerge` does it: repeatedly merge
 * the adjacent pair of parts whose joined bytes have the lowest rank (the leftmost one on a tie)
 * until no pair has a rank. js-tiktoken recomputes every pair's rank at every merge, with an array
 * join per pair; this keeps each pair's rank and, after a merge, recomputes only the two pairs the
 * merge changed (the algorithm of OpenAI's Rust tiktoken), on reused typed arrays. A long piece (a
 * run of thousands of spaces or newlines is one piece) keeps its pairs in a heap ordered by rank,
 * then position: the same merges in the same order, in O(n log n) instead of O(n^2).
 */

/** Pieces of at least this many bytes are merged with a heap rather than by scanning every pair. */
export const HEAP_MERGE_MIN_BYTES = 64;

/** Start of each part (the last entry is the end of the piece); reused between calls. */
let starts = new Int32Array(256);
/** Rank of the pair of parts starting at each part, or NO_RANK; reused between calls. */
let pairs = new Int32Array(256);
/** Heap merge: start of the next part, by part start (-1 once merged into the part before); reused. */
let nexts = new Int32Array(256);
/** Heap merge: start of the previous part, by part start; reused. */
let previous = new Int32Array(256);

function ensureCapacity(length: number): void {
  if (starts.length >= length) return;
  let capacity = starts.length;
  while (capacity < length) capacity *= 2;
  starts = new Int32Array(capacity);
  pairs = new Int32Array(capacity);
  nexts = new Int32Array(capacity);
  previous = new Int32Array(capacity);
}

/**
 * Merge the parts of `bytes` (a binary string of at least two bytes) and return how many parts
 * remain; their starts are `starts[0 .. count]` (with `starts[count] === bytes.length`) until the
 * next call.
 */
function mergeParts(bytes: string, tables: BpeRanks, heapFrom: number): number {
  return bytes.length >= heapFrom ? mergeByHeap(bytes, tables) : mergeByScan(bytes, tables);
}

/** {@link mergeParts} by scanning every pair for the lowest rank at each merge. */
function mergeByScan(bytes: string, tables: BpeRanks): number {
  const { ranks, pairRanks } = tables;
  const length = bytes.length;
  ensureCapacity(length + 1);
  for (let index = 0; index < length - 1; index++) {
    starts[index] = index;
    pairs[index] = pairRanks[(bytes.charCodeAt(index) << 8) | bytes.charCodeAt(index + 1)]!;
  }
  starts[length - 1] = length - 1;
  pairs[length - 1] = NO_RANK;
  starts[length] = length;
  // `parts` counts the parts plus the end entry.
  let parts = length + 1;
  /** Rank of the bytes from part `index` to the start of part `index + span`, when that part exists. */
  const rankOf = (index: number, span: number): number => {
    if (index + span >= parts) return NO_RANK;
    return ranks.get(bytes.slice(starts[index]!, starts[index + span]!)) ?? NO_RANK;
  };
  for (;;) {
    let minimum = NO_RANK;
    let at = -1;
    for (let index = 0; index < parts - 2; index++) {
      if (pairs[index]! < minimum) {
        minimum = pairs[index]!;
        at = index;
      }
    }
    if (at < 0) break;
    // Part `at` absorbs part `at + 1`: the pairs that start at `at - 1` and at `at` change.
    if (at > 0) pairs[at - 1] = rankOf(at - 1, 3);
    pairs[at] = rankOf(at, 3);
    starts.copyWithin(at + 1, at + 2, parts);
    pairs.copyWithin(at + 1, at + 2, parts);
    parts--;
  }
  return parts - 1;
}

/** A heap entry: the rank, then the position, so the lowest rank and, on a tie, the leftmost pair comes first. */
const POSITIONS = 2 ** 32;

/** {@link mergeParts} with the ranked pairs in a min-heap; entries of pairs that changed are skipped when they surface. */
function mergeByHeap(bytes: string, tables: BpeRanks): number {
  const { ranks, pairRanks } = tables;
  const length = bytes.length;
  ensureCapacity(length + 1);
  const heap = new MinHeap();
  for (let index = 0; index < length; index++) {
    nexts[index] = index + 1;
    previous[index] = index - 1;
    const rank = index + 1 < length ? pairRanks[(bytes.charCodeAt(index) << 8) | bytes.charCodeAt(index + 1)]! : NO_RANK;
    pairs[index] = rank;
    if (rank !== NO_RANK) heap.push(rank * POSITIONS + index);
  }
  /** Set the rank of the pair from `start` to `end` (exclusive), and queue it when it has one. */
  const setPair = (start: number, end: number) => {
    const rank = ranks.get(bytes.slice(start, end)) ?? NO_RANK;
    pairs[start] = rank;
    if (rank !== NO_RANK) heap.push(rank * POSITIONS + start);
  };
  while (heap.size > 0) {
    const entry = heap.pop();
    const rank = Math.floor(entry / POSITIONS);
    const start = entry - rank * POSITIONS;
    // A pair's end only grows while its part lives, so its bytes, and its rank, change with it:
    // an entry whose rank is no longer the pair's is stale.
    if (nexts[start]! < 0 || pairs[start] !== rank) continue;
    const absorbed = nexts[start]!;
    const after = nexts[absorbed]!;
    nexts[absorbed] = -1;
    nexts[start] = after;
    if (after < length) {
      previous[after] = start;
      setPair(start, nexts[after]!);
    } else pairs[start] = NO_RANK;
    if (start > 0) setPair(previous[start]!, after);
  }
  let count = 0;
  for (let start = 0; start < length; start = nexts[start]!) starts[count++] = start;
  starts[count] = length;
  return count;
}

/** A binary min-heap of numbers. */
class MinHeap {
  readonly #items: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(value: number): void {
    const items = this.#items;
    let index = items.length;
    items.push(value);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (items[parent]! <= value) break;
      items[index] = items[parent]!;
      index = parent;
    }
    items[index] = value;
  }

  /** Remove and return the smallest value (the heap must not be empty). */
  pop(): number {
    const items = this.#items;
    const top = items[0]!;
    const last = items.pop()!;
    const size = items.length;
    if (size === 0) return top;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && items[child + 1]! < items[child]!) child++;
      if (items[child]! >= last) break;
      items[index] = items[child]!;
      index = child;
    }
    items[index] = last;
    return top;
  }
}

/**
 * Append the tokens of `bytes` (a binary string of at least two bytes with no rank of its own) to
 * `out`. Pieces of at least `heapFrom` bytes are merged with a heap (tests vary it; both ways give the
 * same tokens).
 */
export function bytePairEncode(bytes: string, tables: BpeRanks, out: number[], heapFrom = HEAP_MERGE_MIN_BYTES): void {
  const count = mergeParts(bytes, tables, heapFrom);
  for (let part = 0; part < count; part++) {
    const start = starts[part]!;
    const end = starts[part + 1]!;
    // Every part is a single byte or a merge of a ranked pair, so it has a rank.
    if (end - start === 1) out.push(tables.byteRanks[bytes.charCodeAt(start)]!);
    else if (end - start === 2) out.push(tables.pairRanks[(bytes.charCodeAt(start) << 8) | bytes.charCodeAt(start + 1)]!);
    else out.push(tables.ranks.get(bytes.slice(start, end))!);
  }
}

/** Slots of a {@link RecentPieces} table, by default. */
export const RECENT_PIECES_SLOTS = 1 << 16;
/** V8 copies a substring shorter than this; a longer one may be a slice that keeps its whole text alive. */
const SHORT_SUBSTRING = 13;

/** A fresh flat copy of a string: a kept key must not be a slice that keeps a long text alive. */
export function copyOf(text: string): string {
  if (text.length < SHORT_SUBSTRING) return text;
  let copy = "";
  for (let index = 0; index < text.length; index++) copy += text[index];
  return copy;
}

/**
 * The tokens of recently seen pieces, found by a piece's characters inside its text: no substring,
 * no string hashing, no probe of a 200 000-entry map for the pieces that recur (most pieces of real
 * text do). Direct-mapped: a piece replaces whichever piece had its slot.
 */
export class RecentPieces<Value> {
  readonly #keys: (string | undefined)[];
  readonly #values: (Value | undefined)[];
  /** A slot is the top bits of a 32-bit hash. */
  readonly #shift: number;
  #slot = 0;

  /** @param slots a power of two from 1 to 2^16. */
  constructor(slots = RECENT_PIECES_SLOTS) {
    const bits = Math.log2(slots);
    if (!Number.isInteger(bits) || bits < 0 || bits > 16) throw new RangeError(`RecentPieces: ${slots} slots is not a power of two from 1 to 65536`);
    this.#keys = new Array<string | undefined>(slots).fill(undefined);
    this.#values = new Array<Value | undefined>(slots).fill(undefined);
    this.#shift = 32 - bits;
  }

  /** The value kept for `text.slice(start, end)`, if any; {@link remember} then fills the same slot. */
  lookup(text: string, start: number, end: number): Value | undefined {
    let hash = end - start;
    for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x9e3779b1);
    // ">>> 32" would shift by 0: one slot is slot 0.
    const slot = this.#shift === 32 ? 0 : hash >>> this.#shift;
    this.#slot = slot;
    const key = this.#keys[slot];
    if (key === undefined || key.length !== end - start) return undefined;
    for (let index = 0; index < key.length; index++) if (key.charCodeAt(index) !== text.charCodeAt(start + index)) return undefined;
    return this.#values[slot];
  }

  /** Keep `value` for `piece`, the piece the last {@link lookup} did not find. */
  remember(piece: string, value: Value): void {
    this.#keys[this.#slot] = copyOf(piece);
    this.#values[this.#slot] = value;
  }
}

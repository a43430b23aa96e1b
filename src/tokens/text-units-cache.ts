/**
 * A bounded cache of the token count of long texts, by their content: a message read back from a
 * checkpoint (every run of a LangGraph thread starts from one) is a new object, so the counter's
 * per-object cache misses and the whole history would be tokenized again at the first step of each
 * run; its texts are the same strings, and their counts come from here. Least recently used texts
 * leave first once the cached texts exceed the character budget. @internal
 */
export class TextUnitsCache {
  readonly #counts = new Map<string, number>();
  #characters = 0;

  /**
   * @param minLength texts shorter than this are not cached (tokenizing them costs less than keeping them).
   * @param maxCharacters total length of the cached texts, in UTF-16 code units.
   */
  constructor(
    readonly minLength: number,
    readonly maxCharacters: number,
  ) {}

  /** The count of `text`, from the cache or from `count` (then cached). */
  unitsOf(text: string, count: (text: string) => number): number {
    if (text.length < this.minLength || text.length > this.maxCharacters) return count(text);
    const cached = this.#counts.get(text);
    if (cached !== undefined) {
      // Most recently used last: re-insert.
      this.#counts.delete(text);
      this.#counts.set(text, cached);
      return cached;
    }
    const units = count(text);
    this.#counts.set(text, units);
    this.#characters += text.length;
    for (const oldest of this.#counts.keys()) {
      if (this.#characters <= this.maxCharacters) break;
      this.#counts.delete(oldest);
      this.#characters -= oldest.length;
    }
    return units;
  }

  /** The cached count of `text`, if it is cached (its place in the eviction order unchanged). */
  peek(text: string): number | undefined {
    return this.#counts.get(text);
  }

  /** Texts cached now. */
  get size(): number {
    return this.#counts.size;
  }
}

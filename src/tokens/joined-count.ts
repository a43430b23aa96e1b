const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SLASH = 0x2f;

/** Whether a UTF-16 code unit is one of JavaScript's `\s` characters (the regular expression class). */
function isSpace(unit: number): boolean {
  if (unit < 0x80) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/**
 * Whether no piece of the `o200k_base` and `cl100k_base` pre-tokenizers spans position `at` of
 * `text`: the unit before it ends a line (`\n` or `\r`) and the unit at it is neither whitespace
 * nor `/`. Then the text's tokens are the tokens of `text.slice(0, at)` followed by those of
 * `text.slice(at)`, each encoded alone.
 *
 * Why, alternative by alternative of both patterns: the letter and contraction alternatives never
 * take a line end (their optional lead character excludes `\r` and `\n`); the digit one takes
 * digits only; the punctuation one (` ?[^\s\p{L}\p{N}]+[\r\n/]*`) takes line ends only at its
 * tail, followed by nothing but line ends and `/`; the whitespace ones take whitespace only. So no
 * piece holds a line end and a following non-space character other than `/`. The pieces before
 * `at` do not change when the text stops there: only `\s+(?!\S)` could then match where it did
 * not (its lookahead sees the end instead of a non-space character), and a whitespace run ending
 * in a line end is taken by `\s*[\r\n]+`, an earlier alternative, either way. The pieces from `at`
 * on never look behind. @internal
 */
export function isPieceBreak(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return false;
  const before = text.charCodeAt(at - 1);
  if (before !== LINE_FEED && before !== CARRIAGE_RETURN) return false;
  const unit = text.charCodeAt(at);
  return unit !== SLASH && !isSpace(unit);
}

/**
 * The tokens of `parts.join("")` (`joined`) from `count` of each part that holds a piece break of
 * the joined text (see {@link isPieceBreak}; its first may be where it starts) and of the short
 * texts around them: such a part is `head | middle | tail`, cut at its first and last breaks, so its
 * middle costs `count(part) - count(head) - count(tail)`, and the texts between middles are counted
 * as they are (`tail + parts without a break + head`). Exactly `count` of the joined text, one scan
 * of it; worth it when `count` of the long parts is cached (a summary counted when it was written,
 * then placed in its message). @internal
 */
export function joinedCount(parts: readonly string[], count: (text: string) => number, joined = parts.join("")): number {
  let total = 0;
  // The start of the text between middles, not counted yet.
  let from = 0;
  let start = 0;
  for (const part of parts) {
    const end = start + part.length;
    let first = start;
    while (first < end && !isPieceBreak(joined, first)) first++;
    if (first < end) {
      let last = end;
      while (last > first && !isPieceBreak(joined, last)) last--;
      total += count(joined.slice(from, first)) + (count(part) - count(joined.slice(start, first)) - count(joined.slice(last, end)));
      from = last;
    }
    start = end;
  }
  return total + count(joined.slice(from));
}

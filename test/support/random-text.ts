/** Seeded random strings for encoder tests: code points drawn from several scripts and classes. */

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code point ranges, inclusive; ASCII letters and spaces are drawn more often than the others. */
const RANGES: [number, number][] = [
  [0x61, 0x7a], // a-z
  [0x61, 0x7a],
  [0x41, 0x5a], // A-Z
  [0x20, 0x20], // space
  [0x20, 0x20],
  [0x30, 0x39], // digits
  [0x21, 0x2f], // punctuation
  [0x3a, 0x40],
  [0x5b, 0x60],
  [0x7b, 0x7e],
  [0x09, 0x0d], // tab, newlines
  [0x00, 0x1f], // control characters
  [0x27, 0x27], // apostrophe (contractions)
  [0x80, 0xff], // Latin-1 supplement
  [0x100, 0x24f], // Latin extended
  [0x300, 0x36f], // combining marks
  [0x370, 0x3ff], // Greek
  [0x400, 0x4ff], // Cyrillic
  [0x590, 0x5ff], // Hebrew
  [0x600, 0x6ff], // Arabic
  [0x900, 0x97f], // Devanagari
  [0xe00, 0xe7f], // Thai
  [0x2000, 0x206f], // general punctuation, odd spaces
  [0x3000, 0x30ff], // CJK punctuation, kana
  [0x4e00, 0x9fff], // CJK ideographs
  [0xac00, 0xd7a3], // Hangul
  [0xd800, 0xdfff], // lone surrogates
  [0xff00, 0xffef], // full-width forms
  [0x1f300, 0x1faff], // emoji
  [0x1d400, 0x1d7ff], // mathematical letters
  [0x20000, 0x2a6df], // CJK extension B
];

/** A string of up to `maxLength` code points, each from a random range. */
export function randomText(random: () => number, maxLength: number): string {
  const length = Math.floor(random() * (maxLength + 1));
  let text = "";
  for (let index = 0; index < length; index++) {
    const [low, high] = RANGES[Math.floor(random() * RANGES.length)]!;
    text += String.fromCodePoint(low + Math.floor(random() * (high - low + 1)));
  }
  return text;
}

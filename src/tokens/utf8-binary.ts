/**
 * The UTF-8 bytes of a string as a "binary string" (one code unit, 0-255, per byte), exactly the
 * bytes `TextEncoder.encode` gives: a lone surrogate becomes U+FFFD (EF BF BD).
 */
export function utf8Binary(text: string): string {
  let binary = "";
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      binary += String.fromCharCode(code);
    } else if (code < 0x800) {
      binary += String.fromCharCode(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        binary += String.fromCharCode(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
        index++;
      } else {
        binary += "\xef\xbf\xbd";
      }
    } else {
      binary += String.fromCharCode(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    }
  }
  return binary;
}

/** True when every code unit of `text` is ASCII: then `text` is its own UTF-8 binary string. */
export function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) >= 0x80) return false;
  return true;
}

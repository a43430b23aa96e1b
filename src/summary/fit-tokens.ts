/** The characters a first try gives each token, before the measured ratio takes over. */
const FIRST_CHARACTERS_PER_TOKEN = 4;

/**
 * The longest text `render` gives (for a limit in characters) whose `count` is at most `maxTokens`,
 * found in at most `tries` renderings: a first guess of 4 characters a token, then the ratio
 * measured on the last try (shrinking when it was over, growing when the render was held back and
 * under). `fits` is false when no try was within `maxTokens`: `text` is then the last try's.
 * @internal
 */
export async function fitToTokens(
  render: (maxCharacters: number) => string,
  maxTokens: number,
  count: (text: string) => Promise<number>,
  tries = 4,
): Promise<{ text: string; tokens: number; fits: boolean }> {
  let maxCharacters = maxTokens * FIRST_CHARACTERS_PER_TOKEN;
  let best: { text: string; tokens: number } | undefined;
  let last = { text: "", tokens: 0 };
  for (let attempt = 0; attempt < tries; attempt++) {
    const text = render(maxCharacters);
    if (best && text.length <= best.text.length) break;
    const tokens = await count(text);
    last = { text, tokens };
    if (tokens > maxTokens) {
      maxCharacters = Math.min(maxCharacters, text.length) * (maxTokens / tokens) * 0.95;
      continue;
    }
    best = last;
    // Not held back by the limit, or close enough to it: nothing longer would fit.
    if (text.length < maxCharacters * 0.9 || tokens >= maxTokens * 0.95) break;
    maxCharacters = maxCharacters * Math.min(2, maxTokens / Math.max(1, tokens)) * 0.97;
  }
  return best ? { ...best, fits: true } : { ...last, fits: false };
}

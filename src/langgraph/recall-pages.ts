import type { TokenCounter } from "../tokens/token-counter-types.js";
import { boundaryAtOrAfter, boundaryAtOrBefore } from "../text/code-points.js";

/** The most code units a token can stand for, as far as cutting a long line goes (a first slice, cut to tokens next). */
const MAX_UNITS_PER_TOKEN = 16;

/**
 * `text` split into parts of at most `maxTokens` tokens each, in order, nothing lost or added: lines
 * (each with its line break) counted once each and packed greedily; a line longer than a part is cut
 * at token boundaries (never inside a code point) across parts. Linear in the text. @internal
 */
export async function pagesOf(text: string, maxTokens: number, counter: TokenCounter): Promise<string[]> {
  const pages: string[] = [];
  let page = "";
  let pageTokens = 0;
  const flush = () => {
    if (page !== "") pages.push(page);
    page = "";
    pageTokens = 0;
  };
  const lines = text.split(/(?<=\n)/u);
  for (const line of lines) {
    const tokens = await counter.countText(line);
    if (pageTokens + tokens <= maxTokens) {
      page += line;
      pageTokens += tokens;
      continue;
    }
    if (tokens <= maxTokens) {
      flush();
      page = line;
      pageTokens = tokens;
      continue;
    }
    // A line longer than a part: cut at token boundaries, first filling what the part has left.
    let rest = line;
    while (rest !== "") {
      const budget = maxTokens - pageTokens;
      const slice = rest.slice(0, boundaryAtOrBefore(rest, Math.min(rest.length, budget * MAX_UNITS_PER_TOKEN)));
      let head = budget > 0 && slice !== "" ? await counter.truncateText(slice, budget) : "";
      if (head === "" && page === "") head = rest.slice(0, boundaryAtOrAfter(rest, 1));
      if (head === "") {
        flush();
        continue;
      }
      page += head;
      pageTokens += await counter.countText(head);
      rest = rest.slice(head.length);
      if (rest !== "") flush();
    }
  }
  flush();
  return pages;
}

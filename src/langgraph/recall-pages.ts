import type { TokenCounter } from "../tokens/token-counter-types.js";
import { boundaryAtOrAfter, boundaryAtOrBefore } from "../text/code-points.js";

/** The most code units a token can stand for, as far as cutting a long line goes (a first slice, cut to tokens next). */
const MAX_UNITS_PER_TOKEN = 16;

/** The most tokens of one piece of a recall: a line longer than this is cut across pieces. @internal */
export const RECALL_PIECE_TOKENS = 250;

/** One piece of a recall's text: a line (with its line break), or a cut of a longer line, and its tokens. @internal */
export interface RecallPiece {
  readonly text: string;
  readonly tokens: number;
}

/**
 * `text` cut into pieces, in order, nothing lost or added: each line (with its line break) counted
 * once; a line over `pieceTokens` cut at token boundaries (never inside a code point) into pieces
 * of at most `pieceTokens`. The pieces do not depend on the room a call has, so a part number
 * (the index of a piece) names the same text at every call. Linear in the text. @internal
 */
export async function piecesOf(text: string, pieceTokens: number, counter: TokenCounter): Promise<RecallPiece[]> {
  const pieces: RecallPiece[] = [];
  for (const line of text.split(/(?<=\n)/u)) {
    if (line === "") continue;
    const tokens = await counter.countText(line);
    if (tokens <= pieceTokens) {
      pieces.push({ text: line, tokens });
      continue;
    }
    let rest = line;
    while (rest !== "") {
      const slice = rest.slice(0, boundaryAtOrBefore(rest, Math.min(rest.length, pieceTokens * MAX_UNITS_PER_TOKEN)));
      let head = slice === "" ? "" : await counter.truncateText(slice, pieceTokens);
      if (head === "") head = rest.slice(0, boundaryAtOrAfter(rest, 1));
      pieces.push({ text: head, tokens: await counter.countText(head) });
      rest = rest.slice(head.length);
    }
  }
  return pieces;
}

/**
 * A `find`'s result (`findBlocks`) in pieces ({@link piecesOf} of each block group, after
 * `wrap`, joined where the text joins), and `firstPart`: the pieces of the newest messages holding
 * each term, which a part starting among them does not go past (the whole count when nothing older
 * matches). @internal
 */
export async function findPiecesOf(
  blocks: { readonly newest: string; readonly older: string },
  pieceTokens: number,
  counter: TokenCounter,
  wrap: (text: string) => string = (text) => text,
): Promise<{ pieces: RecallPiece[]; firstPart: number }> {
  if (blocks.newest === "" || blocks.older === "") {
    const pieces = await piecesOf(wrap(blocks.newest + blocks.older), pieceTokens, counter);
    return { pieces, firstPart: pieces.length };
  }
  const newest = await piecesOf(wrap(`${blocks.newest}\n\n`), pieceTokens, counter);
  return { pieces: [...newest, ...(await piecesOf(wrap(blocks.older), pieceTokens, counter))], firstPart: newest.length };
}

/**
 * The end (exclusive) of the part that starts at piece `start`: the pieces from it, taken while
 * their tokens sum to at most `cap`. `start` itself when the first does not fit. @internal
 */
export function partEnd(pieces: readonly { readonly tokens: number }[], start: number, cap: number): number {
  let end = start;
  let used = 0;
  while (end < pieces.length && used + pieces[end]!.tokens <= cap) used += pieces[end++]!.tokens;
  return end;
}

/**
 * `text` in parts of at most `maxTokens` tokens each (by the pieces' counts), as the recall tool
 * returns them with that much room: pieces of at most min(`maxTokens`, {@link RECALL_PIECE_TOKENS})
 * packed in order. @internal
 */
export async function pagesOf(text: string, maxTokens: number, counter: TokenCounter): Promise<string[]> {
  const pieces = await piecesOf(text, Math.min(maxTokens, RECALL_PIECE_TOKENS), counter);
  const pages: string[] = [];
  for (let start = 0; start < pieces.length; ) {
    const end = partEnd(pieces, start, maxTokens);
    pages.push(pieces.slice(start, end).map((piece) => piece.text).join(""));
    start = end;
  }
  return pages;
}

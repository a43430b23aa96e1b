/**
 * The recall calls of one step (see recall.ts): what the agent reads of each `find`, and the rounds
 * of parallel calls that read it as the tool bounds them when it knows the window.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { REREAD_REPLY_TOKENS } from "./rereads.js";
import { findBlocks, findTerms } from "../../src/langgraph/recall-find.js";
import { findPiecesOf, partEnd, RECALL_PIECE_TOKENS, type RecallPiece } from "../../src/langgraph/recall-pages.js";
import { RECALL_FRAME_TOKENS, recallCap } from "../../src/langgraph/recall-room.js";
import type { TokenCounter } from "../../src/index.js";

export { RECALL_FRAME_TOKENS };

/** The most tokens of originals one recall call returns (the tool's `maxTokens` default): longer ones are read in parts. */
export const RECALL_PAGE_TOKENS = 2_000;
/** Tokens of the agent's recall call (its output, then part of the next input): as a re-read's repeated call. */
export const RECALL_CALL_TOKENS = REREAD_REPLY_TOKENS;

/** What a step's recall calls take and return, in tokens, and how many go over the window. */
export interface RecallCallTotals {
  /** Tokens the calls returned: the originals' parts and their frames. */
  readonly returnedTokens: number;
  /** Input tokens that are a cached prefix: the step's input, and the parts returned before. */
  readonly cachedTokens: number;
  /** Input tokens that are new: each call and its part. */
  readonly uncachedTokens: number;
  /** Output tokens: {@link RECALL_CALL_TOKENS} per call. */
  readonly outputTokens: number;
  /** The largest call's input (0 without one). */
  readonly peakCallTokens: number;
  /** Calls whose input is over the window. */
  readonly callsOverWindow: number;
}

/** The recall calls of one step, on top of a context of `contextTokens`. */
export interface RecallCalls extends RecallCallTotals {
  readonly calls: number;
  /** Requests left unfinished when a round had no room for any part. */
  readonly stalled: number;
  /** Per request, the pieces read. */
  readonly read: readonly number[];
}

/**
 * The recall calls that read one step's requests (each the pieces of a `find`, read up to its
 * `need`-th; every call returns the whole part the tool gives, which ends at `firstPart` when it
 * starts before it), as parallel tool calls, as the tool bounds them when it
 * knows the window: round `k` asks every request with pieces left for its next part in one model
 * call, and each call returns the pieces that fit in its share of the room the context leaves
 * (`recallCap`: the window less 5%, less the context, the rounds before and the round's calls,
 * split evenly, less the frame; at most {@link RECALL_PAGE_TOKENS}). A call's input is the context
 * and the rounds before it (cached), then its tool calls and their parts with frames (uncached);
 * its output is its tool calls, {@link RECALL_CALL_TOKENS} each ({@link RECALL_REF_TOKENS} more, in
 * the call and in each frame, per reference past a request's first). A call with no room for its next
 * piece gets the tool's note (a frame's tokens). A round in which no call would get a piece is not
 * asked: reading stops, and the unfinished requests are `stalled`.
 *
 * @example
 * recallCallsOf([{ pieces: [200, 200], need: 1 }], 10_000, 16_000); // 1 call: cached 10,000, uncached 50 + 400 + 50, output 50
 * recallCallsOf([{ pieces: [200, 200], need: 2 }], 14_800, 16_000); // room for one piece: 1 call, then stalled 1
 */
export function recallCallsOf(requests: readonly RecallRequest[], contextTokens: number, window: number): RecallCalls {
  const read = requests.map(() => 0);
  let calls = 0;
  let cachedTokens = 0;
  let uncachedTokens = 0;
  let outputTokens = 0;
  let returnedTokens = 0;
  let before = 0;
  let peakCallTokens = 0;
  let callsOverWindow = 0;
  let stalled = 0;
  for (;;) {
    const active = requests.flatMap((request, index) => (read[index]! < request.need ? [index] : []));
    if (active.length === 0) break;
    const context = contextTokens + before + active.reduce((sum, index) => sum + sizesOf(requests[index]!).call, 0);
    const cap = Math.min(RECALL_PAGE_TOKENS, recallCap(window, context, active.length));
    const ends = active.map((index) => {
      const { pieces, firstPart = Infinity } = requests[index]!;
      return Math.min(partEnd(pieces.map((tokens) => ({ tokens })), read[index]!, cap), read[index]! < firstPart ? firstPart : Infinity);
    });
    if (ends.every((end, at) => end === read[active[at]!])) {
      stalled = active.length;
      break;
    }
    calls++;
    let added = 0;
    active.forEach((index, at) => {
      // A call with no room for its next piece gets the tool's short note instead: a frame's worth.
      const { call, frame } = sizesOf(requests[index]!);
      const size = requests[index]!.pieces.slice(read[index]!, ends[at]!).reduce((sum, tokens) => sum + tokens, 0) + frame;
      read[index] = ends[at]!;
      added += call + size;
      returnedTokens += size;
      outputTokens += call;
    });
    const input = contextTokens + before + added;
    cachedTokens += contextTokens + before;
    uncachedTokens += added;
    peakCallTokens = Math.max(peakCallTokens, input);
    if (input > window) callsOverWindow++;
    before += added;
  }
  return { calls, returnedTokens, cachedTokens, uncachedTokens, outputTokens, peakCallTokens, callsOverWindow, stalled, read };
}

/** The pieces a `find` of `words` in `originals` returns, as the tool cuts them, and how many hold the newest message holding each word (a part starting among them ends with them). */
export async function findPieces(originals: readonly BaseMessage[], words: readonly string[], counter: TokenCounter): Promise<{ pieces: RecallPiece[]; firstPart: number }> {
  return findPiecesOf(findBlocks(originals, findTerms(words.join("|"))), RECALL_PIECE_TOKENS, counter);
}

/** Where `word` first shows in `pieces`: the pieces read up to it, and their tokens. */
export function firstShown(pieces: readonly RecallPiece[], word: string): { pieces: number; tokens: number } | undefined {
  const lower = word.toLowerCase();
  let tokens = 0;
  for (let index = 0; index < pieces.length; index++) {
    tokens += pieces[index]!.tokens;
    if (pieces[index]!.text.toLowerCase().includes(lower)) return { pieces: index + 1, tokens };
  }
  return undefined;
}

/** One `find` the agent asks for: the token sizes of every piece the tool cuts its result into, and how many of them it reads (up to the last piece a word first shows in). */
export interface RecallRequest {
  readonly pieces: readonly number[];
  readonly need: number;
  /** The references it names (`ref: a|b`): each one past the first adds {@link RECALL_REF_TOKENS} to its call and to each part's frame. @default 1 */
  readonly refs?: number;
  /** A part that starts before this piece ends at it (a find's newest matches, see `findPiecesOf`). @default no such bound */
  readonly firstPart?: number;
}

/** Tokens one more reference adds to a recall call's `ref` (`|04417296`), and to its result's `<recalled ref="…">`. */
export const RECALL_REF_TOKENS = 4;

/** The tokens of a request's call and of each part's frame. */
function sizesOf(request: RecallRequest): { call: number; frame: number } {
  const more = ((request.refs ?? 1) - 1) * RECALL_REF_TOKENS;
  return { call: RECALL_CALL_TOKENS + more, frame: RECALL_FRAME_TOKENS + more };
}

/**
 * A `find` of `words` in the originals of `read.refs` references as {@link RecallRequest}, with per
 * word the pieces up to its first showing (0 when it does not show), and the text of every piece.
 */
export async function findRead(read: { originals: readonly BaseMessage[]; refs: number }, words: readonly string[], counter: TokenCounter): Promise<RecallRequest & { needs: [string, number][]; texts: string[] }> {
  const { pieces, firstPart } = await findPieces(read.originals, words, counter);
  const needs = words.map((word): [string, number] => [word, firstShown(pieces, word)?.pieces ?? 0]);
  return { pieces: pieces.map((piece) => piece.tokens), need: Math.min(pieces.length, Math.max(1, ...needs.map(([, need]) => need))), refs: read.refs, firstPart, needs, texts: pieces.map((piece) => piece.text) };
}

/** The tokens the tool returns for `requests` read with room for whole parts: each call's part and frame, and its call. */
export function unboundedCost(requests: readonly RecallRequest[]): number {
  return recallCallsOf(requests, 0, Infinity).uncachedTokens;
}

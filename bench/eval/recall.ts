/**
 * Recall: the recovery a grounding miss costs when the agent can read its own thread's archive back.
 * For a system that archives what it compacts (ours), a miss whose source message is in the archive
 * (a hidden tool result, the agent's own words, the user's words a summary replaced) is charged as a
 * recall instead of a re-read or a loss. The agent passes the reference its context shows for the
 * source: the source's own, where a rewritten copy of it (a placeholder, a trimmed reply) is in the
 * input; else that of the summary that stands for it. Per step, one request naming every such
 * reference (`ref: a|b`) whose `find` names the step's missed words, read up to the line where the
 * last of them first shows, and one more request per missed word that first shows only past the
 * first {@link RECALL_PAGE_TOKENS} tokens of it (a `find` of its own in its own reference, read to
 * its first line); priced at the tokens of exactly what the tool returns (the newest matching
 * message of each word first, src/langgraph/recall-find.ts, cut into pieces and parts as the tool
 * cuts them). A step's requests go out as parallel tool calls, bounded as the tool bounds them
 * when it knows the window (src/langgraph/recall-room.ts; see {@link recallCallsOf}): one model call
 * per round of parts, each priced as a re-read is (rereads.ts): its input is the step's input (with
 * the tool's schema and the references), all of it a cached prefix, plus the rounds already
 * returned (cached: they were just sent), then the agent's calls and the new parts with their
 * frames, uncached; its output is the
 * agent's calls. Every word of what a recall returned is in the context until the next compaction:
 * none of them is recalled again in the epoch, asked for or not; a word the
 * room left no part for stays missing at its step (`unreadWords`). A miss no
 * reference in the context reaches is recovered as without recall: a tool result is re-read, the
 * agent's or the user's words are lost.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { groundingWords, type GroundingMisses } from "./grounding.js";
import { REREAD_REPLY_TOKENS } from "./rereads.js";
import { findPieces, findRead, firstShown, RECALL_PAGE_TOKENS, recallCallsOf, unboundedCost, type RecallCallTotals } from "./recall-calls.js";
import type { TokenCounter } from "../../src/index.js";

export { RECALL_CALL_TOKENS, RECALL_FRAME_TOKENS, RECALL_PAGE_TOKENS, RECALL_REF_TOKENS, recallCallsOf, type RecallCalls } from "./recall-calls.js";

/** Tokens of the recall tool's schema, sent with every model call of a run with recall on (the tool's figure). */
export const RECALL_SCHEMA_TOKENS = 68;
/** Tokens of the reference (` [recall <ref>]`) a compaction appends to each message it rewrites, with recall on (the tool's figure). */
export const RECALL_REFERENCE_TOKENS = 8;

/** The recovery of one step's grounding misses with recall on (the totals: of its recall calls). */
export interface StepRecall extends RecallCallTotals {
  /** Recall requests at this step: per reference, one `find` of its missed words, and one per word that first shows far into it. */
  readonly recalls: number;
  /** Recall calls: model calls, one per round of parallel requests. */
  readonly recallCalls: number;
  /** Recalls left unfinished because a round had no room for any part (the tool said so). */
  readonly stalledRecalls: number;
  /** Missing words a reference reaches but no room was left to read back at this step: still missing (asked again when missed again). */
  readonly unreadWords: number;
  /** Missing words a reference in the context reaches (recovered by a recall now or earlier in the epoch). */
  readonly recalledWords: number;
  /** Tool results no reference in the context reaches, re-read as without recall (rereads.ts), and what they cost. */
  readonly rereads: number;
  readonly rereadCachedTokens: number;
  readonly rereadUncachedTokens: number;
  readonly rereadOutputTokens: number;
  /** Missing words of tool results no archive held. */
  readonly rereadWords: number;
  /** Missing words of the agent's own replies, or of user (or system) messages, that no reference reaches: lost. */
  readonly lostOwnWords: number;
  readonly lostUserWords: number;
}

/** No recall, nothing missed. */
export const NO_RECALL: StepRecall = Object.freeze({
  recalls: 0,
  recallCalls: 0,
  returnedTokens: 0,
  cachedTokens: 0,
  uncachedTokens: 0,
  outputTokens: 0,
  peakCallTokens: 0,
  callsOverWindow: 0,
  stalledRecalls: 0,
  unreadWords: 0,
  recalledWords: 0,
  rereads: 0,
  rereadCachedTokens: 0,
  rereadUncachedTokens: 0,
  rereadOutputTokens: 0,
  rereadWords: 0,
  lostOwnWords: 0,
  lostUserWords: 0,
});

/** What a compaction wrote to the thread's archive (see `SystemStep.archive`). */
export interface ArchiveWrite {
  readonly ids: readonly string[];
  readonly summary?: { readonly id: string; readonly covers: readonly string[] };
}

/**
 * One thread's archive as recall reads it: which originals it holds, and per summary the originals it
 * stands for, in history order (an earlier summary it replaced expanded to its own).
 */
export class RecallArchive {
  readonly #ids = new Set<string>();
  readonly #spans = new Map<string, readonly string[]>();
  /** Per original, the newest summary that stands for it. */
  readonly #summaryOf = new Map<string, string>();

  /** A compaction wrote `write`. */
  add(write: ArchiveWrite): void {
    for (const id of write.ids) this.#ids.add(id);
    if (!write.summary) return;
    const covered = write.summary.covers.flatMap((id) => this.#spans.get(id) ?? [id]);
    const span = covered.filter((id) => this.#ids.has(id));
    this.#spans.set(write.summary.id, span);
    for (const id of span) this.#summaryOf.set(id, write.summary.id);
  }

  /** Whether the archive holds the original of `id`. */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /**
   * The reference the context `inputIds` shows for the original `id`, and the originals it stands
   * for, in history order: its own (a rewritten copy under its id is in the context), which stands
   * for `id`; else the newest summary that stands for it and is in the context, which stands for its
   * span. Undefined when no reference in the context reaches `id`.
   */
  referenceFor(id: string, inputIds: ReadonlySet<string>): { readonly ref: string; readonly reads: readonly string[] } | undefined {
    if (!this.#ids.has(id)) return undefined;
    if (inputIds.has(id) && !this.#spans.has(id)) return { ref: id, reads: [id] };
    const summary = this.#summaryOf.get(id);
    if (summary === undefined || !inputIds.has(summary)) return undefined;
    return { ref: summary, reads: this.#spans.get(summary)! };
  }
}

/**
 * The recalls of one replay: which missed words this compaction epoch has recalled (they are in the
 * context until the next compaction), and which unreachable tool results it has re-read.
 *
 * @example
 * const ledger = new RecallLedger();
 * if (step.compacted) ledger.newEpoch();
 * const recall = await ledger.charge(misses, { archive, input, contextTokens, window, messageOf, countMessage, tokenCounter });
 */
export class RecallLedger {
  #recalled = new Set<string>();
  #reread = new Set<BaseMessage>();

  /** A compaction: the next miss of any source is charged again. */
  newEpoch(): void {
    this.#recalled = new Set();
    this.#reread = new Set();
  }

  /**
   * The recovery of one step's misses. `input` is the model's input, `contextTokens` its tokens with
   * the schema and the references, `messageOf` the recording's message of an id, `countMessage` the
   * tokens of a re-read result, `tokenCounter` the tool's pages, `positionOf` the recording's order.
   * One request naming every reference that reaches a missed word not in the context since a recall
   * of the epoch, with `find` naming those words (`a|b`), priced at the tokens of what the tool
   * returns for it (`findBlocks`), in the tool's parts, read up to the last part a word first shows
   * in; a far word's own request where that returns less; every request of the step goes out in
   * parallel (see {@link recallCallsOf}).
   */
  async charge(
    misses: GroundingMisses,
    step: {
      archive: RecallArchive;
      input: readonly BaseMessage[];
      contextTokens: number;
      window: number;
      messageOf: (id: string) => BaseMessage | undefined;
      /** Where the recording has the message of an id (orders the originals of several references); in the archive's order without it. */
      positionOf?: (id: string) => number;
      countMessage: (message: BaseMessage) => Promise<number>;
      tokenCounter: TokenCounter;
    },
  ): Promise<StepRecall> {
    if (misses.missing.size === 0) return NO_RECALL;
    const recall: { -readonly [K in keyof StepRecall]: StepRecall[K] } = { ...NO_RECALL };
    const inputIds = new Set(step.input.flatMap((message) => (message.id === undefined ? [] : [message.id])));
    /** Per reference, the originals it stands for and the words to find in them. */
    const wanted = new Map<string, { readonly reads: readonly string[]; readonly words: string[] }>();
    for (const [word, source] of misses.missing) {
      // In the context already: an earlier recall of the epoch returned it.
      if (this.#recalled.has(word)) {
        recall.recalledWords++;
        continue;
      }
      const reference = source.message.id === undefined ? undefined : step.archive.referenceFor(source.message.id, inputIds);
      if (reference === undefined) {
        if (source.kind === "own") recall.lostOwnWords++;
        else if (source.kind === "user") recall.lostUserWords++;
        else {
          recall.rereadWords++;
          if (this.#reread.has(source.message)) continue;
          this.#reread.add(source.message);
          recall.rereads++;
          recall.rereadCachedTokens += step.contextTokens;
          recall.rereadUncachedTokens += REREAD_REPLY_TOKENS + (await step.countMessage(source.message));
          recall.rereadOutputTokens += REREAD_REPLY_TOKENS;
        }
        continue;
      }
      recall.recalledWords++;
      let request = wanted.get(reference.ref);
      if (request === undefined) wanted.set(reference.ref, (request = { reads: reference.reads, words: [] }));
      request.words.push(word);
    }
    if (wanted.size === 0) return recall;
    const position = step.positionOf ?? (() => 0);
    /** The originals of some references, each once, in history order, and how many references. */
    const read = (refs: readonly string[]) => {
      const ids = [...new Set(refs.flatMap((ref) => wanted.get(ref)!.reads))].sort((a, b) => position(a) - position(b));
      return { originals: ids.flatMap((id) => step.messageOf(id) ?? []), refs: refs.length };
    };
    const refOf = new Map<string, string>();
    for (const [ref, { words }] of wanted) for (const word of words) refOf.set(word, ref);
    const words = [...refOf.keys()];
    const every = read([...wanted.keys()]);
    // One find of every word in every reference (`ref: a|b`), read up to the last piece a word first shows in; or, when that
    // returns more, a word that first shows past the first RECALL_PAGE_TOKENS tokens of it in a find of its own, in its own reference.
    const { pieces: all } = await findPieces(every.originals, words, step.tokenCounter);
    const near: string[] = [];
    const far: string[] = [];
    for (const word of words) ((firstShown(all, word)?.tokens ?? Infinity) <= RECALL_PAGE_TOKENS ? near : far).push(word);
    const together = [await findRead(every, words, step.tokenCounter)];
    const apart =
      far.length === 0
        ? together
        : [
            ...(near.length > 0 ? [await findRead(read([...new Set(near.map((word) => refOf.get(word)!))]), near, step.tokenCounter)] : []),
            ...(await Promise.all(far.map((word) => findRead(read([refOf.get(word)!]), [word], step.tokenCounter)))),
          ];
    const requests = unboundedCost(apart) < unboundedCost(together) ? apart : together;
    const calls = recallCallsOf(requests, step.contextTokens, step.window);
    // A word is recalled once the pieces up to its first showing are read; else it stays missing (and is asked again when missed again).
    requests.forEach((request, index) => {
      for (const [word, need] of request.needs) {
        if (need <= calls.read[index]!) this.#recalled.add(word);
        else {
          recall.recalledWords--;
          recall.unreadWords++;
        }
      }
    });
    // What the calls returned is in the context until the next compaction: every word of it, asked for or not.
    requests.forEach((request, index) => {
      for (const text of request.texts.slice(0, calls.read[index]!)) for (const word of groundingWords(text)) this.#recalled.add(word);
    });
    recall.recalls = requests.length;
    recall.recallCalls = calls.calls;
    recall.returnedTokens = calls.returnedTokens;
    recall.cachedTokens = calls.cachedTokens;
    recall.uncachedTokens = calls.uncachedTokens;
    recall.outputTokens = calls.outputTokens;
    recall.peakCallTokens = calls.peakCallTokens;
    recall.callsOverWindow = calls.callsOverWindow;
    recall.stalledRecalls = calls.stalled;
    return recall;
  }
}

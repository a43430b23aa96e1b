/**
 * Recall: the recovery a grounding miss costs when the agent can read its own thread's archive back.
 * For a system that archives what it compacts (ours), a miss whose source message is in the archive
 * (a hidden tool result, the agent's own words, the user's words a summary replaced) is charged as a
 * recall instead of a re-read or a loss. The agent passes the reference its context shows for the
 * source: the source's own, where a rewritten copy of it (a placeholder, a trimmed reply) is in the
 * input; else that of the summary that stands for it. Per reference, one request whose `find` names
 * the step's missed words it reaches, priced at the tokens of exactly what the tool returns for it
 * (the matching lines, src/langgraph/recall-find.ts). A step's requests go out as parallel tool
 * calls: one model call per round of parts (at most {@link RECALL_PAGE_TOKENS} tokens a part), each
 * priced as a re-read is (rereads.ts): its input is the step's input (with the tool's schema and the
 * references), all of it a cached prefix, plus the rounds already returned (cached: they were just
 * sent), then the agent's calls and the new parts with their frames, uncached; its output is the
 * agent's calls. A word recalled once is not recalled again in the compaction epoch. A miss no
 * reference in the context reaches is recovered as without recall: a tool result is re-read, the
 * agent's or the user's words are lost.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { GroundingMisses } from "./grounding.js";
import { REREAD_REPLY_TOKENS } from "./rereads.js";
import { findLines, findTerms } from "../../src/langgraph/recall-find.js";
import { pagesOf } from "../../src/langgraph/recall-pages.js";
import type { TokenCounter } from "../../src/index.js";

/** The most tokens of originals one recall call returns (the tool's `maxTokens` default): longer ones are read in parts. */
export const RECALL_PAGE_TOKENS = 2_000;
/** Tokens each recall call's frame adds to its part: header, fence, and the line naming the next part (the tool's figure). */
export const RECALL_FRAME_TOKENS = 30;
/** Tokens of the recall tool's schema, sent with every model call of a run with recall on (the tool's figure). */
export const RECALL_SCHEMA_TOKENS = 69;
/** Tokens of the reference (` [recall <ref>]`) a compaction appends to each message it rewrites, with recall on (the tool's figure). */
export const RECALL_REFERENCE_TOKENS = 8;
/** Tokens of the agent's recall call (its output, then part of the next input): as a re-read's repeated call. */
export const RECALL_CALL_TOKENS = REREAD_REPLY_TOKENS;

/** The recovery of one step's grounding misses with recall on. */
export interface StepRecall {
  /** References recalled at this step (each once per compaction epoch, or again to read further). */
  readonly recalls: number;
  /** Recall calls: reading `t` tokens of originals takes ceil(t / {@link RECALL_PAGE_TOKENS}) of them. */
  readonly recallCalls: number;
  /** Tokens the recall calls returned: the originals' parts and their frames. */
  readonly returnedTokens: number;
  /** Input tokens of the recall calls that are a cached prefix: the step's input and schema, and the pages returned before. */
  readonly cachedTokens: number;
  /** Input tokens of the recall calls that are new: each call and its page. */
  readonly uncachedTokens: number;
  /** Output tokens of the recall calls: {@link RECALL_CALL_TOKENS} each. */
  readonly outputTokens: number;
  /** The largest recall call's input, in tokens (0 without one). */
  readonly peakCallTokens: number;
  /** Recall calls whose input is over the window. */
  readonly callsOverWindow: number;
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
  recalledWords: 0,
  rereads: 0,
  rereadCachedTokens: 0,
  rereadUncachedTokens: 0,
  rereadOutputTokens: 0,
  rereadWords: 0,
  lostOwnWords: 0,
  lostUserWords: 0,
});

/** The recall calls of one step, on top of a context of `contextTokens`. */
export interface RecallCalls {
  readonly calls: number;
  /** Tokens the calls returned: the parts and their frames. */
  readonly returnedTokens: number;
  readonly cachedTokens: number;
  readonly uncachedTokens: number;
  readonly outputTokens: number;
  readonly peakCallTokens: number;
  /** Calls whose input is over `window`. */
  readonly callsOverWindow: number;
}

/**
 * The recall calls that read one step's requests, `requests[i]` the token sizes of the parts request
 * `i` reads, as parallel tool calls: round `k` asks every request with a `k`-th part for it in one
 * model call, so the step takes as many calls as its longest request reads parts. A call's input is
 * the context and the rounds before it (cached), then its tool calls and their parts with frames
 * (uncached); its output is its tool calls, {@link RECALL_CALL_TOKENS} each.
 *
 * @example
 * recallCallsOf([[2_000, 1_000]], 10_000, 16_000); // 2 calls: cached 10,000 + 12,080, uncached 2,080 + 1,080, output 100
 * recallCallsOf([[500], [700]], 10_000, 16_000); // 1 call: cached 10,000, uncached 1,260 + 60, output 100
 */
export function recallCallsOf(requests: readonly (readonly number[])[], contextTokens: number, window: number): RecallCalls {
  const calls = requests.reduce((most, parts) => Math.max(most, parts.length), 0);
  let cachedTokens = 0;
  let uncachedTokens = 0;
  let outputTokens = 0;
  let returnedTokens = 0;
  let before = 0;
  let peakCallTokens = 0;
  let callsOverWindow = 0;
  for (let round = 0; round < calls; round++) {
    let added = 0;
    for (const parts of requests) {
      if (parts.length <= round) continue;
      const size = parts[round]! + RECALL_FRAME_TOKENS;
      added += RECALL_CALL_TOKENS + size;
      returnedTokens += size;
      outputTokens += RECALL_CALL_TOKENS;
    }
    const input = contextTokens + before + added;
    cachedTokens += contextTokens + before;
    uncachedTokens += added;
    peakCallTokens = Math.max(peakCallTokens, input);
    if (input > window) callsOverWindow++;
    before += added;
  }
  return { calls, returnedTokens, cachedTokens, uncachedTokens, outputTokens, peakCallTokens, callsOverWindow };
}

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
   * tokens of a re-read result, `tokenCounter` the tool's pages. Per reference that reaches a missed
   * word not recalled yet in the epoch, one request with `find` naming those words (`a|b`), priced
   * at the tokens of what the tool returns for it ({@link findLines}), in the tool's parts, read up
   * to the last part a word first shows in; every request of the step goes out in parallel (see
   * {@link recallCallsOf}).
   */
  async charge(
    misses: GroundingMisses,
    step: {
      archive: RecallArchive;
      input: readonly BaseMessage[];
      contextTokens: number;
      window: number;
      messageOf: (id: string) => BaseMessage | undefined;
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
      if (this.#recalled.has(word)) continue;
      this.#recalled.add(word);
      let request = wanted.get(reference.ref);
      if (request === undefined) wanted.set(reference.ref, (request = { reads: reference.reads, words: [] }));
      request.words.push(word);
    }
    if (wanted.size === 0) return recall;
    const requests: number[][] = [];
    for (const { reads, words } of wanted.values()) {
      const originals = reads.flatMap((id) => step.messageOf(id) ?? []);
      const pages = await pagesOf(findLines(originals, findTerms(words.join("|"))), RECALL_PAGE_TOKENS, step.tokenCounter);
      // The agent reads parts until it has every word it asked for: up to the last page a word first shows in.
      const lower = pages.map((page) => page.toLowerCase());
      const read = Math.max(1, ...words.map((word) => lower.findIndex((page) => page.includes(word.toLowerCase())) + 1));
      const sizes: number[] = [];
      for (const page of pages.slice(0, read)) sizes.push(await step.tokenCounter.countText(page));
      requests.push(sizes);
    }
    const calls = recallCallsOf(requests, step.contextTokens, step.window);
    recall.recalls = requests.length;
    recall.recallCalls = calls.calls;
    recall.returnedTokens = calls.returnedTokens;
    recall.cachedTokens = calls.cachedTokens;
    recall.uncachedTokens = calls.uncachedTokens;
    recall.outputTokens = calls.outputTokens;
    recall.peakCallTokens = calls.peakCallTokens;
    recall.callsOverWindow = calls.callsOverWindow;
    return recall;
  }
}

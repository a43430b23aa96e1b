/**
 * Recall: the recovery a grounding miss costs when the agent can read its own thread's archive back.
 * For a system that archives what it compacts (ours), a miss whose source message is in the archive
 * (a hidden tool result, the agent's own words, the user's words a summary replaced) is charged as a
 * recall instead of a re-read or a loss. The agent passes the reference its context shows for the
 * source: the source's own, where a rewritten copy of it (a placeholder, a trimmed reply) is in the
 * input; else that of the summary that stands for it, whose originals are read in history order up
 * to the part that holds the source. The recall returns at most {@link RECALL_PAGE_TOKENS} tokens of
 * originals a part, one call per part. Each call is priced as a re-read is (rereads.ts): its input is
 * the step's input (with the tool's schema and the references), all of it a cached prefix, plus the
 * parts already returned (cached: they were just sent), then the agent's call and the new part
 * with its frame, uncached; its output is the agent's call. Each reference is read once per
 * compaction epoch (a later miss in the epoch reads only parts not yet read). A miss no reference
 * in the context reaches is recovered as without recall: a tool result is re-read, the agent's or
 * the user's words are lost.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { GroundingMisses } from "./grounding.js";
import { REREAD_REPLY_TOKENS } from "./rereads.js";

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

/** The recall calls that read `tokens` tokens of originals, part by part, on top of a context of `contextTokens`. */
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
 * The recall calls that read `tokens` tokens of originals: ceil(tokens / {@link RECALL_PAGE_TOKENS})
 * of them (one at least), part `k`'s input the context and the `k - 1` calls and parts before it
 * (cached), then its call and its part with the frame (uncached).
 *
 * @example
 * recallCallsOf(3_000, 10_000, 16_000); // 2 calls: cached 10,000 + 12,080, uncached 2,080 + 1,080, output 100
 */
export function recallCallsOf(tokens: number, contextTokens: number, window: number): RecallCalls {
  const calls = Math.max(1, Math.ceil(tokens / RECALL_PAGE_TOKENS));
  let cachedTokens = 0;
  let uncachedTokens = 0;
  let before = 0;
  let peakCallTokens = 0;
  let callsOverWindow = 0;
  for (let part = 0; part < calls; part++) {
    const size = Math.max(0, Math.min(RECALL_PAGE_TOKENS, tokens - part * RECALL_PAGE_TOKENS)) + RECALL_FRAME_TOKENS;
    const input = contextTokens + before + RECALL_CALL_TOKENS + size;
    cachedTokens += contextTokens + before;
    uncachedTokens += RECALL_CALL_TOKENS + size;
    peakCallTokens = Math.max(peakCallTokens, input);
    if (input > window) callsOverWindow++;
    before += RECALL_CALL_TOKENS + size;
  }
  return { calls, returnedTokens: tokens + calls * RECALL_FRAME_TOKENS, cachedTokens, uncachedTokens, outputTokens: calls * RECALL_CALL_TOKENS, peakCallTokens, callsOverWindow };
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
   * The reference the context `inputIds` shows for the original `id`, and the originals it reads up
   * to and with `id`: its own (a rewritten copy under its id is in the context), else the newest
   * summary that stands for it and is in the context; undefined when none is.
   */
  referenceFor(id: string, inputIds: ReadonlySet<string>): { readonly ref: string; readonly reads: readonly string[] } | undefined {
    if (!this.#ids.has(id)) return undefined;
    if (inputIds.has(id) && !this.#spans.has(id)) return { ref: id, reads: [id] };
    const summary = this.#summaryOf.get(id);
    if (summary === undefined || !inputIds.has(summary)) return undefined;
    const span = this.#spans.get(summary)!;
    return { ref: summary, reads: span.slice(0, span.indexOf(id) + 1) };
  }
}

/**
 * The recalls of one replay: which references this compaction epoch has read, and how far, and
 * which unreachable tool results it has re-read.
 *
 * @example
 * const ledger = new RecallLedger();
 * if (step.compacted) ledger.newEpoch();
 * const recall = await ledger.charge(misses, { archive, input, contextTokens, window, messageOf, countMessage });
 */
export class RecallLedger {
  #read = new Map<string, number>();
  #reread = new Set<BaseMessage>();

  /** Tokens of the originals a reference reads, by reference and how many it reads (a span only grows at its end). */
  readonly #tokens = new Map<string, number>();

  /** A compaction: the next miss of any source is charged again. */
  newEpoch(): void {
    this.#read = new Map();
    this.#reread = new Set();
  }

  async #tokensOf(reference: { readonly ref: string; readonly reads: readonly string[] }, step: { messageOf: (id: string) => BaseMessage | undefined; countMessage: (message: BaseMessage) => Promise<number> }): Promise<number> {
    const key = `${reference.ref}\u0000${reference.reads.length}\u0000${reference.reads[reference.reads.length - 1]}\u0000${reference.reads[0]}`;
    let tokens = this.#tokens.get(key);
    if (tokens === undefined) {
      tokens = 0;
      for (const id of reference.reads) {
        const original = step.messageOf(id);
        if (original) tokens += await step.countMessage(original);
      }
      this.#tokens.set(key, tokens);
    }
    return tokens;
  }

  /**
   * The recovery of one step's misses. `input` is the model's input, `contextTokens` its tokens with
   * the schema and the references, `messageOf` the recording's message of an id, `countMessage` the
   * tokens of an original as the recall returns it.
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
    },
  ): Promise<StepRecall> {
    if (misses.missing.size === 0) return NO_RECALL;
    const recall: { -readonly [K in keyof StepRecall]: StepRecall[K] } = { ...NO_RECALL };
    const inputIds = new Set(step.input.flatMap((message) => (message.id === undefined ? [] : [message.id])));
    for (const source of misses.missing.values()) {
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
      const tokens = await this.#tokensOf(reference, step);
      // Parts already read in this epoch are in the context: read only those after them.
      const wanted = Math.max(1, Math.ceil(tokens / RECALL_PAGE_TOKENS));
      const read = this.#read.get(reference.ref) ?? 0;
      if (wanted <= read) continue;
      this.#read.set(reference.ref, wanted);
      const calls = recallCallsOf(Math.max(0, tokens - read * RECALL_PAGE_TOKENS), step.contextTokens, step.window);
      recall.recalls++;
      recall.recallCalls += calls.calls;
      recall.returnedTokens += calls.returnedTokens;
      recall.cachedTokens += calls.cachedTokens;
      recall.uncachedTokens += calls.uncachedTokens;
      recall.outputTokens += calls.outputTokens;
      recall.peakCallTokens = Math.max(recall.peakCallTokens, calls.peakCallTokens);
      recall.callsOverWindow += calls.callsOverWindow;
    }
    return recall;
  }
}

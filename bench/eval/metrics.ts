/**
 * The measures of the evaluation, as small pure functions over what one model call
 * received, so each can be tested on a hand-built history.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { PriceRates } from "../../src/cost/prices.js";
import { validateToolPairing, type ArtifactIndex } from "../../src/index.js";
import { extractArtifacts, filesOf, messageText } from "../../src/extend/index.js";

/**
 * Prices per token, as {@link PriceRates}: `cacheWrite` is what an uncached input token costs (every
 * uncached token is written to the prompt cache), `cachedInput` what a cached one costs.
 */
export type Prices = PriceRates;

/**
 * The reference prices of the headline table, per token: input 1, cache write 1 (an uncached token
 * costs the input price), cached input 0.1, output 4.
 */
export const DEFAULT_PRICES: Prices = Object.freeze({ input: 1.0, cacheWrite: 1.0, cachedInput: 0.1, output: 4.0 });

/** Token totals of a task, the basis of its cost. */
export interface TokenTotals {
  /** Every input token: the agent's model calls and the summary calls. */
  readonly input: number;
  /** Of `input`, the tokens a prompt cache can reuse (billed at the cached price). */
  readonly cached: number;
  /** Every output token: the agent's replies and the summaries. */
  readonly output: number;
}

/**
 * The cost of a task: uncached input at the cache-write price (every uncached token is written to
 * the cache), cached input at the cached price, output at the output price. The list input price
 * (`prices.input`) is not used: `cacheWrite` is what an uncached token is billed.
 *
 * @example
 * costOf({ input: 1000, cached: 600, output: 50 }, DEFAULT_PRICES); // 400 + 60 + 200 = 660
 */
export function costOf(totals: TokenTotals, prices: Prices): number {
  return (totals.input - totals.cached) * prices.cacheWrite + totals.cached * prices.cachedInput + totals.output * prices.output;
}

const fingerprints = new WeakMap<BaseMessage, string>();

/**
 * What a provider sees of a message, as one string: its role, content, tool calls (name, arguments,
 * id), tool-call id and name. Two messages with the same fingerprint serialize to the same prompt
 * bytes; message ids and metadata (which providers never see) are left out. Cached per object
 * (messages are treated as immutable), so a history is fingerprinted once however often it is sent.
 */
export function messageFingerprint(message: BaseMessage): string {
  let fingerprint = fingerprints.get(message);
  if (fingerprint === undefined) {
    const calls = (message as { tool_calls?: { name: string; args: unknown; id?: string }[] }).tool_calls ?? [];
    fingerprint = JSON.stringify([
      message.type,
      message.content,
      calls.map((call) => [call.name, call.args, call.id ?? null]),
      (message as { tool_call_id?: string }).tool_call_id ?? null,
      message.name ?? null,
    ]);
    fingerprints.set(message, fingerprint);
  }
  return fingerprint;
}

/**
 * How many leading messages of `current` are identical (same {@link messageFingerprint}) to the
 * leading messages of `previous`: the part of the prompt a provider's prompt cache can reuse.
 *
 * Message granularity: a message that changed breaks the prefix at its start, even if its first
 * tokens are the same. Providers cache in blocks (e.g. 128 tokens, from 1024 on); this ignores the
 * block rounding, which shifts every system alike.
 *
 * @example
 * commonPrefixLength([a, b, c], [a, b, d, e]); // 2
 * commonPrefixLength([a, b, c], [a, b, c], 1);    // 1: compared no further than `upTo`
 */
export function commonPrefixLength(previous: readonly BaseMessage[], current: readonly BaseMessage[], upTo = Infinity): number {
  const limit = Math.min(previous.length, current.length, upTo);
  let length = 0;
  while (length < limit) {
    const before = previous[length]!;
    const now = current[length]!;
    if (before !== now && messageFingerprint(before) !== messageFingerprint(now)) break;
    length++;
  }
  return length;
}

/**
 * The cached-prefix tokens of a call: the token counts of its first `prefixLength` messages, summed
 * (the reply priming is not part of a reusable prefix).
 *
 * @example
 * cachedPrefixTokens([10, 20, 30], 2); // 30
 */
export function cachedPrefixTokens(perMessage: readonly number[], prefixLength: number): number {
  let total = 0;
  for (let position = 0; position < prefixLength; position++) total += perMessage[position]!;
  return total;
}

/** Artifacts of the retention measure, by kind. */
export interface TrackedArtifacts {
  readonly files: readonly string[];
  readonly identifiers: readonly string[];
  readonly errors: readonly string[];
}

/** Limits high enough that the index of the original stream drops nothing it saw. */
export const UNBOUNDED_ARTIFACT_LIMITS = Object.freeze({
  commands: Number.MAX_SAFE_INTEGER,
  identifiers: Number.MAX_SAFE_INTEGER,
  urls: Number.MAX_SAFE_INTEGER,
  errors: Number.MAX_SAFE_INTEGER,
});

/**
 * The artifacts an index holds that retention tracks: file paths ({@link filesOf}), identifiers
 * and error lines.
 *
 * @example
 * trackedArtifacts(extractArtifacts(messages, [], UNBOUNDED_ARTIFACT_LIMITS));
 */
export function trackedArtifacts(index: ArtifactIndex): TrackedArtifacts {
  return { files: filesOf(index), identifiers: [...index.identifiers], errors: [...index.errors] };
}

/** Every tracked artifact of some messages (no limit), in the order of {@link trackedArtifacts}. */
export function artifactsSeen(messages: readonly BaseMessage[]): TrackedArtifacts {
  return trackedArtifacts(extractArtifacts(messages, [], UNBOUNDED_ARTIFACT_LIMITS));
}

/**
 * The text a model receives of a message, where artifacts are looked for: its content text and its
 * tool calls as JSON.
 */
export function contextTextOf(message: BaseMessage): string {
  const calls = (message as { tool_calls?: unknown[] }).tool_calls ?? [];
  const text = messageText(message);
  return calls.length === 0 ? text : `${text}\n${JSON.stringify(calls)}`;
}

/** Retention of one call: how many tracked artifacts were present, of how many. */
export interface Retention {
  readonly present: number;
  readonly total: number;
  readonly byKind: { readonly [kind in keyof TrackedArtifacts]: { readonly present: number; readonly total: number } };
}

/**
 * Which tracked artifacts appear (as substrings) in the text of some messages. Direct form, for
 * tests and single calls; the replay uses {@link RetentionTracker}, which gives the same answer
 * without searching a message twice for the same artifact.
 *
 * @example
 * retentionIn(["a.py", "E1"], [new HumanMessage("see a.py")]); // { present: 1, total: 2 }
 */
export function retentionIn(artifacts: TrackedArtifacts, messages: readonly BaseMessage[]): Retention {
  const text = messages.map(contextTextOf).join("\n");
  const count = (values: readonly string[]) => ({ present: values.filter((value) => text.includes(value)).length, total: values.length });
  const byKind = { files: count(artifacts.files), identifiers: count(artifacts.identifiers), errors: count(artifacts.errors) };
  return {
    present: byKind.files.present + byKind.identifiers.present + byKind.errors.present,
    total: byKind.files.total + byKind.identifiers.total + byKind.errors.total,
    byKind,
  };
}

type Kind = keyof TrackedArtifacts;
const KINDS: readonly Kind[] = ["files", "identifiers", "errors"];

/**
 * Retention over a replay: artifacts are registered as the original stream shows them, and each
 * message object is searched once per artifact (a message kept from step to step is not searched
 * again), so a replay costs O(messages × artifacts) substring searches in all, not per step.
 */
export class RetentionTracker {
  readonly #artifacts: { value: string; kind: Kind }[] = [];
  readonly #known = new Set<string>();
  readonly #found = new WeakMap<BaseMessage, { checked: number; present: number[] }>();

  /** Add the artifacts not yet tracked (the index of the original stream so far). */
  register(artifacts: TrackedArtifacts): void {
    for (const kind of KINDS) {
      for (const value of artifacts[kind]) {
        const key = `${kind}\u0000${value}`;
        if (this.#known.has(key)) continue;
        this.#known.add(key);
        this.#artifacts.push({ value, kind });
      }
    }
  }

  /** How many artifacts are tracked. */
  get size(): number {
    return this.#artifacts.length;
  }

  /** The retention in the context `messages`. */
  measure(messages: readonly BaseMessage[]): Retention {
    const present = new Uint8Array(this.#artifacts.length);
    for (const message of messages) {
      let entry = this.#found.get(message);
      if (entry === undefined) this.#found.set(message, (entry = { checked: 0, present: [] }));
      if (entry.checked < this.#artifacts.length) {
        const text = contextTextOf(message);
        for (let index = entry.checked; index < this.#artifacts.length; index++) if (text.includes(this.#artifacts[index]!.value)) entry.present.push(index);
        entry.checked = this.#artifacts.length;
      }
      for (const index of entry.present) present[index] = 1;
    }
    const byKind = { files: { present: 0, total: 0 }, identifiers: { present: 0, total: 0 }, errors: { present: 0, total: 0 } };
    this.#artifacts.forEach(({ kind }, index) => {
      byKind[kind].total++;
      byKind[kind].present += present[index]!;
    });
    return {
      present: byKind.files.present + byKind.identifiers.present + byKind.errors.present,
      total: this.#artifacts.length,
      byKind,
    };
  }
}

/**
 * Whether a provider would accept the history's tool calls: every result answers an earlier call,
 * every call has its result.
 */
export function toolPairingValid(messages: readonly BaseMessage[]): boolean {
  return validateToolPairing(messages).length === 0;
}

/** A share, or `undefined` for 0 of 0. */
export function shareOf(part: number, whole: number): number | undefined {
  return whole === 0 ? undefined : part / whole;
}

/** Input-token counts of calls over a window (strictly more tokens than the window holds). */
export function callsOverWindow(inputTokens: readonly number[], window: number): number {
  let over = 0;
  for (const tokens of inputTokens) if (tokens > window) over++;
  return over;
}

import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { safeCutPoints } from "../messages/tool-call-groups.js";
import { parseOptions } from "../options.js";
import { compactionMarkerOf, type RemovedMessage, type ReplacedMessage } from "../types.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type BoundedHistory,
  type BoundedNoop,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";
import { shrinkMessage } from "./shrink-message.js";

/** The reason of a no-op within the budget. */
const withinReason = (tokens: number, maxTokens: number) => `${tokens} tokens, within maxTokens ${maxTokens}`;

export interface HardTruncateOptions extends BaseStrategyOptions {
  /** The hard limit: the result always fits it (or the run fails and changes nothing). */
  maxTokens: number;
  /**
   * Keep this many of the newest messages besides system messages, from the first cut at or after
   * them that separates no call from its results (so a little fewer; more only when the newest
   * group alone is longer), plus the newest user message before them when they do not start with
   * one. At least 1: a request needs a message besides the system prompt. @default 10
   */
  keepRecent?: number;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    maxTokens: z.number().int().positive(),
    keepRecent: z.number().int().positive().optional(),
  })
  .strict();

/** True for a content block that answers a tool call inside a user message (Anthropic's format). */
const isToolResultBlock = (part: unknown) => typeof part === "object" && part !== null && (part as { type?: unknown }).type === "tool_result";

/** A user's own message: a human message that is not only there to carry tool results. */
function isUserRequest(message: BaseMessage): boolean {
  return message.type === "human" && !(Array.isArray(message.content) && message.content.some(isToolResultBlock));
}

/**
 * Hard-limit truncation. When the history is over `maxTokens`: keep every system message and
 * compaction summary, and the newest `keepRecent` messages from a cut that separates no tool call
 * from its results; drop further whole groups from the front while still over; and as a last resort
 * cut the text of the largest remaining message(s), with a visible marker (a `tool_result` block
 * stays in its user message; its text is cut). After the system messages (and any kept summary) the
 * conversation opens with a user message: when the kept messages do not start with one, the newest
 * user message before them is kept too, and counts against `maxTokens` (it is the request they work
 * on, and providers expect the user to speak first). Only a history with no user message before
 * them opens otherwise. A history within the limit is left alone.
 * @see hardTruncate
 */
export class HardTruncate extends CompactionStrategy {
  readonly strategyName = "hardTruncate";
  readonly maxTokens: number;
  readonly keepRecent: number;

  constructor(options: HardTruncateOptions) {
    const parsed = parseOptions("hardTruncate", optionsSchema, options);
    super(parsed);
    this.maxTokens = parsed.maxTokens;
    this.keepRecent = parsed.keepRecent ?? 10;
  }

  /** Within `maxTokens` even at the bound: the no-op `run` gives, without counting the new messages. */
  protected override noopUnderBound({ upperTotal }: BoundedHistory): BoundedNoop | undefined {
    return upperTotal <= this.maxTokens ? { reason: (tokens) => withinReason(tokens.total, this.maxTokens) } : undefined;
  }

  protected async run({ messages, index, tokens, pending }: PreparedHistory): Promise<StrategyOutcome> {
    if (tokens.total <= this.maxTokens) return { status: "noop", reason: withinReason(tokens.total, this.maxTokens) };
    const count = messages.length;
    const safe = safeCutPoints(messages, index);
    // A user message carrying tool_result blocks answers the tool_use blocks of the assistant message
    // before it: a cut never separates them.
    for (let position = 0; position < count; position++) {
      if (messages[position]!.type === "human" && !isUserRequest(messages[position]!)) safe[position] = 0;
    }
    // System messages and compaction summaries are never dropped: a summary stands for everything
    // before it, and dropping it would lose the request and the artifact trail.
    const isSystem = (position: number) => messages[position]!.type === "system" || compactionMarkerOf(messages[position]!)?.summary === true;
    // Fixed cost: system messages and the reply priming. The calibration counts only while the
    // newest assistant message with provider usage is kept; the tail costs the rest.
    let systemTokens = 0;
    let allTokens = 0;
    for (let position = 0; position < count; position++) {
      allTokens += tokens.perMessage[position]!;
      if (isSystem(position)) systemTokens += tokens.perMessage[position]!;
    }
    const primingTokens = tokens.estimated - allTokens;
    const anchor = tokens.calibrationAnchors.at(-1);
    const fixed = (cut: number) => Math.max(0, systemTokens + primingTokens + (anchor && anchor.index >= cut ? anchor.offset : 0));
    // suffix[c]: tokens of the non-system messages from c on; opener[c]: the first message from c on
    // that is not a system message (summaries included); request[c]: the newest user request before c.
    const suffix = new Float64Array(count + 1);
    const opener = new Int32Array(count + 1).fill(count);
    for (let position = count - 1; position >= 0; position--) {
      suffix[position] = suffix[position + 1]! + (isSystem(position) ? 0 : tokens.perMessage[position]!);
      opener[position] = messages[position]!.type === "system" ? opener[position + 1]! : position;
    }
    const request = new Int32Array(count + 1).fill(-1);
    for (let position = 0; position < count; position++) {
      request[position + 1] = !isSystem(position) && isUserRequest(messages[position]!) ? position : request[position]!;
    }
    // The user request kept besides the tail from `cut`: none when the tail opens with one. (A
    // summary kept before it does not stand for a newer request: that one is kept too.)
    const requestFor = (cut: number): number => {
      const first = opener[cut]!;
      return first < count && isUserRequest(messages[first]!) ? -1 : request[cut]!;
    };
    const lastNonSystem = (() => {
      for (let position = count - 1; position >= 0; position--) if (!isSystem(position)) return position;
      return -1;
    })();
    // The last safe cut that still keeps the newest non-system message.
    let lastUsefulCut = 0;
    for (let position = 0; position <= lastNonSystem; position++) if (safe[position]) lastUsefulCut = position;

    let cut = Math.max(0, count - this.keepRecent);
    while (cut < count && !safe[cut]) cut++;
    if (cut > lastUsefulCut && this.keepRecent > 0) cut = lastUsefulCut;
    const totalAt = (position: number) => {
      const kept = requestFor(position);
      return fixed(position) + suffix[position]! + (kept >= 0 ? tokens.perMessage[kept]! : 0);
    };
    while (totalAt(cut) > this.maxTokens && cut < lastUsefulCut) {
      cut++;
      while (cut < lastUsefulCut && !safe[cut]) cut++;
    }

    const keptRequest = requestFor(cut);
    const kept: number[] = [];
    for (let position = 0; position < count; position++) if (isSystem(position) || position >= cut || position === keptRequest) kept.push(position);
    const current = new Map<number, BaseMessage>();
    let total = totalAt(cut);

    // Last resort: shrink the largest kept messages until the history fits: empty the arguments
    // of their tool calls, then cut their text.
    // Never the pending calls' message: the tools are about to run with those arguments.
    const candidates = kept.filter((position) => messages[position]!.type !== "system" && position !== pending).sort((a, b) => tokens.perMessage[b]! - tokens.perMessage[a]!);
    for (const position of candidates) {
      if (total <= this.maxTokens) break;
      const shrunk = await shrinkMessage(messages[position]!, tokens.perMessage[position]!, total - this.maxTokens, this.strategyName, this.tokenCounter);
      if (!shrunk) continue;
      total += shrunk.tokens - tokens.perMessage[position]!;
      current.set(position, shrunk.message);
    }
    if (total > this.maxTokens) {
      return {
        status: "failed",
        reason: `cannot fit ${this.maxTokens} tokens: system messages and the newest exchange still need ${total}`,
      };
    }

    const output: BaseMessage[] = [];
    const removed: RemovedMessage[] = [];
    const replaced: ReplacedMessage[] = [];
    const keptSet = new Set(kept);
    for (let position = 0; position < count; position++) {
      const message = messages[position]!;
      if (!keptSet.has(position)) {
        removed.push({ index: position, message });
        continue;
      }
      const after = current.get(position);
      output.push(after ?? message);
      if (after) replaced.push({ index: position, before: message, after });
    }
    return { status: "truncated", messages: output, removed, replaced };
  }
}

/**
 * Guarantee the history fits `maxTokens`: system messages, the newest user message, then the newest
 * messages from a safe cut, cutting oversized messages' text as a last resort.
 *
 * @example
 * const fallback = hardTruncate({ maxTokens: 128_000, keepRecent: 10 });
 * const { messages, status } = await fallback.compact(history); // status "truncated" or "noop"
 * @throws {InvalidOptionError} for an invalid option.
 */
export function hardTruncate(options: HardTruncateOptions): HardTruncate {
  return new HardTruncate(options);
}

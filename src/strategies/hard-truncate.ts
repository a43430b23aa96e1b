import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { cloneMessage } from "../messages/clone-message.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { TOOL_CALL_BLOCK_TYPES, isAssistantMessage } from "../messages/message-types.js";
import { safeCutPoints } from "../messages/tool-call-groups.js";
import { parseOptions } from "../options.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker, type RemovedMessage, type ReplacedMessage } from "../types.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";

export interface HardTruncateOptions extends BaseStrategyOptions {
  /** The hard limit: the result always fits it (or the run fails and changes nothing). */
  maxTokens: number;
  /**
   * Keep this many of the newest messages besides system messages, from the first cut at or after
   * them that separates no call from its results (so a little fewer; more only when the newest
   * group alone is longer). At least 1: a request needs a message besides the system prompt. @default 10
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


function textOf(content: BaseMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => (typeof part === "string" ? part : part.type === "text" && typeof part["text"] === "string" ? part["text"] : ""))
    .join("\n");
}

/**
 * Seed 004's hard-limit truncation (REQ-3.4). When the history is over `maxTokens`: keep every
 * system message and compaction summary, and the newest `keepRecent` messages from a cut that separates no tool call from
 * its results; drop further whole groups from the front while still over; and as a last resort cut
 * the text of the largest remaining message(s), with a visible marker. A history within the limit
 * is left alone.
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

  protected async run({ messages, index, tokens, pending }: PreparedHistory): Promise<StrategyOutcome> {
    if (tokens.total <= this.maxTokens) return { status: "noop", reason: `${tokens.total} tokens, within maxTokens ${this.maxTokens}` };
    const count = messages.length;
    const safe = safeCutPoints(messages, index);
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
    // suffix[c]: tokens of the non-system messages from c on.
    const suffix = new Float64Array(count + 1);
    for (let position = count - 1; position >= 0; position--) {
      suffix[position] = suffix[position + 1]! + (isSystem(position) ? 0 : tokens.perMessage[position]!);
    }
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
    const totalAt = (position: number) => fixed(position) + suffix[position]!;
    while (totalAt(cut) > this.maxTokens && cut < lastUsefulCut) {
      cut++;
      while (cut < lastUsefulCut && !safe[cut]) cut++;
    }

    const kept: number[] = [];
    for (let position = 0; position < count; position++) if (isSystem(position) || position >= cut) kept.push(position);
    const current = new Map<number, BaseMessage>();
    let total = totalAt(cut);

    // Last resort: shrink the largest kept messages until the history fits: empty the arguments
    // of their tool calls, then cut their text.
    // Never the pending calls' message: the tools are about to run with those arguments.
    const candidates = kept.filter((position) => messages[position]!.type !== "system" && position !== pending).sort((a, b) => tokens.perMessage[b]! - tokens.perMessage[a]!);
    for (const position of candidates) {
      if (total <= this.maxTokens) break;
      const shrunk = await this.#shrink(messages[position]!, tokens.perMessage[position]!, total - this.maxTokens);
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

  /**
   * A smaller copy of `original` (which costs `before` tokens) that frees up to `excess` tokens:
   * tool-call arguments emptied first, then the text cut with a visible marker. `undefined` when
   * nothing can be freed.
   */
  async #shrink(original: BaseMessage, before: number, excess: number): Promise<{ message: BaseMessage; tokens: number } | undefined> {
    let base = original;
    let hiddenToolInputs: string[] | undefined;
    if (isAssistantMessage(original)) {
      const calls = original.tool_calls ?? [];
      const withArgs = new Set<number>();
      calls.forEach((call, position) => {
        if (call.id !== undefined && Object.keys(call.args ?? {}).length > 0) withArgs.add(position);
      });
      if (withArgs.size > 0) {
        base = editToolCalls(original, { clearArgsPositions: withArgs });
        hiddenToolInputs = [...withArgs].map((position) => calls[position]!.id!).sort();
      }
    }
    const marker: CompactionMarker = {
      // A summary stays a summary (with its artifact index) when its text is cut.
      ...compactionMarkerOf(original),
      strategy: this.strategyName,
      truncated: true,
      originalTokens: before,
      ...(hiddenToolInputs ? { hiddenToolInputs } : {}),
    };
    const mark = (content: unknown) =>
      cloneMessage(base, { content, response_metadata: { ...original.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
    let after = mark(base.content);
    let afterTokens = await this.tokenCounter.countMessage(after);
    const remaining = excess - (before - afterTokens);
    if (remaining > 0) {
      const text = textOf(original.content);
      const textTokens = await this.tokenCounter.countText(text);
      // Tool-call blocks restate the calls: they survive the cut. Other non-text parts go, and the
      // marker says how many.
      const parts = Array.isArray(original.content) ? original.content : [];
      const blocks = parts.filter((part) => typeof part === "object" && TOOL_CALL_BLOCK_TYPES.has(String(part.type)));
      const droppedParts = parts.filter((part) => typeof part === "object" && part.type !== "text" && !TOOL_CALL_BLOCK_TYPES.has(String(part.type))).length;
      let budget = Math.max(0, textTokens - remaining - 24);
      for (let attempt = 0; attempt < 4; attempt++) {
        const keptText = await this.tokenCounter.truncateText(text, budget);
        const cutTokens = textTokens - (await this.tokenCounter.countText(keptText));
        const dropped = droppedParts > 0 ? `; ${droppedParts} non-text part(s) removed` : "";
        const markerText = `\n[... ${cutTokens} tokens cut to fit the context window${dropped} ...]`;
        after = mark(blocks.length > 0 ? [{ type: "text", text: keptText + markerText }, ...blocks] : keptText + markerText);
        afterTokens = await this.tokenCounter.countMessage(after);
        const overshoot = afterTokens - (before - excess);
        if (overshoot <= 0 || budget === 0) break;
        budget = Math.max(0, budget - overshoot);
      }
    }
    return afterTokens < before ? { message: after, tokens: afterTokens } : undefined;
  }
}

/**
 * Guarantee the history fits `maxTokens` (seed 004 REQ-3.4): system messages plus the newest
 * messages from a safe cut, cutting one oversized message's text as a last resort.
 *
 * @example
 * const fallback = hardTruncate({ maxTokens: 128_000, keepRecent: 10 });
 * const { messages, status } = await fallback.compact(history); // status "truncated" or "noop"
 * @throws {InvalidOptionError} for an invalid option.
 */
export function hardTruncate(options: HardTruncateOptions): HardTruncate {
  return new HardTruncate(options);
}

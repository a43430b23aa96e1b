import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { cloneMessage } from "../messages/clone-message.js";
import { extractArtifacts } from "../messages/artifact-index.js";
import { parseOptions } from "../options.js";
import { headOf } from "../text/code-points.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker, type ReplacedMessage } from "../types.js";
import { CompactionStrategy, baseOptionsShape, type BaseStrategyOptions, type PreparedHistory, type StrategyOutcome } from "./compaction-strategy.js";

/** How many code units of an older assistant message's text `assistantTextTrimming` keeps by default. */
export const DEFAULT_TRIM_KEEP_CHARS = 80;

export interface AssistantTextTrimmingOptions extends BaseStrategyOptions {
  /** The newest N tool-call groups keep their assistant text whole. @default 5 */
  keepRecentGroups?: number;
  /** Code units of each text kept (cut on a code point boundary). @default 80 */
  keepChars?: number;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    keepRecentGroups: z.number().int().nonnegative().optional(),
    keepChars: z.number().int().positive().optional(),
  })
  .strict();

/** The notice that ends a trimmed text: how much was cut. */
function trimNotice(omitted: number): string {
  return ` [… ${omitted} more characters of this reasoning hidden to save context]`;
}

/**
 * Shortens the text of older assistant messages that made tool calls (the agent's reasoning before
 * a call, which often repeats the call's arguments): each text longer than `keepChars` + 80 keeps its
 * first `keepChars` code units and ends with a notice saying how many were cut (`[… N more characters
 * of this reasoning hidden to save context]`). Tool calls, ids and every other field are kept; the message carries
 * `response_metadata.compaction.trimmedText` (with `originalTokens` and the original's artifact
 * index), so it is never trimmed twice. The newest `keepRecentGroups` groups, assistant messages
 * without tool calls (answers the user read) and non-text blocks (thinking, tool_use) are untouched.
 * A run trims every older message at once: use it in a policy's batched step, not at every call.
 */
export class AssistantTextTrimming extends CompactionStrategy {
  readonly strategyName = "assistantTextTrimming";
  readonly keepRecentGroups: number;
  readonly keepChars: number;
  /** Trimmed copies made (`after` undefined: nothing to trim), by original message. */
  readonly #copies = new WeakMap<BaseMessage, { readonly originalTokens: number; readonly after: AIMessage | undefined }>();

  constructor(options: AssistantTextTrimmingOptions = {}) {
    const parsed = parseOptions("assistantTextTrimming", optionsSchema, options) as AssistantTextTrimmingOptions;
    super(parsed);
    this.keepRecentGroups = parsed.keepRecentGroups ?? 5;
    this.keepChars = parsed.keepChars ?? DEFAULT_TRIM_KEEP_CHARS;
  }

  protected async run(history: PreparedHistory): Promise<StrategyOutcome> {
    const { messages, tokens } = history;
    const output = [...messages];
    const replaced: ReplacedMessage[] = [];
    for (const position of this.#untrimmedOlder(history)) {
      const message = messages[position]!;
      const after = this.#trimmedOnce(message as AIMessage, tokens.perMessage[position]!);
      if (after === undefined) continue;
      const afterTokens = await this.tokenCounter.countMessage(after);
      if (afterTokens >= tokens.perMessage[position]!) continue;
      output[position] = after;
      replaced.push({ index: position, before: message, after });
    }
    if (replaced.length === 0) return { status: "noop", reason: "no older assistant text is long enough to trim" };
    return { status: "compacted", messages: output, replaced, preservesStructure: true };
  }

  /**
   * At most how many tokens a run on `history` would free, without making a trimmed copy: the
   * tokens of the older assistant messages it may trim (not trimmed yet, with a text long enough),
   * each trimmed copy costing at least nothing. `history` must be measured with this strategy's
   * counter. @internal
   */
  freeableAtMost(history: PreparedHistory): number {
    let freeable = 0;
    for (const position of this.#untrimmedOlder(history)) {
      if (this.#hasLongText(history.messages[position] as AIMessage)) freeable += history.tokens.perMessage[position]!;
    }
    return freeable;
  }

  /** The positions of the older groups' assistant messages not trimmed yet (the pending one left out), oldest first. */
  *#untrimmedOlder({ messages, index, pending }: PreparedHistory): Generator<number> {
    const olderGroups = Math.max(0, index.groups.length - this.keepRecentGroups);
    for (let groupNumber = 0; groupNumber < olderGroups; groupNumber++) {
      const position = index.groups[groupNumber]!.assistantIndex;
      if (position === pending) continue;
      const message = messages[position]!;
      if (message.type === "ai" && !compactionMarkerOf(message)?.trimmedText) yield position;
    }
  }

  /** Whether a text of the message is long enough to trim (as `#trimmed` reads it). */
  #hasLongText({ content }: AIMessage): boolean {
    if (typeof content === "string") return this.#longEnough(content);
    return content.some((block) => block.type === "text" && typeof (block as { text?: unknown }).text === "string" && this.#longEnough((block as { text: string }).text));
  }

  /** A text not much longer than its trimmed form stays whole. */
  #longEnough(text: string): boolean {
    return text.length > this.keepChars + 80;
  }

  /**
   * {@link #trimmed}, made once per message and count: a later run (the firing after a dry run, a
   * run whose batch did not free enough) takes the same copy instead of reading the text again.
   */
  #trimmedOnce(message: AIMessage, originalTokens: number): AIMessage | undefined {
    const made = this.#copies.get(message);
    if (made !== undefined && made.originalTokens === originalTokens) return made.after;
    const after = this.#trimmed(message, originalTokens);
    this.#copies.set(message, { originalTokens, after });
    return after;
  }

  /** The trimmed copy, or `undefined` when no text is over `keepChars`. */
  #trimmed(message: AIMessage, originalTokens: number): AIMessage | undefined {
    const trim = (text: string): string | undefined => {
      if (!this.#longEnough(text)) return undefined;
      const head = headOf(text, this.keepChars).trimEnd();
      return head + trimNotice(text.length - head.length);
    };
    let content: AIMessage["content"];
    if (typeof message.content === "string") {
      const trimmed = trim(message.content);
      if (trimmed === undefined) return undefined;
      content = trimmed;
    } else {
      let changed = false;
      content = message.content.map((block) => {
        if (block.type !== "text" || typeof (block as { text?: unknown }).text !== "string") return block;
        const trimmed = trim((block as { text: string }).text);
        if (trimmed === undefined) return block;
        changed = true;
        return { ...block, text: trimmed };
      }) as AIMessage["content"];
      if (!changed) return undefined;
    }
    const existing = compactionMarkerOf(message);
    const marker: CompactionMarker = {
      ...existing,
      strategy: existing?.strategy ?? this.strategyName,
      trimmedText: true,
      originalTokens: existing?.originalTokens ?? originalTokens,
      artifacts: extractArtifacts([message]),
    };
    return cloneMessage(message, { content, response_metadata: { ...message.response_metadata, [COMPACTION_METADATA_KEY]: marker } }) as AIMessage;
  }
}

/**
 * Shorten the reasoning text of older assistant messages that made tool calls, keeping their calls.
 *
 * @example
 * const { messages } = await assistantTextTrimming({ keepRecentGroups: 3 }).compact(history);
 * @throws {InvalidOptionError} for an invalid option.
 */
export function assistantTextTrimming(options: AssistantTextTrimmingOptions = {}): AssistantTextTrimming {
  return new AssistantTextTrimming(options);
}

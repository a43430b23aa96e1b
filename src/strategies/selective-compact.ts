import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { invalidOption } from "../option-errors.js";
import { assistantCalls, hasSendableContent, type AssistantCall } from "../messages/assistant-calls.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { isAssistantMessage } from "../messages/message-types.js";
import { isUserMessage, resultCallIds } from "../messages/tool-result-blocks.js";
import { parseOptions } from "../options.js";
import { TOKENS_PER_TOOL_CALL } from "../tokens/token-counter.js";
import type { RemovedMessage, ReplacedMessage } from "../types.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";
import { PROTECTED_KINDS, DEFAULT_SELECTIVE_RULES, defaultMessageKind, type MessageClassifier, type SelectiveRule } from "./selective-rules.js";

export {
  DEFAULT_SELECTIVE_RULES,
  PROTECTED_KINDS,
  defaultMessageKind,
  type MessageClassifier,
  type MessageKind,
  type SelectiveRule,
} from "./selective-rules.js";

export interface SelectiveCompactOptions extends BaseStrategyOptions {
  /** Stop as soon as the history is at or under this many tokens. */
  target: number;
  /** @default DEFAULT_SELECTIVE_RULES */
  rules?: SelectiveRule[];
  /** Custom kinds, e.g. skill prompts marked in `additional_kwargs`. */
  classify?: MessageClassifier;
}

const ruleSchema = z
  .object({
    kind: z.string().min(1),
    action: z.enum(["drop", "truncate", "none"]),
    keepRecent: z.number().int().nonnegative().optional(),
    priority: z.number(),
  })
  .strict();

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    target: z.number().int().positive(),
    rules: z.array(ruleSchema).optional(),
    classify: z.custom<MessageClassifier>((value) => typeof value === "function", { message: "expected a function" }).optional(),
  })
  .strict();

/**
 * Selective compaction: per-kind `drop` / `truncate` rules applied from the lowest priority up,
 * oldest message first, stopping as soon as the history is at or under `target`.
 * Removing a tool result removes its call from the assistant message in every form a provider
 * sends (`tool_calls`, raw OpenAI calls, `tool_use` blocks; see `editToolCalls`), and the assistant
 * message itself when no call and no content of its own (text, not call blocks) is left; removing an
 * assistant message removes its results: the output is always a valid history. A human message
 * with `tool_result` blocks (Anthropic's form) is a result of the calls it answers: removing it
 * removes those calls. System messages and summaries are never removed.
 *
 * The conversation keeps opening with a user message, as Anthropic requires: when the first
 * message after the system messages is a user message, a rule removes it only if the next message
 * left is a user message too; otherwise it stays (so a `drop` or `truncate` rule may leave that
 * one message of its kind). A history that opens otherwise is taken as it is.
 * @see selectiveCompact
 */
export class SelectiveCompact extends CompactionStrategy {
  readonly strategyName = "selectiveCompact";
  readonly target: number;
  readonly rules: readonly SelectiveRule[];
  readonly #classify: MessageClassifier | undefined;

  constructor(options: SelectiveCompactOptions) {
    const parsed = parseOptions("selectiveCompact", optionsSchema, options);
    super(parsed);
    const rules = (parsed.rules ?? DEFAULT_SELECTIVE_RULES).map((rule) => ({ ...rule }));
    rules.forEach((rule, position) => {
      if (rule.action === "truncate" && rule.keepRecent === undefined) {
        throw invalidOption("selectiveCompact", `rules.${position}.keepRecent`, rule.keepRecent, "a number of messages to keep, which a truncate rule needs");
      }
      if (rule.action !== "none" && PROTECTED_KINDS.has(rule.kind)) {
        throw invalidOption("selectiveCompact", `rules.${position}.action`, rule.action, `"none" for \`${rule.kind}\` messages`, `\`${rule.kind}\` messages are never compacted`);
      }
    });
    this.rules = rules.sort((a, b) => a.priority - b.priority);
    this.target = parsed.target;
    this.#classify = options.classify;
  }

  protected async run({ messages, index, tokens, pending }: PreparedHistory): Promise<StrategyOutcome> {
    if (tokens.total <= this.target) return { status: "noop", reason: `already at ${tokens.total} tokens, within target ${this.target}` };
    const count = messages.length;
    const alive = new Uint8Array(count).fill(1);
    const currentTokens = [...tokens.perMessage];
    // The total is the estimate plus the calibration of the newest assistant message with provider
    // usage that is still in the history.
    let estimated = tokens.estimated;
    const anchors = tokens.calibrationAnchors;
    let anchor = anchors.length - 1;
    const total = () => Math.max(0, estimated + (anchor >= 0 ? anchors[anchor]!.offset : 0));

    const byKind = new Map<string, number[]>();
    for (let position = 0; position < count; position++) {
      const message = messages[position]!;
      const kind = this.#classify?.(message, position) ?? defaultMessageKind(message);
      // The pending calls' message stays: the tools are about to answer it.
      if (PROTECTED_KINDS.has(kind) || message.type === "system" || position === pending) continue;
      let list = byKind.get(kind);
      if (!list) byKind.set(kind, (list = []));
      list.push(position);
    }

    const removeOne = (position: number) => {
      if (!alive[position]) return;
      alive[position] = 0;
      estimated -= currentTokens[position]!;
      while (anchor >= 0 && !alive[anchors[anchor]!.index]) anchor--;
    };
    // Calls stripped from each assistant message. The copy without them is made once, at the end;
    // meanwhile each stripped call's own tokens come off the estimate (linear in a group's size).
    const stripped = new Map<number, Set<string>>();
    const stripCall = async (assistantPosition: number, callId: string) => {
      if (!alive[assistantPosition]) return;
      const assistant = messages[assistantPosition] as AIMessage;
      const calls = assistantCalls(assistant);
      let gone = stripped.get(assistantPosition);
      if (!gone) stripped.set(assistantPosition, (gone = new Set()));
      gone.add(callId);
      // With no call left, a message without content of its own (text, or only call blocks) goes too.
      if (gone.size >= calls.length && !hasSendableContent(assistant.content)) {
        removeOne(assistantPosition);
        return;
      }
      const call = calls.find((candidate) => candidate.id === callId);
      const callTokens = call ? await this.#callTokens(call) : 0;
      estimated -= callTokens;
      currentTokens[assistantPosition] = currentTokens[assistantPosition]! - callTokens;
    };
    // After the system messages the conversation opens with a user message (Anthropic rejects one
    // that opens with an assistant message): while it does, the first one is removed only when the
    // next remaining message is a user message too, to take its place.
    const nextAlive = (from: number) => {
      let position = from;
      while (position < count && (!alive[position] || messages[position]!.type === "system")) position++;
      return position;
    };
    let opener = nextAlive(0);
    if (opener < count && !isUserMessage(messages[opener]!)) opener = -1;
    let openerKept = false;
    /** Remove a message with what depends on it; false when it must stay (the user message the conversation opens with). */
    const remove = async (position: number): Promise<boolean> => {
      if (!alive[position]) return false;
      const message = messages[position]!;
      const groupNumber = index.groupOf[position]!;
      if (groupNumber >= 0 && isAssistantMessage(message)) {
        removeOne(position);
        for (const resultPosition of index.groups[groupNumber]!.resultIndices) removeOne(resultPosition);
        return true;
      }
      const callIds = groupNumber >= 0 ? resultCallIds(message) : [];
      if (callIds.length > 0) {
        // A tool result, or a human message with tool_result blocks: its calls go with it.
        removeOne(position);
        const assistantPosition = index.groups[groupNumber]!.assistantIndex;
        for (const callId of callIds) await stripCall(assistantPosition, callId);
        return true;
      }
      if (position === opener) {
        const next = openerKept ? count : nextAlive(position + 1);
        if (next >= count || !isUserMessage(messages[next]!)) {
          openerKept = true;
          return false;
        }
        opener = next;
      }
      removeOne(position);
      return true;
    };

    let changed = false;
    rules: for (const rule of this.rules) {
      if (rule.action === "none") continue;
      const candidates = (byKind.get(rule.kind) ?? []).filter((position) => alive[position]);
      const victims = rule.action === "drop" ? candidates : candidates.slice(0, Math.max(0, candidates.length - (rule.keepRecent ?? 0)));
      for (const position of victims) {
        if (total() <= this.target) break rules;
        if (await remove(position)) changed = true;
      }
      if (total() <= this.target) break;
    }
    if (!changed) return { status: "noop", reason: `no rule could remove anything; still ${total()} tokens over target ${this.target}` };

    const output: BaseMessage[] = [];
    const removed: RemovedMessage[] = [];
    const replaced: ReplacedMessage[] = [];
    for (let position = 0; position < count; position++) {
      if (!alive[position]) {
        removed.push({ index: position, message: messages[position]! });
        continue;
      }
      const gone = stripped.get(position);
      if (!gone) {
        output.push(messages[position]!);
        continue;
      }
      const before = messages[position] as AIMessage;
      const keepPositions = new Set<number>();
      assistantCalls(before).forEach((call, callPosition) => {
        if (call.id === undefined || !gone.has(call.id)) keepPositions.add(callPosition);
      });
      const after = editToolCalls(before, { keepPositions });
      output.push(after);
      replaced.push({ index: position, before, after });
    }
    return {
      status: "compacted",
      messages: output,
      removed,
      replaced,
      ...(total() > this.target ? { reason: `rules exhausted at ${total()} tokens, over target ${this.target}` } : {}),
    };
  }

  /**
   * Tokens that removing one tool call frees from its assistant message, never more than it really
   * frees (so the run never stops above the target believing it is under). Exact mode counts each
   * part as the counter does; approximate mode rounds each message once, so a lower bound is used.
   */
  async #callTokens(call: AssistantCall): Promise<number> {
    const parts = [call.name ?? "", JSON.stringify(call.args ?? {}), call.id ?? ""];
    if (this.tokenCounter.mode === "exact") {
      const counts = await Promise.all(parts.map((part) => this.tokenCounter.countText(part)));
      return TOKENS_PER_TOOL_CALL + counts.reduce((sum, count) => sum + count, 0);
    }
    return TOKENS_PER_TOOL_CALL + Math.max(0, (await this.tokenCounter.countText(parts.join(""))) - 1);
  }
}

/**
 * Apply selective drop / truncate rules, per kind of message, until the history fits `target`
 * tokens. The first user message stays when removing it would leave an assistant message first.
 *
 * @example
 * const selective = selectiveCompact({
 *   target: 60_000,
 *   classify: (message) => (message.additional_kwargs?.skill ? "skill_prompt" : undefined),
 * });
 * const result = await selective.compact(history);
 * @throws {InvalidOptionError} for an invalid option, a truncate rule without `keepRecent`, or a rule
 *   that would remove system messages or summaries.
 */
export function selectiveCompact(options: SelectiveCompactOptions): SelectiveCompact {
  return new SelectiveCompact(options);
}

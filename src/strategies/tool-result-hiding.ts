import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { assistantCalls } from "../messages/assistant-calls.js";
import { cloneMessage } from "../messages/clone-message.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { isToolResultMessage } from "../messages/message-types.js";
import { toolResultBlocksOf } from "../messages/tool-result-blocks.js";
import { parseOptions } from "../options.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker, type ReplacedMessage } from "../types.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";

/** The default placeholder: short, stable, and plainly a notice rather than a tool's output. */
export const DEFAULT_HIDDEN_RESULT_PLACEHOLDER = "[tool result hidden to save context; call the tool again if you need it]";

export interface ToolResultHidingOptions extends BaseStrategyOptions {
  /** The newest N tool-call groups keep their results. @default 5 */
  keepRecentGroups?: number;
  /** Content that replaces a hidden result. Keep it stable: it is part of the cached prefix. @default DEFAULT_HIDDEN_RESULT_PLACEHOLDER */
  placeholder?: string;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Also empty the arguments of the calls whose results are hidden. @default false */
  hideToolInputs?: boolean;
  /**
   * Do nothing unless hiding frees at least this many tokens, so a prompt cache is only broken when
   * it pays (like Anthropic's `clear_at_least`). @default 0
   */
  minTokensSaved?: number;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    keepRecentGroups: z.number().int().nonnegative().optional(),
    placeholder: z.string().min(1).optional(),
    excludeTools: z.array(z.string()).optional(),
    hideToolInputs: z.boolean().optional(),
    minTokensSaved: z.number().int().nonnegative().optional(),
  })
  .strict();

/**
 * Tool result hiding: the newest `keepRecentGroups` tool-call groups keep their results; the
 * results of older groups are replaced by a short stable placeholder. Hidden results keep
 * `tool_call_id`, `name`, `id` and every other field, and carry `response_metadata.compaction.hidden`,
 * so a second run is a no-op. A result already shorter than the placeholder is left as it is.
 * Results sent as `tool_result` blocks in a human message (Anthropic's form) are hidden in a copy
 * of that message: each block keeps its `tool_use_id` (and `is_error`) with the placeholder as its
 * content, the message's other content stays. Assistant and user messages are untouched (unless
 * `hideToolInputs`).
 * @see toolResultHiding
 */
export class ToolResultHiding extends CompactionStrategy {
  readonly strategyName = "toolResultHiding";
  readonly keepRecentGroups: number;
  readonly placeholder: string;
  readonly excludeTools: ReadonlySet<string>;
  readonly hideToolInputs: boolean;
  readonly minTokensSaved: number;
  /** Results judged shorter than the placeholder; messages are immutable, so the verdict stands. */
  readonly #notWorthHiding = new WeakSet<BaseMessage>();

  constructor(options: ToolResultHidingOptions = {}) {
    const parsed = parseOptions("toolResultHiding", optionsSchema, options);
    super(parsed);
    this.keepRecentGroups = parsed.keepRecentGroups ?? 5;
    this.placeholder = parsed.placeholder ?? DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
    this.excludeTools = new Set(parsed.excludeTools ?? []);
    this.hideToolInputs = parsed.hideToolInputs ?? false;
    this.minTokensSaved = parsed.minTokensSaved ?? 0;
  }

  protected async run({ messages, index, tokens }: PreparedHistory): Promise<StrategyOutcome> {
    const olderGroups = Math.max(0, index.groups.length - this.keepRecentGroups);
    /** input index -> new message */
    const replacements = new Map<number, BaseMessage>();
    let saved = 0;
    for (let groupNumber = 0; groupNumber < olderGroups; groupNumber++) {
      const group = index.groups[groupNumber]!;
      const assistant = messages[group.assistantIndex] as AIMessage;
      // Only hideToolInputs needs to know which calls of the group are hidden.
      const hiddenCallIds = this.hideToolInputs ? new Set<string>() : undefined;
      let callNames: Map<string | undefined, string> | undefined;
      for (const resultIndex of group.resultIndices) {
        const message = messages[resultIndex]!;
        if (!isToolResultMessage(message)) {
          // A human message whose tool_result blocks answer the calls: their content is hidden in place.
          const toolNames = this.excludeTools.size > 0 ? (callNames ??= new Map(assistantCalls(assistant).map((call) => [call.id, call.name]))) : undefined;
          const hidden = await this.#hideBlocks(message, tokens.perMessage[resultIndex]!, toolNames);
          for (const id of hidden?.callIds ?? []) hiddenCallIds?.add(id);
          if (hidden?.after !== undefined) {
            saved += hidden.saved;
            replacements.set(resultIndex, hidden.after);
          }
          continue;
        }
        const result: ToolMessage = message;
        if (compactionMarkerOf(result)?.hidden) {
          hiddenCallIds?.add(result.tool_call_id);
          continue;
        }
        if (this.#notWorthHiding.has(result)) continue;
        if (this.excludeTools.size > 0) {
          // Names by call id, built once per group: a find per result is quadratic in a parallel group.
          callNames ??= new Map(assistantCalls(assistant).map((call) => [call.id, call.name]));
          const toolName = result.name ?? callNames.get(result.tool_call_id) ?? "";
          if (this.excludeTools.has(toolName)) continue;
        }
        const before = tokens.perMessage[resultIndex]!;
        const marker: CompactionMarker = { strategy: this.strategyName, hidden: true, originalTokens: before };
        const after = cloneMessage(result, {
          content: this.placeholder,
          response_metadata: { ...result.response_metadata, [COMPACTION_METADATA_KEY]: marker },
        });
        const afterTokens = await this.tokenCounter.countMessage(after);
        // A result shorter than the placeholder stays: hiding it would cost tokens.
        if (afterTokens >= before) {
          this.#notWorthHiding.add(result);
          continue;
        }
        hiddenCallIds?.add(result.tool_call_id);
        saved += before - afterTokens;
        replacements.set(resultIndex, after);
      }
      if (hiddenCallIds && hiddenCallIds.size > 0) {
        const alreadyHidden = new Set(compactionMarkerOf(assistant)?.hiddenToolInputs ?? []);
        const toClear = new Set<number>();
        const calls = assistantCalls(assistant);
        calls.forEach((call, position) => {
          if (call.id !== undefined && hiddenCallIds.has(call.id) && !alreadyHidden.has(call.id)) toClear.add(position);
        });
        if (toClear.size > 0) {
          const cleared = editToolCalls(assistant, { clearArgsPositions: toClear });
          const hiddenInputs = [...alreadyHidden, ...[...toClear].map((position) => calls[position]!.id!)].sort();
          const marker: CompactionMarker = {
            ...compactionMarkerOf(assistant),
            strategy: this.strategyName,
            hiddenToolInputs: hiddenInputs,
          };
          const after = cloneMessage(cleared, {
            response_metadata: { ...cleared.response_metadata, [COMPACTION_METADATA_KEY]: marker },
          });
          saved += tokens.perMessage[group.assistantIndex]! - (await this.tokenCounter.countMessage(after));
          replacements.set(group.assistantIndex, after);
        }
      }
    }
    if (replacements.size === 0) return { status: "noop", reason: "no tool result older than the kept groups is left to hide" };
    if (saved < this.minTokensSaved) {
      return { status: "noop", reason: `hiding would free ${saved} tokens, less than minTokensSaved (${this.minTokensSaved})` };
    }
    const output = [...messages];
    const replaced: ReplacedMessage[] = [];
    for (const [position, after] of [...replacements].sort((a, b) => a[0] - b[0])) {
      output[position] = after;
      replaced.push({ index: position, before: messages[position]!, after });
    }
    return { status: "compacted", messages: output, replaced, preservesStructure: true };
  }

  /**
   * Hide the `tool_result` blocks of a human message: a copy whose blocks (but those of excluded
   * tools) hold the placeholder, its other content untouched. `callIds`: the calls whose results
   * are hidden (already or now); `after` is left out when nothing is to change or it would not
   * save tokens.
   */
  async #hideBlocks(message: BaseMessage, before: number, toolNames: ReadonlyMap<string | undefined, string> | undefined) {
    const refs = toolResultBlocksOf(message);
    if (compactionMarkerOf(message)?.hidden) {
      const content = message.content as Record<string, unknown>[];
      return { callIds: refs.filter((ref) => content[ref.position]!["content"] === this.placeholder).map((ref) => ref.toolUseId), saved: 0 };
    }
    if (this.#notWorthHiding.has(message)) return undefined;
    const content = [...(message.content as unknown[])];
    const callIds: string[] = [];
    for (const ref of refs) {
      if (toolNames !== undefined && this.excludeTools.has(toolNames.get(ref.toolUseId) ?? "")) continue;
      const block = content[ref.position] as Record<string, unknown>;
      if (block["content"] === this.placeholder) continue;
      content[ref.position] = { ...block, content: this.placeholder };
      callIds.push(ref.toolUseId);
    }
    if (callIds.length === 0) return undefined;
    const marker: CompactionMarker = { strategy: this.strategyName, hidden: true, originalTokens: before };
    const after = cloneMessage(message, { content, response_metadata: { ...message.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
    const afterTokens = await this.tokenCounter.countMessage(after);
    if (afterTokens >= before) {
      this.#notWorthHiding.add(message);
      return undefined;
    }
    return { callIds, after, saved: before - afterTokens };
  }
}

/**
 * Hide older tool results, keeping the newest groups' results whole.
 *
 * @example
 * const hiding = toolResultHiding({ keepRecentGroups: 3, excludeTools: ["read_plan"] });
 * const { messages, status, replaced } = await hiding.compact(history);
 * // or in LCEL: hiding.pipe(model)
 * @throws {InvalidOptionError} for an invalid option.
 */
export function toolResultHiding(options: ToolResultHidingOptions = {}): ToolResultHiding {
  return new ToolResultHiding(options);
}

import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { InvalidOptionError } from "../errors.js";
import { assistantCalls, type AssistantCall } from "../messages/assistant-calls.js";
import { cloneMessage } from "../messages/clone-message.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { isToolResultMessage } from "../messages/message-types.js";
import { extractArtifacts } from "../messages/artifact-index.js";
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
import { evaluateTrigger, triggerSchema, underTriggerReason, windowForSizes, type ContextSize, type TriggerSize } from "./context-size.js";
import {
  blockArtifacts,
  callMessage,
  hiddenContent,
  hidingReceipt,
  isHiddenContent,
  receiptLimits,
  receiptsSchema,
  type HidingReceiptOptions,
  type ReceiptLimits,
} from "./hiding-receipts.js";

/** The default placeholder: short, stable, and plainly a notice rather than a tool's output. */
export const DEFAULT_HIDDEN_RESULT_PLACEHOLDER = "[tool result hidden to save context; call the tool again if you need it]";

/**
 * The default trigger of `toolResultHiding`, in tokens of the whole history: `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }`.
 * Chosen on recorded agent sessions (bench/EVAL.md): with `clearAtLeast` 3000 it costs 0.88× no
 * compaction at reference prices, where hiding at every run cost 1.07× (each new group broke the
 * cached prefix).
 */
export const DEFAULT_HIDING_TRIGGER_TOKENS = 10_000;

/** The default `clearAtLeast` of `toolResultHiding`: a firing that frees fewer tokens leaves the cached prefix alone. */
export const DEFAULT_HIDING_CLEAR_AT_LEAST = 3000;

export interface ToolResultHidingOptions extends BaseStrategyOptions {
  /** The newest N tool-call groups keep their results. @default 5 */
  keepRecentGroups?: number;
  /**
   * Hide only when this fires (any of the sizes reached, measured on the whole history), unless run
   * with `force`. Between firings the history is returned untouched, so a provider's cached prompt
   * prefix holds; a firing hides every result older than the kept groups at once.
   * @default { tokens: DEFAULT_HIDING_TRIGGER_TOKENS } (10 000)
   */
  trigger?: TriggerSize | TriggerSize[];
  /** The model's context window in tokens, for a `fraction` trigger. */
  contextWindow?: number;
  /**
   * A firing that would free fewer tokens than this does nothing (a no-op saying so), so a prompt
   * cache is only broken when it pays (like Anthropic's `clear_at_least`). `force` does not bypass it.
   * @default DEFAULT_HIDING_CLEAR_AT_LEAST (3000)
   */
  clearAtLeast?: number;
  /** @deprecated use `clearAtLeast` (the same option under its former name; giving both is an error). */
  minTokensSaved?: number;
  /**
   * After the placeholder, a short receipt of what the hidden result showed: the file paths its call
   * touched and the result's last error lines, e.g.
   * `[tool result hidden ...] (files: a.py, b/c.py; errors: ValueError: bad | TypeError: x)`. `true`: at most
   * `DEFAULT_RECEIPT_FILES` (8) paths and `DEFAULT_RECEIPT_ERRORS` (3) error lines, each cut to
   * `RECEIPT_LINE_MAX` (200) code units, quoted as they are; `false`: the placeholder alone. The same
   * result always gets the same receipt. With receipts, the hidden result's marker also keeps the
   * original's artifact index (`artifacts`), which a later summary merges into its own. @default true
   */
  receipts?: boolean | HidingReceiptOptions;
  /** Content that replaces a hidden result. Keep it stable: it is part of the cached prefix. @default DEFAULT_HIDDEN_RESULT_PLACEHOLDER */
  placeholder?: string;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Also empty the arguments of the calls whose results are hidden. @default false */
  hideToolInputs?: boolean;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    keepRecentGroups: z.number().int().nonnegative().optional(),
    trigger: triggerSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    clearAtLeast: z.number().int().nonnegative().optional(),
    minTokensSaved: z.number().int().nonnegative().optional(),
    receipts: receiptsSchema.optional(),
    placeholder: z.string().min(1).optional(),
    excludeTools: z.array(z.string()).optional(),
    hideToolInputs: z.boolean().optional(),
  })
  .strict();

/**
 * Tool result hiding, in batches: while the history is under the `trigger` (default
 * `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }`), a run is a no-op and the history is returned
 * untouched, so a provider's cached prompt prefix holds. When the trigger fires (or the run is
 * forced), the newest `keepRecentGroups` tool-call groups keep their results and EVERY result of an
 * older group is replaced, at once, by a short stable placeholder followed by its receipt (see
 * `receipts`), unless that frees fewer than `clearAtLeast` tokens. Hidden results keep
 * `tool_call_id`, `name`, `id` and every other field, and carry `response_metadata.compaction.hidden`
 * (with `originalTokens`), so they are never hidden twice. A result whose hidden form is not smaller
 * is left as it is. Results sent as `tool_result` blocks in a human message (Anthropic's form) are
 * hidden in a copy of that message: each block keeps its `tool_use_id` (and `is_error`) with the
 * placeholder and its receipt as its content, the message's other content stays. Assistant and user
 * messages are untouched (unless `hideToolInputs`).
 *
 * `force` (set by policies such as `hidingThenSummary` on the strategies they run) bypasses the
 * trigger only: `clearAtLeast` still applies.
 * @see toolResultHiding
 */
export class ToolResultHiding extends CompactionStrategy {
  readonly strategyName = "toolResultHiding";
  readonly keepRecentGroups: number;
  readonly trigger: TriggerSize | TriggerSize[];
  readonly contextWindow: number | undefined;
  readonly clearAtLeast: number;
  readonly placeholder: string;
  readonly excludeTools: ReadonlySet<string>;
  readonly hideToolInputs: boolean;
  /** The receipt limits; `undefined` when receipts are off. */
  readonly receipts: ReceiptLimits | undefined;
  /** Results judged not worth hiding; messages are immutable, so the verdict stands. */
  readonly #notWorthHiding = new WeakSet<BaseMessage>();

  constructor(options: ToolResultHidingOptions = {}) {
    const parsed = parseOptions("toolResultHiding", optionsSchema, options) as ToolResultHidingOptions;
    if (parsed.clearAtLeast !== undefined && parsed.minTokensSaved !== undefined) {
      throw new InvalidOptionError("toolResultHiding", "minTokensSaved", "a deprecated name of clearAtLeast: give only clearAtLeast");
    }
    super(parsed);
    this.keepRecentGroups = parsed.keepRecentGroups ?? 5;
    this.trigger = parsed.trigger ?? { tokens: DEFAULT_HIDING_TRIGGER_TOKENS };
    this.contextWindow = windowForSizes("toolResultHiding", [this.trigger], parsed.contextWindow, undefined, "the trigger is a fraction of the context window");
    this.clearAtLeast = parsed.clearAtLeast ?? parsed.minTokensSaved ?? DEFAULT_HIDING_CLEAR_AT_LEAST;
    this.placeholder = parsed.placeholder ?? DEFAULT_HIDDEN_RESULT_PLACEHOLDER;
    this.excludeTools = new Set(parsed.excludeTools ?? []);
    this.hideToolInputs = parsed.hideToolInputs ?? false;
    this.receipts = receiptLimits(parsed.receipts);
  }

  /** @deprecated use `clearAtLeast`. */
  get minTokensSaved(): number {
    return this.clearAtLeast;
  }

  protected async run({ messages, index, tokens, context }: PreparedHistory): Promise<StrategyOutcome> {
    const size = { tokens: tokens.total, messages: messages.length };
    const trigger = evaluateTrigger(this.trigger, size, this.contextWindow, context.force);
    if (trigger === undefined) return { status: "noop", reason: underTriggerReason(size) };
    const olderGroups = Math.max(0, index.groups.length - this.keepRecentGroups);
    /** input index -> new message */
    const replacements = new Map<number, BaseMessage>();
    let saved = 0;
    const needCalls = this.excludeTools.size > 0 || this.receipts !== undefined;
    for (let groupNumber = 0; groupNumber < olderGroups; groupNumber++) {
      const group = index.groups[groupNumber]!;
      const assistant = messages[group.assistantIndex] as AIMessage;
      // Only hideToolInputs needs to know which calls of the group are hidden.
      const hiddenCallIds = this.hideToolInputs ? new Set<string>() : undefined;
      // Calls by id, built once per group (a find per result is quadratic in a parallel group), only
      // when needed (no closure per group: this loop runs over every older group at every step).
      let calls: Map<string | undefined, AssistantCall> | undefined;
      for (const resultIndex of group.resultIndices) {
        const message = messages[resultIndex]!;
        if (!isToolResultMessage(message)) {
          // A human message whose tool_result blocks answer the calls: their content is hidden in place.
          const hidden = await this.#hideBlocks(message, tokens.perMessage[resultIndex]!, needCalls ? (calls ??= callsById(assistant)) : undefined);
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
        const call = needCalls ? (calls ??= callsById(assistant)).get(result.tool_call_id) : undefined;
        if (this.excludeTools.size > 0 && this.excludeTools.has(result.name ?? call?.name ?? "")) continue;
        const before = tokens.perMessage[resultIndex]!;
        // With receipts, the original is read once: its artifacts make the receipt and stay in the
        // marker, where a later summary's artifact index merges them.
        const artifacts = this.receipts === undefined ? undefined : extractArtifacts([result]);
        // With hideToolInputs the call's arguments go too: its files stay in the marker's index.
        const markerArtifacts = artifacts && this.hideToolInputs && call ? extractArtifacts([callMessage(call)], [artifacts]) : artifacts;
        const marker: CompactionMarker = { strategy: this.strategyName, hidden: true, originalTokens: before, ...(markerArtifacts ? { artifacts: markerArtifacts } : {}) };
        const receipt = artifacts === undefined ? "" : hidingReceipt(call, artifacts, this.receipts!);
        const after = cloneMessage(result, {
          content: hiddenContent(this.placeholder, receipt),
          response_metadata: { ...result.response_metadata, [COMPACTION_METADATA_KEY]: marker },
        });
        const afterTokens = await this.tokenCounter.countMessage(after);
        // A result shorter than its hidden form stays: hiding it would cost tokens.
        if (afterTokens >= before) {
          this.#notWorthHiding.add(result);
          continue;
        }
        hiddenCallIds?.add(result.tool_call_id);
        saved += before - afterTokens;
        replacements.set(resultIndex, after);
      }
      if (hiddenCallIds && hiddenCallIds.size > 0) saved += await this.#hideInputs(assistant, group.assistantIndex, hiddenCallIds, tokens.perMessage, replacements);
    }
    if (replacements.size === 0) return { status: "noop", trigger, reason: "no tool result older than the kept groups is left to hide" };
    if (saved < this.clearAtLeast) {
      return { status: "noop", trigger, reason: `hiding would free ${saved} tokens, less than clearAtLeast (${this.clearAtLeast})` };
    }
    const output = [...messages];
    const replaced: ReplacedMessage[] = [];
    for (const [position, after] of [...replacements].sort((a, b) => a[0] - b[0])) {
      output[position] = after;
      replaced.push({ index: position, before: messages[position]!, after });
    }
    return { status: "compacted", messages: output, replaced, preservesStructure: true, trigger };
  }

  /** Empty the arguments of the hidden calls of an assistant message (in a copy); returns the tokens saved. */
  async #hideInputs(
    assistant: AIMessage,
    position: number,
    hiddenCallIds: ReadonlySet<string>,
    perMessage: readonly number[],
    replacements: Map<number, BaseMessage>,
  ): Promise<number> {
    const alreadyHidden = new Set(compactionMarkerOf(assistant)?.hiddenToolInputs ?? []);
    const toClear = new Set<number>();
    const calls = assistantCalls(assistant);
    calls.forEach((call, callPosition) => {
      if (call.id !== undefined && hiddenCallIds.has(call.id) && !alreadyHidden.has(call.id)) toClear.add(callPosition);
    });
    if (toClear.size === 0) return 0;
    const cleared = editToolCalls(assistant, { clearArgsPositions: toClear });
    const hiddenInputs = [...alreadyHidden, ...[...toClear].map((callPosition) => calls[callPosition]!.id!)].sort();
    const marker: CompactionMarker = { ...compactionMarkerOf(assistant), strategy: this.strategyName, hiddenToolInputs: hiddenInputs };
    const after = cloneMessage(cleared, { response_metadata: { ...cleared.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
    replacements.set(position, after);
    return perMessage[position]! - (await this.tokenCounter.countMessage(after));
  }

  /**
   * Hide the `tool_result` blocks of a human message: a copy whose blocks (but those of excluded
   * tools) hold the placeholder and their receipt, its other content untouched. `callIds`: the calls
   * whose results are hidden (already or now); `after` is left out when nothing is to change or it
   * would not save tokens.
   */
  async #hideBlocks(message: BaseMessage, before: number, calls: ReadonlyMap<string | undefined, AssistantCall> | undefined) {
    const refs = toolResultBlocksOf(message);
    if (compactionMarkerOf(message)?.hidden) {
      const content = message.content as Record<string, unknown>[];
      return { callIds: refs.filter((ref) => isHiddenContent(content[ref.position]!["content"], this.placeholder)).map((ref) => ref.toolUseId), saved: 0 };
    }
    if (this.#notWorthHiding.has(message)) return undefined;
    const content = [...(message.content as unknown[])];
    const callIds: string[] = [];
    for (const ref of refs) {
      const call = calls?.get(ref.toolUseId);
      if (this.excludeTools.size > 0 && this.excludeTools.has(call?.name ?? "")) continue;
      const block = content[ref.position] as Record<string, unknown>;
      if (isHiddenContent(block["content"], this.placeholder)) continue;
      const receipt = this.receipts === undefined ? "" : hidingReceipt(call, blockArtifacts(block), this.receipts);
      content[ref.position] = { ...block, content: hiddenContent(this.placeholder, receipt) };
      callIds.push(ref.toolUseId);
    }
    if (callIds.length === 0) return undefined;
    const artifacts = this.receipts === undefined ? undefined : extractArtifacts([message]);
    const marker: CompactionMarker = { strategy: this.strategyName, hidden: true, originalTokens: before, ...(artifacts ? { artifacts } : {}) };
    const after = cloneMessage(message, { content, response_metadata: { ...message.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
    const afterTokens = await this.tokenCounter.countMessage(after);
    if (afterTokens >= before) {
      this.#notWorthHiding.add(message);
      return undefined;
    }
    return { callIds, after, saved: before - afterTokens };
  }
}

/** The calls of an assistant message by id. */
function callsById(assistant: AIMessage): Map<string | undefined, AssistantCall> {
  return new Map(assistantCalls(assistant).map((call) => [call.id, call]));
}

/**
 * Hide older tool results in batches, keeping the newest groups' results whole: nothing changes
 * until the trigger fires, then every older result is hidden at once.
 *
 * @example
 * const hiding = toolResultHiding({ keepRecentGroups: 3, trigger: { tokens: 50_000 }, excludeTools: ["read_plan"] });
 * const { messages, status, replaced } = await hiding.compact(history);
 * // or in LCEL: hiding.pipe(model)
 * @throws {InvalidOptionError} for an invalid option.
 */
export function toolResultHiding(options: ToolResultHidingOptions = {}): ToolResultHiding {
  return new ToolResultHiding(options);
}

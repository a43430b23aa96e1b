import type { BaseMessage } from "@langchain/core/messages";
import type { ContextEdit } from "langchain";
import { z } from "zod/v4";
import { parseOptions } from "../options.js";
import { TRIGGER_TAKES, contextWindowOf, type ContextSize, type TriggerSize } from "../strategies/context-size.js";
import { receiptsSchema, type HidingReceiptOptions } from "../strategies/hiding-receipts.js";
import { supersessionSchema } from "../strategies/superseded-results.js";
import { ToolResultHiding } from "../strategies/tool-result-hiding.js";
import type { KeepRecentResults } from "../strategies/tool-result-hiding-options.js";
import type { SupersessionOptions } from "../strategies/superseded-results.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { carriesToolResults } from "../messages/tool-result-blocks.js";
import { LangChainClearHiding } from "./clear-tool-uses-hiding.js";
import { langChainKeep } from "./clear-tool-uses-keep.js";
import { langChainTokenCounter, type LangChainTokenCounter } from "./langchain-token-counter.js";

export type { ContextEdit } from "langchain";

/** LangChain's default placeholder of a cleared tool result. */
export const DEFAULT_CLEARED_PLACEHOLDER = "[cleared]";
/** LangChain's default trigger of `ClearToolUsesEdit`, in tokens: `{ tokens: 100_000 }`. */
export const DEFAULT_CLEAR_TRIGGER_TOKENS = 100_000;
/** LangChain's default number of newest tool results `ClearToolUsesEdit` keeps: `{ messages: 3 }`. */
export const DEFAULT_CLEAR_KEEP = 3;

/** Options of {@link ClearToolUsesEdit}: LangChain's `ClearToolUsesEditConfig`, plus `receipts` and `model`. */
export interface ClearToolUsesEditConfig {
  /**
   * When to clear: one size (every field given must be reached: `{ tokens: 50_000, messages: 20 }`)
   * or a list of sizes (any of them). `fraction` is of the model's `profile.maxInputTokens` (or the
   * window LangChain's `getModelContextSize` knows for its name); a fraction whose window is unknown
   * never fires. Tokens are counted by the middleware's `tokenCountMethod`, on the messages without
   * the system prompt for `"approx"`.
   * @default { tokens: DEFAULT_CLEAR_TRIGGER_TOKENS } (100 000)
   */
  trigger?: TriggerSize | TriggerSize[];
  /**
   * How many of the newest tool results keep their content: `{ messages: n }`, or the newest whose
   * tokens add up to at most `{ tokens: n }` (or `{ fraction: f }` of the model's window; 3 results
   * when the window is unknown), stopping at the first that does not fit. Excluded and already
   * cleared results count. As in LangChain, only tool messages count: a `tool_result` block in a user
   * message (Anthropic's form) is not one, and when every tool message is kept nothing is cleared.
   * @default { messages: DEFAULT_CLEAR_KEEP } (3)
   */
  keep?: ContextSize;
  /** Also empty the arguments of the calls whose results are cleared. @default false */
  clearToolInputs?: boolean;
  /** Tool names whose results are never cleared. @default [] */
  excludeTools?: string[];
  /** Content of a cleared result; not empty (providers reject an empty tool result). @default DEFAULT_CLEARED_PLACEHOLDER ("[cleared]") */
  placeholder?: string;
  /**
   * After the placeholder, a receipt of the files the cleared result's call touched and its last
   * error lines (see `toolResultHiding`'s `receipts`). @default false (the placeholder alone, as LangChain)
   */
  receipts?: boolean | HidingReceiptOptions;
  /**
   * Also hide superseded results, kept ones included, by a note naming the later call (see
   * `toolResultHiding`'s `supersession`); LangChain has no such rule. @default false (as LangChain)
   */
  supersession?: boolean | SupersessionOptions;
  /** The model whose window `fraction` sizes are of. @default the agent's model (the request's) */
  model?: unknown;
  /** @deprecated LangChain's former name: use `trigger: { tokens }` (ignored when `trigger` is given). */
  triggerTokens?: number;
  /** @deprecated LangChain's former name: use `keep: { messages }` (ignored when `keep` is given). */
  keepMessages?: number;
  /**
   * @deprecated in LangChain. When clearing every result beyond `keep` frees fewer tokens than
   * this, kept results are cleared too, newest first, until it does; as in LangChain, only when
   * `keep` keeps some but not every tool message, and the tokens freed are the whole history's
   * count before minus after (one count of the whole history per kept result reached). @default 0
   */
  clearAtLeast?: number;
}

const triggerSize = z
  .object({
    fraction: z.number().gt(0).max(1).optional(),
    tokens: z.number().positive().optional(),
    messages: z.number().int().positive().optional(),
  })
  .strict()
  .refine((size) => [size.fraction, size.tokens, size.messages].some((value) => value !== undefined), { message: "expected a size with at least one of fraction, tokens or messages" });
const keepSize = z
  .object({ fraction: z.number().min(0).max(1).optional(), tokens: z.number().min(0).optional(), messages: z.number().int().min(0).optional() })
  .strict()
  .refine((size) => [size.fraction, size.tokens, size.messages].filter((value) => value !== undefined).length === 1, {
    message: "expected a size with exactly one of fraction, tokens or messages",
  });
const configSchema = z
  .object({
    trigger: z.union([triggerSize, z.array(triggerSize)], { error: TRIGGER_TAKES }).optional(),
    keep: keepSize.optional(),
    clearToolInputs: z.boolean().optional(),
    excludeTools: z.array(z.string()).optional(),
    placeholder: z.string().min(1).optional(),
    receipts: receiptsSchema.optional(),
    supersession: supersessionSchema.optional(),
    model: z.unknown().optional(),
    triggerTokens: z.number().positive().optional(),
    keepMessages: z.number().int().min(0).optional(),
    clearAtLeast: z.number().min(0).optional(),
  })
  .strict();

/** Strategies kept per token counter (by keep and clearAtLeast); the oldest built goes first. */
const MAX_STRATEGIES = 8;

/** What an edit gets for one model call. */
export interface ClearToolUsesRun {
  /** LangChain's token counter for this call. */
  readonly countTokens: LangChainTokenCounter;
  /** The agent's model (for `fraction` sizes). */
  readonly model?: unknown;
  /** Passed to the strategy: abort signal and the run's config. */
  readonly context?: CompactionContext;
}

/** LangChain's trigger rule: any condition whose every field is reached; a fraction with no known window is skipped. */
function triggered(conditions: readonly TriggerSize[], messages: number, tokens: number, window: number | undefined): boolean {
  return conditions.some((condition) => {
    if (condition.messages !== undefined && messages < condition.messages) return false;
    if (condition.tokens !== undefined && tokens < condition.tokens) return false;
    if (condition.fraction !== undefined) {
      const threshold = window === undefined ? 0 : Math.floor(window * condition.fraction);
      if (threshold <= 0 || tokens < threshold) return false;
    }
    return true;
  });
}

/**
 * A drop-in for LangChain's `ClearToolUsesEdit` (same options, shapes and defaults), running on this
 * package's `toolResultHiding`: once the `trigger` fires, every tool result older than the `keep`
 * newest is replaced by the `placeholder` (with `clearToolInputs`, its call's arguments are
 * emptied), except results of `excludeTools` and results already cleared; with `clearAtLeast`, kept
 * results follow, newest first, until that many tokens are freed. A cleared result keeps its id,
 * `tool_call_id`, `name` and other fields, and carries LangChain's marker
 * `response_metadata.context_editing` (`{ cleared: true, strategy: "clear_tool_uses" }`) and this
 * package's `response_metadata.compaction` (`hidden: true`); an assistant message whose arguments
 * were emptied lists them in `context_editing.cleared_tool_inputs` and `compaction.hiddenToolInputs`.
 *
 * Differences from LangChain's: a result whose placeholder would cost as many tokens as it does is
 * left as it is; the edited history always pairs every call with its result (a history with broken
 * pairing is repaired first: orphan results dropped, unanswered calls removed); `tool_result` blocks
 * in a user message, which LangChain never clears (nor counts in `keep`, nor does this one), are
 * cleared when they are older than the oldest tool message kept.
 *
 * Use it in this package's `contextEditingMiddleware`, which also persists the edit and archives the
 * originals; it also works in LangChain's own `contextEditingMiddleware` (`apply` edits in place).
 *
 * @example
 * const edit = new ClearToolUsesEdit({ trigger: { tokens: 50_000 }, keep: { messages: 5 }, excludeTools: ["read_plan"] });
 * @throws {InvalidOptionError} for an invalid option.
 */
export class ClearToolUsesEdit implements ContextEdit {
  readonly trigger: TriggerSize | TriggerSize[];
  readonly keep: ContextSize;
  readonly clearToolInputs: boolean;
  readonly excludeTools: Set<string>;
  readonly placeholder: string;
  readonly clearAtLeast: number;
  readonly receipts: boolean | HidingReceiptOptions;
  readonly supersession: boolean | SupersessionOptions;
  readonly model: unknown;
  readonly #conditions: readonly TriggerSize[];
  /** The strategies built so far, by token counter and by what the keep resolves to. */
  readonly #strategies = new WeakMap<LangChainTokenCounter, Map<string, ToolResultHiding>>();

  constructor(config: ClearToolUsesEditConfig = {}) {
    const parsed = parseOptions("ClearToolUsesEdit", configSchema, config) as ClearToolUsesEditConfig;
    this.trigger = parsed.trigger ?? (parsed.triggerTokens !== undefined ? { tokens: parsed.triggerTokens } : { tokens: DEFAULT_CLEAR_TRIGGER_TOKENS });
    this.keep = parsed.keep ?? { messages: parsed.keepMessages ?? DEFAULT_CLEAR_KEEP };
    this.#conditions = Array.isArray(this.trigger) ? this.trigger : [this.trigger];
    this.clearToolInputs = parsed.clearToolInputs ?? false;
    this.excludeTools = new Set(parsed.excludeTools ?? []);
    this.placeholder = parsed.placeholder ?? DEFAULT_CLEARED_PLACEHOLDER;
    this.clearAtLeast = parsed.clearAtLeast ?? 0;
    this.receipts = parsed.receipts ?? false;
    this.supersession = parsed.supersession ?? false;
    this.model = parsed.model;
  }

  /**
   * The edit on a history, which it never mutates: `undefined` when the trigger does not fire,
   * else the hiding strategy's result (`noop` when nothing was left to clear).
   * @throws {InvalidHistoryError} for messages that are not a history (see `CompactionStrategy.compact`).
   */
  async editHistory(messages: readonly BaseMessage[], run: ClearToolUsesRun): Promise<CompactionResult | undefined> {
    const window = contextWindowOf(undefined, this.model ?? run.model);
    const tokens = await run.countTokens([...messages]);
    if (!triggered(this.#conditions, messages.length, tokens, window)) return undefined;
    const keep = this.#keepFor(window);
    const blocks = messages.some(carriesToolResults);
    if (this.clearAtLeast === 0 && !blocks) return this.#strategyFor(run.countTokens, keep, 0).compact(messages, { ...run.context, force: true });
    // LangChain's keep counts tool messages only, and clearAtLeast takes kept ones only when some, not all, are kept.
    const counted = await langChainKeep(messages, keep as number | { tokens: number }, langChainTokenCounter(run.countTokens));
    const clearAtLeast = counted.extends ? this.clearAtLeast : 0;
    return this.#strategyFor(run.countTokens, blocks ? counted.keepRecentResults : keep, clearAtLeast).compact(messages, { ...run.context, force: true });
  }

  /**
   * LangChain's `ContextEdit.apply`: edits `messages` in place (replacing the array's elements,
   * never a message object), for LangChain's own `contextEditingMiddleware`.
   */
  async apply(params: { messages: BaseMessage[]; countTokens: LangChainTokenCounter; model?: unknown }): Promise<void> {
    const result = await this.editHistory(params.messages, { countTokens: params.countTokens, model: params.model });
    if (result !== undefined && result.status !== "noop" && result.status !== "failed") params.messages.splice(0, params.messages.length, ...result.messages);
  }

  /** The hiding strategy for a token counter, the results to keep and the `clearAtLeast` to apply. */
  #strategyFor(countTokens: LangChainTokenCounter, keep: KeepRecentResults, clearAtLeast: number): ToolResultHiding {
    let byKeep = this.#strategies.get(countTokens);
    if (byKeep === undefined) this.#strategies.set(countTokens, (byKeep = new Map()));
    const key = `${JSON.stringify(keep)} ${clearAtLeast}`;
    let strategy = byKeep.get(key);
    if (strategy === undefined) {
      strategy = new LangChainClearHiding(
        {
          tokenCounter: langChainTokenCounter(countTokens),
          invalidHistory: "repair",
          keepRecentResults: keep,
          clearAtLeast,
          clearAtLeastMode: "extend",
          placeholder: this.placeholder,
          excludeTools: [...this.excludeTools],
          hideToolInputs: this.clearToolInputs,
          receipts: this.receipts,
          supersession: this.supersession,
        },
        countTokens,
      );
      // A history with tool_result blocks keeps a count that changes with it: only the latest strategies are kept.
      if (byKeep.size >= MAX_STRATEGIES) byKeep.delete(byKeep.keys().next().value!);
      byKeep.set(key, strategy);
    }
    return strategy;
  }

  /** The keep as results to keep: a fraction becomes its tokens (3 results when the window is unknown). */
  #keepFor(window: number | undefined): KeepRecentResults {
    const keep = this.keep as { messages?: number; tokens?: number; fraction?: number };
    if (keep.messages !== undefined) return keep.messages;
    if (keep.tokens !== undefined) return { tokens: keep.tokens };
    const tokens = window === undefined ? 0 : Math.floor(window * keep.fraction!);
    return tokens > 0 ? { tokens } : DEFAULT_CLEAR_KEEP;
  }
}

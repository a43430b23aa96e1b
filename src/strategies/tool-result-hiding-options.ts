import { z } from "zod/v4";
import { baseOptionsShape, type BaseStrategyOptions } from "./compaction-strategy.js";
import { triggerSchema, type TriggerSize } from "./context-size.js";
import { receiptsSchema, type HidingReceiptOptions } from "./hiding-receipts.js";
import { supersessionSchema, type SupersessionOptions } from "./superseded-results.js";

// toolResultHiding's options, defaults and their schema.

/** The default placeholder: short, stable, and plainly a notice rather than a tool's output. */
export const DEFAULT_HIDDEN_RESULT_PLACEHOLDER = "[tool result hidden to save context; call the tool again if you need it]";

/**
 * The default trigger of `toolResultHiding`, in tokens of the whole history: `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }`.
 * Chosen on recorded agent sessions (docs/evaluation.md): with `clearAtLeast` 2000 and 3 groups kept
 * it costs 0.86× no compaction at reference prices, where hiding at every run cost 1.07× (each new
 * group broke the cached prefix). Priced as Anthropic's automatic caching reads the cache (one
 * breakpoint at the end of each request), each firing rewrites the whole prompt and it costs 1.12×;
 * with `anthropicCacheAnchors` on each request, 0.89×.
 */
export const DEFAULT_HIDING_TRIGGER_TOKENS = 10_000;

/** With `contextWindow` and no `trigger`, `toolResultHiding` fires at this share of the window... */
export const DEFAULT_HIDING_TRIGGER_FRACTION = 0.5;
/** ...or at this many tokens of the whole history, whichever is less. */
export const DEFAULT_HIDING_TRIGGER_CAP_TOKENS = 30_000;

/**
 * `toolResultHiding`'s default trigger: half the window or 30,000 tokens, whichever is less, when the
 * window is known (the setting that cost least with the re-reads a forgetful context forces, on the
 * recorded sessions: docs/evaluation.md); `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }` without one.
 */
export function defaultHidingTrigger(contextWindow: number | undefined): TriggerSize | TriggerSize[] {
  if (contextWindow === undefined) return { tokens: DEFAULT_HIDING_TRIGGER_TOKENS };
  return [{ fraction: DEFAULT_HIDING_TRIGGER_FRACTION }, { tokens: DEFAULT_HIDING_TRIGGER_CAP_TOKENS }];
}

/** The default `clearAtLeast` of `toolResultHiding`: a firing that frees fewer tokens leaves the cached prefix alone. */
export const DEFAULT_HIDING_CLEAR_AT_LEAST = 2000;

/**
 * How many of the newest tool results keep their content, counted in results (tool messages, and
 * human messages carrying `tool_result` blocks), excluded and already hidden ones included: a
 * number of results, or the newest results whose tokens add up to at most `tokens` (or `fraction`
 * of the context window), stopping at the first that does not fit.
 */
export type KeepRecentResults = number | { readonly tokens: number } | { readonly fraction: number };

/**
 * What a firing does when hiding every result older than the kept ones would free fewer than
 * `clearAtLeast` tokens: `"skip"` hides nothing (the history and its cached prefix stay as they
 * are); `"extend"` hides them anyway and then kept results too, newest first, until at least
 * `clearAtLeast` tokens are freed or none is left (LangChain.js's `ClearToolUsesEdit`).
 */
export type ClearAtLeastMode = "skip" | "extend";

export interface ToolResultHidingOptions extends BaseStrategyOptions {
  /** The newest N tool-call groups keep their results. Not with `keepRecentResults`. @default 3 */
  keepRecentGroups?: number;
  /**
   * Keep the newest results by result instead of by group (see {@link KeepRecentResults}): e.g. `3`
   * keeps the three newest results even when they answer one parallel call. Not with `keepRecentGroups`.
   */
  keepRecentResults?: KeepRecentResults;
  /** See {@link ClearAtLeastMode}. @default "skip" */
  clearAtLeastMode?: ClearAtLeastMode;
  /**
   * Hide only when this fires (any of the sizes reached, measured on the whole history), unless run
   * with `force`. Between firings the history is returned untouched, so a provider's cached prompt
   * prefix holds; a firing hides every result older than the kept groups at once.
   * @default half of `contextWindow` or 30 000 tokens, whichever is less; without a window
   * `{ tokens: DEFAULT_HIDING_TRIGGER_TOKENS }` (10 000)
   */
  trigger?: TriggerSize | TriggerSize[];
  /** The model's context window in tokens, for a `fraction` trigger. */
  contextWindow?: number;
  /**
   * A firing that would free fewer tokens than this does nothing (a no-op saying so), so a prompt
   * cache is only broken when it pays (like Anthropic's `clear_at_least`). `force` does not bypass it.
   * @default 2000
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
   * original's artifact index (`artifacts`) when it holds anything, which a later summary merges into its own. @default true
   */
  receipts?: boolean | HidingReceiptOptions;
  /** Content that replaces a hidden result. Keep it stable: it is part of the cached prefix. @default DEFAULT_HIDDEN_RESULT_PLACEHOLDER */
  placeholder?: string;
  /** Tool names whose results are never hidden. @default [] */
  excludeTools?: string[];
  /** Also empty the arguments of the calls whose results are hidden. @default false */
  hideToolInputs?: boolean;
  /**
   * Hide superseded results first: at a firing, a tool result that a later call superseded (the
   * same call made again, the same file or lines of it shown again, the file edited since) is hidden
   * even inside the kept groups, when the superseding result stays in full after the firing. Its
   * content becomes a note naming that call, e.g. `[superseded: file a.py viewed again at call
   * call_12]`, then its receipt. Recognises shell tools' commands (`cat`, `nl`, `sed -n`, `head`;
   * any command run again), file editor tools (`str_replace_editor`) and read/write/edit tools by
   * name; `readCall` reads other tools. `false`: only the kept groups decide. @default true
   */
  supersession?: boolean | SupersessionOptions;
}

/** @internal */
export const toolResultHidingSchema = z
  .object({
    ...baseOptionsShape,
    keepRecentGroups: z.number().int().nonnegative().optional(),
    keepRecentResults: z
      .union([
        z.number().int().nonnegative(),
        z.object({ tokens: z.number().nonnegative() }).strict(),
        z.object({ fraction: z.number().min(0).max(1) }).strict(),
      ])
      .optional(),
    clearAtLeastMode: z.enum(["skip", "extend"]).optional(),
    trigger: triggerSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    clearAtLeast: z.number().int().nonnegative().optional(),
    minTokensSaved: z.number().int().nonnegative().optional(),
    receipts: receiptsSchema.optional(),
    placeholder: z.string().min(1).optional(),
    excludeTools: z.array(z.string()).optional(),
    hideToolInputs: z.boolean().optional(),
    supersession: supersessionSchema.optional(),
  })
  .strict();


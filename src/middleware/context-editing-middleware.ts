import { createMiddleware, type ContextEdit } from "langchain";
import { z } from "zod/v4";
import { parseOptions } from "../options.js";
import { CheckedHistories } from "../langgraph/checked-histories.js";
import { CompactionStateSchema } from "../langgraph/compaction-state.js";
import { graphOptionsShapeWithoutRecall, type GraphCompactionOptions } from "../langgraph/run-compaction.js";
import { ClearToolUsesEdit } from "./clear-tool-uses-edit.js";
import { contextEditsCompactor } from "./context-edits.js";
import { compactInModelCall } from "./in-model-call.js";
import { contextEditingCounter } from "./langchain-token-counter.js";

/**
 * Options of {@link contextEditingMiddleware}: LangChain's `ContextEditingMiddlewareConfig` (`edits`,
 * `tokenCountMethod`), plus those of `compactionMiddleware` (`onError`, `archive`, `namespace`,
 * `invalidHistory`) and the middleware's `name`.
 */
export interface ContextEditingMiddlewareConfig extends Omit<GraphCompactionOptions, "recall"> {
  /**
   * The edits, applied in order before every model call. Any object with LangChain's
   * `ContextEdit.apply({ messages, countTokens, model })` works (it edits the array in place).
   * @default [new ClearToolUsesEdit()] (100 000-token trigger, keeps the 3 newest results)
   */
  edits?: ContextEdit[];
  /**
   * `"approx"`: LangChain's `countTokensApproximately` (characters / 4) on the messages. `"model"`:
   * the model's `getNumTokensFromMessages` on the system prompt and the messages (OpenAI chat models
   * only; another model fails the editing, which then changes nothing). @default "approx"
   */
  tokenCountMethod?: "approx" | "model";
  /** The middleware's name (unique among an agent's middleware). @default "ContextEditingMiddleware" */
  name?: string;
}

const editSchema = z.custom<ContextEdit>(
  (value) => typeof value === "object" && value !== null && typeof (value as ContextEdit).apply === "function",
  "expected a ContextEdit (an object with an apply() method), e.g. new ClearToolUsesEdit()",
);
const optionsSchema = z
  .object({
    ...graphOptionsShapeWithoutRecall,
    edits: z.array(editSchema).optional(),
    tokenCountMethod: z.enum(["approx", "model"]).optional(),
    name: z.string().min(1).optional(),
  })
  .strict();

/**
 * A drop-in for LangChain's `contextEditingMiddleware` (same options and defaults: change the
 * import to `langchain-compaction/middleware`), running its edits on this package's machinery.
 * Before every model call it applies the `edits` in order (by default one {@link ClearToolUsesEdit}:
 * once the messages reach 100 000 tokens, every tool result but the 3 newest is replaced by
 * `[cleared]`), and the model gets the edited messages.
 *
 * What it adds to LangChain's:
 * - The edit is written to the agent's state (the checkpointed `messages`: cleared results under
 *   their own ids) with the model's answer, in the model's own step, so the history stays
 *   byte-identical between firings and a provider's prompt cache holds; the originals are archived
 *   (store per thread, else the `compactionArchive` channel) and `restoreHistory` gives them back;
 *   each edit is logged in `compactionLog`. LangChain's edits the array the state holds in place,
 *   which LangGraph may or may not checkpoint. The state's messages are edited wherever the
 *   middleware is listed (see `compactionMiddleware`); a model call that ends in a structured
 *   response writes nothing.
 * - A history whose tool calls and results do not pair up is repaired first (orphan results
 *   dropped, as LangChain does, and unanswered calls removed): `invalidHistory`, default `"repair"`.
 * - An edit that throws, or whose result a provider would reject, changes nothing: the model gets
 *   the history as it was and `compactionLog` gets a `failed` record (`onError: "continue"`, the
 *   default; `"throw"` fails the call as LangChain does).
 *
 * @example
 * import { createAgent } from "langchain";
 * import { ClearToolUsesEdit, contextEditingMiddleware } from "langchain-compaction/middleware";
 *
 * const agent = createAgent({
 *   model,
 *   tools,
 *   middleware: [contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50_000 }, keep: { messages: 5 } })] })],
 *   checkpointer,
 * });
 * @throws {InvalidOptionError} for an invalid option.
 */
export function contextEditingMiddleware(config: ContextEditingMiddlewareConfig = {}) {
  const { name, edits: givenEdits, tokenCountMethod, ...graphOptions } = parseOptions("contextEditingMiddleware", optionsSchema, config);
  const edits = givenEdits ?? [new ClearToolUsesEdit()];
  const method = tokenCountMethod ?? "approx";
  const checked = new CheckedHistories();
  const prepared = new WeakMap();
  const middlewareName = name ?? "ContextEditingMiddleware";
  return createMiddleware({
    name: middlewareName,
    stateSchema: CompactionStateSchema,
    wrapModelCall: (request, handler) =>
      compactInModelCall(
        {
          component: "contextEditingMiddleware",
          name: middlewareName,
          compactor: contextEditsCompactor(edits, { countTokens: contextEditingCounter(method, request.model, request.systemPrompt), model: request.model }),
          options: graphOptions,
          checked,
          prepared,
        },
        request,
        handler,
      ),
  });
}

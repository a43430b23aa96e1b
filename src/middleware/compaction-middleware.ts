import type { BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { parseOptions } from "../options.js";
import { threadIdOf } from "../langgraph/compaction-archive.js";
import { CompactionStateSchema } from "../langgraph/compaction-state.js";
import { CheckedHistories } from "../langgraph/checked-histories.js";
import { assertCompactor, graphCompactionOptionsShape, runGraphCompaction, type GraphCompactionOptions } from "../langgraph/run-compaction.js";
import { currentConfig } from "./current-config.js";
import { compactInModelCall } from "./in-model-call.js";
import { overflowOnlyModelCall } from "./before-model-overflow.js";

/** Options of {@link compactionMiddleware}: those of `createCompactionNode`, plus the middleware's name and hook. */
export interface CompactionMiddlewareOptions extends GraphCompactionOptions {
  /** The middleware's name (unique among an agent's middleware). @default "CompactionMiddleware" */
  name?: string;
  /**
   * Where the compaction runs. `"wrapModelCall"`: inside the model node's step, wherever the
   * middleware is listed, so the agent takes as many graph steps (checkpoints, `recursionLimit`
   * steps) as without it; the update is written by message id, with the model's answer, and
   * composes with what other middleware write in that step (a repair that moves a message moves
   * it for the model only; every message keeps its id). A call that ends in a structured response writes nothing,
   * neither to the state nor to the store. `"beforeModel"`: a hook of its own, which `createAgent`
   * runs as a node before the model node: one more graph step per model call (a context overflow
   * is still retried once, in the model's step). See docs/langgraph.md.
   * @default "wrapModelCall"
   */
  hook?: "beforeModel" | "wrapModelCall";
}

const optionsSchema = z
  .object({ ...graphCompactionOptionsShape, name: z.string().min(1).optional(), hook: z.enum(["beforeModel", "wrapModelCall"]).optional() })
  .strict();

/**
 * `createAgent` middleware that compacts the agent's messages before every model call, inside the
 * model's own step (or, with `hook: "beforeModel"`, in a step of its own before it), with the
 * same behaviour as `createCompactionNode`: the change is written to the agent's state as the
 * minimal `messages` update (so it persists in the checkpointer), each compaction is logged in the
 * `compactionLog` state channel, and the originals are archived in the agent's store under the
 * thread's namespace (or in the `compactionArchive` channel without a store or thread id), so
 * `restoreHistory(state, { store, threadId })` gives back the full history. A compactor that throws
 * leaves the messages unchanged and logs a `failed` record (`onError: "continue"`, the default).
 *
 * A history whose tool calls and results do not pair up as the provider requires (an orphan result,
 * a call never answered, a result separated from its call) is repaired before the compactor runs
 * (`invalidHistory: "repair"`, the default), and the repaired history is what the model gets, even
 * when the compactor has nothing to do or throws; what the repair dropped, rewrote or moved is
 * archived and the record's `repair` names it. `invalidHistory: "leave"` keeps the history as it is
 * (the compactor's error is logged and the provider gets the broken history).
 *
 * Every compactor's result is checked before it is written: one that is not a `CompactionResult` of
 * LangChain messages fails with a `CompactorOutputError` naming the compactor (handled by `onError`);
 * broken tool pairing in it is repaired, or refused with `invalidHistory: "leave"`.
 *
 * In the default hook, the request's system message and the bound tools' schemas (converted by
 * `convertToOpenAITool`) count toward the window from the first call: a strategy gets them as a
 * leading system message, taken out of its result; another compactor as `context.requestOverhead`.
 * When the model call fails with LangChain's `ContextOverflowError`, the history the model got is
 * compacted again (forced, `context.overflow`) and the model called once more; if that changes
 * nothing or overflows again, a `CompactionOverflowError` with the overflow as `cause` and a
 * `failed` record fails the step. See docs/langgraph.md.
 *
 * List it before LangChain's `contextEditingMiddleware` (which edits the state's own message array
 * in place when listed first) and before `anthropicCacheAnchorsMiddleware`; other middleware may
 * come in any order (docs/langgraph.md says what each of LangChain's does with it).
 *
 * Imported from `langchain-compaction/middleware`, since `langchain` is an optional peer dependency.
 *
 * @example
 * import { createAgent } from "langchain";
 * import { compactionMiddleware } from "langchain-compaction/middleware";
 *
 * const agent = createAgent({
 *   model,
 *   tools,
 *   middleware: [compactionMiddleware(toolResultHiding({ keepRecentGroups: 3 }))],
 *   checkpointer,
 *   store,
 * });
 * @throws {InvalidOptionError} for an invalid option or a compactor without `compact()`.
 */
export function compactionMiddleware(compactor: Compactor, options: CompactionMiddlewareOptions = {}) {
  assertCompactor("compactionMiddleware", compactor);
  const { name, hook, ...parsed } = parseOptions("compactionMiddleware", optionsSchema, options);
  const checked = new CheckedHistories();
  const base = { name: name ?? "CompactionMiddleware", stateSchema: CompactionStateSchema };
  if (hook !== "beforeModel") {
    const prepared = new WeakMap();
    return createMiddleware({
      ...base,
      wrapModelCall: (request, handler) => compactInModelCall({ component: "compactionMiddleware", name: base.name, compactor, options: parsed, checked, prepared }, request, handler),
    });
  }
  // Its own step compacts; the model call is wrapped only to survive a context overflow.
  const overflow = { component: "compactionMiddleware", name: base.name, compactor, options: parsed, checked, prepared: new WeakMap() };
  return createMiddleware({
    ...base,
    wrapModelCall: (request, handler) => overflowOnlyModelCall(overflow, request, handler),
    beforeModel: async (state, runtime) => {
      const update = await runGraphCompaction({
        component: "compactionMiddleware",
        compactor,
        messages: (state as { messages?: BaseMessage[] }).messages,
        log: (state as { compactionLog?: unknown }).compactionLog,
        options: parsed,
        config: currentConfig(),
        signal: runtime.signal,
        store: runtime.store,
        threadId: threadIdOf(runtime.configurable),
        // Right before the model: calls without results, even in the last message, would be rejected.
        keepPendingCalls: false,
        checked,
        // A summary the app overwrites is logged and written back (the model node reads the state).
        summaries: (state as { compactionSummary?: unknown }).compactionSummary,
        writeBack: true,
      });
      // No update at all for a no-op: the hook then re-emits nothing.
      return Object.keys(update).length === 0 ? undefined : update;
    },
  });
}

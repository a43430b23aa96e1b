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

/** Options of {@link compactionMiddleware}: those of `createCompactionNode`, plus the middleware's name and hook. */
export interface CompactionMiddlewareOptions extends GraphCompactionOptions {
  /** The middleware's name (unique among an agent's middleware). @default "CompactionMiddleware" */
  name?: string;
  /**
   * Where the compaction runs. `"beforeModel"`: a hook of its own, which `createAgent` runs as a node
   * before the model node, so every model call costs one more graph step (and checkpoint, and one
   * step of the run's `recursionLimit`). `"wrapModelCall"`: inside the model node's step, with no
   * step of its own; the archive write to the store runs while the model is called. It compacts
   * the messages the model request holds: list it before any middleware whose `wrapModelCall`
   * rewrites them (such as `anthropicCacheAnchorsMiddleware`), or its compaction applies to that
   * call only and nothing is written to the state (it warns once: {@link VIEW_ONLY_WARNING}). Nothing is written either for a call that ends
   * in a structured response (its archive entry may be in the store, named by no record). An update
   * that replaces the whole history (a repair that moves a message) is applied after the step's
   * other writes: with middleware that write their own update in the model's step (a
   * structured-output retry), keep `"beforeModel"`. With `onError: "throw"`, a failed archive write
   * fails the step after the model call.
   * @default "beforeModel"
   */
  hook?: "beforeModel" | "wrapModelCall";
}

/** What `compactionMiddleware` with `hook: "wrapModelCall"` warns, once, when a middleware before it gave the model other messages than the state's. */
export const VIEW_ONLY_WARNING =
  'compactionMiddleware (hook: "wrapModelCall"): the model request\'s messages are not the agent state\'s (a middleware listed before it gave other ones), so the compaction applies to this call only and is not persisted; list compactionMiddleware before middleware that rewrite the messages';

const optionsSchema = z
  .object({ ...graphCompactionOptionsShape, name: z.string().min(1).optional(), hook: z.enum(["beforeModel", "wrapModelCall"]).optional() })
  .strict();

/**
 * `createAgent` middleware that compacts the agent's messages before every model call (in a
 * `beforeModel` hook, or with `hook: "wrapModelCall"` inside the model's own step), with the
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
  if (hook === "wrapModelCall") {
    let warned = false;
    // A compaction that is never persisted is redone, and breaks the prompt cache, at every call: said once.
    const onViewOnly = () => {
      if (warned) return;
      warned = true;
      console.warn(VIEW_ONLY_WARNING);
    };
    return createMiddleware({
      ...base,
      wrapModelCall: (request, handler) => compactInModelCall({ component: "compactionMiddleware", compactor, options: parsed, checked, onViewOnly }, request, handler),
    });
  }
  return createMiddleware({
    ...base,
    beforeModel: async (state, runtime) => {
      const update = await runGraphCompaction({
        component: "compactionMiddleware",
        compactor,
        messages: (state as { messages?: BaseMessage[] }).messages,
        options: parsed,
        config: currentConfig(),
        signal: runtime.signal,
        store: runtime.store,
        threadId: threadIdOf(runtime.configurable),
        // Right before the model: calls without results, even in the last message, would be rejected.
        keepPendingCalls: false,
        checked,
      });
      // No update at all for a no-op: the hook then re-emits nothing.
      return Object.keys(update).length === 0 ? undefined : update;
    },
  });
}

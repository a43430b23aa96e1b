import { autoCompaction } from "../policies/auto-compaction.js";
import type { AutoCompactionOptions } from "../policies/auto-compaction-options.js";
import { compactionMiddleware, type CompactionMiddlewareOptions } from "./compaction-middleware.js";

/** Options of {@link autoCompactionMiddleware}: `autoCompaction`'s, plus the middleware's own. */
export interface AutoCompactionMiddlewareOptions extends AutoCompactionOptions, CompactionMiddlewareOptions {}

/** The options that belong to the middleware, not to the policy. */
const MIDDLEWARE_KEYS = ["name", "hook", "onError", "archive", "namespace", "invalidHistory", "recall"] as const;

/**
 * `createAgent` middleware that keeps the agent's history under its context window:
 * `autoCompaction(options)` run by `compactionMiddleware` before every model call, in one call.
 * Give the model's window and, for LLM summaries, a summary model; every other option has a default
 * (docs/reference.md lists them). The compacted history and the compaction log are kept in the
 * agent's state (its checkpointer), the originals in its store: `restoreHistory` gives them back.
 * With `recall`, the policy compacts as `withRecall` says (deeper where the threshold fires).
 *
 * @example
 * import { createAgent } from "langchain";
 * import { autoCompactionMiddleware } from "langchain-compaction/middleware";
 *
 * const agent = createAgent({
 *   model: "openai:gpt-4o",
 *   tools,
 *   middleware: [autoCompactionMiddleware({ contextWindow: 128_000, summaryModel: "openai:gpt-4o-mini" })],
 * });
 * @throws {InvalidOptionError} for an invalid option, or a missing `contextWindow` the summary model's name cannot tell.
 * @throws {MissingPackageError} when `summaryModel` is a name whose package is not installed.
 */
export function autoCompactionMiddleware(options: AutoCompactionMiddlewareOptions = {}) {
  const policy: Record<string, unknown> = {};
  const middleware: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if ((MIDDLEWARE_KEYS as readonly string[]).includes(key)) middleware[key] = value;
    else policy[key] = value;
  }
  // The recall tool bounds what it returns by the room the policy's window leaves.
  const { recall } = middleware as CompactionMiddlewareOptions;
  const window = policy["contextWindow"];
  const given = recall === true ? {} : typeof recall === "object" && recall !== null ? recall : undefined;
  if (given !== undefined && typeof window === "number") middleware["recall"] = { contextWindow: window, ...given };
  // With the tool, what the policy takes out can be read back: it compacts for that (`withRecall`) unless told otherwise.
  if (given !== undefined && policy["withRecall"] === undefined) policy["withRecall"] = true;
  return compactionMiddleware(autoCompaction(policy as AutoCompactionOptions), { name: "AutoCompactionMiddleware", ...(middleware as CompactionMiddlewareOptions) });
}

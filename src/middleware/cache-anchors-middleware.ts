import { createMiddleware } from "langchain";
import { z } from "zod/v4";
import { anchorOptionsShape, anthropicCacheAnchors, contentBreakpoints, ttlOf } from "../cache/cache-anchors.js";
import { parseOptions } from "../options.js";

/** Options of {@link anthropicCacheAnchorsMiddleware}. */
export interface CacheAnchorsMiddlewareOptions {
  /**
   * Whether the request also carries automatic caching's breakpoint (LangChain's
   * `anthropicPromptCachingMiddleware`, or `cache_control` in the model's call options): it takes one
   * of the request's 4 breakpoints. @default true
   */
  automaticCaching?: boolean;
  /**
   * The anchors' cache lifetime (see `anthropicCacheAnchors`). @default the `ttl` of the request's
   * `cache_control` model setting (as `anthropicPromptCachingMiddleware` sets it), else `"5m"`
   */
  ttl?: "5m" | "1h";
  /** The middleware's name (unique among an agent's middleware). @default "CacheAnchorsMiddleware" */
  name?: string;
}

const optionsSchema = z.object({ ...anchorOptionsShape, name: z.string().min(1).optional() }).strict();

/** The lifetime of the request's own breakpoint, when a model setting gives one. */
function settingsTtl(settings: unknown): "5m" | "1h" | undefined {
  const cacheControl = (settings as { cache_control?: unknown } | undefined)?.cache_control;
  return cacheControl === undefined || cacheControl === null ? undefined : ttlOf(cacheControl);
}

/**
 * The lifetimes of the request's breakpoints outside its messages, in the order Anthropic reads them:
 * tools (an Anthropic tool definition's `cache_control`, or a LangChain tool's `extras`), then the
 * system prompt `createAgent` keeps apart.
 */
function externalBreakpoints(tools: readonly unknown[] | undefined, system: { content?: unknown } | undefined): ("5m" | "1h")[] {
  const ttls: ("5m" | "1h")[] = [];
  for (const tool of tools ?? []) {
    const fields = tool as { cache_control?: unknown; extras?: { cache_control?: unknown; providerToolDefinition?: { cache_control?: unknown } } } | undefined;
    const cacheControl = fields?.cache_control ?? fields?.extras?.providerToolDefinition?.cache_control ?? fields?.extras?.cache_control;
    if (cacheControl !== undefined && cacheControl !== null) ttls.push(ttlOf(cacheControl));
  }
  return [...ttls, ...contentBreakpoints(system?.content)];
}

/** Whether the request goes to Anthropic: `ChatAnthropic`, or `initChatModel`'s model with the anthropic provider. */
function isAnthropic(model: unknown): boolean {
  const named = model as { getName?: () => string; _defaultConfig?: { modelProvider?: string } } | undefined;
  const name = named?.getName?.();
  return name === "ChatAnthropic" || (name === "ConfigurableModel" && named?._defaultConfig?.modelProvider === "anthropic");
}

/**
 * `createAgent` middleware that adds cache anchors (`anthropicCacheAnchors`) to each request sent to
 * an Anthropic model, so a request after older tool results were hidden (by this package's
 * `toolResultHiding` or `autoCompaction`, or by LangChain's `ClearToolUsesEdit`) reads the cached
 * prompt up to where the change began instead of writing the whole prompt again. It edits the
 * request only: the agent's state keeps no `cache_control`. Requests to other models pass through
 * unchanged. Put it after the middleware that compacts and after LangChain's
 * `anthropicPromptCachingMiddleware` (the breakpoint at the end of each request), whose `ttl` it then
 * gives the anchors; the breakpoints of the tools and of the system prompt count towards the 4.
 *
 * Imported from `langchain-compaction/middleware`, since `langchain` is an optional peer dependency.
 *
 * @example
 * import { anthropicPromptCachingMiddleware, createAgent } from "langchain";
 * import { anthropicCacheAnchorsMiddleware, compactionMiddleware } from "langchain-compaction/middleware";
 *
 * const agent = createAgent({
 *   model: "anthropic:claude-sonnet-4-5",
 *   tools,
 *   middleware: [compactionMiddleware(toolResultHiding()), anthropicPromptCachingMiddleware(), anthropicCacheAnchorsMiddleware()],
 * });
 * @throws {InvalidOptionError} for an invalid option.
 */
export function anthropicCacheAnchorsMiddleware(options: CacheAnchorsMiddlewareOptions = {}) {
  const { name, automaticCaching, ttl } = parseOptions("anthropicCacheAnchorsMiddleware", optionsSchema, options);
  return createMiddleware({
    name: name ?? "CacheAnchorsMiddleware",
    wrapModelCall: (request, handler) => {
      if (!isAnthropic(request.model)) return handler(request);
      const lifetime = ttl ?? settingsTtl(request.modelSettings);
      const anchorOptions = {
        ...(automaticCaching === undefined ? {} : { automaticCaching }),
        ...(lifetime === undefined ? {} : { ttl: lifetime }),
        externalBreakpoints: externalBreakpoints(request.tools, request.systemMessage),
      };
      return handler({ ...request, messages: anthropicCacheAnchors(request.messages, anchorOptions) });
    },
  });
}

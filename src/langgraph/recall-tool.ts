import { tool, type DynamicStructuredTool, type ToolRuntime } from "@langchain/core/tools";
import type { BaseStore } from "@langchain/langgraph";
import { z } from "zod/v4";
import { CompactionError } from "../errors.js";
import { parseOptions } from "../options.js";
import { DATA_FENCE_TAGS, fenceData } from "../summary/data-fence.js";
import { formatHistory } from "../summary/format-history.js";
import { defaultTokenCounter, tokenCounterSchema } from "../tokens/token-counter.js";
import type { TokenCounter } from "../tokens/token-counter-types.js";
import { threadIdOf } from "./compaction-archive.js";
import { findLines, findTerms } from "./recall-find.js";
import { recallOriginals } from "./recall-lookup.js";
import { pagesOf } from "./recall-pages.js";
import { RECALL_REF_PATTERN, RECALL_TOOL_NAME } from "./recall-refs.js";
import type { RestorableState } from "./restore-history.js";
import { asBaseStore, type SdkClientWithStore, type SdkStoreClient } from "./sdk-store.js";

/** Options of {@link recallTool}. */
export interface RecallToolOptions {
  /** The most tokens of recalled text one call returns; the rest comes in further parts. @default 2000 */
  maxTokens?: number;
  /**
   * The store the archive is in, in place of the run's (`config.store`): a LangGraph `BaseStore`, or
   * an `@langchain/langgraph-sdk` `Client` (or its `client.store`) for a LangGraph API server's store.
   */
  store?: BaseStore | SdkClientWithStore | SdkStoreClient;
  /** The archive's namespace prefix, as the compaction was given it. @default DEFAULT_ARCHIVE_NAMESPACE */
  namespace?: string[];
  /** Counts the tokens of each part. @default defaultTokenCounter() */
  tokenCounter?: TokenCounter;
}

/** The default cap of one recall's text, in tokens. @internal */
export const DEFAULT_RECALL_MAX_TOKENS = 2000;

/** The fence around recalled text; its closing-tag lookalikes in the text are escaped, with the summaries' own. */
const FENCE_TAGS = [...DATA_FENCE_TAGS, "recalled"];

const optionsSchema = z
  .object({
    maxTokens: z.number().int().min(50).optional(),
    store: z.custom<RecallToolOptions["store"]>((value) => typeof value === "object" && value !== null).optional(),
    namespace: z.array(z.string().min(1)).min(1).optional(),
    tokenCounter: tokenCounterSchema.optional(),
  })
  .strict();

/** The arguments' schema, as plain JSON Schema: a zod schema's conversion adds `$schema` and bounds, tokens sent at every call. */
const argsSchema = {
  type: "object",
  properties: { ref: { type: "string" }, find: { type: "string" }, part: { type: "integer" } },
  required: ["ref"],
} as const;

/** The tool's description: short, since its tokens go with every model call. */
const RECALL_DESCRIPTION = "Read back a [recall ref] note's originals; find keeps lines with a|b.";

/** What a tool run by LangGraph gets as its second argument, as far as recall goes. */
interface RecallRunConfig {
  store?: BaseStore | null;
  state?: unknown;
  configurable?: Record<string, unknown> & { __pregel_scratchpad?: { currentTaskInput?: unknown } };
}

/**
 * A LangChain tool that reads back archived originals of the calling thread's compacted context:
 * given a reference that a hidden result, superseded note, summary or truncated message names
 * (`[recall 04417296]`, written with the compaction's `recall: true`), it returns the originals, as
 * summaries quote history, fenced as data in `<recalled>`, at most `maxTokens` tokens per call
 * (`part` asks for the next). With `find` (texts separated by `|`, case-insensitive), only the lines
 * that hold one, newest message first, each under its message's header: one short call reaches a
 * word of a long summarized span or of a large hidden result. An agent asks for
 * several references at once as parallel tool calls. The thread comes from the run's `configurable.thread_id` and the
 * state from the running task (a `ToolNode`'s `state`), never from the arguments: another thread's
 * archive is never read. What the app redacted or removed is recalled redacted or not at all (as
 * `restoreHistory` gives it). Never writes. The middleware's `recall` option adds it to an agent.
 *
 * @example
 * const tools = [search, recallTool()];
 * const graph = new StateGraph(State).addNode("tools", new ToolNode(tools)); // ...
 * @throws {InvalidOptionError} for an invalid option.
 */
export function recallTool(options: RecallToolOptions = {}): DynamicStructuredTool {
  const parsed = parseOptions("recallTool", optionsSchema, options);
  const store = asBaseStore("recallTool", parsed.store);
  const maxTokens = parsed.maxTokens ?? DEFAULT_RECALL_MAX_TOKENS;
  return tool(
    async ({ ref, find, part }: { ref: string; find?: string; part?: number }, runtime: ToolRuntime) => {
      const config = runtime as unknown as RecallRunConfig;
      const state = (config?.state ?? config?.configurable?.__pregel_scratchpad?.currentTaskInput) as RestorableState | undefined;
      const wanted = String(ref).trim();
      if (!state || !Array.isArray(state.messages) || !RECALL_REF_PATTERN.test(wanted)) return `Nothing archived under ${JSON.stringify(ref)}.`;
      let originals;
      try {
        originals = await recallOriginals({ state, store: store ?? config.store ?? undefined, threadId: threadIdOf(config.configurable), namespace: parsed.namespace }, wanted);
      } catch (error) {
        if (CompactionError.isInstance(error)) return `The archive could not be read: ${error.message}`;
        throw error;
      }
      if (originals.length === 0) return `Nothing archived under ${JSON.stringify(ref)}.`;
      const terms = typeof find === "string" ? findTerms(find) : [];
      const text = terms.length === 0 ? formatHistory(originals, { dropUnansweredCalls: false }) : findLines(originals, terms);
      if (text === "") return `Nothing under ${wanted} holds ${JSON.stringify(find)}.`;
      const pages = await pagesOf(fenceData(text, FENCE_TAGS), maxTokens, parsed.tokenCounter ?? defaultTokenCounter());
      const number = Number.isInteger(part) && part! >= 1 ? part! : 1;
      if (number > pages.length) return `${wanted} has ${pages.length} part${pages.length === 1 ? "" : "s"}.`;
      const more = number < pages.length ? `\nPart ${number} of ${pages.length}; next: part ${number + 1}.` : "";
      return `<recalled ref="${wanted}"${pages.length > 1 ? ` part="${number}"` : ""}>\n${pages[number - 1]!}\n</recalled>${more}`;
    },
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: argsSchema },
  ) as DynamicStructuredTool;
}

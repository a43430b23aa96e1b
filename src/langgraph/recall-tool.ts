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
import { findBlocks, findTerms } from "./recall-find.js";
import { recallOriginals } from "./recall-lookup.js";
import { findPiecesOf, partEnd, RECALL_PIECE_TOKENS } from "./recall-pages.js";
import { recallCap, recallContext } from "./recall-room.js";
import { recallRefsOf, RECALL_TOOL_NAME } from "./recall-refs.js";
import type { RestorableState } from "./restore-history.js";
import { asBaseStore, type SdkClientWithStore, type SdkStoreClient } from "./sdk-store.js";

/** Options of {@link recallTool}. */
export interface RecallToolOptions {
  /** The most tokens of recalled text one call returns; the rest comes in further parts. @default 2000 */
  maxTokens?: number;
  /**
   * The model's context window, in tokens: a call then returns no more than the room the run's
   * context leaves in it (less 5%), shared among the assistant message's recall calls. No bound
   * without it. `autoCompactionMiddleware` passes its own `contextWindow`.
   */
  contextWindow?: number;
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
    contextWindow: z.number().int().positive().optional(),
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
const RECALL_DESCRIPTION = "Read back [recall ref] notes' originals; ref and find take a|b.";

/** What a tool run by LangGraph gets as its second argument, as far as recall goes. */
interface RecallRunConfig {
  store?: BaseStore | null;
  state?: unknown;
  configurable?: Record<string, unknown> & { __pregel_scratchpad?: { currentTaskInput?: unknown } };
}

/**
 * A LangChain tool that reads back archived originals of the calling thread's compacted context:
 * given a reference that a hidden result, superseded note, summary or truncated message names
 * (`[recall 04417296]`, written with the compaction's `recall: true`), or several separated by `|`
 * (`04417296|11223344`, one call for what would be parallel calls), it returns the originals, as
 * summaries quote history, fenced as data in `<recalled>`, at most `maxTokens` tokens per call
 * and, given `contextWindow`, no more than the context leaves room for (`part` asks for the next;
 * parts are numbered by line, so every part stays reachable). With `find` (texts separated by
 * `|`, case-insensitive), only the lines
 * that hold one, each under its message's header: the first part holds the newest message that
 * holds each text (no more), the older matches come in the next parts; one short call reaches a
 * word of a long summarized span or of a large hidden result; with several references, the
 * lines of all their originals. The thread comes from the run's `configurable.thread_id` and the
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
      const refs = recallRefsOf(ref);
      if (!state || !Array.isArray(state.messages) || refs === undefined) return `Nothing archived under ${JSON.stringify(ref)}.`;
      const wanted = refs.join("|");
      let originals;
      try {
        originals = await recallOriginals({ state, store: store ?? config.store ?? undefined, threadId: threadIdOf(config.configurable), namespace: parsed.namespace }, refs);
      } catch (error) {
        if (CompactionError.isInstance(error)) return `The archive could not be read: ${error.message}`;
        throw error;
      }
      if (originals.length === 0) return `Nothing archived under ${JSON.stringify(wanted)}.`;
      const terms = typeof find === "string" ? findTerms(find) : [];
      const blocks = terms.length === 0 ? { newest: formatHistory(originals, { dropUnansweredCalls: false }), older: "" } : findBlocks(originals, terms);
      if (blocks.newest === "") return `Nothing under ${wanted} holds ${JSON.stringify(find)}.`;
      const counter = parsed.tokenCounter ?? defaultTokenCounter();
      const { pieces, firstPart } = await findPiecesOf(blocks, Math.min(maxTokens, RECALL_PIECE_TOKENS), counter, (text) => fenceData(text, FENCE_TAGS));
      const start = Number.isInteger(part) && part! >= 1 ? part! : 1;
      const count = pieces.length;
      if (start > count) return `${wanted} has ${count} part${count === 1 ? "" : "s"}.`;
      let cap = maxTokens;
      if (parsed.contextWindow !== undefined) {
        const context = await recallContext(state.messages, counter);
        cap = Math.min(cap, recallCap(parsed.contextWindow, context.tokens, context.calls));
      }
      // A part that starts among the newest matches of a find ends with them.
      const end = Math.min(partEnd(pieces, start - 1, cap), start - 1 < firstPart ? firstPart : Infinity);
      if (end < start) return `No room in the context for part ${start} of ${wanted} now; ask again after the next compaction, or for fewer refs at once.`;
      const body = pieces.slice(start - 1, end).map((piece) => piece.text).join("");
      const whole = start === 1 && end === count;
      const parts = end === start ? `Part ${start}` : `Parts ${start}-${end}`;
      const more = whole ? "" : `\n${parts} of ${count}${end < count ? `; next: part ${end + 1}` : ""}.`;
      return `<recalled ref="${wanted}"${whole ? "" : ` part="${start}"`}>\n${body}\n</recalled>${more}`;
    },
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: argsSchema },
  ) as DynamicStructuredTool;
}

import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { Runnable, RunnableSequence, patchConfig, type RunnableConfig, type RunnableLike } from "@langchain/core/runnables";
import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";
import { InvalidHistoryError } from "../errors.js";
import { invalidOption } from "../option-errors.js";
import { parseOptions } from "../options.js";
import type { CompactionContext, CompactionResult } from "../types.js";
import { adapterInvalidHistorySchema, repairBeforeCompaction, withRepair, type AdapterInvalidHistoryHandling } from "../langgraph/invalid-history.js";
import { callbackSchema, messageCompactorSchema } from "./message-compactor.js";

/**
 * What {@link withCompaction} accepts at run time: the messages themselves, or an object carrying them
 * under a key. (The wrapper's input type is the wrapped runnable's, so a chat model's own input type
 * is kept.)
 */
export type MessagesInput = BaseMessage[] | Record<string, unknown>;

export interface WithCompactionOptions {
  /** The key of an object input that holds the messages. A plain `BaseMessage[]` input needs none. @default "messages" */
  messagesKey?: string;
  /**
   * Called with every result that was not a no-op (`compacted`, `summarized`, `truncated`, `repaired`, `failed`),
   * before the wrapped runnable runs: log it, or archive `result.removed`. An error it throws fails
   * the run.
   * @default undefined
   */
  onCompaction?: (result: CompactionResult) => void | Promise<void>;
  /**
   * Input messages whose tool calls and results do not pair up as providers require (an orphan
   * result, a call never answered, a result separated from its call), or whose text holds a lone
   * surrogate. `"repair"`: they are repaired (see {@link AdapterInvalidHistoryHandling}) before the
   * compactor runs, so the wrapped runnable never gets a history
   * ChatOpenAI or ChatAnthropic would reject, even when the compactor has nothing to do (a
   * `"repaired"` result). The result's `repair` holds the originals it dropped, rewrote or moved; the
   * caller's input is never changed. `"leave"`: the compactor gets them as they are (a strategy then
   * throws `InvalidHistoryError`, failing the run).
   * @default "repair"
   */
  invalidHistory?: AdapterInvalidHistoryHandling;
}

const optionsSchema = z
  .object({
    messagesKey: z.string().min(1).optional(),
    onCompaction: callbackSchema.optional(),
    invalidHistory: adapterInvalidHistorySchema,
  })
  .strict();

/** An object input (not an array, not a message) whose messages sit under a key. */
function isRecordInput(input: unknown): input is Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input) && !isBaseMessage(input);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isBaseMessage(value)) return "a single message";
  return typeof value;
}

/**
 * The step that compacts the messages of its input and passes the rest through. A Runnable of its
 * own, so the compaction shows up as a child run (`compactMessages`) in traces and summary calls
 * nest under it.
 */
class CompactMessagesStep<RunInput> extends Runnable<RunInput, RunInput> {
  lc_namespace = ["langchain_compaction", "lcel"];
  readonly #compactor: Compactor;
  readonly #messagesKey: string;
  readonly #onCompaction: WithCompactionOptions["onCompaction"];
  readonly #invalidHistory: AdapterInvalidHistoryHandling;

  static override lc_name() {
    return "CompactMessagesStep";
  }

  constructor(compactor: Compactor, options: WithCompactionOptions) {
    super();
    this.name = "compactMessages";
    this.#compactor = compactor;
    this.#messagesKey = options.messagesKey ?? "messages";
    this.#onCompaction = options.onCompaction;
    this.#invalidHistory = options.invalidHistory ?? "repair";
  }

  async invoke(input: RunInput, options?: Partial<RunnableConfig>): Promise<RunInput> {
    return this._callWithConfig(
      async (value: RunInput, config: Partial<RunnableConfig> | undefined, runManager?: CallbackManagerForChainRun) => {
        const childConfig = patchConfig(config, { callbacks: runManager?.getChild() });
        return this.#compactInput(value, { ...(config?.signal ? { signal: config.signal } : {}), config: childConfig });
      },
      input,
      options,
    );
  }

  async #compactInput(input: RunInput, context: CompactionContext): Promise<RunInput> {
    if (Array.isArray(input)) return (await this.#compact(input, context)) as RunInput;
    const key = this.#messagesKey;
    if (!isRecordInput(input)) {
      throw new InvalidHistoryError(`withCompaction: expected an array of messages or an object with one under \`${key}\`, got ${describe(input)}`);
    }
    const messages = input[key];
    if (!Array.isArray(messages)) {
      throw new InvalidHistoryError(`withCompaction: the input has no array of messages under \`${key}\` (found ${describe(messages)})`);
    }
    // A new object: the caller's input (and its array) stay as they were.
    return { ...input, [key]: await this.#compact(messages, context) } as RunInput;
  }

  async #compact(messages: BaseMessage[], context: CompactionContext): Promise<BaseMessage[]> {
    // Providers reject broken tool pairing: the compactor, and so the runnable, get it repaired.
    const repair = repairBeforeCompaction(messages, this.#invalidHistory);
    let result = await this.#compactor.compact(repair?.messages ?? messages, context);
    if (repair) result = withRepair(result, repair, messages.length);
    if (result.status !== "noop") await this.#onCompaction?.(result);
    return result.messages;
  }
}

/**
 * Wrap a runnable (a chat model, a prompt-and-model chain...) so that the messages of its input are
 * compacted before it runs. The result is a Runnable: it composes, streams and batches like any LCEL
 * step.
 *
 * The input is either a `BaseMessage[]` or an object carrying the messages under `messagesKey`; the
 * wrapped runnable receives the same shape with the compacted messages (the other keys untouched, the
 * caller's input never mutated). The compactor gets the run's child config and abort signal, so
 * summary calls appear inside the chain's trace. A compactor that fails (`status: "failed"`) passes
 * the messages on unchanged; one that throws fails the run. Messages whose tool pairing is broken
 * are repaired first (see the `invalidHistory` option): the wrapped runnable never gets a history
 * its provider would reject.
 *
 * @example
 * const prompt = ChatPromptTemplate.fromMessages([["system", "Be brief."], new MessagesPlaceholder("history")]);
 * const chain = withCompaction(prompt.pipe(model), slidingWindow({ keepTurns: 4 }), {
 *   messagesKey: "history",
 *   onCompaction: (result) => console.log(result.status, result.tokensBefore, "->", result.tokensAfter),
 * });
 * await chain.invoke({ history: messages });
 * @throws {InvalidOptionError} at construction, for a missing runnable, a compactor without
 *   `compact()`, or an invalid option.
 * @throws {InvalidHistoryError} during a run, when the input carries no array of messages (or the
 *   compactor rejects the history).
 */
export function withCompaction<RunInput, RunOutput>(
  runnable: RunnableLike<RunInput, RunOutput>,
  compactor: Compactor,
  options: WithCompactionOptions = {},
): Runnable<RunInput, RunOutput> {
  if (runnable === null || (typeof runnable !== "object" && typeof runnable !== "function")) {
    throw invalidOption("withCompaction", "runnable", runnable, "a runnable, a function or a map of runnables");
  }
  const { compactor: checkedCompactor } = parseOptions("withCompaction", z.object({ compactor: messageCompactorSchema }), { compactor });
  const parsed = parseOptions("withCompaction", optionsSchema, options) as WithCompactionOptions;
  const step = new CompactMessagesStep<RunInput>(checkedCompactor, parsed);
  // Named through the config: tracers take a run's name from `runName`, not from the sequence's `name`.
  return RunnableSequence.from<RunInput, RunOutput>([step, runnable]).withConfig({ runName: "withCompaction" }) as Runnable<RunInput, RunOutput>;
}

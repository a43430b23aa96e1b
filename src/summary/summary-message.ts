import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { renderArtifacts } from "../messages/artifact-index.js";
import { replaceLoneSurrogates } from "../text/code-points.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker } from "../types.js";
import type { WrittenSummary } from "./summary-strategy.js";

/** A summary message made for a written summary, with the parts its content joins when it is their join and is not counted yet. */
interface MadeSummaryMessage {
  readonly summarizedMessages: number;
  readonly message: HumanMessage;
  readonly parts?: readonly string[];
}

/**
 * The summary messages of one summary strategy: made once per written summary and number of
 * messages summarized (a summary prepared ahead has its message made, and counted, when it is
 * written, off the step that places it), and counted from their parts. @internal
 */
export class SummaryMessages {
  readonly #made = new WeakMap<WrittenSummary, MadeSummaryMessage>();

  constructor(
    readonly strategyName: string,
    readonly summaryPrefix: string,
    readonly tokenCounter: TokenCounter,
  ) {}

  /** The summary message of `written` for the messages it replaces. */
  messageOf(written: WrittenSummary, replaced: readonly BaseMessage[]): HumanMessage {
    return this.#madeFor(written, replaced).message;
  }

  /**
   * {@link messageOf}, its content counted from its parts (`TokenCounter.countJoined`): the
   * summary's text was counted when it was written or fitted, so only the lines around it are
   * tokenized again, and the message's count then comes from the counter's cache.
   */
  async countedMessageOf(written: WrittenSummary, replaced: readonly BaseMessage[]): Promise<HumanMessage> {
    const made = this.#madeFor(written, replaced);
    const { message, parts } = made;
    if (parts && this.tokenCounter.countJoined) {
      await this.tokenCounter.countJoined(parts);
      // Counted: a later placement of the same message (a prepared summary) finds it in the cache.
      if (this.#made.get(written) === made) this.#made.set(written, { summarizedMessages: made.summarizedMessages, message });
    }
    return message;
  }

  #madeFor(written: WrittenSummary, replaced: readonly BaseMessage[]): MadeSummaryMessage {
    const summarizedMessages = replaced.reduce((count, message) => count + (compactionMarkerOf(message)?.summarizedMessages ?? 1), 0);
    const made = this.#made.get(written);
    if (made?.summarizedMessages === summarizedMessages) return made;
    const making = { summarizedMessages, ...this.#make(written, summarizedMessages) };
    this.#made.set(written, making);
    return making;
  }

  /** The summary message, and the parts its content joins (none when a repair changed the joined text). */
  #make({ text, artifacts, summaryModel }: WrittenSummary, summarizedMessages: number): { message: HumanMessage; parts?: readonly string[] } {
    const marker: CompactionMarker = { strategy: this.strategyName, summary: true, artifacts, summarizedMessages, summaryModel };
    const index = renderArtifacts(artifacts);
    const parts = [`${this.summaryPrefix}\n\n`, text, ...(index ? [`\n\n${index}`] : [])];
    const joined = parts.join("");
    // Lone surrogates (from the input, or a token cut of the summary) would make providers reject it.
    const content = replaceLoneSurrogates(joined);
    const message = new HumanMessage({
      content,
      // LangChain's summary marker too, for UIs and code that look for it.
      additional_kwargs: { lc_source: "summarization" },
      response_metadata: { [COMPACTION_METADATA_KEY]: marker },
    });
    return content === joined ? { message, parts } : { message };
  }
}

import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ArtifactIndex } from "../messages/artifact-index.js";
import { ARTIFACT_INDEX_SHARE, rankArtifacts, rankedIndexFitter, type RankedArtifacts } from "../messages/artifact-render.js";
import { replaceLoneSurrogates } from "../text/code-points.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker } from "../types.js";
import { fitToTokens } from "./fit-tokens.js";
import type { WrittenSummary } from "./summary-strategy.js";

/** More characters than any token of an index holds on average: a longer index is not counted to see whether it fits. */
const MAX_CHARACTERS_PER_TOKEN = 10;

/** The note after a summary's text that was cut to fit the summary message's cap. */
export const cutNote = (maxTokens: number) => `\n[summary cut at ${maxTokens} tokens]`;
const CUT_NOTE = /\n\[summary cut at \d+ tokens\]$/;

/** A summary message made for a written summary, for a number of messages summarized. */
interface MadeSummaryMessage {
  readonly summarizedMessages: number;
  readonly made: Promise<HumanMessage | string>;
}

/**
 * The summary messages of one summary strategy, each held to `maxTokens` (the strategy's
 * `summaryMaxTokens`) as the token counter counts the whole message: the prefix, the summary's text
 * and the `<artifact_index>` block. The index is sure of {@link ARTIFACT_INDEX_SHARE} of the cap (the
 * text is fitted to the rest) and takes whatever room the text leaves; it shows as much of the index
 * as fits there, not repeating what the text names (the marker's `artifacts` keep all of it). Made once per
 * written summary and number of messages summarized: a summary prepared ahead has its message made,
 * and counted, when it is written, off the step that places it. @internal
 */
export class SummaryMessages {
  readonly #made = new WeakMap<WrittenSummary, MadeSummaryMessage>();
  readonly #fitters = new WeakMap<ArtifactIndex, (maxCharacters?: number) => string>();
  /** Each index's lists, ranked once for every summary text placed beside it. */
  readonly #ranked = new WeakMap<ArtifactIndex, RankedArtifacts>();
  readonly #reserved = new WeakMap<ArtifactIndex, Promise<string>>();
  /** The cap, the note of a cut at it. */
  readonly #note: string;

  constructor(
    readonly strategyName: string,
    readonly summaryPrefix: string,
    readonly tokenCounter: TokenCounter,
    readonly maxTokens: number,
  ) {
    this.#note = cutNote(maxTokens);
  }

  /** `artifacts`' lists, ranked once per index. */
  #rankedOf(artifacts: ArtifactIndex): RankedArtifacts {
    let ranked = this.#ranked.get(artifacts);
    if (!ranked) this.#ranked.set(artifacts, (ranked = rankArtifacts(artifacts)));
    return ranked;
  }

  /** The renderer of `artifacts`' index for any number of characters, made once per index. */
  #fitterOf(artifacts: ArtifactIndex): (maxCharacters?: number) => string {
    let fitter = this.#fitters.get(artifacts);
    if (!fitter) this.#fitters.set(artifacts, (fitter = rankedIndexFitter(this.#rankedOf(artifacts))));
    return fitter;
  }

  /**
   * The `<artifact_index>` block of `artifacts` within its reserved share of the cap
   * ({@link ARTIFACT_INDEX_SHARE}): the room the summary's text is fitted to leaves it at least this.
   */
  #reservedIndex(artifacts: ArtifactIndex): Promise<string> {
    let index = this.#reserved.get(artifacts);
    if (!index) {
      const fit = this.#fitterOf(artifacts);
      const budget = Math.floor(this.maxTokens * ARTIFACT_INDEX_SHARE);
      index = fitToTokens((maxCharacters) => fit(maxCharacters), budget, (text) => this.tokenCounter.countText(text), 6).then(({ text, fits }) => (fits ? text : ""));
      this.#reserved.set(artifacts, index);
    }
    return index;
  }

  /**
   * The `<artifact_index>` block of `artifacts` for a summary message holding `text`: the most of the
   * index that fits in the room the prefix and the text leave under the cap (entries the text names
   * are not repeated), at least its reserved share.
   */
  async #indexFor(text: string, artifacts: ArtifactIndex): Promise<string> {
    const reserved = await this.#reservedIndex(artifacts);
    const whole = this.#fitterOf(artifacts)();
    if (whole === reserved) return reserved;
    const frame = await this.#tokensOf(text, "");
    // The whole index when it fits (one longer than 10 characters a token of the room cannot, and is not counted).
    if (whole.length <= (this.maxTokens - frame) * MAX_CHARACTERS_PER_TOKEN && (await this.#tokensOf(text, whole)) <= this.maxTokens) return whole;
    // Else as much as fits, entries the summary names already left out: the room goes to others.
    const fit = rankedIndexFitter(this.#rankedOf(artifacts), text);
    const { text: index, fits } = await fitToTokens(
      (maxCharacters) => fit(maxCharacters),
      this.maxTokens - frame,
      async (candidate) => (await this.#tokensOf(text, candidate)) - frame,
      4,
    );
    return fits ? index : reserved;
  }

  /** The parts a summary message's content joins. */
  #parts(text: string, index: string): string[] {
    return [`${this.summaryPrefix}\n\n`, text, ...(index ? [`\n\n${index}`] : [])];
  }

  /** Tokens of the summary message with this text and index: its content counted from its parts. */
  async #tokensOf(text: string, index: string, message?: HumanMessage): Promise<number> {
    const parts = this.#parts(text, index);
    const joined = parts.join("");
    const content = replaceLoneSurrogates(joined);
    // Counted joined: the text was counted when it was written or fitted; the message's count then comes from the cache.
    if (content === joined && this.tokenCounter.countJoined) await this.tokenCounter.countJoined(parts);
    return this.tokenCounter.countMessage(message ?? new HumanMessage({ content }));
  }

  /**
   * The no-model snapshot that `render` gives, fitted so the summary message holds it and the
   * reserved share of the index of `artifacts` within the cap; `fits` false when no try did (the text is then the last try's).
   */
  async fitSnapshot(render: (maxCharacters: number) => string, artifacts: ArtifactIndex): Promise<{ text: string; fits: boolean }> {
    const index = await this.#reservedIndex(artifacts);
    const { text, fits } = await fitToTokens(render, this.maxTokens, (candidate) => this.#tokensOf(candidate, index), 4);
    return { text, fits };
  }

  /**
   * `text` cut (with a note saying so) so that the summary message with it and the reserved share of
   * the index of `artifacts` is within the cap; `text` itself when it is. `undefined` when the prefix and the index
   * alone leave no room.
   */
  async fitText(text: string, artifacts: ArtifactIndex): Promise<string | undefined> {
    const index = await this.#reservedIndex(artifacts);
    let tokens = await this.#tokensOf(text, index);
    if (tokens <= this.maxTokens) return text;
    const whole = text.replace(CUT_NOTE, "");
    const wholeTokens = await this.tokenCounter.countText(whole);
    const noteTokens = await this.tokenCounter.countText(this.#note);
    // The message's tokens beside the text's: the prefix, the index and the message's own.
    let frame = tokens - (await this.tokenCounter.countText(text));
    for (let attempt = 0; attempt < 4; attempt++) {
      const room = this.maxTokens - frame - noteTokens - attempt;
      if (room <= 0) return undefined;
      const cut = `${await this.tokenCounter.truncateText(whole, Math.min(room, wholeTokens))}${this.#note}`;
      tokens = await this.#tokensOf(cut, index);
      if (tokens <= this.maxTokens) return cut;
      frame = tokens - (await this.tokenCounter.countText(cut));
    }
    return undefined;
  }

  /**
   * The summary message of `written` for the messages it replaces, within the cap (a text written for
   * another cap or index, e.g. stored by an earlier version, is cut to fit), and counted; a string
   * says why there is none: the prefix and the index alone are over the cap.
   */
  countedMessageOf(written: WrittenSummary, replaced: readonly BaseMessage[]): Promise<HumanMessage | string> {
    const summarizedMessages = replaced.reduce((count, message) => count + (compactionMarkerOf(message)?.summarizedMessages ?? 1), 0);
    const made = this.#made.get(written);
    if (made?.summarizedMessages === summarizedMessages) return made.made;
    const making = this.#make(written, summarizedMessages);
    this.#made.set(written, { summarizedMessages, made: making });
    // A failed making is not kept: the next placement tries again.
    making.catch(() => {
      if (this.#made.get(written)?.made === making) this.#made.delete(written);
    });
    return making;
  }

  async #make({ text, artifacts, summaryModel }: WrittenSummary, summarizedMessages: number): Promise<HumanMessage | string> {
    const fitted = await this.fitText(text, artifacts);
    if (fitted === undefined) return this.noRoomReason();
    const index = await this.#indexFor(fitted, artifacts);
    const marker: CompactionMarker = { strategy: this.strategyName, summary: true, artifacts, summarizedMessages, summaryModel };
    const message = new HumanMessage({
      // Lone surrogates (from the input, or a token cut of the summary) would make providers reject it.
      content: replaceLoneSurrogates(this.#parts(fitted, index).join("")),
      // LangChain's summary marker too, for UIs and code that look for it.
      additional_kwargs: { lc_source: "summarization" },
      response_metadata: { [COMPACTION_METADATA_KEY]: marker },
    });
    await this.#tokensOf(fitted, index, message);
    return message;
  }

  /** Why a summary message cannot be made within the cap. */
  noRoomReason(): string {
    return `the summary prefix and the artifact index leave no room for the summary within summaryMaxTokens (${this.maxTokens}); the history is unchanged`;
  }
}

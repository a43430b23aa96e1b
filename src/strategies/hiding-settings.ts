import type { BaseMessage } from "@langchain/core/messages";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { Receipt, ReceiptLimits } from "./hiding-receipts.js";

/** The results of a history: `resultIndices[n]` answers the assistant message at `assistantIndices[n]`. @internal */
export interface ResultPositions {
  readonly resultIndices: readonly number[];
  readonly assistantIndices: readonly number[];
}

/** What a hiding pass needs from its strategy. @internal */
export interface HidingSettings {
  readonly strategyName: string;
  readonly placeholder: string;
  readonly excludeTools: ReadonlySet<string>;
  readonly hideToolInputs: boolean;
  readonly receipts: ReceiptLimits | undefined;
  readonly tokenCounter: TokenCounter;
  /** Results judged not worth hiding; messages are immutable, so the verdict stands. */
  readonly notWorthHiding: WeakSet<BaseMessage>;
  /** Hidden copies made so far, by original result (see {@link HiddenCopy}). */
  readonly hiddenCopies: WeakMap<BaseMessage, HiddenCopy>;
  /** Receipts made so far, by original result. */
  readonly receiptsMade?: WeakMap<BaseMessage, Receipt>;
}


/**
 * A result's hidden copy, made once: a later run (the firing after a dry run, a run whose hiding did
 * not free enough) hides the same result of the same call message at the same count the same way,
 * so it takes the copy again instead of reading the result for its receipt again. @internal
 */
export interface HiddenCopy {
  /** The assistant message whose call the result answers (its call makes the receipt). */
  readonly assistant: BaseMessage;
  /** The result's own tokens, recorded in the copy's marker. */
  readonly before: number;
  /** For a superseded result: the note that replaced it (a result hidden either way is hidden alike again). */
  readonly note: string | undefined;
  readonly after: BaseMessage;
}

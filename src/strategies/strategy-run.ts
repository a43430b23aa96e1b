// What a strategy's `run` is given (a prepared history) and what it returns (its outcome).
import type { BaseMessage } from "@langchain/core/messages";
import type { ToolCallIndex } from "../messages/tool-call-groups.js";
import type { TokenMeasurement } from "../tokens/token-counter.js";
import type { CompactionContext, CompactionResult, RemovedMessage, ReplacedMessage } from "../types.js";

/** A valid history with everything a strategy needs, computed once per run. @internal */
export interface PreparedHistory {
  readonly messages: readonly BaseMessage[];
  readonly index: ToolCallIndex;
  readonly tokens: TokenMeasurement;
  readonly context: CompactionContext;
  /**
   * The position of the last message when it is an assistant message whose tool calls have no
   * results yet (the tools have not run). A strategy keeps it, unchanged, as the last message.
   */
  readonly pending: number | undefined;
}

/** What a strategy's `run` returns: the result without the figures the base class fills in. */
export interface StrategyOutcome {
  readonly status: CompactionResult["status"];
  readonly messages?: BaseMessage[];
  /**
   * The output has the input's messages at the same positions, only some replaced by copies with
   * the same tool-call ids (e.g. hidden results): the input's index still describes it.
   */
  readonly preservesStructure?: boolean;
  readonly removed?: readonly RemovedMessage[];
  readonly replaced?: readonly ReplacedMessage[];
  readonly reason?: string;
  /**
   * For a no-op, in place of `reason`: the reason, computed from a copy of the input when the
   * result's `reason` is first read.
   */
  readonly lateReason?: (messages: readonly BaseMessage[]) => string;
  /** What fired the compaction, for strategies that trigger by themselves; `"forced"` when told to run. */
  readonly trigger?: string;
  /** Which model wrote a summary (`"none"` for the no-model summarizer). */
  readonly summaryModel?: string;
  /** Why the summary asked for was not written, when it was not (see `CompactionResult.summaryError`). */
  readonly summaryError?: string;
}

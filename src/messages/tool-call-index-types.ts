/**
 * One problem that would make a provider reject the history. Indices are into the history.
 * - `missing-call-id`: a call without an id (no result can answer it);
 * - `unlisted-call`: a call that only a `tool_use` block, OpenAI's raw `additional_kwargs.tool_calls`
 *   or a Responses API output item holds, not `tool_calls` (ChatOpenAI and ChatAnthropic would send
 *   different calls);
 * - `duplicate-call-id`: a call id used before (`firstIndex`), in this message or an earlier one;
 * - `unanswered-call`: a call that no tool result answers;
 * - `orphan-result`: a tool result that answers no earlier call;
 * - `duplicate-result`: a second result for a call already answered (at `firstIndex`);
 * - `misplaced-result`: a result for a call of the message at `assistantIndex` that is not among the
 *   tool results directly following that message (another message comes in between), as both
 *   providers require;
 * - `empty-tool-calls`: an assistant message without calls whose `additional_kwargs.tool_calls` is
 *   an empty array, which ChatOpenAI sends as an empty `tool_calls` array (OpenAI rejects it).
 *
 * A tool result is a tool message, or a `tool_result` block in a human message (Anthropic's own
 * form): for a block, `blockPosition` is its position in the message's content. Such a block is
 * misplaced too when it is not at the start of its message (other content comes first), or when
 * its message also holds other content and does not come first among the results after the call
 * (`ChatAnthropic` then sends it as a message of its own, not with the other results).
 */
export type ToolPairingProblem =
  | { kind: "missing-call-id"; index: number; callPosition: number; message: string }
  | { kind: "unlisted-call"; index: number; callPosition: number; toolCallId: string; message: string }
  | { kind: "duplicate-call-id"; index: number; toolCallId: string; firstIndex: number; message: string }
  | { kind: "unanswered-call"; index: number; toolCallId: string; message: string }
  | { kind: "orphan-result"; index: number; toolCallId: string; blockPosition?: number; message: string }
  | { kind: "duplicate-result"; index: number; toolCallId: string; firstIndex: number; blockPosition?: number; message: string }
  | { kind: "misplaced-result"; index: number; toolCallId: string; assistantIndex: number; blockPosition?: number; message: string }
  | { kind: "empty-tool-calls"; index: number; message: string };

/**
 * A tool-call group: an assistant message with tool calls plus the tool results answering them
 * (tool messages, and human messages carrying `tool_result` blocks). Parallel calls are one group;
 * a group is kept or hidden as a whole.
 */
export interface ToolCallGroup {
  /** Index of the assistant message that made the calls. */
  readonly assistantIndex: number;
  /** Ids of the calls, in the order of `assistantCalls` (calls without an id are left out). */
  readonly callIds: readonly string[];
  /**
   * Indices of the messages answering the calls, ascending: tool messages, and human messages
   * whose `tool_result` blocks answer them (once each, however many blocks).
   */
  readonly resultIndices: readonly number[];
  /** The last index the group covers: its last result, or the assistant message itself. */
  readonly end: number;
}

/** What one linear pass over a history learns about its tool calls. */
export interface ToolCallIndex {
  readonly groups: readonly ToolCallGroup[];
  /**
   * For each message, the number of the group it belongs to in `groups`, or -1. A human message
   * whose `tool_result` blocks answer calls belongs to the group of its first block that answers one.
   */
  readonly groupOf: readonly number[];
  /** Pairing problems, ordered by index. Empty for a valid history. */
  readonly problems: readonly ToolPairingProblem[];
  /**
   * For a repeated call id, the unique id the repair gives that occurrence and its results:
   * keyed by `${messageIndex}:${callPosition}` for calls, by the message index for tool messages
   * and by `${messageIndex}:${blockPosition}` for `tool_result` blocks.
   * @internal
   */
  readonly renamedCalls: ReadonlyMap<string, string>;
  /** @internal */
  readonly renamedResults: ReadonlyMap<number, string>;
  /** @internal */
  readonly renamedResultBlocks: ReadonlyMap<string, string>;
}

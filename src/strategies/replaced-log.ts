import type { BaseMessage } from "@langchain/core/messages";
import type { ToolCallIndex } from "../messages/tool-call-groups.js";

/**
 * The positions a strategy's outputs replaced in place along one line of histories: the histories
 * that share an index, each grown from the output before it. Kept by the index's group list (the
 * same array while the index is extended), so that state derived from the earlier histories of the
 * line (see `HidingLedger`) reads only what changed since. @internal
 */
const logs = new WeakMap<object, number[]>();

/** Record the positions where `output` (same length and structure as `input`) holds another message. @internal */
export function logReplaced(index: ToolCallIndex, input: readonly BaseMessage[], output: readonly BaseMessage[]): void {
  let log = logs.get(index.groups);
  for (let position = 0; position < output.length; position++) {
    if (output[position] === input[position]) continue;
    if (log === undefined) logs.set(index.groups, (log = []));
    log.push(position);
  }
}

/** The positions replaced so far along the line of `index`, oldest replacement first. @internal */
export function replacedLog(index: ToolCallIndex): readonly number[] {
  return logs.get(index.groups) ?? [];
}

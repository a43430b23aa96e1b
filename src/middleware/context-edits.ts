import type { BaseMessage } from "@langchain/core/messages";
import type { ContextEdit } from "langchain";
import { checkHistory } from "../messages/history-check.js";
import { validateToolPairing } from "../messages/tool-pairing.js";
import type { Compactor } from "../strategies/compaction-strategy.js";
import type { CompactionContext, CompactionResult, ReplacedMessage } from "../types.js";
import { ClearToolUsesEdit, type ClearToolUsesRun } from "./clear-tool-uses-edit.js";

/** The name `contextEditingMiddleware` reports in its log records and events. */
export const CONTEXT_EDITING_STRATEGY = "contextEditing";

/** Whether two arrays hold the same messages in the same order. */
function sameMessages(left: readonly BaseMessage[], right: readonly BaseMessage[]): boolean {
  return left.length === right.length && left.every((message, position) => message === right[position]);
}

/** The name of an edit, for errors: its class name (`ContextEdit` for a plain object). */
function editName(edit: ContextEdit): string {
  const name = (edit as { constructor?: { name?: string } }).constructor?.name;
  return name && name !== "Object" ? name : "ContextEdit";
}

/**
 * The edits of `contextEditingMiddleware` as one compactor, for one model call: each edit in turn
 * gets the history the previous one left. A {@link ClearToolUsesEdit} runs on the hiding strategy
 * (never mutating anything); any other `ContextEdit` gets its own copy of the array to edit in place,
 * as LangChain's middleware gives it (it must assign new message objects, not change the ones it
 * finds). An edit whose result a provider would reject (broken tool pairing, a message with nothing
 * to send, a lone surrogate), or that throws, fails the whole call's editing: the history stays as
 * it was. @internal
 */
export function contextEditsCompactor(edits: readonly ContextEdit[], run: ClearToolUsesRun): Compactor {
  return {
    async compact(messages: readonly BaseMessage[], context: CompactionContext = {}): Promise<CompactionResult> {
      let current: BaseMessage[] = [...messages];
      const replaced: ReplacedMessage[] = [];
      for (const edit of edits) {
        context.signal?.throwIfAborted();
        if (edit instanceof ClearToolUsesEdit) {
          const result = await edit.editHistory(current, { ...run, context });
          if (result === undefined || result.status === "noop") continue;
          if (result.status === "failed") throw new Error(`ClearToolUsesEdit: ${result.reason ?? "failed"}`);
          current = result.messages;
          replaced.push(...result.replaced);
          continue;
        }
        const working = [...current];
        await edit.apply({ messages: working, countTokens: run.countTokens, model: run.model as never });
        if (sameMessages(working, current)) continue;
        const problem = checkHistory(working)[0] ?? validateToolPairing(working)[0];
        if (problem) throw new Error(`${editName(edit)} left a history a provider rejects (${problem.message}); the history is unchanged`);
        current = working;
      }
      const changed = !sameMessages(current, messages);
      const tokensBefore = await run.countTokens([...messages]);
      return {
        messages: changed ? current : [...messages],
        status: changed ? "compacted" : "noop",
        strategy: CONTEXT_EDITING_STRATEGY,
        tokensBefore,
        tokensAfter: changed ? await run.countTokens([...current]) : tokensBefore,
        messagesBefore: messages.length,
        messagesAfter: changed ? current.length : messages.length,
        removed: [],
        replaced: changed ? replaced : [],
      };
    },
  };
}

import type { BaseMessage } from "@langchain/core/messages";
import { assistantCalls } from "../messages/assistant-calls.js";
import { isToolResultMessage } from "../messages/message-types.js";
import { toolResultBlocksOf } from "../messages/tool-result-blocks.js";
import type { TokenCounter } from "../tokens/token-counter-types.js";

/** What LangChain's `ClearToolUsesEdit` keeps of a history, as the hiding strategy is to be told it. */
export interface LangChainKeep {
  /** LangChain's candidates: the tool messages that answer a call of an earlier assistant message. */
  readonly toolMessages: number;
  /** How many of the newest candidates LangChain keeps (it may exceed `toolMessages`). */
  readonly kept: number;
  /**
   * The hiding strategy's `keepRecentResults`: the results (tool messages, and user messages carrying
   * `tool_result` blocks) from the oldest kept tool message on; every result when LangChain keeps
   * every tool message.
   */
  readonly keepRecentResults: number;
  /** Whether LangChain would clear kept results for `clearAtLeast`: some, not all, tool messages are kept. */
  readonly extends: boolean;
}

/**
 * LangChain's count of the tool results to keep: `keep` counts tool messages only (a `tool_result`
 * block in a user message is not one), newest first; `{ tokens }` keeps the newest whose
 * `counter.countMessage` (LangChain's `countTokens([message])`, counted once per message by the
 * counter's cache, which the hiding strategy shares) add up to at most it, stopping at the first that
 * does not fit. Translated to this package's results, which include the user messages carrying
 * blocks. @internal
 */
export async function langChainKeep(messages: readonly BaseMessage[], keep: number | { readonly tokens: number }, counter: TokenCounter): Promise<LangChainKeep> {
  // Results in history order: a tool message answering an earlier call (LangChain's candidate), or a user message carrying blocks that do.
  const calls = new Set<string>();
  const results: { message: BaseMessage; candidate: boolean }[] = [];
  for (const message of messages) {
    if (isToolResultMessage(message)) {
      if (calls.has(message.tool_call_id)) results.push({ message, candidate: true });
      continue;
    }
    if (toolResultBlocksOf(message).some((block) => calls.has(block.toolUseId))) {
      results.push({ message, candidate: false });
      continue;
    }
    for (const call of assistantCalls(message)) if (call.id !== undefined) calls.add(call.id);
  }
  const candidates = results.filter((result) => result.candidate);
  let kept: number;
  if (typeof keep === "number") kept = keep;
  else {
    const budget = keep.tokens;
    let used = 0;
    kept = 0;
    for (let position = candidates.length - 1; position >= 0; position--) {
      const cost = await counter.countMessage(candidates[position]!.message);
      if (used + cost > budget) break;
      used += cost;
      kept++;
    }
  }
  if (kept >= candidates.length) return { toolMessages: candidates.length, kept, keepRecentResults: results.length, extends: false };
  let keepRecentResults = 0;
  let keptCandidates = 0;
  for (let position = results.length - 1; position >= 0 && keptCandidates < kept; position--) {
    keepRecentResults++;
    if (results[position]!.candidate) keptCandidates++;
  }
  return { toolMessages: candidates.length, kept, keepRecentResults, extends: kept > 0 };
}

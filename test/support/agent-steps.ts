import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionResult } from "../../src/index.js";

/** A session as agent steps: the first step is everything up to the first assistant message, then one step per assistant message and what follows it. */
export function agentSteps(messages: readonly BaseMessage[]): BaseMessage[][] {
  const result: BaseMessage[][] = [];
  let current: BaseMessage[] = [];
  for (const message of messages) {
    if (message.type === "ai" && current.some((each) => each.type === "ai")) {
      result.push(current);
      current = [];
    }
    current.push(message);
  }
  result.push(current);
  return result;
}

/** What a result says, figures included (reading them counts). */
export function resultSummary(result: CompactionResult) {
  return {
    status: result.status,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    messagesBefore: result.messagesBefore,
    messagesAfter: result.messagesAfter,
    reason: result.reason,
    trigger: result.trigger,
    replaced: result.replaced.map((entry) => entry.index),
    removed: result.removed.map((entry) => entry.index),
    contents: result.messages.map((message) => message.content),
  };
}

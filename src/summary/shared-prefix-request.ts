/**
 * The shared-prefix summary request: the history's own messages, then one instruction. Sent to the
 * agent's own model, its start is the request of the agent's previous model call, which the
 * provider's prompt cache serves.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import type { PreparedHistory } from "../strategies/compaction-strategy.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { fillTemplate } from "./format-history.js";

/**
 * How a summary strategy sends the part it replaces to its model: `"standalone"`, one human message
 * holding the prompt with the history formatted as text; `"shared-prefix"`, the history's own
 * messages followed by one instruction message (see `SummaryStrategyOptions.summaryRequest`).
 */
export type SummaryRequestMode = "standalone" | "shared-prefix";

/** @internal */
export const summaryRequestSchema = z.enum(["standalone", "shared-prefix"]);

/** What sizes a shared-prefix request is checked against. @internal */
export interface SharedPrefixLimits {
  /** The context window of the summary model in tokens; `undefined`: unknown, nothing is checked. */
  readonly contextWindow: number | undefined;
  /** Tokens kept for the answer (the summary cap). */
  readonly answerTokens: number;
  /** Counts the request. */
  readonly tokenCounter: TokenCounter;
}

/**
 * The messages of a shared-prefix summary request for a history cut at `cut`: the history's message
 * objects, in order (system messages, earlier summaries, the part replaced and the part kept), up to
 * but not including the pending calls' message when there is one (so the start is exactly the input
 * of the call that produced it), then one `HumanMessage` holding `instruction` with `{kept}` filled
 * with the number of non-system messages from `cut` to the end of the request.
 * @internal
 */
export function sharedPrefixMessages({ messages, pending }: PreparedHistory, cut: number, instruction: string): BaseMessage[] {
  const end = pending ?? messages.length;
  let kept = 0;
  for (let position = cut; position < end; position++) if (messages[position]!.type !== "system") kept++;
  return [...messages.slice(0, end), new HumanMessage(fillTemplate(instruction, { kept: String(kept) }))];
}

/**
 * The shared-prefix request, or `undefined` when it would not fit the context window: its tokens
 * (the token counter's count of the whole request) plus `answerTokens` above `contextWindow`. With an
 * unknown window the request is always returned.
 * @internal
 */
export async function sharedPrefixRequest(history: PreparedHistory, cut: number, instruction: string, limits: SharedPrefixLimits): Promise<BaseMessage[] | undefined> {
  const request = sharedPrefixMessages(history, cut, instruction);
  if (limits.contextWindow === undefined) return request;
  const tokens = await limits.tokenCounter.countMessages(request);
  return tokens + limits.answerTokens > limits.contextWindow ? undefined : request;
}

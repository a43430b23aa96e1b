import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { assistantCalls } from "../messages/assistant-calls.js";
import { checkHistory, isRepairable } from "../messages/history-check.js";
import { combineRepairs, repairMessages, repairPairingBeforePending, type HistoryRepair } from "../messages/history-repair.js";
import { isAssistantMessage } from "../messages/message-types.js";
import type { CompactionResult } from "../types.js";

/**
 * What an adapter (`createCompactionNode`, `compactionMiddleware`, `withCompaction`,
 * `CompactingChatMessageHistory`) does with a history ChatOpenAI or ChatAnthropic would reject but
 * that can be repaired: tool calls and results that do not pair up (see `validateToolPairing`), a
 * text with a lone surrogate, a message with nothing to send (see `checkHistory`):
 * - `"repair"`: the history is repaired before the compactor runs, as a strategy's own
 *   `invalidHistory: "repair"` does (lone surrogates replaced by U+FFFD, a message with nothing to
 *   send given the text `(empty message)`, then `repairToolPairing`),
 *   and the compactor gets the repaired history. The repaired history is what goes on to the model,
 *   even when the compactor then has nothing to do (status `"repaired"`). What the repair dropped,
 *   rewrote or moved is archived (or kept) like any compaction's originals, and the `repair` of the
 *   record (or, for `withCompaction`, of the result) lists it.
 * - `"leave"`: the history goes to the compactor as it is. A strategy then throws
 *   `InvalidHistoryError` (unless it was given its own `invalidHistory: "repair"`), the adapter
 *   handles that like any compactor error, and the history goes on unchanged: the provider will
 *   reject it.
 */
export type AdapterInvalidHistoryHandling = "repair" | "leave";

/** @internal */
export const adapterInvalidHistorySchema = z.enum(["repair", "leave"]).optional();

/**
 * The repair `messages` needs before a compactor sees it, as a strategy's `invalidHistory: "repair"`
 * makes it: lone surrogates replaced by U+FFFD, then the tool pairing repaired (`repairToolPairing`).
 * Undefined with `"leave"`, when nothing needs repairing, or when something cannot be repaired (an
 * element that is not a message, content that is neither a string nor blocks, a `RemoveMessage`: the
 * compactor rejects those with its own `InvalidHistoryError`). With `keepPendingCalls`, a last
 * message that makes tool calls keeps them (their results are not there yet: the tools are about to
 * run). Two linear passes. @internal
 */
export function repairBeforeCompaction(
  messages: readonly BaseMessage[],
  mode: AdapterInvalidHistoryHandling | undefined,
  options: { keepPendingCalls?: boolean } = {},
): HistoryRepair | undefined {
  if (mode === "leave") return undefined;
  const problems = checkHistory(messages);
  if (!problems.every(isRepairable)) return undefined;
  const surrogates = problems.length > 0 ? { problems, ...repairMessages(messages, problems) } : undefined;
  const checked = surrogates?.messages ?? messages;
  const last = checked[checked.length - 1];
  const pending = options.keepPendingCalls === true && last !== undefined && isAssistantMessage(last) && assistantCalls(last).length > 0;
  const repaired = repairPairingBeforePending(checked, pending ? checked.length - 1 : undefined);
  const pairing = repaired.pairing.problems.length > 0 ? repaired.pairing : undefined;
  if (!surrogates && !pairing) return undefined;
  return combineRepairs(messages, pairing ? repaired.messages : [...checked], surrogates, pairing);
}

/**
 * A compactor's result on the repaired history, as a result for the history it was repaired from:
 * `repair` set and `messagesBefore` the unrepaired length. A result that changed nothing (`noop`,
 * `failed`) becomes the repair alone: status `"repaired"`, the repaired history, the compactor's
 * reason kept. @internal
 */
export function withRepair(result: CompactionResult, repair: HistoryRepair, messagesBefore: number): CompactionResult {
  if (result.status !== "noop" && result.status !== "failed") return { ...result, messagesBefore, repair };
  return {
    ...result,
    status: "repaired",
    messages: [...repair.messages],
    messagesBefore,
    messagesAfter: repair.messages.length,
    removed: [],
    replaced: [],
    repair,
  };
}

/**
 * The repair alone, for a compactor that threw on the repaired history: status `"repaired"`, the
 * error as `reason`. Nothing was measured: the token figures are 0 and callers record them as null.
 * @internal
 */
export function repairOnlyResult(strategy: string, repair: HistoryRepair, messagesBefore: number, reason: string): CompactionResult {
  return {
    messages: [...repair.messages],
    status: "repaired",
    strategy,
    tokensBefore: 0,
    tokensAfter: 0,
    messagesBefore,
    messagesAfter: repair.messages.length,
    removed: [],
    replaced: [],
    reason,
    repair,
  };
}

import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { assistantCalls } from "../messages/assistant-calls.js";
import { isAssistantMessage } from "../messages/message-types.js";
import { repairToolPairing, type ToolPairingRepair } from "../messages/tool-pairing.js";
import type { CompactionResult } from "../types.js";

/**
 * What an adapter (`createCompactionNode`, `compactionMiddleware`, `withCompaction`,
 * `CompactingChatMessageHistory`) does with a history whose tool calls and results do not pair up
 * the way ChatOpenAI and ChatAnthropic require (see `validateToolPairing`):
 * - `"repair"`: the history is repaired with `repairToolPairing` before the compactor runs, and the
 *   compactor gets the repaired history. The repaired history is what goes on to the model, even when
 *   the compactor then has nothing to do (status `"repaired"`). What the repair dropped, rewrote or
 *   moved is archived (or kept) like any compaction's originals and the record's `repair` lists it.
 * - `"leave"`: the history goes to the compactor as it is. A strategy then throws
 *   `InvalidHistoryError` (unless it was given its own `invalidHistory: "repair"`), the adapter
 *   handles that like any compactor error, and the history goes on unchanged: the provider will
 *   reject it.
 */
export type AdapterInvalidHistoryHandling = "repair" | "leave";

/** @internal */
export const adapterInvalidHistorySchema = z.enum(["repair", "leave"]).optional();

/**
 * The repair `messages` needs before a compactor sees it: undefined with `"leave"`, when its tool
 * pairing is valid, or when an element is not a message (the compactor rejects that with its own
 * `InvalidHistoryError`). With `keepPendingCalls`, a last message that makes tool calls is left as it
 * is (its results are not there yet: the tools are about to run) and only what precedes it is
 * repaired. One linear pass. @internal
 */
export function repairBeforeCompaction(
  messages: readonly BaseMessage[],
  mode: AdapterInvalidHistoryHandling | undefined,
  options: { keepPendingCalls?: boolean } = {},
): ToolPairingRepair | undefined {
  if (mode === "leave" || !messages.every((message) => isBaseMessage(message))) return undefined;
  const last = messages[messages.length - 1];
  const pending = options.keepPendingCalls === true && last !== undefined && isAssistantMessage(last) && assistantCalls(last).length > 0;
  const repair = repairToolPairing(pending ? messages.slice(0, -1) : messages);
  if (repair.problems.length === 0) return undefined;
  // Positions before the last message are the same with or without it.
  return pending ? { ...repair, messages: [...repair.messages, last] } : repair;
}

/**
 * A compactor's result on the repaired history, as a result for the history it was repaired from:
 * `repair` set and `messagesBefore` the unrepaired length. A result that changed nothing (`noop`,
 * `failed`) becomes the repair alone: status `"repaired"`, the repaired history, the compactor's
 * reason kept. @internal
 */
export function withRepair(result: CompactionResult, repair: ToolPairingRepair, messagesBefore: number): CompactionResult {
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
export function repairOnlyResult(strategy: string, repair: ToolPairingRepair, messagesBefore: number, reason: string): CompactionResult {
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

// The inspection's chart: context tokens per step of the restored history, and where each compaction ran.
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionRecord } from "../compaction-record.js";
import type { ChartPoint } from "./inspection.js";

/** A compaction that ran and reported its figures: the context became `tokensAfter`. */
export function changedContext(record: CompactionRecord): boolean {
  return record.status !== "failed" && record.tokensBefore !== null && record.tokensAfter !== null;
}

/**
 * One point per restored message: the context grows by each message and, where a compaction ran
 * (after the message with its `lastMessageId`, else where the simulated message count reaches its
 * `messagesBefore`), becomes its `tokensAfter` less `priming` (the point's `after`). Compactions are
 * placed in log order, never earlier than the one before. Returns each compaction's step (null when
 * it cannot be placed).
 */
export function chartOf(
  restored: readonly BaseMessage[],
  tokensOf: ReadonlyMap<BaseMessage, number>,
  log: readonly CompactionRecord[],
  stepsOfId: ReadonlyMap<string, readonly number[]>,
  priming: number,
): { points: ChartPoint[]; steps: (number | null)[] } {
  const points: ChartPoint[] = [];
  const steps: (number | null)[] = log.map(() => null);
  let next = 0;
  let tokens = 0;
  let messages = 0;
  for (let step = 0; step < restored.length; step++) {
    tokens += tokensOf.get(restored[step]!) ?? 0;
    messages++;
    const entered = tokens;
    let changed = false;
    while (next < log.length) {
      const record = log[next]!;
      const last = record.lastMessageId;
      if (last === null) {
        // It saw an empty history: there is no message to place it after.
        next++;
        continue;
      }
      if (last === undefined) {
        // A record from before `lastMessageId`: it ran when the context held `messagesBefore` messages.
        if (messages < record.messagesBefore) break;
      } else {
        const candidates = stepsOfId.get(last) ?? [];
        if (!candidates.some((candidate) => candidate >= step)) {
          next++;
          continue;
        }
        if (!candidates.includes(step)) break;
      }
      steps[next] = step;
      if (changedContext(record)) {
        tokens = Math.max(0, record.tokensAfter! - priming);
        changed = true;
      }
      messages = record.messagesAfter;
      next++;
    }
    points.push(changed ? { step, tokens: entered, after: tokens } : { step, tokens: entered });
  }
  return { points, steps };
}

import type { BaseMessage } from "@langchain/core/messages";
import { isToolResultMessage } from "../messages/message-types.js";
import type { Supersession } from "../messages/supersession.js";
import { syncMessageCounter } from "./bounded-noop.js";
import { HidingPass, type HidingSettings, type ResultPositions } from "./hiding-pass.js";
import type { StrategyOutcome } from "./strategy-run.js";

/** The reason of a hiding run that found nothing to hide. @internal */
export const NOTHING_LEFT = "no tool result older than the kept groups is left to hide";

/** The reason of a skip-mode hiding run that would free less than `clearAtLeast`. @internal */
export function tooLittleReason(saved: number, clearAtLeast: number): string {
  return `hiding would free ${saved} tokens, less than clearAtLeast (${clearAtLeast})`;
}

/** What a hiding run found to go through: the results by number, and those a later call superseded. @internal */
export interface HidingCandidates {
  readonly messages: readonly BaseMessage[];
  readonly perMessage: readonly number[];
  readonly positions: ResultPositions;
  /** The numbers of the results not settled yet, in history order. */
  readonly unsettled: readonly number[];
  /** The number of the first kept result: older ones are hidden, kept ones only when superseded. */
  readonly older: number;
  readonly superseded: ReadonlyMap<number, Supersession> | undefined;
}

/**
 * When a skip-mode hiding run cannot fire, since the results it would hide (all tool messages) hold
 * fewer than `clearAtLeast` tokens in all (`mayFree` leaves out those that free nothing): the reason
 * of its no-op, to compute when read (see `StrategyOutcome.lateReason`) by the pass the run skips,
 * which makes the same hidden copies and counts them synchronously. No hidden copy is made now.
 * `undefined` when the run may fire, or the counter cannot count synchronously. @internal
 */
export function reasonIfCannotFire(settings: HidingSettings, clearAtLeast: number, mayFree: (message: BaseMessage) => boolean, found: HidingCandidates): StrategyOutcome["lateReason"] {
  const count = syncMessageCounter(settings.tokenCounter);
  if (count === undefined) return undefined;
  const { messages, perMessage, positions, unsettled, older, superseded } = found;
  const candidates: { resultIndex: number; assistantIndex: number; supersession: Supersession | undefined }[] = [];
  let freeable = 0;
  for (const position of unsettled) {
    const resultIndex = positions.resultIndices[position]!;
    const supersession = superseded?.get(resultIndex);
    if (position >= older && supersession === undefined) continue;
    const message = messages[resultIndex]!;
    // A human message's tool_result blocks are counted asynchronously.
    if (!isToolResultMessage(message)) return undefined;
    candidates.push({ resultIndex, assistantIndex: positions.assistantIndices[position]!, supersession });
    if (mayFree(message)) freeable += perMessage[resultIndex]!;
    if (freeable >= clearAtLeast) return undefined;
  }
  return (input) => {
    // The pass the run skipped, on the same messages: the same hidden copies, the same savings.
    const pass = new HidingPass(settings, input, perMessage);
    for (const { resultIndex, assistantIndex, supersession } of candidates) {
      if (!pass.settled(resultIndex, assistantIndex)) pass.hideResultNow(resultIndex, assistantIndex, supersession, count);
    }
    return pass.replacements.size === 0 ? NOTHING_LEFT : tooLittleReason(pass.saved, clearAtLeast);
  };
}

/**
 * When a skip-mode hiding run with supersession cannot fire even were every kept result superseded
 * (its results not settled yet, older and kept, hold fewer than `clearAtLeast` tokens in all): the
 * reason of its no-op, computed when read from the history alone (`plan` finds the run's candidates
 * on a new ledger: the run itself then does no supersession work), the reason the pass gives.
 * `undefined` when it may fire, the counter cannot count synchronously, or a result is not a tool
 * message. @internal
 */
export function reasonWithoutLedger(
  settings: HidingSettings,
  clearAtLeast: number,
  mayFree: (message: BaseMessage) => boolean,
  found: Pick<HidingCandidates, "messages" | "perMessage" | "positions" | "unsettled">,
  plan: (input: readonly BaseMessage[]) => Pick<HidingCandidates, "positions" | "unsettled" | "older" | "superseded">,
): StrategyOutcome["lateReason"] {
  if (syncMessageCounter(settings.tokenCounter) === undefined) return undefined;
  const { messages, perMessage, positions, unsettled } = found;
  let most = 0;
  for (const position of unsettled) {
    const resultIndex = positions.resultIndices[position]!;
    const message = messages[resultIndex]!;
    if (!isToolResultMessage(message)) return undefined;
    if (mayFree(message)) most += perMessage[resultIndex]!;
    if (most >= clearAtLeast) return undefined;
  }
  return (input) => {
    const late = reasonIfCannotFire(settings, clearAtLeast, mayFree, { messages: input, perMessage, ...plan(input) });
    // Its candidates are some of these: it cannot fire either.
    return late === undefined ? tooLittleReason(most, clearAtLeast) : late(input);
  };
}

/**
 * Whether a skip-mode hiding run cannot fire even were every result not settled yet hidden (or,
 * given the run's `older` and `superseded`, every one it would hide), decided before the new
 * messages are counted: the results among them (from `counted.length` on) are priced together at
 * `upperAdded`, at least the count of all the new messages. False when it may fire, the counter
 * cannot count synchronously (the reason is computed later), or a result is not a tool message.
 * @internal
 */
export function cannotFireAtBound(
  settings: HidingSettings,
  clearAtLeast: number,
  mayFree: (message: BaseMessage) => boolean,
  found: Pick<HidingCandidates, "messages" | "positions" | "unsettled"> & Partial<Pick<HidingCandidates, "older" | "superseded">> & { readonly counted: readonly number[]; readonly upperAdded: number },
): boolean {
  if (syncMessageCounter(settings.tokenCounter) === undefined) return false;
  const { messages, positions, unsettled, counted, upperAdded, older, superseded } = found;
  let most = 0;
  let addedPriced = false;
  for (const position of unsettled) {
    const resultIndex = positions.resultIndices[position]!;
    // Given the run's candidates: a kept result it will not hide (not superseded) frees nothing.
    if (older !== undefined && position >= older && superseded?.has(resultIndex) !== true) continue;
    const message = messages[resultIndex]!;
    if (!isToolResultMessage(message)) return false;
    if (!mayFree(message)) continue;
    if (resultIndex < counted.length) most += counted[resultIndex]!;
    else if (!addedPriced) {
      most += upperAdded;
      addedPriced = true;
    }
    if (most >= clearAtLeast) return false;
  }
  // With clearAtLeast 0 nothing is short of it: the run decides.
  return most < clearAtLeast;
}

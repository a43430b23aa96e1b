import type { BaseMessage } from "@langchain/core/messages";
import { isToolResultMessage } from "../messages/message-types.js";
import { SupersessionLedger } from "../messages/supersession-ledger.js";
import type { Supersession, SupersessionReader } from "../messages/supersession.js";
import type { ToolCallIndex } from "../messages/tool-call-groups.js";
import { isHiddenResult } from "./hidden-markers.js";
import type { ResultPositions } from "./hiding-pass.js";
import { replacedLog } from "./replaced-log.js";

/**
 * What `toolResultHiding` knows of the last history of a line (see `replacedLog`): every result's
 * position, the results not settled yet (neither hidden nor judged not worth hiding), and the
 * supersession ledger. A run on a history grown from it reads only the new groups and the positions
 * replaced since. @internal
 */
export class HidingLedger implements ResultPositions {
  readonly resultIndices: number[] = [];
  readonly assistantIndices: number[] = [];
  /** The results (by their number in `resultIndices`) that may still need work. */
  readonly #unsettled = new Set<number>();
  /** Result number by message index. */
  readonly #numberOf = new Map<number, number>();
  /** Groups read, and the results read of the last of them. */
  #groups = 0;
  #lastGroupResults = 0;
  /** Entries of the replaced-position log read. */
  #logRead = 0;
  #supersession: SupersessionLedger | undefined;
  /** The last `supersededToHide` answer, with what it was asked and the ledger's state then. */
  #hideMemo: { key: string; supersession: SupersessionLedger; excludeTools: ReadonlySet<string>; hide: ReadonlyMap<number, Supersession> } | undefined;

  constructor(
    private readonly reader: SupersessionReader | undefined,
    private readonly isSettled: (message: BaseMessage) => boolean,
    logRead: number,
  ) {
    this.#supersession = reader && new SupersessionLedger(reader);
    // Replacements logged before: the ledger reads every message as it is now.
    this.#logRead = logRead;
  }

  /** Read what changed since the last call: the positions replaced, then the new results. */
  sync(messages: readonly BaseMessage[], index: ToolCallIndex): void {
    const log = replacedLog(index);
    let rebuild = false;
    for (; this.#logRead < log.length; this.#logRead++) {
      const position = log[this.#logRead]!;
      if (position >= messages.length) continue;
      const number = this.#numberOf.get(position);
      if (number !== undefined) {
        this.#noteSettled(messages, number);
        if (this.#supersession && !this.#supersession.replaced(messages, position, this.assistantIndices[number]!)) rebuild = true;
        continue;
      }
      // An assistant message replaced: its calls must still read the same.
      const groupNumber = index.groupOf[position];
      if (this.#supersession && groupNumber !== undefined && groupNumber >= 0 && groupNumber < this.#groups && index.groups[groupNumber]!.assistantIndex === position) {
        if (!this.#supersession.sameReadings(messages, index.groups[groupNumber]!)) rebuild = true;
      }
    }
    const { groups } = index;
    for (let groupNumber = Math.max(0, this.#groups - 1); groupNumber < groups.length; groupNumber++) {
      const group = groups[groupNumber]!;
      const from = groupNumber < this.#groups ? this.#lastGroupResults : 0;
      for (let position = from; position < group.resultIndices.length; position++) {
        const resultIndex = group.resultIndices[position]!;
        const number = this.resultIndices.length;
        this.resultIndices.push(resultIndex);
        this.assistantIndices.push(group.assistantIndex);
        this.#numberOf.set(resultIndex, number);
        this.#unsettled.add(number);
        this.#noteSettled(messages, number);
      }
      this.#supersession?.add(messages, group, groupNumber, from);
      this.#lastGroupResults = group.resultIndices.length;
    }
    this.#groups = groups.length;
    if (rebuild && this.reader) {
      // A call no longer reads as it did (its arguments hidden): read every group again.
      this.#supersession = new SupersessionLedger(this.reader);
      groups.forEach((group, groupNumber) => this.#supersession!.add(messages, group, groupNumber, 0));
    }
  }

  #noteSettled(messages: readonly BaseMessage[], number: number): void {
    if (this.isSettled(messages[this.resultIndices[number]!]!)) this.#unsettled.delete(number);
    else this.#unsettled.add(number);
  }

  /** The numbers of the results below `end` not settled yet, in history order (settled ones found on the way are dropped). */
  unsettled(messages: readonly BaseMessage[], end = this.resultIndices.length): number[] {
    const numbers: number[] = [];
    for (const number of this.#unsettled) {
      if (this.isSettled(messages[this.resultIndices[number]!]!)) this.#unsettled.delete(number);
      else if (number < end) numbers.push(number);
    }
    return numbers.sort((a, b) => a - b);
  }

  /**
   * The superseded results a firing may hide among the results numbered `numbers`: those whose
   * superseding result stays in full after it (kept, from `firstKept` on, and not hidden yet, or of
   * a tool in `excludeTools`). `undefined` when supersession is off.
   */
  supersededToHide(messages: readonly BaseMessage[], numbers: readonly number[], firstKept: number, excludeTools: ReadonlySet<string>): ReadonlyMap<number, Supersession> | undefined {
    if (this.#supersession === undefined) return undefined;
    // Asked again with the ledger as it was (a step's bound, then its run): the same answer, no second scan.
    const key = `${this.#groups}/${this.#lastGroupResults}/${this.#logRead}/${firstKept}/${numbers.join(",")}`;
    const memo = this.#hideMemo;
    if (memo !== undefined && memo.key === key && memo.supersession === this.#supersession && memo.excludeTools === excludeTools) return memo.hide;
    const hide = new Map<number, Supersession>();
    for (const [resultIndex, supersession] of this.#supersession.supersessions(numbers.map((number) => this.resultIndices[number]!))) {
      const by = messages[supersession.by]!;
      if (isHiddenResult(by)) continue;
      const excluded = isToolResultMessage(by) && by.name !== undefined && excludeTools.has(by.name);
      if (supersession.by >= firstKept || excluded) hide.set(resultIndex, supersession);
    }
    this.#hideMemo = { key, supersession: this.#supersession, excludeTools, hide };
    return hide;
  }
}

/** The ledger of each line of histories a strategy ran on, by the index's group list. @internal */
export class HidingLedgers {
  readonly #ledgers = new WeakMap<object, HidingLedger>();

  constructor(
    private readonly reader: SupersessionReader | undefined,
    private readonly isSettled: (message: BaseMessage) => boolean,
  ) {}

  /** The ledger of `index`'s line, synced with `messages`. */
  of(messages: readonly BaseMessage[], index: ToolCallIndex): HidingLedger {
    let ledger = this.#ledgers.get(index.groups);
    if (ledger === undefined) this.#ledgers.set(index.groups, (ledger = new HidingLedger(this.reader, this.isSettled, replacedLog(index).length)));
    ledger.sync(messages, index);
    return ledger;
  }
}

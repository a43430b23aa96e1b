import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { assistantCalls, type AssistantCall } from "../messages/assistant-calls.js";
import { extractArtifacts, isEmptyArtifactIndex } from "../messages/artifact-index.js";
import { cloneMessage } from "../messages/clone-message.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { isToolResultMessage } from "../messages/message-types.js";
import { toolResultBlocksOf } from "../messages/tool-result-blocks.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker } from "../types.js";
import type { Supersession } from "../messages/supersession.js";
import { CONTEXT_EDITING_METADATA_KEY, LANGCHAIN_CLEARED_MARKER, isHiddenResult, langChainClearedInputs } from "./hidden-markers.js";
import type { HidingSettings } from "./hiding-settings.js";
import { blockArtifacts, hiddenContent, hidingReceipt, isHiddenContent, receiptOf, supersededNote } from "./hiding-receipts.js";

export type { Receipt } from "./hiding-receipts.js";

export { CONTEXT_EDITING_METADATA_KEY, LANGCHAIN_CLEARED_MARKER, isHiddenResult, isLangChainCleared, langChainClearedInputs } from "./hidden-markers.js";

export type { HiddenCopy, HidingSettings, ResultPositions } from "./hiding-settings.js";

/** A tool message's hidden copy, before it is counted. */
interface ToolCopy {
  readonly result: ToolMessage;
  readonly resultIndex: number;
  readonly assistantIndex: number;
  readonly before: number;
  readonly after: BaseMessage;
}

/** The calls of an assistant message by id. */
function callsById(assistant: AIMessage): Map<string | undefined, AssistantCall> {
  return new Map(assistantCalls(assistant).map((call) => [call.id, call]));
}

/**
 * One run's hiding: results are hidden one at a time (`hideResult`), the arguments of their calls
 * once per assistant message (`hideInputs`); `replacements` and `saved` accumulate. Never mutates
 * the history. @internal
 */
export class HidingPass {
  /** input index -> new message */
  readonly replacements = new Map<number, BaseMessage>();
  /** Tokens freed so far. */
  saved = 0;
  /** Per assistant index: the ids of its calls whose results are hidden (already or now). */
  readonly #hiddenCalls = new Map<number, Set<string>>();
  /** Per assistant index: the tokens its inputs hiding freed so far (replaced when it is redone). */
  readonly #inputSavings = new Map<number, number>();
  readonly #calls = new Map<number, Map<string | undefined, AssistantCall>>();
  /** The oldest result this run hid: its index and id (see {@link stampBatch}). */
  #first: { readonly index: number; readonly id: string } | undefined;

  constructor(
    private readonly settings: HidingSettings,
    private readonly messages: readonly BaseMessage[],
    private readonly perMessage: readonly number[],
  ) {}

  #callsOf(assistantIndex: number): Map<string | undefined, AssistantCall> {
    let calls = this.#calls.get(assistantIndex);
    if (calls === undefined) this.#calls.set(assistantIndex, (calls = callsById(this.messages[assistantIndex] as AIMessage)));
    return calls;
  }

  #noteHidden(assistantIndex: number, ids: Iterable<string>): void {
    if (!this.settings.hideToolInputs) return;
    let set = this.#hiddenCalls.get(assistantIndex);
    if (set === undefined) this.#hiddenCalls.set(assistantIndex, (set = new Set()));
    for (const id of ids) set.add(id);
  }

  /**
   * Whether the result at `resultIndex` needs no work: a tool message already hidden (or cleared by
   * LangChain), or judged not worth hiding. Synchronous, so a run over thousands of older results,
   * almost all hidden at earlier steps, costs no promise per result.
   */
  settled(resultIndex: number, assistantIndex: number): boolean {
    const message = this.messages[resultIndex]!;
    if (!isToolResultMessage(message)) return false;
    if (isHiddenResult(message)) {
      this.#noteHidden(assistantIndex, [message.tool_call_id]);
      return true;
    }
    return this.settings.notWorthHiding.has(message);
  }

  /** Whether `hideInputs(position)` has anything to consider. */
  hasInputsToHide(position: number): boolean {
    return (this.#hiddenCalls.get(position)?.size ?? 0) > 0;
  }

  /**
   * Hide the result message at `resultIndex`, of the group whose assistant message is at
   * `assistantIndex`: by the placeholder, or, given its `supersession` (tool messages only), by a note
   * naming the call that superseded it. Either way followed by its receipt.
   */
  async hideResult(resultIndex: number, assistantIndex: number, supersession?: Supersession): Promise<void> {
    const { settings } = this;
    const message = this.messages[resultIndex]!;
    const needCalls = settings.excludeTools.size > 0 || settings.receipts !== undefined;
    if (!isToolResultMessage(message)) {
      // A human message whose tool_result blocks answer the calls: their content is hidden in place.
      const hidden = await this.#hideBlocks(message, this.perMessage[resultIndex]!, needCalls ? this.#callsOf(assistantIndex) : undefined);
      this.#noteHidden(assistantIndex, hidden?.callIds ?? []);
      if (hidden?.after !== undefined) {
        this.saved += hidden.saved;
        this.replacements.set(resultIndex, hidden.after);
        this.#noteFirst(resultIndex, hidden.callIds[0] ?? "");
      }
      return;
    }
    const copy = this.#toolCopy(message, resultIndex, assistantIndex, supersession);
    if (copy !== undefined) this.#settleCopy(copy, await settings.tokenCounter.countMessage(copy.after));
  }

  /**
   * `hideResult` for a tool message, its hidden copy counted by `count` (synchronous): the same
   * replacements and savings. Does nothing for a result that is not a tool message.
   */
  hideResultNow(resultIndex: number, assistantIndex: number, supersession: Supersession | undefined, count: (message: BaseMessage) => number): void {
    const message = this.messages[resultIndex]!;
    if (!isToolResultMessage(message)) return;
    const copy = this.#toolCopy(message, resultIndex, assistantIndex, supersession);
    if (copy !== undefined) this.#settleCopy(copy, count(copy.after));
  }

  /** The hidden copy of a tool message, or `undefined` when it is not to be hidden (hidden already, not worth it, excluded). */
  #toolCopy(result: ToolMessage, resultIndex: number, assistantIndex: number, supersession: Supersession | undefined): ToolCopy | undefined {
    const { settings } = this;
    if (isHiddenResult(result)) {
      this.#noteHidden(assistantIndex, [result.tool_call_id]);
      return undefined;
    }
    if (settings.notWorthHiding.has(result)) return undefined;
    const needCalls = settings.excludeTools.size > 0 || settings.receipts !== undefined;
    const call = needCalls ? this.#callsOf(assistantIndex).get(result.tool_call_id) : undefined;
    if (settings.excludeTools.size > 0 && settings.excludeTools.has(result.name ?? call?.name ?? "")) return undefined;
    const before = this.perMessage[resultIndex]!;
    const assistant = this.messages[assistantIndex]!;
    // The run's batch: its oldest hidden result, this one while none is hidden yet (results go oldest first).
    const batch = this.#first?.id ?? result.tool_call_id;
    const note = supersession === undefined ? undefined : supersededNote(supersession, settings.receipts === undefined);
    const made = settings.hiddenCopies.get(result);
    const reusable = made !== undefined && made.assistant === assistant && made.before === before && made.note === note && compactionMarkerOf(made.after)?.batch === batch;
    const after = reusable ? made.after : this.#hiddenCopy(result, call, assistant, before, batch, supersession, note);
    if (after !== made?.after) settings.hiddenCopies.set(result, { assistant, before, note, after });
    return { result, resultIndex, assistantIndex, before, after };
  }

  /** Record a tool message's hidden copy, counted: a copy not smaller than the result is not worth hiding. */
  #settleCopy({ result, resultIndex, assistantIndex, before, after }: ToolCopy, afterTokens: number): void {
    // A result shorter than its hidden form stays: hiding it would cost tokens.
    if (afterTokens >= before) {
      this.settings.notWorthHiding.add(result);
      return;
    }
    this.#noteHidden(assistantIndex, [result.tool_call_id]);
    this.saved += before - afterTokens;
    this.replacements.set(resultIndex, after);
    this.#noteFirst(resultIndex, result.tool_call_id);
  }

  #noteFirst(index: number, id: string): void {
    if (this.#first === undefined || index < this.#first.index) this.#first = { index, id };
  }

  /**
   * Give every hidden copy of this run the run's batch, the id of its oldest hidden result, once its
   * replacements are final. Copies are made with it already when results go oldest first; only
   * those made before an older result was hidden (kept results hidden newest first, in
   * `clearAtLeastMode: "extend"`) are copied again.
   */
  stampBatch(): void {
    const first = this.#first;
    if (first === undefined) return;
    for (const [index, after] of this.replacements) {
      const marker = compactionMarkerOf(after);
      if (!marker?.hidden || marker.batch === first.id) continue;
      const stamped = cloneMessage(after, { response_metadata: { ...after.response_metadata, [COMPACTION_METADATA_KEY]: { ...marker, batch: first.id } } });
      this.replacements.set(index, stamped);
      // A later run of the same batch takes the stamped copy as it is.
      const original = this.messages[index]!;
      const made = this.settings.hiddenCopies.get(original);
      if (made?.after === after) this.settings.hiddenCopies.set(original, { ...made, after: stamped });
    }
  }

  /** The result's hidden copy: the placeholder (or `note`, its superseded note) and its receipt, the marker recording what was hidden. */
  #hiddenCopy(result: ToolMessage, call: AssistantCall | undefined, assistant: BaseMessage, before: number, batch: string, supersession: Supersession | undefined, note: string | undefined): ToolMessage {
    const { settings } = this;
    const { markerArtifacts, receipt } = receiptOf(result, call, assistant, settings.receipts, settings.hideToolInputs, settings.receiptsMade);
    const marker: CompactionMarker = {
      strategy: settings.strategyName,
      hidden: true,
      originalTokens: before,
      // An empty index is not kept: a summary reads a hidden result without one as empty.
      ...(markerArtifacts && !isEmptyArtifactIndex(markerArtifacts) ? { artifacts: markerArtifacts } : {}),
      batch,
      ...(supersession ? { supersededBy: supersession.callId } : {}),
    };
    return cloneMessage(result, {
      content: hiddenContent(note ?? settings.placeholder, receipt),
      response_metadata: { ...result.response_metadata, [COMPACTION_METADATA_KEY]: marker, [CONTEXT_EDITING_METADATA_KEY]: { ...LANGCHAIN_CLEARED_MARKER } },
    });
  }

  /**
   * With `hideToolInputs`, empty the arguments of the calls of the assistant message at `position`
   * whose results are hidden (in a copy). Redoing it after more results of the same message were
   * hidden replaces the earlier copy, and its savings.
   */
  async hideInputs(position: number): Promise<void> {
    const hiddenCallIds = this.#hiddenCalls.get(position);
    if (hiddenCallIds === undefined || hiddenCallIds.size === 0) return;
    const assistant = this.messages[position] as AIMessage;
    const existing = compactionMarkerOf(assistant);
    const alreadyHidden = new Set(existing?.hiddenToolInputs ?? []);
    const toClear = new Set<number>();
    const calls = assistantCalls(assistant);
    calls.forEach((call, callPosition) => {
      if (call.id !== undefined && hiddenCallIds.has(call.id) && !alreadyHidden.has(call.id)) toClear.add(callPosition);
    });
    if (toClear.size === 0) return;
    const cleared = editToolCalls(assistant, { clearArgsPositions: toClear });
    const hiddenInputs = [...alreadyHidden, ...[...toClear].map((callPosition) => calls[callPosition]!.id!)].sort();
    const marker: CompactionMarker = { ...existing, strategy: this.settings.strategyName, hiddenToolInputs: hiddenInputs };
    const previousEntry = cleared.response_metadata?.[CONTEXT_EDITING_METADATA_KEY] as Record<string, unknown> | undefined;
    const langchainInputs = [...new Set([...langChainClearedInputs(cleared), ...hiddenInputs])].sort();
    const after = cloneMessage(cleared, {
      response_metadata: {
        ...cleared.response_metadata,
        [COMPACTION_METADATA_KEY]: marker,
        [CONTEXT_EDITING_METADATA_KEY]: { ...previousEntry, cleared_tool_inputs: langchainInputs },
      },
    });
    const saving = this.perMessage[position]! - (await this.settings.tokenCounter.countMessage(after));
    this.saved += saving - (this.#inputSavings.get(position) ?? 0);
    this.#inputSavings.set(position, saving);
    this.replacements.set(position, after);
  }

  /**
   * Hide the `tool_result` blocks of a human message: a copy whose blocks (but those of excluded
   * tools) hold the placeholder and their receipt, its other content untouched. `callIds`: the calls
   * whose results are hidden (already or now); `after` is left out when nothing is to change or it
   * would not save tokens.
   */
  async #hideBlocks(message: BaseMessage, before: number, calls: ReadonlyMap<string | undefined, AssistantCall> | undefined) {
    const { settings } = this;
    const refs = toolResultBlocksOf(message);
    if (compactionMarkerOf(message)?.hidden) {
      const content = message.content as Record<string, unknown>[];
      return { callIds: refs.filter((ref) => isHiddenContent(content[ref.position]!["content"], settings.placeholder)).map((ref) => ref.toolUseId), saved: 0 };
    }
    if (settings.notWorthHiding.has(message)) return undefined;
    const content = [...(message.content as unknown[])];
    const callIds: string[] = [];
    for (const ref of refs) {
      const call = calls?.get(ref.toolUseId);
      if (settings.excludeTools.size > 0 && settings.excludeTools.has(call?.name ?? "")) continue;
      const block = content[ref.position] as Record<string, unknown>;
      if (isHiddenContent(block["content"], settings.placeholder)) continue;
      const receipt = settings.receipts === undefined ? "" : hidingReceipt(call, blockArtifacts(block), settings.receipts);
      content[ref.position] = { ...block, content: hiddenContent(settings.placeholder, receipt) };
      callIds.push(ref.toolUseId);
    }
    if (callIds.length === 0) return undefined;
    const artifacts = settings.receipts === undefined ? undefined : extractArtifacts([message]);
    const marker: CompactionMarker = { strategy: settings.strategyName, hidden: true, originalTokens: before, ...(artifacts ? { artifacts } : {}), batch: this.#first?.id ?? callIds[0]! };
    const after = cloneMessage(message, { content, response_metadata: { ...message.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
    const afterTokens = await settings.tokenCounter.countMessage(after);
    if (afterTokens >= before) {
      settings.notWorthHiding.add(message);
      return undefined;
    }
    return { callIds, after, saved: before - afterTokens };
  }
}

import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { messageText } from "../messages/message-text.js";
import { parseOptions } from "../options.js";
import { createTokenCounter, tokenCounterSchema, type TokenCounter } from "../tokens/token-counter.js";
import { compactionMarkerOf } from "../types.js";
import type { ArchivedCompaction } from "../compaction-record.js";
import { ArchiveAnchors, type Anchor } from "../langgraph/archive-anchors.js";
import { modelCallFigures } from "./model-calls.js";
import { changedContext, chartOf } from "./inspection-chart.js";
import { recallViews } from "./recall-views.js";
import { parseThreadExport, toMessages } from "./thread-export.js";
import { messageView, type BuildNode, type HiddenNode, type RemovedNode, type ReplacementNode, type SummaryNode, type Work } from "./timeline-nodes.js";
import type { ChartPoint, CompactionView, Inspection, InspectionTotals, MessageView, ThreadExport, TimelineNode } from "./inspection.js";

/** Options of {@link buildInspection}. */
export interface BuildInspectionOptions {
  /** Counts each message's tokens. @default createTokenCounter() (exact, o200k_base) */
  tokenCounter?: TokenCounter;
  /** The inspection's `generatedAt`. @default new Date() */
  now?: Date;
  /** The model's context window in tokens, drawn as a line on the chart. The log does not record it. */
  contextWindow?: number;
  /** The size in tokens at which the thread's compaction starts, drawn as a line on the chart. */
  triggerTokens?: number;
}

const optionsSchema = z
  .object({
    tokenCounter: tokenCounterSchema.optional(),
    now: z.date().optional(),
    contextWindow: z.number().int().positive().optional(),
    triggerTokens: z.number().int().positive().optional(),
  })
  .strict();

/**
 * Everything the inspector shows about one thread: the timeline (the current context with every
 * original that left it, nested under the summary, hidden copy, replacement or removal that took it
 * out), one view per compaction, the context-size chart and the totals.
 *
 * Token figures of the chart and the totals are sums of per-message counts by `tokenCounter`: a
 * compaction's recorded `tokensAfter`, which counts a whole request, enters the chart less the reply
 * priming (see {@link ChartPoint}), so the chart ends at the header's context tokens (unless the
 * compaction's counter added a calibration offset, which the record does not separate).
 *
 * The timeline is the expansion `restoreHistory` makes, kept as a tree: its `message` leaves, in
 * order, are the restored history. An archive the log names but the thread lacks (a store-archived
 * thread exported without its store, say) is not an error: that compaction's originals are missing
 * from the tree, what it inserted is shown as a summary without originals, and a warning says so.
 * Counts each message once and indexes once: linear in the thread and its archive.
 *
 * @example
 * const thread = await loadThreadFromSqlite("checkpoints.db", "thread-1");
 * const inspection = await buildInspection(thread);
 * console.log(renderInspectionText(inspection));
 * @throws {InvalidHistoryError} when `thread` is not a {@link ThreadExport} (the message names the
 *   first problem) or holds a message that cannot be read.
 * @throws {InvalidOptionError} for an invalid option.
 */
export async function buildInspection(thread: ThreadExport, options: BuildInspectionOptions = {}): Promise<Inspection> {
  const parsedOptions = parseOptions("buildInspection", optionsSchema, options);
  parseThreadExport(thread);
  const counter = parsedOptions.tokenCounter ?? createTokenCounter();
  const now = parsedOptions.now ?? new Date();
  const log = thread.compactionLog;
  const warnings: string[] = [];
  const current = toMessages(thread.messages, "messages");

  // Archives by compaction, converted once.
  const sequenceOf = new Map(log.map((record, sequence) => [record.id, sequence] as const));
  const archiveOf = new Map<string, { archive: ArchivedCompaction; originals: BaseMessage[] }>();
  thread.archives.forEach((archive, position) => {
    if (!sequenceOf.has(archive.compactionId)) {
      warnings.push(`archive entry ${archive.compactionId} matches no compaction in the log; its ${archive.messages.length} messages are not shown`);
      return;
    }
    archiveOf.set(archive.compactionId, { archive, originals: toMessages(archive.messages.map((entry) => entry.message), `archives.${position}.messages`) });
  });

  // Token counts: every message object once.
  const tokensOf = new Map<BaseMessage, number>();
  const count = async (messages: readonly BaseMessage[]) => {
    for (const message of messages) tokensOf.set(message, await counter.countMessage(message));
  };
  await count(current);
  for (const { originals } of archiveOf.values()) await count(originals);

  // Anchors, as restoreHistory reads them.
  const anchors = new ArchiveAnchors();
  let archivedMessages = 0;
  log.forEach((record, sequence) => {
    const found = archiveOf.get(record.id);
    if (!found) {
      if (record.archive !== "none") {
        const lost = record.removedIds.length + record.replacedIds.length;
        warnings.push(
          record.archive === "store"
            ? `compaction #${sequence + 1} (${record.id}, ${record.strategy}) archived its originals in the store, and the thread has no entry for it (was it exported without its store?): its ${lost} originals are not shown`
            : `the archive of compaction #${sequence + 1} (${record.id}, ${record.strategy}) is missing from the state: its ${lost} originals are not shown`,
        );
      }
      // What it inserted is still shown for what it is: a compaction's output standing for nothing we have.
      for (const id of new Set([...record.insertedIds, ...(record.summaryId === null ? [] : [record.summaryId])])) anchors.anchorFor(id, sequence).replacedBy ??= [];
      return;
    }
    archivedMessages += found.archive.messages.length;
    anchors.addArchive(sequence, found.archive, found.originals);
  });
  // Whether the timeline reached an anchor (one nobody reaches holds originals shown at the end).
  const visited = new Set<Anchor>();

  const views = new Map<BaseMessage, MessageView>();
  const viewOf = (message: BaseMessage): MessageView => {
    let view = views.get(message);
    if (!view) views.set(message, (view = messageView(message, tokensOf.get(message) ?? 0)));
    return view;
  };

  // The restored history (the leaves, in order) and, per id, the steps at which a compaction that
  // saw that id last can have run: a leaf's own step, and the last step under a summary (or
  // replacement) with that id.
  const restored: BaseMessage[] = [];
  const stepsOfId = new Map<string, number[]>();
  const noteStep = (id: string | undefined, step: number) => {
    if (typeof id !== "string") return;
    const steps = stepsOfId.get(id);
    if (steps) steps.push(step);
    else stepsOfId.set(id, [step]);
  };
  const summaryText = new Map<string, string>();
  let hiddenResults = 0;

  const timeline: BuildNode[] = [];
  const pending: Work[] = [];
  const expandInto = (messages: readonly BaseMessage[], bound: number, into: BuildNode[]) => {
    const place = (node: BuildNode) => into.push(node);
    for (let position = messages.length - 1; position >= 0; position--) pending.push({ kind: "expand", message: messages[position]!, bound, into, place });
  };
  expandInto(current, Number.POSITIVE_INFINITY, timeline);
  // A compaction that kept nothing put its originals before everything that came after it.
  const { starts } = anchors;
  for (let position = starts.length - 1; position >= 0; position--) {
    pending.push({ kind: "removed", messages: starts[position]!.messages, sequence: starts[position]!.sequence, into: timeline });
  }
  const drain = () => {
    while (pending.length > 0) {
      const work = pending.pop()!;
      if (work.kind === "replacement-end") {
        noteStep(work.id, restored.length - 1);
      } else if (work.kind === "removed") {
        const node: RemovedNode = { kind: "removed", compactionId: log[work.sequence]!.id, originals: [] };
        work.into.push(node);
        expandInto(work.messages, work.sequence, node.originals);
      } else if (work.kind === "replacement") {
        const { message, anchor, into, place } = work;
        const originals = anchor.replacedBy!;
        const compactionId = log[anchor.sequence]!.id;
        const marker = compactionMarkerOf(message);
        if (marker?.summary) {
          const summary: SummaryNode = { kind: "summary", compactionId, message: viewOf(message), originals: [] };
          if (!summaryText.has(compactionId)) summaryText.set(compactionId, messageText(message));
          place(summary);
          if (typeof message.id === "string") pending.push({ kind: "replacement-end", id: message.id });
          expandInto(originals, anchor.sequence, summary.originals);
        } else if (originals.length === 1) {
          // A rewritten copy: what surrounded the original goes beside it, so the leaves stay in order.
          const hidden: HiddenNode = { kind: "hidden", compactionId, message: viewOf(message), original: undefined };
          if (marker?.hidden) hiddenResults++;
          pending.push({
            kind: "expand",
            message: originals[0]!,
            bound: anchor.sequence,
            into,
            place: (node) => {
              hidden.original = node;
              place(hidden);
            },
          });
        } else {
          // Not a summary: a copy of a reordered or rewritten history, shown for what it is.
          const replacement: ReplacementNode = { kind: "replacement", compactionId, message: viewOf(message), originals: [] };
          place(replacement);
          if (typeof message.id === "string") pending.push({ kind: "replacement-end", id: message.id });
          expandInto(originals, anchor.sequence, replacement.originals);
        }
      } else {
        const { message, bound, into, place } = work;
        const anchor = anchors.lastBefore(message.id, bound);
        if (!anchor) {
          noteStep(message.id, restored.length);
          restored.push(message);
          place({ kind: "message", message: viewOf(message) });
          continue;
        }
        visited.add(anchor);
        // Pushed last-first, so they run as: what was removed before, the message, what was removed after.
        if (anchor.after.length > 0) pending.push({ kind: "removed", messages: anchor.after, sequence: anchor.sequence, into });
        if (anchor.replacedBy) pending.push({ kind: "replacement", message, anchor, into, place });
        else pending.push({ kind: "expand", message, bound: anchor.sequence, into, place });
        if (anchor.before.length > 0) pending.push({ kind: "removed", messages: anchor.before, sequence: anchor.sequence, into });
      }
    }
  };
  drain();
  // Originals anchored to a message the thread no longer has (removed outside compaction): shown at the end.
  for (const anchor of anchors.all) {
    if (visited.has(anchor)) continue;
    const orphans = [...anchor.before, ...(anchor.replacedBy ?? []), ...anchor.after];
    if (orphans.length === 0) continue;
    const record = log[anchor.sequence]!;
    warnings.push(
      `${orphans.length} originals of compaction #${anchor.sequence + 1} (${record.id}) belong next to a message the thread no longer has; they are shown at the end`,
    );
    pending.push({ kind: "removed", messages: orphans, sequence: anchor.sequence, into: timeline });
    drain();
  }

  // What the counter adds to a request beyond its messages (the reply priming): records' tokensAfter
  // include it, the chart's per-message sums do not.
  const priming = await counter.countMessages([]);
  const chart = chartOf(restored, tokensOf, log, stepsOfId, priming);
  const compactions: CompactionView[] = log.map((record, sequence) => ({
    number: sequence + 1,
    record,
    summary: summaryText.get(record.id) ?? null,
    archivedMessages: archiveOf.get(record.id)?.archive.messages.length ?? 0,
    originals: (archiveOf.get(record.id)?.originals ?? []).map(viewOf),
    step: chart.steps[sequence]!,
  }));
  const recalls = recallViews({
    restored,
    tokensOf,
    anchors,
    archives: log.map((record) => ({ compactionId: record.id, originals: archiveOf.get(record.id)?.originals })),
    steps: chart.steps,
  });
  const sumTokens = (messages: readonly BaseMessage[]) => messages.reduce((sum, message) => sum + (tokensOf.get(message) ?? 0), 0);
  const totals: InspectionTotals = {
    originalMessages: restored.length,
    originalTokens: sumTokens(restored),
    ...modelCallFigures(restored, chart.points, priming),
    contextMessages: current.length,
    contextTokens: sumTokens(current),
    compactions: log.length,
    failedCompactions: log.filter((record) => record.status === "failed").length,
    summaries: log.filter((record) => record.summaryId !== null).length,
    hiddenResults,
    archivedMessages,
    tokensSaved: log.reduce((sum, record) => sum + (changedContext(record) ? record.tokensBefore! - record.tokensAfter! : 0), 0),
    compactionMs: log.reduce((sum, record) => sum + (record.durationMs ?? 0), 0),
  };
  return {
    threadId: thread.threadId,
    generatedAt: now.toISOString(),
    totals,
    timeline: timeline as TimelineNode[],
    compactions,
    recalls,
    chart: chart.points,
    limits: { contextWindow: parsedOptions.contextWindow ?? null, triggerTokens: parsedOptions.triggerTokens ?? null },
    warnings,
  };
}

// The inspector page's default timeline: every compaction at the top level, in the order they ran,
// each with the originals it replaced collapsed once under it, then the current context.
import { escapeHtml, formatDuration, formatNumber, formatTime, messagesChange, plural, tokensChange } from "./html-format.js";
import { messageArticle } from "./html-message.js";
import { recallMarks, type RecallMarks } from "./html-recalls.js";
import type { CompactionView, Inspection, MessageView, TimelineNode } from "./inspection.js";
import { compactionDid, plainReason } from "./plain-reason.js";

/** What a compaction did and why, in plain sentences (the record's own `reason` is kept in `data-reason`). */
export function explanation(view: CompactionView): string {
  const { record } = view;
  const did = compactionDid(record, view.originals.length === view.archivedMessages ? view.originals.map((message) => message.type) : undefined);
  return record.reason ? `${did} ${plainReason(record.reason)}` : did;
}

/** `by #n`, linking to the compaction's entry. */
const byLink = (number: number | undefined) => (number === undefined ? "by an unlisted compaction" : `by <a href="#compaction-${number}">#${number}</a>`);

/**
 * Renders the default timeline. An original that an earlier compaction made (its summary, or a
 * hidden copy) is labelled with that compaction: ids repeat across versions (a hidden copy keeps its
 * original's id, a summary takes the id of a message it replaced), so the maker of the
 * version compaction #n archived is the latest compaction before #n that wrote that id.
 */
export function renderHistory(inspection: Inspection): string {
  const numbers = new Map(inspection.compactions.map((view) => [view.record.id, view.number]));
  // For each id, the compactions that wrote a message with it, in order, and whether as a summary.
  const writers = new Map<string, { number: number; summary: boolean }[]>();
  for (const { number, record } of inspection.compactions) {
    const ids = new Set([...record.replacedIds, ...record.insertedIds, ...(record.summaryId === null ? [] : [record.summaryId])]);
    for (const id of ids) {
      const list = writers.get(id) ?? [];
      list.push({ number, summary: id === record.summaryId });
      writers.set(id, list);
    }
  }
  const writerBefore = (id: string | null, number: number) => {
    const list = id === null ? undefined : writers.get(id);
    let found: { number: number; summary: boolean } | undefined;
    for (const writer of list ?? []) if (writer.number < number) found = writer;
    return found;
  };
  const marks = recallMarks(inspection);
  const original = (message: MessageView, number: number) => {
    const writer = writerBefore(message.id, number);
    if (writer === undefined) return messageArticle(message, "message", null, "", true, marks.forMessage(message));
    const compactionId = inspection.compactions[writer.number - 1]!.record.id;
    const note = `${writer.summary ? "written" : "rewritten"} ${byLink(writer.number)}`;
    return messageArticle(message, writer.summary ? "summary" : "hidden", compactionId, note, true, marks.forMessage(message));
  };
  const parts = inspection.compactions.map((view) => compactionEntry(view, (message) => original(message, view.number), marks));
  const current = inspection.timeline.filter((node): node is Exclude<TimelineNode, { kind: "removed" }> => node.kind !== "removed");
  parts.push(
    `<div class="context-heading" data-kind="context"><h3>The current context</h3> <span class="muted">${plural(current.length, "message")}, ` +
      `${plural(inspection.totals.contextTokens, "token")}: what the model is sent now</span></div>`,
  );
  for (const node of current) parts.push(currentArticle(node, numbers, marks));
  return parts.join("");
}

function compactionEntry(view: CompactionView, original: (message: MessageView) => string, marks: RecallMarks): string {
  const { record } = view;
  const id = escapeHtml(record.id);
  const status = escapeHtml(record.status);
  const tokens = view.originals.reduce((sum, message) => sum + message.tokens, 0);
  const summary =
    view.summary === null
      ? ""
      : `<details class="archived" data-kind="summary-text"><summary>The summary it wrote</summary><pre class="text">\n${escapeHtml(view.summary)}</pre></details>`;
  const replaced =
    view.originals.length === 0
      ? ""
      : `<details class="archived" data-kind="replaced" data-compaction-id="${id}"><summary>What it replaced: ${plural(view.originals.length, "message")}` +
        `${tokens > 0 ? ` <span class="muted">· ${plural(tokens, "token")}</span>` : ""}</summary><div class="nested">${view.originals.map(original).join("")}</div></details>`;
  return (
    `<section class="node compaction${record.status === "failed" ? " failed" : ""}" data-status="${status}" id="compaction-${view.number}" data-kind="compaction" data-compaction-id="${id}">` +
    `<div class="head"><span class="marker-n">#${view.number}</span> <span class="time">${escapeHtml(formatTime(record.at))}</span>` +
    ` <strong>${escapeHtml(record.strategy)}</strong> <span class="status status-${status}">${status}</span><span class="spacer"></span>` +
    `<span class="muted">tokens ${tokensChange(view)} · messages ${messagesChange(view)} · ${formatDuration(record.durationMs)}</span></div>` +
    `<p class="explain"${record.reason ? ` data-reason="${escapeHtml(record.reason)}"` : ""}>${escapeHtml(explanation(view))}</p>` +
    summary +
    replaced +
    marks.forCompaction(record.id) +
    `</section>`
  );
}

function currentArticle(node: Exclude<TimelineNode, { kind: "removed" }>, numbers: ReadonlyMap<string, number>, marks: RecallMarks): string {
  if (node.kind === "message") return messageArticle(node.message, "message", null, "", true, marks.forMessage(node.message));
  const by = byLink(numbers.get(node.compactionId));
  const note = node.kind === "summary" ? `written ${by}` : node.kind === "hidden" ? `rewritten ${by}` : `put in place ${by}`;
  return messageArticle(node.message, node.kind, node.compactionId, note, true, marks.forMessage(node.message));
}


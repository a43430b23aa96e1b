// The recalls on the inspector page: a note on each recall result's article (what it asked for and
// read, linked to the compactions whose archives it read), and, on each of those compactions, links
// back to the recalls that read its archive.
import { RECALL_TOOL_NAME } from "../langgraph/recall-refs.js";
import { escapeHtml, plural } from "./html-format.js";
import type { ArticleExtra } from "./html-message.js";
import type { Inspection, MessageView, RecallView } from "./inspection.js";

/** How the page marks recalls, for one rendering of the page. */
export interface RecallMarks {
  /** The note and attributes of a message's article when it is a recall's result (its first article gets `id="recall-<n>"`). */
  forMessage(message: MessageView): ArticleExtra | undefined;
  /** The links, under compaction `compactionId`'s entry, to the recalls that read its archive ("" for none). */
  forCompaction(compactionId: string): string;
}

/** What a recall asked for and read, in a sentence of HTML. */
function recallNote(recall: RecallView, numbers: ReadonlyMap<string, number>): string {
  const part = recall.parts !== null && recall.parts > 1 ? `, part ${recall.part} of ${recall.parts}` : recall.part > 1 ? `, part ${recall.part}` : "";
  const find = recall.find === null ? "" : ` finding <code>${escapeHtml(recall.find)}</code>`;
  const asked = `recall ${recall.number} of <code>${escapeHtml(recall.ref)}</code>${find}${part}`;
  if (recall.compactionIds.length === 0) return `${asked}: nothing archived under it · ${plural(recall.tokens, "token")} returned`;
  const links = recall.compactionIds.map((id) => {
    const number = numbers.get(id);
    return number === undefined ? "an unlisted compaction" : `<a href="#compaction-${number}">#${number}</a>`;
  });
  return `${asked}: ${plural(recall.originalIds.length, "original")} archived by ${links.join(", ")} · ${plural(recall.tokens, "token")} returned`;
}

/** The recall marks of `inspection` (nothing marked for a thread that never recalled). */
export function recallMarks(inspection: Inspection): RecallMarks {
  const recalls = inspection.recalls ?? [];
  const numbers = new Map(inspection.compactions.map((view) => [view.record.id, view.number]));
  const byCall = new Map(recalls.map((recall) => [recall.callId, recall]));
  const byCompaction = new Map<string, RecallView[]>();
  for (const recall of recalls) {
    // Only a recall with a result has an article to link to.
    if (recall.resultStep === null) continue;
    for (const id of recall.compactionIds) {
      const list = byCompaction.get(id);
      if (list) list.push(recall);
      else byCompaction.set(id, [recall]);
    }
  }
  const placed = new Set<number>();
  return {
    forMessage(message) {
      if (message.type !== "tool" || message.toolName !== RECALL_TOOL_NAME || message.toolCallId === null) return undefined;
      const recall = byCall.get(message.toolCallId);
      if (recall === undefined) return undefined;
      const first = !placed.has(recall.number);
      placed.add(recall.number);
      return {
        attributes: [
          ...(first ? [`id="recall-${recall.number}"`] : []),
          `data-recall="${recall.number}"`,
          `data-recall-ref="${escapeHtml(recall.ref)}"`,
          `data-recall-compaction-ids="${escapeHtml(recall.compactionIds.join(" "))}"`,
        ],
        note: recallNote(recall, numbers),
      };
    },
    forCompaction(compactionId) {
      const list = byCompaction.get(compactionId);
      if (list === undefined) return "";
      const links = list.map((recall) => `<a href="#recall-${recall.number}">recall ${recall.number}</a>`).join(", ");
      return `<p class="recalled-by" data-kind="recalled-by">Its archive was read back by ${links}.</p>`;
    },
  };
}

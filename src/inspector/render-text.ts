import { NO_MODEL_SNAPSHOT_NOTE } from "../summary/no-model-summarizer.js";
import { SUMMARY_MESSAGE_PREFIX } from "../summary/prompts.js";
import type { CompactionView, Inspection, RecallView } from "./inspection.js";

/** Longest summary or reason shown on a compaction's line, in characters. */
const EXCERPT_LENGTH = 80;

const number = (value: number): string => value.toLocaleString("en-US");
const tokens = (value: number | null): string => (value === null ? "?" : number(value));

/** The first line of a text, cut to {@link EXCERPT_LENGTH} characters. */
function excerpt(text: string): string {
  const line = text.trim().split("\n", 1)[0]!.trim();
  return line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH - 1)}…` : line;
}

/**
 * The first line of a summary that says something: the package's preambles (the summary message's
 * prefix, the no-model snapshot's note on quoted tool output) and lines that are only
 * tags (`<state_snapshot>`, `<overall_goal>`) are skipped, and tags around the text are dropped.
 */
function summaryExcerpt(text: string): string {
  for (const raw of text.split("\n")) {
    const line = raw.replace(/<\/?[A-Za-z_][\w-]*>/gu, " ").replace(/\s+/gu, " ").trim();
    if (line === "" || line === SUMMARY_MESSAGE_PREFIX || line === NO_MODEL_SNAPSHOT_NOTE) continue;
    return excerpt(line);
  }
  return excerpt(text);
}

function compactionLine(view: CompactionView): string {
  const { record } = view;
  const note = view.summary !== null ? summaryExcerpt(view.summary) : record.status === "failed" && record.reason !== undefined ? excerpt(record.reason) : "";
  return [
    `#${view.number}`,
    record.at,
    record.strategy,
    record.status,
    `tokens ${tokens(record.tokensBefore)} → ${tokens(record.tokensAfter)}`,
    `messages ${number(record.messagesBefore)} → ${number(record.messagesAfter)}`,
    ...(note === "" ? [] : [`| ${note}`]),
  ].join("  ");
}

function recallLine(recall: RecallView, numbers: ReadonlyMap<string, number>): string {
  const part = recall.parts !== null && recall.parts > 1 ? `part ${recall.part} of ${recall.parts}` : `part ${recall.part}`;
  const read =
    recall.compactionIds.length === 0
      ? "nothing archived under it"
      : `${number(recall.originalIds.length)} original${recall.originalIds.length === 1 ? "" : "s"} archived by ${recall.compactionIds.map((id) => (numbers.has(id) ? `#${numbers.get(id)}` : "?")).join(", ")}`;
  return [`recall ${recall.number}`, `ref ${recall.ref}`, ...(recall.find === null ? [] : [`find ${JSON.stringify(recall.find)}`]), part, read, `${number(recall.tokens)} tokens returned`].join("  ");
}

/**
 * A plain-text summary of an {@link Inspection} for a terminal (`inspect --format text`): the
 * totals (messages stored, the current context, model calls and the peak context sent in one), one line per compaction (number, time, strategy, status, tokens and messages before → after,
 * and the first line of its summary, or of its reason when it failed), the recalls if the agent
 * recalled (one line each: reference, part, the originals and compactions it read, tokens returned)
 * and the warnings. Control
 * characters (terminal escape sequences) in the thread's text are printed as U+FFFD.
 *
 * @example
 * console.log(renderInspectionText(await buildInspection(thread)));
 * // Thread t1
 * // History: 120 messages stored, 45,210 tokens; context now: 31 messages, 8,120 tokens
 * // Model calls: 52; peak context: 9,870 tokens sent in one model call
 * // Compactions: 5 (1 failed), 2 summaries, 9 hidden tool results, 80 messages archived, 37,090 tokens saved in 12.3 ms
 * // #1  2025-01-01T12:00:00.000Z  toolResultHiding  compacted  tokens 9,120 → 2,210  messages 40 → 40
 * // …
 */
export function renderInspectionText(inspection: Inspection): string {
  const { totals } = inspection;
  const lines = [
    `Thread ${inspection.threadId}`,
    `History: ${number(totals.originalMessages)} messages stored, ${number(totals.originalTokens)} tokens; context now: ${number(totals.contextMessages)} messages, ${number(totals.contextTokens)} tokens`,
    `Model calls: ${number(totals.modelCalls)}; peak context: ${number(totals.peakContextTokens)} tokens sent in one model call`,
    `Compactions: ${number(totals.compactions)} (${number(totals.failedCompactions)} failed), ${number(totals.summaries)} summaries, ` +
      `${number(totals.hiddenResults)} hidden tool results, ${number(totals.archivedMessages)} messages archived, ` +
      `${number(totals.tokensSaved)} tokens saved in ${totals.compactionMs.toFixed(1)} ms`,
    ...inspection.compactions.map(compactionLine),
  ];
  const recalls = inspection.recalls ?? [];
  if (recalls.length > 0) {
    const numbers = new Map(inspection.compactions.map((view) => [view.record.id, view.number]));
    lines.push(`Recalls: ${number(recalls.length)}, ${number(recalls.reduce((sum, recall) => sum + recall.tokens, 0))} tokens returned`, ...recalls.map((recall) => recallLine(recall, numbers)));
  }
  if (inspection.warnings.length > 0) lines.push("Warnings:", ...inspection.warnings.map((warning) => `- ${warning}`));
  return `${lines.map(printable).join("\n")}\n`;
}

/**
 * Control characters shown as U+FFFD: a thread's text is untrusted, and an escape sequence in a
 * strategy name or a summary would otherwise drive the terminal it is printed on (colours, titles,
 * hyperlinks, cursor moves), and a newline would forge a line.
 */
function printable(line: string): string {
  return line.replace(/[\u0000-\u001f\u007f-\u009f]/gu, "\uFFFD");
}

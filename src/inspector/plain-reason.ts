// A compaction record's `reason` (terse, in the options' terms, for logs and tests) as plain
// sentences for the inspector's readers; and what a compaction did, from its record's figures.
import type { CompactionRecord } from "../compaction-record.js";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
/** A number as written in the reason (`1057`), with thousands separators (`1,057`). */
const n = (figure: string): string => (/^\d+$/u.test(figure) ? integer.format(Number(figure)) : figure);
const count = (value: number, one: string, many = `${one}s`) => `${integer.format(value)} ${value === 1 ? one : many}`;

const STATUS_WORDS: Readonly<Record<string, string>> = {
  noop: "changed nothing",
  failed: "failed",
  summarized: "summarized",
  compacted: "compacted",
  truncated: "cut messages",
  repaired: "only repaired the history",
};

/** One clause of a reason (the text between `; `), and how it reads in plain words. */
const CLAUSES: readonly (readonly [RegExp, (...groups: string[]) => string])[] = [
  [/^hiding noop: hiding would free at most (\d+) tokens, less than clearAtLeast \((\d+)\)$/u, (freed, least) => `Not enough to hide yet: hiding older tool results would free at most ${n(freed)} tokens, and it needs ${n(least)}`],
  [/^hiding would free (\d+) tokens, less than clearAtLeast \((\d+)\)$/u, (freed, least) => `Not enough to hide yet: hiding older tool results would free ${n(freed)} tokens, and it needs ${n(least)}`],
  [/^no tool result older than the kept groups is left to hide$/u, () => "No tool result older than the recent ones it keeps was left to hide"],
  [/^hiding left (\d+) tokens, above the target (\d+)$/u, (left, target) => `Hiding older tool results would have left ${n(left)} tokens, more than its target of ${n(target)}: a hiding stands on its own only under its target (by default 0.6 of the size that started the compaction), so that the next compaction comes calls later`],
  [/^hiding left the history above the target$/u, () => "Hiding older tool results would have left more tokens than its target, the most a hiding may leave to stand on its own"],
  [/^hiding was a no-op \((.*)\)$/su, (inner) => `Hiding older tool results changed nothing. ${plainReason(inner)}`.replace(/\.$/u, "")],
  [/^hiding skipped by the cost model: saves (\S+) per call over (.+?) = (\S+) < break (\S+)(?: \+ extra call (\S+))?$/u, (perCall, calls, saving, breakCost, extra) =>
    `Hiding was not worth it yet: it would save ${perCall} per call over ${calls} (${saving} in all), less than the ${breakCost} it costs to rewrite the cached prompt${extra ? ` plus ${extra} for the extra call` : ""}`],
  [/^hiding (\w+): (.*)$/su, (status, inner) => `Hiding older tool results ${STATUS_WORDS[status] ?? status}: ${lower(plainReason(inner))}`.replace(/\.$/u, "")],
  [/^summarized instead$/u, () => "So the older messages were summarized instead"],
  [/^over the stand limit (\d+), kept the hiding: a summary follows without a wait$/u, (limit) => `Over ${n(limit)} tokens, too many to wait for a summary: the hidden results went in now, and a summary follows at once`],
  [/^summary the summary left the history over the hard limit$/u, () => "The summary still left the history over the hard limit"],
  [/^summary (\w+): (.*)$/su, (status, inner) => `The summary ${STATUS_WORDS[status] ?? status}: ${lower(plainReason(inner))}`.replace(/\.$/u, "")],
  [/^kept the hiding$/u, () => "The hidden tool results went in instead"],
  [/^under the hard limit (\d+), nothing else done$/u, (limit) => `The history is under the hard limit of ${n(limit)} tokens, so nothing else was done`],
  [/^truncated to the hard limit (\d+)$/u, (limit) => `So the oldest messages were cut to fit the hard limit of ${n(limit)} tokens`],
  [/^hard-limit truncation (\w+): (.*)$/su, (status, inner) => `Cutting to the hard limit ${STATUS_WORDS[status] ?? status}: ${lower(plainReason(inner))}`.replace(/\.$/u, "")],
  [/^the summary prepared ahead is still being written$/u, () => "The summary being written ahead is not ready yet"],
  [/^the history stands \(under (\d+) tokens\) until it is ready$/u, (limit) => `The history stays as it is (under ${n(limit)} tokens) until it is ready`],
  [/^the summary of the first (\d+) messages is being prepared$/u, (cut) => `A summary of the first ${n(cut)} messages is being written ahead`],
  [/^no summary prepared: hiding will be enough at the firing$/u, () => "No summary is written ahead: hiding older tool results will be enough"],
  [/^no summary prepared: it would not leave room enough at the firing$/u, () => "No summary is written ahead: it would not leave enough room"],
  [/^the prepared summary could not be placed: (.*)$/su, (inner) => `The summary written ahead could not be used: ${lower(plainReason(inner))}`.replace(/\.$/u, "")],
  [/^the prepared summary left (\d+) tokens, above (\d+)$/u, (left, target) => `The summary written ahead would have left ${n(left)} tokens, more than ${n(target)}`],
  [/^summaries are not prepared ahead$/u, () => "Summaries are not written ahead"],
  [/^(\d+) tokens, (\d+) messages: under the trigger$/u, (tokens, messages) => `Not due yet: ${n(tokens)} tokens in ${n(messages)} messages, under the size that starts a compaction`],
  [/^(\d+) tokens \((\d+) besides system messages\), (\d+) messages: under the trigger and the threshold (\d+) \(([\d.]+) of (\d+)\)$/u, (tokens, conversation, messages, threshold, fraction, window) =>
    `Not due yet: ${n(tokens)} tokens (${n(conversation)} besides system messages) in ${n(messages)} messages, under the ${n(threshold)} (${fraction} of the ${n(window)}-token window) that starts a compaction`],
  [/^already at (\d+) tokens, within target (\d+)$/u, (tokens, target) => `Already at ${n(tokens)} tokens, within its target of ${n(target)}, the size it compacts down to`],
  [/^no rule could remove anything$/u, () => "No rule could remove anything"],
  [/^still (\d+) tokens over target (\d+)$/u, (tokens, target) => `Still ${n(tokens)} tokens, over its target of ${n(target)}, the size it compacts down to`],
  [/^rules exhausted at (\d+) tokens, over target (\d+)$/u, (tokens, target) => `Every rule was applied and ${n(tokens)} tokens remain, over its target of ${n(target)}, the size it compacts down to`],
  [/^(\d+) user turn\(s\), within keepTurns (\d+)$/u, (turns, keep) => `Only ${count(Number(turns), "user turn")}, no more than the ${n(keep)} it keeps`],
  [/^(\d+) tokens, within maxTokens (\d+)$/u, (tokens, limit) => `${n(tokens)} tokens, within the limit of ${n(limit)}`],
  [/^inflated: the summarized history would have (\d+) tokens, not fewer than the (\d+) before$/u, (after, before) => `The summary would have made the history longer: ${n(after)} tokens, not fewer than the ${n(before)} before`],
  [/^nothing older than the (\d+) message\(s\) to keep$/u, (keep) => `Nothing is older than the ${count(Number(keep), "message")} it keeps`],
  [/^the conversation is within the (\d+) tokens to keep$/u, (keep) => `The conversation fits in the ${n(keep)} tokens it keeps`],
  [/^(\w+) (noop|failed): (.*)$/su, (strategy, status, inner) => `${/summary/iu.test(strategy) ? "The summary" : "The next step"} ${STATUS_WORDS[status]}: ${lower(plainReason(inner))}`.replace(/\.$/u, "")],
];

/** `text` with its first letter in lower case, unless it starts a name or an acronym (`HTTP`, `Error`). */
function lower(text: string): string {
  return /^[A-Z][a-z]/u.test(text) && !/^(?:Error|TypeError|RangeError|[A-Z]\w*Error)\b/u.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** A clause as a sentence: its plain words, capitalized, ending in a full stop. */
function sentence(clause: string): string {
  const trimmed = clause.trim();
  let text = trimmed;
  for (const [pattern, plain] of CLAUSES) {
    const match = pattern.exec(trimmed);
    if (match) {
      text = plain(...match.slice(1).map((group) => group ?? ""));
      break;
    }
  }
  if (text === "") return "";
  text = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?)]$/u.test(text) ? text : `${text}.`;
}

/**
 * A record's `reason` as plain sentences: each of its clauses (`a; b`) in everyday words, with the
 * options' names left out and figures written with thousands separators, e.g. `hiding noop: hiding
 * would free at most 1057 tokens, less than clearAtLeast (2000); summarized instead` reads "Not
 * enough to hide yet: hiding older tool results would free at most 1,057 tokens, and it needs
 * 2,000. So the older messages were summarized instead." A clause it does not know (an error's
 * message) is kept as it is, as a sentence.
 */
export function plainReason(reason: string): string {
  // Clauses are joined by "; ", except inside the parentheses of "hiding was a no-op (...)".
  const clauses: string[] = [];
  let depth = 0;
  let start = 0;
  for (let position = 0; position < reason.length; position++) {
    const character = reason[position];
    if (character === "(") depth++;
    else if (character === ")") depth = Math.max(0, depth - 1);
    else if (character === ";" && depth === 0 && reason[position + 1] === " ") {
      clauses.push(reason.slice(start, position));
      start = position + 2;
    }
  }
  clauses.push(reason.slice(start));
  return clauses.map(sentence).filter((text) => text !== "").join(" ");
}

/**
 * What a compaction did, in one sentence from its record: what it summarized, hid, cut or kept.
 * With the types of the originals it archived (`tool`, `ai`...), a rewrite in place says which
 * (`Hid 9 older tool results and shortened 10 older assistant messages in place.`).
 */
export function compactionDid(record: CompactionRecord, originalTypes?: readonly string[]): string {
  const removed = record.removedIds.length;
  const replaced = record.replacedIds.length;
  switch (record.status) {
    case "summarized":
      return `Summarized ${count(removed + replaced, "older message")} into one.`;
    case "compacted":
      if (removed === 0 && originalTypes !== undefined && originalTypes.length === replaced && replaced > 0) {
        const tools = originalTypes.filter((type) => type === "tool").length;
        const assistants = originalTypes.filter((type) => type === "ai").length;
        if (tools + assistants === replaced) {
          const parts = [...(tools > 0 ? [`hid ${count(tools, "older tool result")}`] : []), ...(assistants > 0 ? [`shortened ${count(assistants, "older assistant message")}`] : [])];
          const text = `${parts.join(" and ")} in place.`;
          return text[0]!.toUpperCase() + text.slice(1);
        }
      }
      if (removed === 0) return `Replaced ${count(replaced, "message")} in place with shorter copies.`;
      return `Removed ${count(removed, "message")} and replaced ${count(replaced, "message")} in place with shorter copies.`;
    case "truncated":
      return record.summaryId === null
        ? `Cut ${count(removed + replaced, "of the oldest message", "of the oldest messages")} to fit.`
        : `Summarized older messages, then cut ${count(removed + replaced, "message")} in all to fit.`;
    case "repaired":
      return `Only repaired the history (${count(removed + replaced + (record.repair?.movedIds.length ?? 0), "message")} fixed); nothing was compacted.`;
    case "failed":
      return "Failed: the messages were left as they were.";
    case "noop":
      return "Changed nothing.";
    default:
      return `Ended as "${record.status}".`;
  }
}

/**
 * Reading summaries: the block a summary model answers with, and the body of a summary message.
 * A summary may quote a tag of its own format (a summary of a conversation about these prompts, a
 * tool output that printed one), so a block runs from its first opening tag to its last closing tag:
 * a closing tag inside the text does not end it.
 */
import { LEGACY_SUMMARY_MESSAGE_PREFIXES, SUMMARY_MESSAGE_PREFIX } from "./prompts.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * What lies inside `<tag>...</tag>` in `text`: from the end of the first opening tag to the start of
 * the last closing tag after it; the rest of the text when no closing tag follows; from the start to
 * the last closing tag when there is a closing tag but no opening one. `undefined` when `text` has
 * neither. Tags match without regard to case. Not trimmed.
 *
 * @example
 * tagContent("<a>x</a> and </a> y</a>", "a"); // "x</a> and </a> y"
 * tagContent("<a>cut off", "a"); // "cut off"
 * tagContent("no tags", "a"); // undefined
 */
export function tagContent(text: string, tag: string): string | undefined {
  const name = escapeRegExp(tag);
  const open = new RegExp(`<${name}>`, "i").exec(text);
  const start = open ? open.index + open[0].length : 0;
  let end = -1;
  const closing = new RegExp(`</${name}>`, "gi");
  closing.lastIndex = start;
  for (let match = closing.exec(text); match !== null; match = closing.exec(text)) end = match.index;
  if (!open && end < 0) return undefined;
  return text.slice(start, end < 0 ? text.length : end);
}

/**
 * The `<tag>` block of a summary model's answer, rewrapped as `<tag>\n...\n</tag>`: everything from
 * the first `<tag>` to the last `</tag>` (see {@link tagContent}), so a literal `</tag>` inside the
 * summary keeps the sections after it. An answer that was cut off before its closing tag keeps what
 * it has; an answer without the tags is taken whole. Empty when there is no content.
 *
 * @example
 * extractBlock("Here it is:\n<summary>\nuse `</summary>` to close\n2. Next Steps\n</summary>", "summary");
 * // "<summary>\nuse `</summary>` to close\n2. Next Steps\n</summary>"
 * extractBlock("1. Task Overview ...", "summary"); // "<summary>\n1. Task Overview ...\n</summary>"
 */
export function extractBlock(answer: string, tag: string): string {
  const inner = (tagContent(answer, tag) ?? answer).trim();
  return inner === "" ? "" : `<${tag}>\n${inner}\n</${tag}>`;
}

/**
 * A summary message's text without its prefix (this version's {@link SUMMARY_MESSAGE_PREFIX}, or an
 * earlier version's) and without the artifact index after it, which is kept separately.
 *
 * @example
 * summaryBody(`${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\ngoal\n</summary>\n\n<artifact_index>...`); // "<summary>\ngoal\n</summary>"
 */
export function summaryBody(text: string): string {
  const prefix = [SUMMARY_MESSAGE_PREFIX, ...LEGACY_SUMMARY_MESSAGE_PREFIXES].find((candidate) => text.startsWith(candidate));
  let body = prefix === undefined ? text : text.slice(prefix.length);
  const index = body.lastIndexOf("<artifact_index>");
  if (index >= 0) body = body.slice(0, index);
  return body.trim();
}

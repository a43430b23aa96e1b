// One message of the inspector page's timeline, as an `<article>`.
import { escapeHtml, plural } from "./html-format.js";
import type { MessageView } from "./inspection.js";

const TYPE_LABELS: Readonly<Record<string, string>> = { human: "Human", ai: "AI", tool: "Tool", system: "System" };

/** More a caller says about a message: attributes of its article and a note (HTML) in its head. */
export interface ArticleExtra {
  readonly attributes: readonly string[];
  readonly note: string;
}

/**
 * A message as an `<article>`; closed unless `close` is false (the caller then appends the collapsed
 * originals and closes it).
 */
export function messageArticle(
  message: MessageView,
  kind: "message" | "summary" | "replacement" | "hidden",
  compactionId: string | null,
  note: string,
  close = true,
  extra?: ArticleExtra,
): string {
  const type = escapeHtml(message.type);
  const attributes = [
    `class="node msg type-${type} kind-${kind}"`,
    `data-kind="${kind}"`,
    `data-type="${type}"`,
    message.id === null ? "" : `data-message-id="${escapeHtml(message.id)}"`,
    compactionId === null ? "" : `data-compaction-id="${escapeHtml(compactionId)}"`,
    ...(extra?.attributes ?? []),
  ].filter((attribute) => attribute !== "");
  const head: string[] = [`<span class="type">${escapeHtml(TYPE_LABELS[message.type] ?? message.type)}</span>`];
  if (message.toolName !== null) head.push(`<span class="tool-name">${escapeHtml(message.toolName)}</span>`);
  if (message.toolCallId !== null) head.push(`<span class="muted">answers <code>${escapeHtml(message.toolCallId)}</code></span>`);
  if (note !== "") head.push(`<span class="note">${note}</span>`);
  if (extra && extra.note !== "") head.push(`<span class="note recall-note">${extra.note}</span>`);
  head.push(`<span class="spacer"></span>`);
  if (message.id !== null) head.push(`<code class="muted id">${escapeHtml(message.id)}</code>`);
  head.push(`<span class="muted">${plural(message.tokens, "token")}</span>`);
  // The newline after <pre> is the one the HTML parser drops, so a text's own leading newline stays.
  const body = message.text === "" ? "" : `<pre class="text">\n${escapeHtml(message.text)}</pre>`;
  const calls =
    message.toolCalls.length === 0
      ? ""
      : `<ul class="calls">${message.toolCalls
          .map((call) => `<li><span class="call-label">calls</span> <span class="tool-name">${escapeHtml(call.name)}</span> <code class="muted">${escapeHtml(call.id)}</code><pre class="args">\n${escapeHtml(call.args)}</pre></li>`)
          .join("")}</ul>`;
  return `<article ${attributes.join(" ")}><div class="head">${head.join(" ")}</div>${body}${calls}${close ? "</article>" : ""}`;
}

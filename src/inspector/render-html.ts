import { createHash } from "node:crypto";
import type { ChartPoint, CompactionView, Inspection, InspectionTotals, MessageView, TimelineNode } from "./inspection.js";

/** Options of {@link renderInspectionHtml}. */
export interface RenderHtmlOptions {
  /** The page's title. @default `Compaction inspector: <thread id>` */
  readonly title?: string;
}

/**
 * Render an {@link Inspection} as one self-contained HTML page: totals in a header, the compaction
 * list, a chart of context tokens per step (inline SVG) and the conversation timeline, in which
 * everything a compaction took out of the context sits collapsed in place (`<details>`, so it expands
 * without JavaScript; nested for repeated compactions). The page loads nothing from the network: its
 * CSS and its small script are inline. All message text is escaped.
 *
 * Stable hooks for tests and tools: timeline nodes carry `data-kind` (`message`, `summary`, `hidden`,
 * `replacement`, `removed`), `data-message-id` and `data-compaction-id`; collapsed regions are
 * `<details>` with `data-kind` `originals`, `original` or `removed`; compaction markers are `.marker`
 * elements with id `compaction-<n>`, at the first node of their compaction or, for one that left no
 * node (failed, no-op), after the message it saw last, as it was then (a summary it saw, not that
 * summary's collapsed originals); header figures carry `data-total="<InspectionTotals key>"`.
 *
 * Without JavaScript every region still expands, except those nested more than 60 levels deep
 * (a thread summarized over and over), which the page's script moves into place when opened.
 *
 * @example
 * const inspection = await buildInspection(await loadThreadFromSqlite("agent.sqlite", "t1"));
 * writeFileSync("report.html", renderInspectionHtml(inspection));
 */
export function renderInspectionHtml(inspection: Inspection, options: RenderHtmlOptions = {}): string {
  const title = options.title ?? `Compaction inspector: ${inspection.threadId}`;
  const numbers = new Map(inspection.compactions.map((view) => [view.record.id, view.number]));
  // The timeline is rendered first: the compaction list links only to markers it actually placed.
  const timeline = new TimelineRenderer(inspection.compactions, numbers);
  const timelineHtml = timeline.render(inspection.timeline);
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Belt and braces: even a message that slipped past escaping could load nothing.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head><body>",
    '<header class="page-header">',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">Thread <code data-thread-id>${escapeHtml(inspection.threadId)}</code> · generated ${escapeHtml(formatTime(inspection.generatedAt))}</p>`,
    renderTotals(inspection.totals),
    "</header><main>",
    renderWarnings(inspection.warnings),
    renderChart(inspection.chart, inspection.compactions, timeline.placed),
    renderCompactionList(inspection.compactions, timeline.placed),
    `<section class="timeline-section"><h2>Timeline</h2>`,
    `<p class="hint">The current context, oldest first. What a compaction took out of it is collapsed in place: open a region to read the originals.</p>`,
    `<div id="timeline" class="timeline">${timelineHtml}</div></section>`,
    "</main>",
    ...timeline.templates,
    `<script>${SCRIPT}</script>`,
    "</body></html>",
  ].join("\n");
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escape text for HTML element content and quoted attribute values.
 *
 * @example
 * escapeHtml('<script>alert("x")</script>'); // "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : integer.format(value);
}

function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "—";
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${integer.format(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** ISO times shown as written (UTC), without the machine's locale or time zone. */
function formatTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT/.test(iso) ? iso.replace("T", " ").replace(/Z$/, " UTC") : iso;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

const HISTORY_NOTE = "the thread's full original history, with everything compactions archived put back";
const PEAK_NOTE = "tokens sent in one model call, the largest: the context right before an assistant message, after the compactions that ran there";

const TOTALS: readonly { readonly key: keyof InspectionTotals; readonly label: string; readonly note?: string; readonly format?: (value: number) => string }[] = [
  { key: "originalMessages", label: "messages stored", note: HISTORY_NOTE },
  { key: "originalTokens", label: "tokens in history", note: HISTORY_NOTE },
  { key: "contextMessages", label: "messages in context" },
  { key: "contextTokens", label: "tokens in context" },
  { key: "modelCalls", label: "model calls", note: "the assistant messages of the history, each the answer to one model call" },
  { key: "peakContextTokens", label: "peak context (tokens sent in one model call)", note: PEAK_NOTE },
  { key: "compactions", label: "compactions" },
  { key: "failedCompactions", label: "failed" },
  { key: "summaries", label: "summaries" },
  { key: "hiddenResults", label: "hidden tool results" },
  { key: "archivedMessages", label: "archived messages" },
  { key: "tokensSaved", label: "tokens saved" },
  { key: "compactionMs", label: "spent compacting", format: (value) => formatDuration(value) },
];

function renderTotals(totals: InspectionTotals): string {
  const cells = TOTALS.map(({ key, label, note, format }) => {
    const value = totals[key];
    return `<div${note ? ` title="${escapeHtml(note)}"` : ""} class="total${key === "failedCompactions" && value > 0 ? " bad" : ""}"><span class="figure" data-total="${key}">${escapeHtml(format ? format(value) : formatNumber(value))}</span><span class="label">${label}</span></div>`;
  });
  return `<div class="totals">${cells.join("")}</div>`;
}

function renderWarnings(warnings: readonly string[]): string {
  if (warnings.length === 0) return "";
  const items = warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join("");
  return `<section class="warnings" data-kind="warnings"><h2>Warnings</h2><ul>${items}</ul></section>`;
}

function tokensChange(view: CompactionView): string {
  return `${formatNumber(view.record.tokensBefore)} → ${formatNumber(view.record.tokensAfter)}`;
}

function messagesChange(view: CompactionView): string {
  return `${formatNumber(view.record.messagesBefore)} → ${formatNumber(view.record.messagesAfter)}`;
}

function renderCompactionList(compactions: readonly CompactionView[], placed: ReadonlySet<string>): string {
  if (compactions.length === 0) {
    return `<section class="compactions"><h2>Compactions</h2><p class="empty" data-kind="no-compactions">This thread was never compacted.</p></section>`;
  }
  const rows = compactions.map((view) => {
    const { record } = view;
    const label = `#${view.number}`;
    const link = placed.has(record.id) ? `<a href="#compaction-${view.number}">${label}</a>` : `<span title="not placed in the timeline">${label}</span>`;
    return (
      `<tr data-compaction-id="${escapeHtml(record.id)}">` +
      `<td class="n">${link}</td>` +
      `<td class="time">${escapeHtml(formatTime(record.at))}</td>` +
      `<td>${escapeHtml(record.strategy)}</td>` +
      `<td><span class="status status-${escapeHtml(record.status)}">${escapeHtml(record.status)}</span></td>` +
      `<td class="num">${tokensChange(view)}</td>` +
      `<td class="num">${messagesChange(view)}</td>` +
      `<td class="num">${formatNumber(view.archivedMessages)}</td>` +
      `<td class="num">${formatDuration(record.durationMs)}</td>` +
      `<td class="reason">${escapeHtml(record.reason ?? "")}</td></tr>`
    );
  });
  return (
    `<section class="compactions"><h2>Compactions</h2><div class="table-wrap"><table>` +
    `<thead><tr><th>#</th><th>time</th><th>strategy</th><th>status</th><th class="num">tokens</th><th class="num">messages</th><th class="num">archived</th><th class="num">duration</th><th>reason</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div></section>`
  );
}

const CHART = { width: 1160, height: 240, left: 64, right: 16, top: 24, bottom: 36 } as const;

/** Round tick spacing: 1, 2 or 5 times a power of ten, giving at most `count` ticks. */
function tickStep(max: number, count: number): number {
  if (max <= 0) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw)!;
  return Math.max(1, step);
}

function renderChart(points: readonly ChartPoint[], compactions: readonly CompactionView[], placed: ReadonlySet<string>): string {
  const heading = `<h2>Context tokens per step</h2>`;
  if (points.length === 0) return `<section class="chart">${heading}<p class="empty">No messages.</p></section>`;
  const { width, height, left, right, top, bottom } = CHART;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const lastStep = Math.max(1, points[points.length - 1]!.step);
  // A loop, not Math.max(...spread): a long thread's points would exceed the argument limit.
  let maxTokens = 1;
  for (const point of points) maxTokens = Math.max(maxTokens, point.tokens, point.after ?? 0);
  const yStep = tickStep(maxTokens, 4);
  const yMax = Math.ceil(maxTokens / yStep) * yStep;
  const x = (step: number) => left + (step / lastStep) * plotWidth;
  const y = (tokens: number) => top + plotHeight - (tokens / yMax) * plotHeight;
  const round = (value: number) => Math.round(value * 10) / 10;
  const parts: string[] = [];
  for (let tick = 0; tick <= yMax; tick += yStep) {
    parts.push(`<line class="grid" x1="${left}" x2="${width - right}" y1="${round(y(tick))}" y2="${round(y(tick))}"/>`);
    parts.push(`<text class="axis" x="${left - 6}" y="${round(y(tick)) + 4}" text-anchor="end">${formatNumber(tick)}</text>`);
  }
  const xStep = tickStep(lastStep, 10);
  for (let tick = 0; tick <= lastStep; tick += xStep) {
    parts.push(`<text class="axis" x="${round(x(tick))}" y="${height - bottom + 16}" text-anchor="middle">${formatNumber(tick)}</text>`);
  }
  parts.push(`<text class="axis-title" x="${left + plotWidth / 2}" y="${height - 4}" text-anchor="middle">step (message of the full history)</text>`);
  let lastLabelX = -Infinity;
  for (const view of compactions) {
    if (view.step === null) continue;
    const at = round(x(points[view.step]?.step ?? view.step));
    // Labels of close compactions would overprint each other: the line stays, the label is dropped (the tooltip keeps it).
    const label = at - lastLabelX >= 22 ? `<text class="marker-label" x="${at}" y="${top - 8}" text-anchor="middle">#${view.number}</text>` : "";
    if (label !== "") lastLabelX = at;
    const tooltip = `#${view.number} ${view.record.strategy} (${view.record.status}) at step ${view.step}: tokens ${tokensChange(view)}, messages ${messagesChange(view)}`;
    // A link to the marker in the timeline when there is one; the wide transparent rect is what the pointer hits.
    const [open, close] = placed.has(view.record.id) ? [`<a href="#compaction-${view.number}"`, "</a>"] : ["<g", "</g>"];
    parts.push(
      `${open} class="chart-marker status-${escapeHtml(view.record.status)}" data-compaction-id="${escapeHtml(view.record.id)}">` +
        `<title>${escapeHtml(tooltip)}</title><line x1="${at}" x2="${at}" y1="${top}" y2="${top + plotHeight}"/>` +
        `<rect x="${at - 5}" y="${top - 20}" width="10" height="${plotHeight + 20}" fill="transparent"/>${label}${close}`,
    );
  }
  // A compaction's drop is vertical: the step's point, then the context after it at the same step.
  const line = points
    .map((point) => `${round(x(point.step))},${round(y(point.tokens))}${point.after === undefined ? "" : ` ${round(x(point.step))},${round(y(point.after))}`}`)
    .join(" ");
  parts.push(`<polyline class="tokens" points="${line}"/>`);
  const peak = points.reduce((best, point) => (point.tokens > best.tokens ? point : best));
  const summary = `Context tokens after each of ${plural(points.length, "step")}; highest ${formatNumber(peak.tokens)} tokens at step ${peak.step}; ${plural(compactions.filter((view) => view.step !== null).length, "compaction")} marked.`;
  return (
    `<section class="chart">${heading}<p class="hint">${escapeHtml(summary)} Hover a marker for its figures; click it to go to its point in the timeline.</p>` +
    `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(summary)}" data-kind="chart">${parts.join("")}</svg></section>`
  );
}

/**
 * Collapsed regions nested deeper than this are written into a `<template>` at the end of the page
 * and moved into place when opened: HTML parsers stop nesting elements at a fixed depth (512 in
 * Chromium) and would flatten a thread summarized hundreds of times over.
 */
const MAX_INLINE_LEVELS = 60;

/** Regions nested deeper than this are not indented further. */
const INDENTED_LEVELS = 4;

/** How deep a node sits: in collapsed regions of the current output (page or template), and in all. */
interface Nesting {
  readonly inline: number;
  readonly depth: number;
}

/** One step of the timeline's rendering; an explicit stack, as a long thread nests thousands deep. */
type RenderTask =
  | { readonly task: "node"; readonly node: TimelineNode; readonly nesting: Nesting }
  | { readonly task: "html"; readonly html: string }
  /**
   * The end of a node standing for message `messageId`, made by compaction number `producer` (0 for
   * a message no compaction made): where a compaction that left no node and saw it last is marked.
   */
  | { readonly task: "after"; readonly messageId: string | null; readonly producer: number }
  | { readonly task: "begin-template" }
  | { readonly task: "end-template"; readonly templateId: string };

/** A place in an output buffer (the page's or a template's), filled once the timeline is done. */
interface Slot {
  readonly buffer: string[];
  readonly index: number;
}

/** Renders the timeline tree, placing each compaction's marker at its first node in document order. */
class TimelineRenderer {
  /** Ids of the compactions whose marker is in the timeline. */
  readonly placed = new Set<string>();
  /** The `<template>`s of deeply nested regions, for the end of the page. */
  readonly templates: string[] = [];
  private readonly byId: Map<string, CompactionView>;
  /** Compactions that left no node, by the id of the newest message they saw. */
  private readonly afterMessage = new Map<string, CompactionView[]>();
  /** Where each of those goes: the last fitting place in document order (the outermost node). */
  private readonly slotOf = new Map<CompactionView, Slot>();
  private out: string[] = [];
  private templateCount = 0;
  /** Message leaves rendered so far: the leaves in order are the restored history, so this is the step. */
  private leaves = 0;

  constructor(
    compactions: readonly CompactionView[],
    private readonly numbers: ReadonlyMap<string, number>,
  ) {
    this.byId = new Map(compactions.map((view) => [view.record.id, view]));
  }

  render(nodes: readonly TimelineNode[]): string {
    const withNodes = compactionsWithNodes(nodes);
    for (const view of this.byId.values()) {
      const anchor = view.record.lastMessageId;
      if (withNodes.has(view.record.id) || anchor === undefined || anchor === null || view.step === null) continue;
      const list = this.afterMessage.get(anchor) ?? [];
      list.push(view);
      this.afterMessage.set(anchor, list);
    }
    const buffers: string[][] = [];
    const templates: { readonly id: string; readonly parts: string[] }[] = [];
    const top: Nesting = { inline: 0, depth: 0 };
    const stack: RenderTask[] = nodes.map((node) => ({ task: "node" as const, node, nesting: top })).reverse();
    while (stack.length > 0) {
      const next = stack.pop()!;
      switch (next.task) {
        case "html":
          this.out.push(next.html);
          break;
        case "after":
          this.noteAfter(next.messageId, next.producer);
          break;
        case "begin-template":
          buffers.push(this.out);
          this.out = [];
          break;
        case "end-template":
          // Joined at the end: a marker may still be written into it.
          templates.push({ id: next.templateId, parts: this.out });
          this.out = buffers.pop()!;
          break;
        case "node":
          // Pushed in reverse: the stack pops them in document order.
          for (const task of this.node(next.node, next.nesting).reverse()) stack.push(task);
          break;
      }
    }
    const bySlot = new Map<Slot, CompactionView[]>();
    for (const [view, slot] of this.slotOf) bySlot.set(slot, [...(bySlot.get(slot) ?? []), view]);
    for (const [slot, views] of bySlot) {
      slot.buffer[slot.index] = views
        .sort((first, second) => first.number - second.number)
        .map((view) => this.markerHtml(view))
        .join("");
    }
    for (const template of templates) this.templates.push(`<template id="${template.id}" data-lazy>${template.parts.join("")}</template>`);
    return this.out.join("");
  }

  /**
   * A node standing for `messageId` ends here, at the current step. A compaction that left no node
   * and saw that message last at this step goes here if the node existed when it ran (made by an
   * earlier compaction); a later fitting place, an outer node, replaces an earlier one.
   */
  private noteAfter(messageId: string | null, producer: number): void {
    const views = messageId === null ? undefined : this.afterMessage.get(messageId);
    if (views === undefined) return;
    const step = this.leaves - 1;
    let slot: Slot | undefined;
    for (const view of views) {
      if (view.step !== step || producer >= view.number) continue;
      slot ??= { buffer: this.out, index: this.out.push("") - 1 };
      this.slotOf.set(view, slot);
      this.placed.add(view.record.id);
    }
  }

  /** Writes the node's marker, if it is its compaction's first node, and returns the node's tasks in order. */
  private node(node: TimelineNode, nesting: Nesting): RenderTask[] {
    const html = (text: string): RenderTask => ({ task: "html", html: text });
    if (node.kind === "message") {
      this.leaves += 1;
      return [html(messageArticle(node.message, "message", null, "")), { task: "after", messageId: node.message.id, producer: 0 }];
    }
    this.marker(node.compactionId);
    const id = escapeHtml(node.compactionId);
    const by = this.byLink(node.compactionId);
    // A compaction missing from the log made it at no known time: no compaction that left no node is placed after it.
    const producer = this.numbers.get(node.compactionId) ?? Number.POSITIVE_INFINITY;
    switch (node.kind) {
      case "summary":
        return [
          html(messageArticle(node.message, "summary", node.compactionId, `written ${by}`, false)),
          html(`<details class="archived" data-kind="originals" data-compaction-id="${id}">`),
          html(`<summary>${plural(node.originals.length, "archived original")}${originalsTokens(node.originals)}</summary>`),
          ...this.region(node.originals, nesting),
          html("</details></article>"),
          { task: "after", messageId: node.message.id, producer },
        ];
      case "replacement":
        return [
          html(messageArticle(node.message, "replacement", node.compactionId, `put in place ${by}`, false)),
          ...(node.originals.length === 0
            ? []
            : [
                html(`<details class="archived" data-kind="originals" data-compaction-id="${id}">`),
                html(`<summary>${plural(node.originals.length, "archived original")}${originalsTokens(node.originals)}</summary>`),
                ...this.region(node.originals, nesting),
                html("</details>"),
              ]),
          html("</article>"),
          { task: "after", messageId: node.message.id, producer },
        ];
      case "hidden":
        return [
          html(messageArticle(node.message, "hidden", node.compactionId, `rewritten ${by}`, false)),
          html(`<details class="archived" data-kind="original" data-compaction-id="${id}">`),
          html(`<summary>Original${originalsTokens([node.original])}</summary>`),
          ...this.region([node.original], nesting),
          html("</details></article>"),
          { task: "after", messageId: node.message.id, producer },
        ];
      case "removed":
        return [
          html(`<div class="node removed" data-kind="removed" data-compaction-id="${id}">`),
          html(`<details class="archived" data-kind="removed" data-compaction-id="${id}">`),
          html(`<summary>${plural(node.originals.length, "message")} removed ${by}${originalsTokens(node.originals)}</summary>`),
          ...this.region(node.originals, nesting),
          html("</details></div>"),
        ];
    }
  }

  /** The content of a collapsed region: inline, or (too deep) a placeholder and a template. */
  private region(nodes: readonly TimelineNode[], nesting: Nesting): RenderTask[] {
    const depth = nesting.depth + 1;
    // Past a few levels, indenting would push a deeply nested thread off the page's right edge.
    const classes = depth > INDENTED_LEVELS ? "nested deep" : "nested";
    if (nesting.inline + 1 <= MAX_INLINE_LEVELS) {
      const inner: Nesting = { inline: nesting.inline + 1, depth };
      return [{ task: "html", html: `<div class="${classes}">` }, ...nodes.map((node) => ({ task: "node" as const, node, nesting: inner })), { task: "html", html: "</div>" }];
    }
    this.templateCount += 1;
    const templateId = `lazy-${this.templateCount}`;
    return [
      { task: "html", html: `<div class="${classes}" data-lazy="${templateId}"><p class="empty">Nested too deep to show without JavaScript.</p></div>` },
      { task: "begin-template" },
      ...nodes.map((node) => ({ task: "node" as const, node, nesting: { inline: 0, depth } })),
      { task: "end-template", templateId },
    ];
  }

  private byLink(compactionId: string): string {
    const number = this.numbers.get(compactionId);
    return number === undefined ? "by an unlisted compaction" : `by <a href="#compaction-${number}">#${number}</a>`;
  }

  private marker(compactionId: string): void {
    const view = this.byId.get(compactionId);
    if (view === undefined || this.placed.has(compactionId)) return;
    this.placed.add(compactionId);
    this.out.push(this.markerHtml(view));
  }

  private markerHtml(view: CompactionView): string {
    const { record } = view;
    const reason = record.reason ? ` · <span class="reason">${escapeHtml(record.reason)}</span>` : "";
    return (
      `<div class="marker status-${escapeHtml(record.status)}" id="compaction-${view.number}" data-kind="marker" data-compaction-id="${escapeHtml(record.id)}">` +
        `<span class="marker-n">#${view.number}</span> <span class="time">${escapeHtml(formatTime(record.at))}</span>` +
        ` · <strong>${escapeHtml(record.strategy)}</strong> <span class="status status-${escapeHtml(record.status)}">${escapeHtml(record.status)}</span>` +
        ` · tokens ${tokensChange(view)} · messages ${messagesChange(view)} · ${formatDuration(record.durationMs)}${reason}</div>`
    );
  }
}

/** Ids of the compactions that have at least one node in the tree. */
function compactionsWithNodes(nodes: readonly TimelineNode[]): Set<string> {
  const ids = new Set<string>();
  const stack: TimelineNode[] = [...nodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.kind !== "message") ids.add(node.compactionId);
    if (node.kind === "summary" || node.kind === "replacement" || node.kind === "removed") for (const original of node.originals) stack.push(original);
    if (node.kind === "hidden") stack.push(node.original);
  }
  return ids;
}

function originalsTokens(nodes: readonly TimelineNode[]): string {
  let tokens = 0;
  for (const node of nodes) if (node.kind !== "removed") tokens += node.message.tokens;
  return tokens > 0 ? ` <span class="muted">· ${plural(tokens, "token")}</span>` : "";
}

const TYPE_LABELS: Readonly<Record<string, string>> = { human: "Human", ai: "AI", tool: "Tool", system: "System" };

/**
 * A message as an `<article>`; closed unless `close` is false (the caller then appends the collapsed
 * originals and closes it).
 */
function messageArticle(message: MessageView, kind: "message" | "summary" | "replacement" | "hidden", compactionId: string | null, note: string, close = true): string {
  const type = escapeHtml(message.type);
  const attributes = [
    `class="node msg type-${type} kind-${kind}"`,
    `data-kind="${kind}"`,
    `data-type="${type}"`,
    message.id === null ? "" : `data-message-id="${escapeHtml(message.id)}"`,
    compactionId === null ? "" : `data-compaction-id="${escapeHtml(compactionId)}"`,
  ].filter((attribute) => attribute !== "");
  const head: string[] = [`<span class="type">${escapeHtml(TYPE_LABELS[message.type] ?? message.type)}</span>`];
  if (message.toolName !== null) head.push(`<span class="tool-name">${escapeHtml(message.toolName)}</span>`);
  if (message.toolCallId !== null) head.push(`<span class="muted">answers <code>${escapeHtml(message.toolCallId)}</code></span>`);
  if (note !== "") head.push(`<span class="note">${note}</span>`);
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

const STYLE = `
:root{--text:#1f2328;--muted:#656d76;--line:#d0d7de;--soft:#f6f8fa;--accent:#0969da;--summary:#8250df;--hidden:#9a6700;--removed:#cf222e;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--text);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.page-header,main{max-width:1200px;margin:0 auto;padding:0 20px}
.page-header{padding-top:20px;padding-bottom:8px}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:17px;margin:28px 0 8px}
code,pre{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.meta,.hint,.muted{color:var(--muted)}
.hint{margin:0 0 10px}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
.totals{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin-top:14px}
.total{border:1px solid var(--line);border-radius:6px;padding:6px 12px;background:var(--soft)}
.total .figure{display:block;font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}
.total .label{color:var(--muted);font-size:12.5px}
.total.bad .figure{color:var(--removed)}
.warnings{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:4px 16px;margin-top:20px}
.warnings h2{margin-top:8px}
.table-wrap{overflow:auto;max-height:420px;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:5px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:var(--soft);white-space:nowrap;position:sticky;top:0}
td.num,th.num{text-align:right;white-space:nowrap}
td.time{white-space:nowrap;color:var(--muted)}
td.reason{color:var(--muted);max-width:320px}
.status{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;border:1px solid var(--line);background:#fff}
.status-summarized,.status-compacted{color:var(--summary);border-color:#c8b3f5}
.status-truncated{color:var(--removed);border-color:#ffb3b8}
.status-failed{color:#fff;background:var(--removed);border-color:var(--removed)}
.status-noop{color:var(--muted)}
.status-repaired{color:var(--hidden);border-color:#e5c07b}
svg{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg .grid{stroke:#eaeef2;stroke-width:1}
svg .axis,svg .axis-title{fill:var(--muted);font-size:11px}
svg .tokens{fill:none;stroke:var(--accent);stroke-width:1.5;stroke-linejoin:round}
svg .chart-marker line{stroke:var(--summary);stroke-width:1;stroke-dasharray:3 3}
svg .chart-marker.status-failed line{stroke:var(--removed)}
svg .chart-marker:hover line{stroke-width:2.5;stroke-dasharray:none}
svg .marker-label{fill:var(--summary);font-size:11px;font-weight:600}
.timeline{display:flex;flex-direction:column;gap:6px;padding-bottom:40px}
.node{border:1px solid var(--line);border-left-width:4px;border-radius:6px;background:#fff;padding:6px 12px;min-width:0}
#timeline>.node{content-visibility:auto;contain-intrinsic-size:auto 90px}
.head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px}
.head .spacer{flex:1}
.head .type{font-weight:600}
.head .id{font-size:11.5px}
.tool-name{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px;background:var(--soft);border-radius:4px;padding:0 4px}
.type-human{border-left-color:#1a7f37}
.type-ai{border-left-color:var(--accent)}
.type-tool{border-left-color:#8c959f}
.type-system{border-left-color:#24292f}
.kind-summary{border-left-color:var(--summary);background:#fbf8ff}
.kind-summary>.head .type::after{content:" · summary";color:var(--summary)}
.kind-hidden{border-left-color:var(--hidden);background:#fffbf0}
.kind-replacement{border-left-color:var(--hidden)}
.note{color:var(--muted)}
pre{margin:6px 0 2px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}
pre.text{background:var(--soft);border-radius:4px;padding:6px 8px}
.nested .kind-summary>pre.text{max-height:12em}
.calls{list-style:none;margin:4px 0 0;padding:0}
.calls li{margin:4px 0}
.call-label{color:var(--muted);font-size:12.5px}
pre.args{margin:2px 0 0;padding:4px 8px;border-left:2px solid var(--line);max-height:12em}
details.archived{margin:6px 0 2px}
details.archived>summary{cursor:pointer;color:var(--accent);user-select:none;padding:2px 0}
details.archived[open]>summary{margin-bottom:4px}
.nested{display:flex;flex-direction:column;gap:6px;padding-left:14px;border-left:2px dashed var(--line)}
.nested.deep{padding-left:0;border-left:0;margin:0 -13px 0 -16px}
.removed{border-left-color:var(--removed);background:#fff5f5;padding:2px 12px}
.removed>details.archived{margin:2px 0}
.marker{border:1px solid #c8b3f5;background:#f5f0ff;border-radius:6px;padding:5px 12px;font-variant-numeric:tabular-nums;scroll-margin-top:12px}
.marker.status-failed{border-color:#ffb3b8;background:#fff5f5}
.marker-n{font-weight:700;color:var(--summary)}
.marker .time{color:var(--muted)}
.marker .status{margin-left:4px}
.marker .reason{color:var(--muted)}
.flash{outline:3px solid #ffd33d;outline-offset:2px}
.empty{color:var(--muted);font-style:italic}
`.trim();

/**
 * The page's only script. Following a link to a marker inside a collapsed region opens the regions
 * around it first (browsers do not, for element links), then scrolls to it. Regions nested too deep
 * for the HTML parser wait in `<template>`s; opening one moves its content into place.
 */
const SCRIPT = `
(function () {
  function fill(slot) {
    var template = document.getElementById(slot.getAttribute("data-lazy"));
    slot.removeAttribute("data-lazy");
    if (template) { slot.replaceChildren(template.content); template.remove(); }
  }
  function slotFor(templateId) {
    var selector = '[data-lazy="' + templateId + '"]';
    var slot = document.querySelector(selector);
    if (slot) return slot;
    var templates = document.querySelectorAll("template[data-lazy]");
    for (var i = 0; i < templates.length; i++) {
      if (templates[i].content.querySelector(selector)) { var outer = slotFor(templates[i].id); if (outer) fill(outer); return document.querySelector(selector); }
    }
    return null;
  }
  function find(id) {
    var found = document.getElementById(id);
    if (found) return found;
    var templates = document.querySelectorAll("template[data-lazy]");
    for (var i = 0; i < templates.length; i++) {
      if (templates[i].content.getElementById(id)) { var slot = slotFor(templates[i].id); if (slot) fill(slot); return document.getElementById(id); }
    }
    return null;
  }
  function reveal(id) {
    var target = find(id);
    if (!target) return false;
    for (var parent = target.parentElement; parent; parent = parent.parentElement) {
      if (parent.tagName === "DETAILS") parent.open = true;
    }
    target.scrollIntoView({ block: "start" });
    var flashed = document.querySelector(".flash");
    if (flashed) flashed.classList.remove("flash");
    target.classList.add("flash");
    return true;
  }
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open) return;
    var slot = details.querySelector(":scope > [data-lazy]");
    if (slot) fill(slot);
  }, true);
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a") : null;
    var href = link && link.getAttribute("href");
    if (!href || href.charAt(0) !== "#") return;
    if (reveal(decodeURIComponent(href.slice(1)))) {
      event.preventDefault();
      history.replaceState(null, "", href);
    }
  });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
})();
`.trim();

/** The Content-Security-Policy source of the page's script: this script runs, no other inline one would. */
const SCRIPT_HASH = `sha256-${createHash("sha256").update(SCRIPT).digest("base64")}`;

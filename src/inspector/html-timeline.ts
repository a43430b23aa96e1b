// The inspector page's nested view: the current context as a tree of messages and collapsed regions, with compaction markers.
import { escapeHtml, formatDuration, formatTime, messagesChange, plural, tokensChange } from "./html-format.js";
import { messageArticle } from "./html-message.js";
import type { CompactionView, TimelineNode } from "./inspection.js";
import { plainReason } from "./plain-reason.js";

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
export class TimelineRenderer {
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
    const reason = record.reason ? ` · <span class="reason" data-reason="${escapeHtml(record.reason)}">${escapeHtml(plainReason(record.reason))}</span>` : "";
    return (
      `<div class="marker status-${escapeHtml(record.status)}" id="nested-compaction-${view.number}" data-kind="marker" data-compaction-id="${escapeHtml(record.id)}">` +
        `<a class="marker-n" href="#compaction-${view.number}">#${view.number}</a> <span class="time">${escapeHtml(formatTime(record.at))}</span>` +
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

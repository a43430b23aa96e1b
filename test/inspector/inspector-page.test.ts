/**
 * The inspector's page in a real browser: Debian's Chromium, driven by playwright-core. Threads are
 * real: recorded sessions replayed through the ReAct agent graph of examples/react-agent.ts onto a
 * SQLite file, and a generated 5 000-message thread compacted by the compaction node in a LangGraph
 * graph. Every page runs with the network blocked, and the test asserts it asked for nothing.
 *
 * Locally, without /usr/bin/chromium, the suite is skipped with a hint; under CI=true it fails.
 * Artifacts (the pages and a screenshot) go to test-results/inspector/.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleCompaction, sqliteCheckpointer } from "../../examples/react-agent.js";
import type { ReplaySession } from "../../examples/replay/index.js";
import { CompactionState, createCompactionNode, createTokenCounter, hidingThenSummary, type Compactor } from "../../src/index.js";
import { buildInspection } from "../../src/inspector/build-inspection.js";
import type { Inspection, ThreadExport, TimelineNode } from "../../src/inspector/inspection.js";
import { renderInspectionHtml } from "../../src/inspector/render-html.js";
import { loadThreadFromSqlite } from "../../src/inspector/thread-databases.js";
import { exportThread } from "../../src/inspector/thread-sources.js";
import { AIRLINE_SESSION_ID, loadReplay, replayThread } from "./support/recorded-thread.js";
import { FOREIGN_REF, SECRET, summarizedThreadWithRecalls } from "./support/recalled-thread.js";

const CHROMIUM_PATH = "/usr/bin/chromium";
const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const INSTALL_HINT = "install Debian's chromium with: bash scripts/install-chromium.sh (or apt-get install chromium)";
const ARTIFACTS = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-results", "inspector");
/** Replaying three sessions onto SQLite and compacting 5 000 messages in a graph take seconds. */
const SETUP_TIMEOUT = 180_000;

const SWE_SESSION_ID = "mini-swe-agent/matplotlib__matplotlib-25775";

function underCi(): boolean {
  const ci = process.env["CI"]?.toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/** `describe` for a suite that needs Chromium: skipped locally without it, failing under CI. */
function describeWithChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, body);
  } else if (underCi()) {
    describe(name, () => {
      it("has Chromium to test in", () => {
        throw new Error(`CI=true but ${CHROMIUM_PATH} is missing: the browser tests must not be skipped under CI; ${INSTALL_HINT}`);
      });
    });
  } else {
    console.warn(`[${name}] skipped: ${CHROMIUM_PATH} is missing; ${INSTALL_HINT}`);
    describe.skip(`${name} (skipped: no ${CHROMIUM_PATH}; ${INSTALL_HINT})`, body);
  }
}

/** Replay a whole recorded session through the ReAct agent graph, checkpointed to `sqlitePath`. */
async function recordThread(sqlitePath: string, threadId: string, replay: ReplaySession, compaction: Compactor | undefined): Promise<void> {
  const checkpointer = sqliteCheckpointer(sqlitePath);
  try {
    await replayThread({ replay, threadId, checkpointer, ...(compaction ? { compaction } : {}) });
  } finally {
    checkpointer.db.close();
  }
}

/** The recorded text of a message of the session, by id. */
function recordedText(replay: ReplaySession, id: string): string {
  const message = replay.expectedHistory.find((each) => each.id === id);
  if (message === undefined || typeof message.content !== "string") throw new Error(`no recorded text message ${id}`);
  return message.content;
}

/** A message node's id (throws for other nodes: the tests pick messages on purpose). */
function messageIdOf(node: TimelineNode | undefined): string {
  if (node?.kind !== "message" || node.message.id === null) throw new Error(`expected a message node with an id, got ${node?.kind}`);
  return node.message.id;
}

function topSummary(inspection: Inspection): Extract<TimelineNode, { kind: "summary" }> {
  const summary = inspection.timeline.find((node) => node.kind === "summary");
  if (summary?.kind !== "summary") throw new Error("the thread has no summary in its current context");
  return summary;
}

const selector = (attribute: string, value: string) => `[${attribute}=${JSON.stringify(value)}]`;

/** Option names (`clearAtLeast`), status words and terse separators a reader should not meet in a reason. */
const JARGON = /\b[a-z]+[A-Z][A-Za-z]*\b|\bnoop\b|\(s\)|[<>]=?\s*break\b/u;

/**
 * Whether any row of the compaction list is out of sight: each element around the table that clips
 * its content (overflow other than visible) and holds more than it shows, and each row that, scrolled
 * to in the page, is not what the browser finds at its middle.
 */
async function rowsHiddenOrCovered(page: Page): Promise<{ rows: number; clipping: string[]; covered: string[] }> {
  // A string: this project compiles without the DOM's types.
  return page.evaluate(`(() => {
    const rows = [...document.querySelectorAll("tr[data-compaction-id]")];
    const clipping = [];
    for (let element = rows[0]?.parentElement ?? null; element && element !== document.documentElement; element = element.parentElement) {
      const overflow = getComputedStyle(element).overflowY;
      if (overflow !== "visible" && element.scrollHeight > element.clientHeight + 1) clipping.push(element.tagName.toLowerCase() + "." + element.className + " (" + overflow + ")");
    }
    const covered = [];
    for (const row of rows) {
      const top = row.getBoundingClientRect().top + window.scrollY;
      window.scrollTo(0, Math.max(0, top - 100));
      const rect = row.getBoundingClientRect();
      const found = document.elementFromPoint(rect.left + 8, rect.top + rect.height / 2)?.closest("tr");
      if (found !== row) covered.push(row.getAttribute("data-compaction-id"));
    }
    window.scrollTo(0, 0);
    return { rows: rows.length, clipping, covered };
  })()`);
}

interface OpenedPage {
  readonly page: Page;
  /** Requests for anything but the page's own file (all aborted). */
  readonly blocked: string[];
  /** Uncaught errors of the page's script. */
  readonly errors: string[];
}

/**
 * Abort every request but the page's own file (and data: URLs), and record each one in `blocked`:
 * the page must ask for nothing, so any entry is a failure.
 */
async function blockNetwork(page: Page, url: string, blocked: string[]): Promise<void> {
  // Requests name the file without the fragment (`#compaction-1`) the page may be opened at.
  const file = url.split("#")[0];
  const allowed = (requested: string) => requested === file || requested.startsWith("data:");
  page.on("request", (request) => {
    if (!allowed(request.url())) blocked.push(request.url());
  });
  await page.route("**/*", (route) => (allowed(route.request().url()) ? route.continue() : route.abort()));
}

/** Write a page to the artifacts directory and name its file URL. */
function writePage(name: string, html: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  writeFileSync(path, html);
  return pathToFileURL(path).href;
}

describeWithChromium("inspector page in Chromium", () => {
  let browser: Browser;
  let workDirectory: string;
  const swe = loadReplay(SWE_SESSION_ID);
  const airline = loadReplay(AIRLINE_SESSION_ID);
  let summarized: { thread: ThreadExport; inspection: Inspection; url: string };
  let hidden: { thread: ThreadExport; inspection: Inspection; url: string };
  let plain: { thread: ThreadExport; inspection: Inspection; url: string };

  async function inspect(sqlitePath: string, threadId: string, page: string, limits: { contextWindow?: number; triggerTokens?: number } = {}) {
    const thread = await loadThreadFromSqlite(sqlitePath, threadId);
    const inspection = await buildInspection(thread, limits);
    return { thread, inspection, url: writePage(page, renderInspectionHtml(inspection)) };
  }

  async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const blocked: string[] = [];
    const errors: string[] = [];
    await blockNetwork(page, url, blocked);
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(url);
    return { page, blocked, errors };
  }

  beforeAll(async () => {
    workDirectory = mkdtempSync(join(tmpdir(), "inspector-page-"));
    const sqlitePath = join(workDirectory, "threads.sqlite");
    // The examples' compaction at a window the ~31k-token session overflows several times: repeated summaries.
    await recordThread(sqlitePath, "summarized", swe, exampleCompaction(8_000));
    // Hiding first: older tool results are rewritten in place before anything is summarized.
    await recordThread(sqlitePath, "hidden", loadReplay(SWE_SESSION_ID), hidingThenSummary({ contextWindow: 8_000, target: { fraction: 0.75 }, hiding: { keepRecentGroups: 2, clearAtLeast: 0 } }));
    await recordThread(sqlitePath, "plain", airline, undefined);
    // exampleCompaction(8_000) is autoCompaction's default: it starts at 0.8 of the window.
    summarized = await inspect(sqlitePath, "summarized", "summarized-thread.html", { contextWindow: 8_000, triggerTokens: 6_400 });
    hidden = await inspect(sqlitePath, "hidden", "hidden-results-thread.html");
    plain = await inspect(sqlitePath, "plain", "uncompacted-thread.html");
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
  }, SETUP_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    if (workDirectory) rmSync(workDirectory, { recursive: true, force: true });
  });

  describe("a recorded thread summarized several times", () => {
    it("loads nothing from the network and runs its script without errors", async () => {
      const { page, blocked, errors } = await open(summarized.url);
      await page.locator("#timeline").waitFor();
      expect({ blocked, errors }).toEqual({ blocked: [], errors: [] });
    });

    it("shows the thread's totals in the header", async () => {
      const { page } = await open(summarized.url);
      const figures = await page.locator("[data-total]").evaluateAll((elements) => Object.fromEntries(elements.map((element) => [element.getAttribute("data-total"), element.textContent])));
      const { totals } = summarized.inspection;
      const format = (value: number) => value.toLocaleString("en-US");
      expect(figures).toEqual({
        originalMessages: format(swe.expectedHistory.length),
        originalTokens: format(totals.originalTokens),
        contextMessages: format(summarized.thread.messages.length),
        contextTokens: format(totals.contextTokens),
        modelCalls: format(swe.modelCalls),
        peakContextTokens: format(totals.peakContextTokens),
        compactions: format(summarized.thread.compactionLog.length),
        failedCompactions: "0",
        summaries: format(summarized.thread.compactionLog.filter((record) => record.summaryId !== null).length),
        hiddenResults: format(totals.hiddenResults),
        archivedMessages: format(totals.archivedMessages),
        tokensSaved: format(totals.tokensSaved),
        compactionMs: `${totals.compactionMs < 100 ? totals.compactionMs.toFixed(1) : format(Math.round(totals.compactionMs))} ms`,
      });
    });

    it("shows one peak: the card's figure is the chart's, at the model call whose context it was", async () => {
      const { page } = await open(summarized.url);
      const figures = await page.evaluate(`(() => {
        const peak = document.querySelector('svg [data-chart="peak"]');
        const lines = [...document.querySelectorAll("svg [data-chart-line]")];
        return {
          card: document.querySelector('[data-total="peakContextTokens"]').textContent,
          label: peak.querySelector("text").textContent,
          hint: document.querySelector('p.hint [data-chart="peak"]').textContent,
          tokens: Number(peak.getAttribute("data-tokens")),
          step: Number(peak.getAttribute("data-step")),
          lines: lines.map((line) => [line.getAttribute("data-chart-line"), line.getAttribute("data-tokens"), Math.round(line.querySelector("line").getBoundingClientRect().top)]),
          hintLimits: [...document.querySelectorAll('p.hint [data-chart="window"], p.hint [data-chart="trigger"]')].map((span) => span.textContent),
          calledHighest: /highest/.test(document.querySelector("section.chart").textContent),
        };
      })()`) as { card: string; label: string; hint: string; tokens: number; step: number; lines: [string, string, number][]; hintLimits: string[]; calledHighest: boolean };
      const { totals, chart } = summarized.inspection;
      // The dot sits at the context the largest call was sent: the chart's point before its answer, after the compactions there.
      const before = chart[figures.step - 1]!;
      const priming = await createTokenCounter().countMessages([]);
      const peak = totals.peakContextTokens.toLocaleString("en-US");
      expect({ ...figures, lines: figures.lines.map(([name, tokens]) => [name, tokens]), sentThere: (before.after ?? before.tokens) + priming }).toEqual({
        card: peak,
        label: `peak ${peak}`,
        hint: peak,
        tokens: totals.peakContextTokens,
        step: totals.peakCallStep,
        lines: [
          ["window", "8000"],
          ["trigger", "6400"],
        ],
        hintLimits: ["8,000", "6,400"],
        calledHighest: false,
        sentThere: totals.peakContextTokens,
      });
      // The trigger's line is drawn below the window's.
      expect(figures.lines[1]![2]).toBeGreaterThan(figures.lines[0]![2]);
    });

    it("marks every compaction of the log in the list, the chart and the timeline", async () => {
      const { page } = await open(summarized.url);
      const ids = summarized.thread.compactionLog.map((record) => record.id);
      const idsOf = (css: string) => page.locator(css).evaluateAll((elements) => elements.map((element) => element.getAttribute("data-compaction-id")));
      expect(ids).toHaveLength(summarized.inspection.totals.compactions);
      expect(await idsOf("tr[data-compaction-id]")).toEqual(ids);
      expect(await idsOf("svg .chart-marker")).toEqual(ids);
      expect(await idsOf('#timeline > [data-kind="compaction"]')).toEqual(ids);
    });

    it("expands a summary's archived originals to the original message text", async () => {
      const { page } = await open(summarized.url);
      const summary = topSummary(summarized.inspection);
      const view = summarized.inspection.compactions.find((each) => each.record.id === summary.compactionId)!;
      const id = messageIdOf(summary.originals.find((node) => node.kind === "message"));
      const region = page.locator(`#compaction-${view.number} > details[data-kind="replaced"]`);
      const original = region.locator(`${selector("data-message-id", id)}[data-kind="message"] > pre.text`);
      expect(await original.isVisible()).toBe(false);
      await region.locator(":scope > summary").click();
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
    });

    it("reaches the originals of an earlier summary that a later one replaced, through its link", async () => {
      const { page } = await open(summarized.url);
      const outer = topSummary(summarized.inspection);
      const inner = outer.originals.find((node) => node.kind === "summary");
      if (inner?.kind !== "summary") throw new Error("the newest summary holds no earlier summary");
      const numberOf = (compactionId: string) => summarized.inspection.compactions.find((each) => each.record.id === compactionId)!.number;
      const id = messageIdOf(inner.originals.find((node) => node.kind === "message"));
      const outerEntry = page.locator(`#compaction-${numberOf(outer.compactionId)}`);
      await outerEntry.locator(':scope > details[data-kind="replaced"] > summary').click();
      // The earlier summary, labelled with the compaction that wrote it: its link leads to that compaction's entry.
      const earlier = outerEntry.locator(`details[data-kind="replaced"] [data-kind="summary"]${selector("data-compaction-id", inner.compactionId)}`);
      await earlier.locator(`a[href="#compaction-${numberOf(inner.compactionId)}"]`).click();
      const innerEntry = page.locator(`#compaction-${numberOf(inner.compactionId)}`);
      await innerEntry.locator(':scope > details[data-kind="replaced"] > summary').click();
      const original = innerEntry.locator(`details[data-kind="replaced"] ${selector("data-message-id", id)}[data-kind="message"] > pre.text`);
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
    });

    it("scrolls to a compaction's entry when the page is opened at it", async () => {
      const { page } = await open(`${summarized.url}#compaction-3`);
      const entry = page.locator("#compaction-3");
      await entry.waitFor({ state: "visible" });
      expect(await entry.evaluate((element) => ({ flashed: element.classList.contains("flash"), top: Math.round(element.getBoundingClientRect().top) }))).toEqual({ flashed: true, top: 12 }); // the entry's scroll-margin-top
    });

    it("lists every compaction in rows all visible within the page (no box scrolls them out of sight), each linking to its timeline entry", async () => {
      const { page } = await open(summarized.url);
      const ids = summarized.thread.compactionLog.map((record) => record.id);
      expect(await rowsHiddenOrCovered(page)).toEqual({ rows: ids.length, clipping: [], covered: [] });
      await page.locator(`tr[data-compaction-id] a[href="#compaction-${ids.length}"]`).click();
      const entry = page.locator(`#compaction-${ids.length}`);
      expect(await entry.evaluate((element) => {
        const rect = element.getBoundingClientRect();
        return { kind: element.getAttribute("data-kind"), inView: rect.top >= 0 && rect.top < (globalThis as unknown as { innerHeight: number }).innerHeight };
      })).toEqual({ kind: "compaction", inView: true });
    });

    it("lists the compactions at the top level of the timeline, in the order they ran, before the current context", async () => {
      const { page } = await open(summarized.url);
      const top = await page.locator("#timeline > *").evaluateAll((elements) =>
        elements.map((element) => (element.getAttribute("data-kind") === "compaction" ? `compaction ${element.getAttribute("data-compaction-id")}` : element.getAttribute("data-kind"))),
      );
      expect(top).toEqual([
        ...summarized.thread.compactionLog.map((record) => `compaction ${record.id}`),
        "context",
        ...summarized.inspection.timeline.filter((node) => node.kind !== "removed").map((node) => node.kind),
      ]);
      // Opening a compaction's region shows exactly what it archived, one level: no region inside it.
      const first = page.locator("#compaction-1");
      await first.locator(':scope > details[data-kind="replaced"] > summary').click();
      const shown = await first.locator(':scope > details[data-kind="replaced"] > .nested > *').evaluateAll((elements) =>
        elements.map((element) => [element.getAttribute("data-message-id"), element.querySelectorAll("details").length]),
      );
      expect(shown).toEqual(summarized.inspection.compactions[0]!.originals.map((view) => [view.id, 0]));
    });

    it("says what each compaction did and why in plain sentences, keeping the record's own reason in data-reason", async () => {
      const { page } = await open(summarized.url);
      const cells = await page.locator("tr[data-compaction-id] td.reason").evaluateAll((elements) =>
        elements.map((element) => ({ text: element.textContent ?? "", reason: element.getAttribute("data-reason") })),
      );
      expect(cells.map((cell) => cell.reason)).toEqual(summarized.thread.compactionLog.map((record) => record.reason ?? null));
      const unplain = cells.filter((cell) => !/^[A-Z][^]*[.)]$/u.test(cell.text) || JARGON.test(cell.text) || cell.text === cell.reason);
      expect(unplain).toEqual([]);
    });

    it("saves screenshots: the whole page, and the second compaction's originals opened", async () => {
      const { page } = await open(summarized.url, { width: 1280, height: 1000 });
      const full = join(ARTIFACTS, "inspector.png");
      const expanded = join(ARTIFACTS, "inspector-expanded.png");
      rmSync(full, { force: true });
      rmSync(expanded, { force: true });
      // The whole page in the viewport: timeline nodes off screen are not painted (content-visibility: auto).
      await page.setViewportSize({ width: 1280, height: await page.evaluate<number>("document.documentElement.scrollHeight") });
      await page.screenshot({ path: full, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 1000 });
      const second = page.locator("#compaction-2");
      await second.locator(':scope > details[data-kind="replaced"] > summary').click();
      await second.evaluate((element) => element.scrollIntoView());
      await page.screenshot({ path: expanded });
      const signatures = [full, expanded].map((path) => readFileSync(path).subarray(1, 4).toString("latin1"));
      expect(signatures).toEqual(["PNG", "PNG"]);
    });
  });

  describe("a recorded thread whose tool results were hidden", () => {
    it("shows a hidden tool result's original under the compaction that hid it, and the placeholder where the copy went", async () => {
      const { page } = await open(hidden.url);
      const hiding = hidden.inspection.compactions.find((view) => view.record.summaryId === null && view.record.replacedIds.length > 0);
      if (hiding === undefined) throw new Error("no compaction of the thread hid a tool result");
      const id = hiding.record.replacedIds[0]!;
      const region = page.locator(`#compaction-${hiding.number} > details[data-kind="replaced"]`);
      const original = region.locator(`${selector("data-message-id", id)}[data-kind="message"] > pre.text`);
      expect(await original.isVisible()).toBe(false);
      await region.locator(":scope > summary").click();
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
      // The hidden copy, in a later compaction's originals or in the current context, labelled with the hiding.
      const copies = await page.locator(`[data-kind="hidden"]${selector("data-message-id", id)}${selector("data-compaction-id", hiding.record.id)} > pre.text`).allTextContents();
      const later = hidden.inspection.compactions.filter((view) => view.number > hiding.number).flatMap((view) => view.originals);
      const current = hidden.inspection.timeline.find((node) => node.kind === "hidden" && node.message.id === id);
      const placeholder = later.find((view) => view.id === id)?.text ?? (current?.kind === "hidden" ? current.message.text : undefined);
      expect({ first: copies[0], originalShown: copies.includes(recordedText(swe, id)) }).toEqual({ first: placeholder, originalShown: false });
      expect(placeholder).not.toBe(recordedText(swe, id));
    });
  });

  describe("a recorded thread never compacted", () => {
    it("renders every message at the top level, with 0 compactions and no markers", async () => {
      const { page, blocked, errors } = await open(plain.url);
      expect(await page.locator('[data-total="compactions"]').textContent()).toBe("0");
      expect(await page.locator('#timeline > [data-kind="message"]').count()).toBe(airline.expectedHistory.length);
      expect(await page.locator('#timeline > :not([data-kind="message"])').evaluateAll((elements) => elements.map((element) => element.getAttribute("data-kind")))).toEqual(["context"]);
      expect(await page.locator('[data-kind="compaction"], svg .chart-marker, #timeline details').count()).toBe(0);
      expect(await page.locator('[data-kind="no-compactions"]').isVisible()).toBe(true);
      expect({ blocked, errors }).toEqual({ blocked: [], errors: [] });
    });
  });

  describe("a thread whose agent recalled its summary (createAgent, recall on, a scripted model)", () => {
    let recalled: { inspection: Inspection; url: string; ref: string; parts: number };

    beforeAll(async () => {
      const { thread, ref, parts } = await summarizedThreadWithRecalls("recalled-page");
      const inspection = await buildInspection(thread);
      recalled = { inspection, ref, parts: parts!, url: writePage("recalled-thread.html", renderInspectionHtml(inspection)) };
    }, SETUP_TIMEOUT);

    it("opened at a recall, shows its result, collapsed under a later summary, with what it read; its link leads to the compaction whose archive it read, and back", async () => {
      const { page, blocked, errors } = await open(`${recalled.url}#recall-1`);
      const first = page.locator("#recall-1");
      await first.waitFor({ state: "visible" });
      const [r1] = recalled.inspection.recalls!;
      expect(await first.evaluate((element) => ({ flashed: element.classList.contains("flash"), kind: element.getAttribute("data-kind"), inside: element.closest('[data-kind="compaction"]')?.id }))).toEqual({
        flashed: true,
        kind: "message",
        inside: "compaction-2",
      });
      expect(await first.locator(".recall-note").textContent()).toBe(`recall 1 of ${recalled.ref}, part 1 of ${recalled.parts}: 5 originals archived by #1 · ${r1!.tokens} tokens returned`);
      expect(await first.locator("pre.text").textContent()).toContain(SECRET);
      // To the compaction whose archive it read, and from there back to the other recall of it.
      await first.locator('.recall-note a[href="#compaction-1"]').click();
      const entry = page.locator("#compaction-1");
      await entry.waitFor({ state: "visible" });
      expect(await entry.evaluate((element) => element.classList.contains("flash"))).toBe(true);
      expect(await entry.locator('[data-kind="recalled-by"]').textContent()).toBe("Its archive was read back by recall 1, recall 2.");
      await entry.locator('[data-kind="recalled-by"] a[href="#recall-2"]').click();
      const second = page.locator("#recall-2");
      await second.waitFor({ state: "visible" });
      expect(await second.evaluate((element) => ({ flashed: element.classList.contains("flash"), top: element.parentElement?.id }))).toEqual({ flashed: true, top: "timeline" });
      expect({ blocked, errors }).toEqual({ blocked: [], errors: [] });
    });

    it("marks every recall in the current context and counts them in the header", async () => {
      const { page } = await open(recalled.url);
      expect(await page.locator('[data-total="recalls"]').textContent()).toBe("3");
      const marked = await page.locator("#timeline > [data-recall]").evaluateAll((nodes) => nodes.map((node) => [node.getAttribute("data-recall"), node.getAttribute("data-recall-ref")]));
      expect(marked).toEqual([
        ["2", recalled.ref],
        ["3", FOREIGN_REF],
      ]);
      expect(await page.locator("#recall-3 .recall-note").textContent()).toBe(`recall 3 of ${FOREIGN_REF}: nothing archived under it · ${recalled.inspection.recalls![2]!.tokens} tokens returned`);
    });
  });

  describe("a generated thread of 5 000 messages compacted many times", () => {
    const TURNS = 1_250;
    let large: { thread: ThreadExport; inspection: Inspection; url: string };

    /** One turn: a question, a tool call, its result and an answer (explicit ids). */
    function turn(index: number): BaseMessage[] {
      return [
        new HumanMessage({ id: `h${index}`, content: `Question ${index}: what does ${index}.txt say?` }),
        new AIMessage({ id: `a${index}`, content: "", tool_calls: [{ id: `call${index}`, name: "read_file", args: { path: `${index}.txt` }, type: "tool_call" }] }),
        new ToolMessage({ id: `t${index}`, content: `Contents of ${index}.txt: ${`line ${index} of the file. `.repeat(12)}`, tool_call_id: `call${index}`, name: "read_file" }),
        new AIMessage({ id: `r${index}`, content: `${index}.txt repeats line ${index} twelve times.` }),
      ];
    }

    beforeAll(async () => {
      const State = Annotation.Root({ ...MessagesAnnotation.spec, ...CompactionState.spec });
      const checkpointer = new MemorySaver();
      const store = new InMemoryStore();
      const compaction = hidingThenSummary({ contextWindow: 6_000, tokenCounter: createTokenCounter({ mode: "approximate" }) });
      const graph = new StateGraph(State).addNode("compact", createCompactionNode(compaction)).addEdge(START, "compact").addEdge("compact", END).compile({ checkpointer, store });
      const config = { configurable: { thread_id: "large" } };
      for (let first = 0; first < TURNS; first += 5) {
        await graph.invoke({ messages: [first, first + 1, first + 2, first + 3, first + 4].flatMap(turn) }, config);
      }
      const thread = await exportThread(checkpointer, "large", { store });
      const inspection = await buildInspection(thread);
      large = { thread, inspection, url: writePage("large-thread.html", renderInspectionHtml(inspection)) };
    }, SETUP_TIMEOUT);

    it("opens, showing the current context at the top level and all 5 000 messages in the totals", async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const blocked: string[] = [];
      await blockNetwork(page, large.url, blocked);
      const started = performance.now();
      await page.goto(large.url, { waitUntil: "commit" });
      await page.locator("#timeline > .node").first().waitFor({ state: "visible" });
      const timelineShown = performance.now() - started;
      await page.waitForLoadState("load");
      const loaded = performance.now() - started;
      // Chromium records the first contentful paint shortly after it happens, not always by "load".
      await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0);
      const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]!.startTime);
      const bytes = readFileSync(fileURLToPath(large.url)).length;
      console.log(
        `[inspector] 5 000-message page (${(bytes / 1e6).toFixed(1)} MB, ${large.inspection.totals.compactions} compactions): ` +
          `goto→load ${Math.round(loaded)} ms, goto→timeline visible ${Math.round(timelineShown)} ms, first contentful paint ${Math.round(paint)} ms after navigation start`,
      );
      expect(await page.locator('[data-total="originalMessages"]').textContent()).toBe("5,000");
      expect(await page.locator('#timeline > [data-kind="compaction"]').count()).toBe(large.thread.compactionLog.length);
      expect(await page.locator("#timeline > .msg").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-message-id")))).toEqual(
        large.thread.messages.map((message) => message.data.id ?? null),
      );
      expect(blocked).toEqual([]);
      await context.close();
    });

    it("weighs under 4 MB: the page shows each message's text once (it was 5.3 MB with a second, nested view of the history)", () => {
      const bytes = readFileSync(fileURLToPath(large.url)).length;
      expect({ bytes, under4MB: bytes < 4_000_000 }).toEqual({ bytes, under4MB: true });
    });

    it("lists its dozens of compactions in rows all visible within the page", async () => {
      const { page } = await open(large.url);
      expect(await rowsHiddenOrCovered(page)).toEqual({ rows: large.thread.compactionLog.length, clipping: [], covered: [] });
    });

    it("shows the oldest message under the first compaction's entry, one click from its list row", async () => {
      const { page, errors } = await open(large.url);
      await page.locator('tr[data-compaction-id] a[href="#compaction-1"]').click();
      const entry = page.locator("#compaction-1");
      await entry.locator(':scope > details[data-kind="replaced"] > summary').click();
      const oldest = entry.locator(':scope > details[data-kind="replaced"] [data-message-id="h0"] > pre.text');
      await oldest.waitFor({ state: "visible" });
      expect(await oldest.textContent()).toBe("Question 0: what does 0.txt say?");
      expect(errors).toEqual([]);
    });

  });
});

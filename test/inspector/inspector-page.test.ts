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

/** Open the collapsed nested view (the current context with every original nested in place). */
async function openNestedView(page: Page): Promise<void> {
  await page.locator("#nested-view > summary").click();
  await page.locator("#nested-timeline").waitFor({ state: "visible" });
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
  // Requests name the file without the fragment (`#nested-compaction-1`) the page may be opened at.
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

  async function inspect(sqlitePath: string, threadId: string, page: string) {
    const thread = await loadThreadFromSqlite(sqlitePath, threadId);
    const inspection = await buildInspection(thread);
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
    summarized = await inspect(sqlitePath, "summarized", "summarized-thread.html");
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

    it("marks every compaction of the log in the list, the chart and the timeline", async () => {
      const { page } = await open(summarized.url);
      const ids = summarized.thread.compactionLog.map((record) => record.id);
      const idsOf = (css: string) => page.locator(css).evaluateAll((elements) => elements.map((element) => element.getAttribute("data-compaction-id")));
      expect(ids).toHaveLength(summarized.inspection.totals.compactions);
      expect(await idsOf("tr[data-compaction-id]")).toEqual(ids);
      expect(await idsOf("svg .chart-marker")).toEqual(ids);
      expect((await idsOf('[data-kind="marker"]')).sort()).toEqual([...ids].sort());
    });

    it("expands a summary's archived originals to the original message text", async () => {
      const { page } = await open(summarized.url);
      await openNestedView(page);
      const summary = topSummary(summarized.inspection);
      const id = messageIdOf(summary.originals.find((node) => node.kind === "message"));
      const region = page.locator(`#nested-timeline > [data-kind="summary"]${selector("data-compaction-id", summary.compactionId)} > details[data-kind="originals"]`);
      const original = region.locator(`${selector("data-message-id", id)} > pre.text`);
      expect(await original.isVisible()).toBe(false);
      await region.locator(":scope > summary").click();
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
    });

    it("expands the originals of an earlier summary nested in a later one", async () => {
      const { page } = await open(summarized.url);
      await openNestedView(page);
      const outer = topSummary(summarized.inspection);
      const inner = outer.originals.find((node) => node.kind === "summary");
      if (inner?.kind !== "summary") throw new Error("the newest summary holds no earlier summary");
      const id = messageIdOf(inner.originals.find((node) => node.kind === "message"));
      const outerRegion = page.locator(`#nested-timeline > [data-kind="summary"] > details[data-kind="originals"]`);
      const innerRegion = outerRegion.locator(`:scope > .nested > [data-kind="summary"]${selector("data-compaction-id", inner.compactionId)} > details[data-kind="originals"]`);
      const original = innerRegion.locator(`${selector("data-message-id", id)} > pre.text`);
      await outerRegion.locator(":scope > summary").click();
      await innerRegion.locator(":scope > summary").waitFor({ state: "visible" });
      expect(await original.isVisible()).toBe(false);
      await innerRegion.locator(":scope > summary").click();
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
    });

    it("opens the nested regions around a compaction's marker when the page is opened at it", async () => {
      const { page } = await open(`${summarized.url}#nested-compaction-1`);
      const marker = page.locator("#nested-compaction-1");
      await marker.waitFor({ state: "visible" });
      expect(await marker.getAttribute("data-compaction-id")).toBe(summarized.thread.compactionLog[0]!.id);
      expect(await page.locator("#nested-view").evaluate((details) => (details as unknown as { open: boolean }).open)).toBe(true);
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
    it("expands a hidden tool result to its original content", async () => {
      const { page } = await open(hidden.url);
      await openNestedView(page);
      // The newest summary, or the summary it folded in (and so on), holds the hidden results it replaced.
      let summary = topSummary(hidden.inspection);
      let details = '#nested-timeline > [data-kind="summary"] > details[data-kind="originals"]';
      const opened = [details];
      let node = summary.originals.find((each) => each.kind === "hidden");
      while (node === undefined) {
        const nested = summary.originals.find((each) => each.kind === "summary");
        if (nested?.kind !== "summary") throw new Error("no summary in the current context holds a hidden tool result");
        summary = nested;
        details = `${details} > .nested > [data-kind="summary"] > details[data-kind="originals"]`;
        opened.push(details);
        node = summary.originals.find((each) => each.kind === "hidden");
      }
      if (node.kind !== "hidden") throw new Error("unreachable");
      const id = messageIdOf(node.original);
      for (const level of opened) await page.locator(`${level} > summary`).click();
      const hiddenNode = page.locator(`${details} > .nested > [data-kind="hidden"]${selector("data-message-id", id)}`);
      expect(await hiddenNode.locator(":scope > pre.text").textContent()).toBe(node.message.text);
      const original = hiddenNode.locator(`:scope > details[data-kind="original"] ${selector("data-message-id", id)} > pre.text`);
      expect(await original.isVisible()).toBe(false);
      await hiddenNode.locator(':scope > details[data-kind="original"] > summary').click();
      await original.waitFor({ state: "visible" });
      expect(await original.textContent()).toBe(recordedText(swe, id));
    });
  });

  describe("a recorded thread never compacted", () => {
    it("renders every message at the top level, with 0 compactions and no markers", async () => {
      const { page, blocked, errors } = await open(plain.url);
      expect(await page.locator('[data-total="compactions"]').textContent()).toBe("0");
      expect(await page.locator('#timeline > [data-kind="message"]').count()).toBe(airline.expectedHistory.length);
      expect(await page.locator('#timeline > :not([data-kind="message"])').evaluateAll((elements) => elements.map((element) => element.getAttribute("data-kind")))).toEqual(["context"]);
      expect(await page.locator('[data-kind="marker"], [data-kind="compaction"], svg .chart-marker, #timeline details, #nested-timeline details').count()).toBe(0);
      expect(await page.locator('[data-kind="no-compactions"]').isVisible()).toBe(true);
      expect({ blocked, errors }).toEqual({ blocked: [], errors: [] });
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

    it("reaches the oldest message through every nested summary of the nested view, opened at the first compaction's marker", async () => {
      const { page, errors } = await open(`${large.url}#nested-compaction-1`);
      const marker = page.locator("#nested-compaction-1");
      await marker.waitFor({ state: "visible" });
      const first = large.thread.compactionLog[0]!;
      expect(first.removedIds[0]).toBe("h0");
      const firstSummary = page.locator(`[data-kind="summary"]${selector("data-compaction-id", first.id)}`);
      const oldest = firstSummary.locator(':scope > details[data-kind="originals"] [data-message-id="h0"] > pre.text');
      await firstSummary.locator(':scope > details[data-kind="originals"] > summary').click();
      await oldest.waitFor({ state: "visible" });
      expect(await oldest.textContent()).toBe("Question 0: what does 0.txt say?");
      expect(errors).toEqual([]);
    });
  });
});

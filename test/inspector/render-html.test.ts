import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CompactionRecord } from "../../src/compaction-record.js";
import type { CompactionView, Inspection, InspectionTotals, MessageView, TimelineNode } from "../../src/inspector/inspection.js";
import { escapeHtml, renderInspectionHtml } from "../../src/inspector/render-html.js";

/** A message view with defaults; `tokens` 10 unless told. */
function view(id: string, type: string, text: string, extra: Partial<MessageView> = {}): MessageView {
  return { id, type, text, toolCalls: [], toolCallId: null, toolName: null, tokens: 10, ...extra };
}

const message = (messageView: MessageView): TimelineNode => ({ kind: "message", message: messageView });

function record(id: string, overrides: Partial<CompactionRecord> = {}): CompactionRecord {
  return {
    id,
    at: "2025-01-01T12:00:00.000Z",
    strategy: "autoCompaction",
    status: "summarized",
    tokensBefore: 9120,
    tokensAfter: 2210,
    messagesBefore: 40,
    messagesAfter: 9,
    removedIds: [],
    replacedIds: [],
    insertedIds: [],
    summaryId: null,
    archive: "state",
    durationMs: 3.25,
    lastMessageId: null,
    ...overrides,
  };
}

function compaction(number: number, compactionRecord: CompactionRecord, step: number | null): CompactionView {
  return { number, record: compactionRecord, summary: null, archivedMessages: 0, originals: [], step };
}

const ZERO_TOTALS: InspectionTotals = {
  originalMessages: 0,
  originalTokens: 0,
  contextMessages: 0,
  contextTokens: 0,
  modelCalls: 0,
  peakContextTokens: 0,
  peakCallStep: null,
  compactions: 0,
  failedCompactions: 0,
  summaries: 0,
  hiddenResults: 0,
  archivedMessages: 0,
  tokensSaved: 0,
  compactionMs: 0,
};

function inspection(overrides: Partial<Inspection>): Inspection {
  return { threadId: "t1", generatedAt: "2025-01-02T00:00:00.000Z", totals: ZERO_TOTALS, timeline: [], compactions: [], chart: [], warnings: [], ...overrides };
}

/**
 * A thread compacted three times: c1 summarized h1..t1, c2 hid tool result t2, c3 summarized the
 * first summary with h2..t2 (so c1's summary is nested in c3's originals), c4 truncated h4 away,
 * and c5 was a no-op after a5.
 */
function compactedThread(): Inspection {
  const summary1 = view("s1", "human", "Summary one: the user asked to fix the parser.", { tokens: 25 });
  const summary3 = view("s3", "human", "Summary three: parser fixed, tests run.", { tokens: 30 });
  const hiddenOriginal = view("t2", "tool", "FAILED tests/test_parser.py::test_nested - AssertionError", { toolCallId: "call-2", toolName: "bash", tokens: 400 });
  const timeline: TimelineNode[] = [
    {
      kind: "summary",
      compactionId: "c3",
      message: summary3,
      originals: [
        {
          kind: "summary",
          compactionId: "c1",
          message: summary1,
          originals: [
            message(view("h1", "human", "Fix the parser")),
            message(view("a1", "ai", "", { toolCalls: [{ id: "call-1", name: "bash", args: '{"command":"cat parser.py"}' }] })),
            message(view("t1", "tool", "def parse(): ...", { toolCallId: "call-1", toolName: "bash" })),
          ],
        },
        message(view("h2", "human", "Now run the tests")),
        message(view("a2", "ai", "", { toolCalls: [{ id: "call-2", name: "bash", args: '{"command":"pytest"}' }] })),
        {
          kind: "hidden",
          compactionId: "c2",
          message: view("t2", "tool", "[tool result hidden]", { toolCallId: "call-2", toolName: "bash", tokens: 6 }),
          original: message(hiddenOriginal),
        },
      ],
    },
    { kind: "removed", compactionId: "c4", originals: [message(view("h4", "human", "An old aside"))] },
    message(view("h5", "human", "Thanks")),
    message(view("a5", "ai", "Done.")),
  ];
  return inspection({
    totals: {
      originalMessages: 12_345,
      originalTokens: 1_234_567,
      contextMessages: 4,
      contextTokens: 71,
      modelCalls: 6_789,
      peakContextTokens: 123_456,
      peakCallStep: 8,
      compactions: 5,
      failedCompactions: 0,
      summaries: 2,
      hiddenResults: 1,
      archivedMessages: 9,
      tokensSaved: 98_765,
      compactionMs: 12.5,
    },
    timeline,
    compactions: [
      {
        ...compaction(1, record("c1"), 2),
        summary: "Summary one: the user asked to fix the parser.",
        archivedMessages: 3,
        originals: [view("h1", "human", "Fix the parser"), view("a1", "ai", "", { toolCalls: [{ id: "call-1", name: "bash", args: '{"command":"cat parser.py"}' }] }), view("t1", "tool", "def parse(): ...", { toolCallId: "call-1", toolName: "bash" })],
      },
      { ...compaction(2, record("c2", { strategy: "toolResultHiding", status: "compacted" }), 5), archivedMessages: 1, originals: [hiddenOriginal] },
      compaction(3, record("c3"), 5),
      compaction(4, record("c4", { strategy: "hardTruncate", status: "truncated" }), 6),
      compaction(5, record("c5", { strategy: "slidingWindow", status: "noop", reason: "within budget", lastMessageId: "a5" }), 8),
    ],
    // The 9 leaves h1 … a5; c1 dropped the context at step 2, c2 and c3 at step 5, c4 at step 6.
    chart: [
      { step: 0, tokens: 100 },
      { step: 1, tokens: 200 },
      { step: 2, tokens: 300, after: 100 },
      { step: 3, tokens: 200 },
      { step: 4, tokens: 300 },
      { step: 5, tokens: 800, after: 200 },
      { step: 6, tokens: 300, after: 200 },
      { step: 7, tokens: 300 },
      { step: 8, tokens: 400 },
    ],
  });
}

interface Element {
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: Element[];
}

const VOID_ELEMENTS = new Set(["meta", "br", "img", "input", "hr", "link", "source", "wbr", "area", "base", "col", "embed", "track"]);

/**
 * Parse the page's tags into a tree. Enough for this renderer's output, whose text is escaped (so
 * `<` and `>` only delimit tags) and whose every non-void element is closed; it throws otherwise,
 * which makes it a well-formedness check as well.
 */
function parseTags(html: string): Element {
  const root: Element = { tag: "#root", attributes: {}, children: [] };
  const open: Element[] = [root];
  const body = html.replace(/<!DOCTYPE html>/i, "").replace(/<(script|style)>[\s\S]*?<\/\1>/g, "<$1></$1>");
  for (const match of body.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*(\/?)>/g)) {
    const [, closing, tag, attributeText, selfClosing] = match;
    if (closing) {
      const top = open.pop();
      if (top?.tag !== tag) throw new Error(`</${tag}> closes <${top?.tag}>`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attribute of attributeText!.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) attributes[attribute[1]!] = attribute[2] ?? "";
    const element: Element = { tag: tag!, attributes, children: [] };
    open.at(-1)!.children.push(element);
    if (!selfClosing && !VOID_ELEMENTS.has(tag!)) open.push(element);
  }
  if (open.length !== 1) throw new Error(`unclosed: ${open.map((element) => element.tag).join(" > ")}`);
  return root;
}

function findAll(element: Element, predicate: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const stack = [element];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (predicate(next)) found.push(next);
    for (let index = next.children.length - 1; index >= 0; index -= 1) stack.push(next.children[index]!);
  }
  return found;
}

interface Shape {
  readonly kind: string;
  readonly id?: string;
  readonly compaction?: string;
  readonly children?: Shape[];
}

/** The timeline as nested `data-kind` elements: what a reader sees, region by region. */
function shapeOf(element: Element): Shape[] {
  return element.children.flatMap((child): Shape[] => {
    const kind = child.attributes["data-kind"];
    if (kind === undefined) return shapeOf(child);
    const children = shapeOf(child);
    return [
      {
        kind,
        ...(child.attributes["data-message-id"] !== undefined ? { id: child.attributes["data-message-id"] } : {}),
        ...(child.attributes["data-compaction-id"] !== undefined ? { compaction: child.attributes["data-compaction-id"] } : {}),
        ...(children.length > 0 ? { children } : {}),
      },
    ];
  });
}

/** The timeline (`#timeline`), or with `id` another element. */
function timelineOf(html: string, id = "timeline"): Element {
  const [timeline] = findAll(parseTags(html), (element) => element.attributes["id"] === id);
  if (timeline === undefined) throw new Error(`no #${id}`);
  return timeline;
}

function totalsOf(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/data-total="(\w+)">([^<]*)</g)].map((match) => [match[1]!, match[2]!]));
}

describe("renderInspectionHtml", () => {
  it("escapes message text, so a <script> in a message is text", () => {
    const html = renderInspectionHtml(
      inspection({ timeline: [message(view("h1", "human", '<script>alert("pwned")</script> & <img src=x onerror=alert(1)>'))] }),
    );
    expect(html).toContain("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;");
    expect(html.match(/<script/g)).toEqual(["<script"]);
    expect(findAll(parseTags(html), (element) => element.tag === "img")).toEqual([]);
  });

  it("escapes the thread id, tool names and calls, strategies, reasons and warnings", () => {
    const html = renderInspectionHtml(
      inspection({
        threadId: 'thread"<b>',
        timeline: [message(view("a1", "ai", "", { toolCalls: [{ id: "c<1>", name: "<i>bash</i>", args: '{"q":"</pre><b>"}' }] }))],
        compactions: [compaction(1, record("r<1>", { strategy: "<u>mine</u>", status: "failed", reason: "<em>boom</em>", lastMessageId: "a1" }), null)],
        warnings: ["archive <missing> for r1"],
      }),
    );
    const tags = new Set(findAll(parseTags(html), () => true).map((element) => element.tag));
    expect(["b", "i", "u", "em"].filter((tag) => tags.has(tag))).toEqual([]);
    expect(html).toContain("<code data-thread-id>thread&quot;&lt;b&gt;</code>");
    expect(html).toContain("&lt;i&gt;bash&lt;/i&gt;");
    expect(html).toContain("{&quot;q&quot;:&quot;&lt;/pre&gt;&lt;b&gt;&quot;}");
    expect(html).toContain("&lt;u&gt;mine&lt;/u&gt;");
    expect(html).toContain("&lt;em&gt;boom&lt;/em&gt;");
    expect(html).toContain("<li>archive &lt;missing&gt; for r1</li>");
  });

  it("shows every total with its exact figure", () => {
    expect(totalsOf(renderInspectionHtml(compactedThread()))).toEqual({
      originalMessages: "12,345",
      originalTokens: "1,234,567",
      contextMessages: "4",
      contextTokens: "71",
      modelCalls: "6,789",
      peakContextTokens: "123,456",
      compactions: "5",
      failedCompactions: "0",
      summaries: "2",
      hiddenResults: "1",
      archivedMessages: "9",
      tokensSaved: "98,765",
      compactionMs: "12.5 ms",
    });
  });


  describe("the default timeline: each compaction at the top level, in the order they ran, then the current context", () => {
    const REASON = "hiding noop: hiding would free at most 1057 tokens, less than clearAtLeast (2000); summarized instead";
    /** c1 hid t1; c2 summarized h1, a1, the hidden t1 and h2 into a summary that took h1's id. */
    function hiddenThenSummarized(): Inspection {
      const hiddenT1 = view("t1", "tool", "[hidden]", { toolCallId: "call-1", toolName: "bash", tokens: 3 });
      return inspection({
        timeline: [
          { kind: "summary", compactionId: "c2", message: view("h1", "human", "Summary: fixed it."), originals: [] },
          message(view("a2", "ai", "Anything else?")),
        ],
        compactions: [
          {
            ...compaction(1, record("c1", { strategy: "toolResultHiding", status: "compacted", replacedIds: ["t1"], messagesBefore: 4, messagesAfter: 4 }), 3),
            archivedMessages: 1,
            originals: [view("t1", "tool", "a long output", { toolCallId: "call-1", toolName: "bash", tokens: 400 })],
          },
          {
            ...compaction(2, record("c2", { replacedIds: ["h1"], removedIds: ["a1", "t1", "h2"], summaryId: "h1", reason: REASON }), 4),
            summary: "Summary: fixed it.",
            archivedMessages: 4,
            originals: [view("h1", "human", "Fix it"), view("a1", "ai", "", { toolCalls: [{ id: "call-1", name: "bash", args: "{}" }] }), hiddenT1, view("h2", "human", "Thanks")],
          },
        ],
      });
    }

    it("lists the compactions in order, each with what it replaced collapsed once under it (an earlier summary or hidden copy labelled, not expanded)", () => {
      expect(shapeOf(timelineOf(renderInspectionHtml(hiddenThenSummarized())))).toEqual([
        { kind: "compaction", compaction: "c1", children: [{ kind: "replaced", compaction: "c1", children: [{ kind: "message", id: "t1" }] }] },
        {
          kind: "compaction",
          compaction: "c2",
          children: [
            { kind: "summary-text" },
            {
              kind: "replaced",
              compaction: "c2",
              children: [
                { kind: "message", id: "h1" },
                { kind: "message", id: "a1" },
                { kind: "hidden", id: "t1", compaction: "c1" },
                { kind: "message", id: "h2" },
              ],
            },
          ],
        },
        { kind: "context" },
        { kind: "summary", id: "h1", compaction: "c2" },
        { kind: "message", id: "a2" },
      ]);
    });

    it("says what each compaction did and why in plain sentences, in the timeline and the list, keeping the record's reason in data-reason", () => {
      const html = renderInspectionHtml(hiddenThenSummarized());
      const root = parseTags(html);
      const plain =
        "Summarized 4 older messages into one. Not enough to hide yet: hiding older tool results would free at most 1,057 tokens, and it needs 2,000. So the older messages were summarized instead.";
      expect([...html.matchAll(/<p class="explain"[^>]*>([^<]*)<\/p>/g)].map((match) => match[1])).toEqual([
        "Hid 1 older tool result in place.",
        plain,
      ]);
      expect([...html.matchAll(/<td class="reason"[^>]*>([^<]*)<\/td>/g)].map((match) => match[1])).toEqual([
        "Hid 1 older tool result in place.",
        plain,
      ]);
      expect(findAll(root, (element) => "data-reason" in element.attributes).map((element) => [element.tag, element.attributes["data-reason"]])).toEqual([
        ["td", REASON],
        ["p", REASON],
      ]);
    });

    it("puts the compaction list in no scrolling box: the table grows with its rows", () => {
      const html = renderInspectionHtml(compactedThread());
      const style = /<style>([^]*?)<\/style>/.exec(html)![1]!;
      expect(style.match(/\.table-wrap\{[^}]*\}/)?.[0]).toBe(".table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}");
    });
  });

  it("keeps every collapsed region closed", () => {
    const details = findAll(parseTags(renderInspectionHtml(compactedThread())), (element) => element.tag === "details");
    expect(details.map((element) => [element.attributes["data-kind"], element.attributes["data-compaction-id"] ?? null, "open" in element.attributes])).toEqual([
      ["summary-text", null, false],
      ["replaced", "c1", false],
      ["replaced", "c2", false],
    ]);
  });

  it("writes each compaction's entry with its number, time, strategy, status, tokens and messages before and after", () => {
    const html = renderInspectionHtml(compactedThread());
    const head = html.match(/<section[^>]* id="compaction-4"[^>]*><div class="head">.*?<\/div>/)?.[0]?.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
    expect(head).toBe("#4 2025-01-01 12:00:00.000 UTC hardTruncate truncated tokens 9,120 → 2,210 · messages 40 → 9 · 3.3 ms");
  });

  it("shows each message's text once: the page holds no second view of the history", () => {
    const html = renderInspectionHtml(compactedThread());
    const texts = ["Summary three: parser fixed, tests run.", "FAILED tests/test_parser.py::test_nested - AssertionError", "def parse(): ...", "Thanks"];
    expect(texts.map((text) => html.split(escapeHtml(text)).length - 1)).toEqual([1, 1, 1, 1]);
  });


  it("lists the compactions, each linking to its entry in the timeline", () => {
    const rows = findAll(parseTags(renderInspectionHtml(compactedThread())), (element) => element.tag === "tr" && "data-compaction-id" in element.attributes);
    expect(rows.map((row) => [row.attributes["data-compaction-id"], findAll(row, (element) => element.tag === "a")[0]?.attributes["href"]])).toEqual([
      ["c1", "#compaction-1"],
      ["c2", "#compaction-2"],
      ["c3", "#compaction-3"],
      ["c4", "#compaction-4"],
      ["c5", "#compaction-5"],
    ]);
  });

  it("draws the chart as one polyline point per step, and a second at the same step down to the context after a compaction", () => {
    const svg = findAll(parseTags(renderInspectionHtml(compactedThread())), (element) => element.tag === "svg")[0]!;
    const polyline = findAll(svg, (element) => element.tag === "polyline")[0]!;
    // The plot spans x 64 … 1144 over steps 0 … 8 (135 per step) and y 204 … 24 over 0 … 800 tokens (0.225 per token).
    const x = (step: number) => 64 + 135 * step;
    const y = (tokens: number) => 204 - 0.225 * tokens;
    expect(polyline.attributes["points"]!.split(" ")).toEqual(
      [
        [0, 100],
        [1, 200],
        [2, 300],
        [2, 100],
        [3, 200],
        [4, 300],
        [5, 800],
        [5, 200],
        [6, 300],
        [6, 200],
        [7, 300],
        [8, 400],
      ].map(([step, tokens]) => `${x(step!)},${Math.round(y(tokens!) * 10) / 10}`),
    );
  });

  it("draws one chart marker per placed compaction, linked to its entry in the timeline", () => {
    const svg = findAll(parseTags(renderInspectionHtml(compactedThread())), (element) => element.tag === "svg")[0]!;
    const markers = findAll(svg, (element) => element.attributes["class"]?.startsWith("chart-marker") === true);
    expect(markers.map((marker) => [marker.attributes["data-compaction-id"], marker.attributes["href"]])).toEqual([
      ["c1", "#compaction-1"],
      ["c2", "#compaction-2"],
      ["c3", "#compaction-3"],
      ["c4", "#compaction-4"],
      ["c5", "#compaction-5"],
    ]);
  });

  it("lists a compaction that left no node and names no message, linked to its entry in the timeline", () => {
    const html = renderInspectionHtml(
      inspection({
        timeline: [message(view("h1", "human", "Hello"))],
        compactions: [compaction(1, record("f1", { status: "failed", tokensBefore: null, tokensAfter: null, reason: "boom" }), 0)],
        chart: [{ step: 0, tokens: 10 }],
      }),
    );
    const root = parseTags(html);
    const row = findAll(root, (element) => element.tag === "tr" && element.attributes["data-compaction-id"] === "f1")[0]!;
    expect(findAll(row, (element) => element.tag === "a").map((element) => element.attributes["href"])).toEqual(["#compaction-1"]);
    expect(findAll(root, (element) => element.attributes["data-compaction-id"] === "f1").map((element) => [element.tag, element.attributes["id"] ?? null])).toEqual([
      ["a", null],
      ["tr", null],
      ["section", "compaction-1"],
    ]);
    expect(html).toContain('<td class="num">— → —</td>');
  });

  it("marks the peak model call on the chart with the header's figure, at the context it was sent", () => {
    // peakCallStep 8: the call answered at step 8 was sent the context after step 7 (300 tokens in messages).
    const html = renderInspectionHtml(compactedThread());
    const svg = findAll(parseTags(html), (element) => element.tag === "svg")[0]!;
    const peak = findAll(svg, (element) => element.attributes["data-chart"] === "peak")[0]!;
    const circle = findAll(peak, (element) => element.tag === "circle")[0]!;
    expect({
      tokens: peak.attributes["data-tokens"],
      step: peak.attributes["data-step"],
      at: [circle.attributes["cx"], circle.attributes["cy"]],
      label: /<g class="peak"[^]*?<text[^>]*>([^<]*)<\/text>/.exec(html)?.[1],
      hint: /<span data-chart="peak">([^<]*)<\/span>/.exec(html)?.[1],
      card: totalsOf(html)["peakContextTokens"],
      highest: /highest/.test(html),
    }).toEqual({ tokens: "123456", step: "8", at: [String(64 + 135 * 7), String(Math.round((204 - 0.225 * 300) * 10) / 10)], label: "peak 123,456", hint: "123,456", card: "123,456", highest: false });
  });

  it("draws the window and the trigger as lines when given, and says they are not known otherwise", () => {
    const limited = renderInspectionHtml({ ...compactedThread(), limits: { contextWindow: 1_000, triggerTokens: 800 } });
    const lines = (html: string) => [...html.matchAll(/<g class="limit limit-(\w+)" data-chart-line="\w+" data-tokens="(\d+)">[^]*?<line x1="64" x2="1144" y1="([\d.]+)"/g)].map((match) => [match[1], match[2], match[3]]);
    // 0 … 1,000 tokens over y 204 … 24 (0.18 per token).
    expect({ lines: lines(limited), hint: [...limited.matchAll(/<span data-chart="(window|trigger)">([^<]*)<\/span>/g)].map((match) => [match[1], match[2]]) }).toEqual({
      lines: [
        ["window", "1000", "24"],
        ["trigger", "800", String(Math.round((204 - 0.18 * 800) * 10) / 10)],
      ],
      hint: [
        ["window", "1,000"],
        ["trigger", "800"],
      ],
    });
    const unknown = renderInspectionHtml(compactedThread());
    expect({ lines: lines(unknown), said: unknown.includes("The window and the trigger are not drawn: the compaction log does not record them") }).toEqual({ lines: [], said: true });
  });

  it("gives each chart marker a tooltip with its figures", () => {
    const html = renderInspectionHtml(compactedThread());
    expect(html).toContain("<title>#3 autoCompaction (summarized) at step 5: tokens 9,120 → 2,210, messages 40 → 9</title>");
  });



  it("shows a replacement (a reordered copy) as put in place by its compaction, not as a summary, its originals collapsed under it", () => {
    const html = renderInspectionHtml(
      inspection({
        timeline: [
          { kind: "replacement", compactionId: "c1", message: view("a1", "ai", "Hello"), originals: [message(view("h1", "human", "Hi")), message(view("a1", "ai", "Hello"))] },
          { kind: "replacement", compactionId: "c1", message: view("h1", "human", "Hi"), originals: [] },
        ],
        compactions: [compaction(1, record("c1", { strategy: "reorder", status: "compacted", lastMessageId: "a1" }), 1)],
        chart: [
          { step: 0, tokens: 10 },
          { step: 1, tokens: 20 },
        ],
      }),
    );
    expect(shapeOf(timelineOf(html))).toEqual([
      { kind: "compaction", compaction: "c1" },
      { kind: "context" },
      { kind: "replacement", id: "a1", compaction: "c1" },
      { kind: "replacement", id: "h1", compaction: "c1" },
    ]);
    // Both copies, in the current context.
    expect(html.match(/<span class="note">[^]*?<\/span> <span class="spacer">/g)).toEqual(
      Array.from({ length: 2 }, () => '<span class="note">put in place by <a href="#compaction-1">#1</a></span> <span class="spacer">'),
    );
  });

  it("lets only its own script run: the CSP's script-src is the SHA-256 of the inline script, not 'unsafe-inline'", () => {
    const html = renderInspectionHtml(compactedThread());
    const script = /<script>([^]*?)<\/script>/.exec(html)![1]!;
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!;
    expect(policy).toBe(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
  });

  it("renders a thread that was never compacted: zero compactions, no markers", () => {
    const html = renderInspectionHtml(
      inspection({
        totals: { ...ZERO_TOTALS, originalMessages: 2, originalTokens: 20, contextMessages: 2, contextTokens: 20 },
        timeline: [message(view("h1", "human", "Hello")), message(view("a1", "ai", "Hi"))],
        chart: [
          { step: 0, tokens: 10 },
          { step: 1, tokens: 20 },
        ],
      }),
    );
    expect(shapeOf(timelineOf(html))).toEqual([
      { kind: "context" },
      { kind: "message", id: "h1" },
      { kind: "message", id: "a1" },
    ]);
    expect(totalsOf(html)["compactions"]).toBe("0");
    expect(html).toContain('<p class="empty" data-kind="no-compactions">This thread was never compacted.</p>');
    expect(findAll(parseTags(html), (element) => /marker/.test(element.attributes["class"] ?? ""))).toEqual([]);
  });

  it("renders an empty thread", () => {
    const html = renderInspectionHtml(inspection({}));
    expect(shapeOf(timelineOf(html))).toEqual([{ kind: "context" }]);
    expect(html).toContain('<section class="chart"><h2>Context tokens per step</h2><p class="empty">No messages.</p></section>');
  });

  it("loads nothing from the network: no URL, no src, no external stylesheet or font", () => {
    const html = renderInspectionHtml(compactedThread());
    expect(html.match(/https?:|\/\/[a-z]/gi)).toEqual(null);
    expect(html.match(/\bsrc\s*=|<link\b|url\(|@import|@font-face/gi)).toEqual(null);
  });

  it("gives no tag a network reference even when a message holds URLs and tags", () => {
    const html = renderInspectionHtml(
      inspection({ timeline: [message(view("h1", "human", '<img src="https://example.com/x.png"><link rel=stylesheet href="http://example.com/a.css"> see https://example.com'))] }),
    );
    const references = findAll(parseTags(html), () => true).flatMap((element) =>
      Object.entries(element.attributes).filter(([name, value]) => name === "src" || (name === "href" && !value.startsWith("#")) || /https?:/.test(value)),
    );
    expect(references).toEqual([]);
  });

  it("keeps a text's leading newline (the parser drops the first one after <pre>)", () => {
    const html = renderInspectionHtml(inspection({ timeline: [message(view("t1", "tool", "\n  indented"))] }));
    expect(html).toContain('<pre class="text">\n\n  indented</pre>');
  });

  it("uses the given title", () => {
    const html = renderInspectionHtml(inspection({}), { title: "Run <42>" });
    expect(html).toContain("<title>Run &lt;42&gt;</title>");
    expect(html).toContain("<h1>Run &lt;42&gt;</h1>");
  });

});

describe("escapeHtml", () => {
  it("escapes the five HTML-significant characters and nothing else", () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's $& é</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s $&amp; é&lt;/a&gt;");
  });
});

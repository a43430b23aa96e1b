/**
 * The recalls in the inspection: threads made by `createAgent` with the middleware's `recall` on and
 * a scripted model that reads a summary (paged) and a hidden result back; each recall is in the
 * inspection's data (reference, part, what it resolved to, tokens), in the text summary and on the page.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { recallRef } from "../../src/langgraph/recall-refs.js";
import { buildInspection, renderInspectionHtml, renderInspectionText, type Inspection, type MessageView, type TimelineNode } from "../../src/inspector/index.js";
import { FOREIGN_REF, HIDDEN_FIND, hiddenThreadWithRecall, summarizedThreadWithRecalls } from "./support/recalled-thread.js";

/** The restored history's messages as the inspection shows them (the timeline's leaves). */
function leafViews(nodes: readonly TimelineNode[]): MessageView[] {
  const views: MessageView[] = [];
  const pending = [...nodes].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === "message") views.push(node.message);
    else if (node.kind === "hidden") pending.push(node.original);
    else pending.push(...[...node.originals].reverse());
  }
  return views;
}

/** The result of tool call `callId` among the leaves, and its step. */
function resultOf(leaves: readonly MessageView[], callId: string): { view: MessageView; step: number } {
  const step = leaves.findIndex((view) => view.toolCallId === callId);
  if (step < 0) throw new Error(`no result of ${callId}`);
  return { view: leaves[step]!, step };
}

describe("recalls in the inspection of a summarized thread (paged recall of the summary, a foreign reference)", () => {
  let inspection: Inspection;
  let leaves: MessageView[];
  let ref: string;
  /** The part r2 asked for (the one r1's result named next), and the parts there are. */
  let nextPart: number;
  let parts: number;

  beforeAll(async () => {
    const made = await summarizedThreadWithRecalls();
    ref = made.ref;
    [nextPart, parts] = [made.second!, made.parts!];
    inspection = await buildInspection(made.thread);
    leaves = leafViews(inspection.timeline);
  }, 60_000);

  it("lists each call of the recall tool at its place: what it asked for, what it resolved to in whose archive, what it returned", () => {
    // The agent recalled the summary's reference: the summary took the id of the newest message it replaced.
    expect(ref).toBe(recallRef("a2"));
    const [first, second] = inspection.compactions;
    expect(first!.record.summaryId).toBe("a2");
    const step = (id: string) => leaves.findIndex((view) => view.id === id);
    const [r1, r2, r3] = ["r1", "r2", "r3"].map((callId) => resultOf(leaves, callId));
    const summarized = ["h1", "a1", "t-c1", "a2", "t-c2"];
    expect(inspection.recalls).toEqual([
      { number: 1, ref, find: null, part: 1, parts, tokens: r1!.view.tokens, callId: "r1", callMessageId: "a4", callStep: step("a4"), resultMessageId: r1!.view.id, resultStep: r1!.step, compactionIds: [first!.record.id], originalIds: summarized },
      { number: 2, ref, find: null, part: nextPart, parts, tokens: r2!.view.tokens, callId: "r2", callMessageId: "a5", callStep: step("a5"), resultMessageId: r2!.view.id, resultStep: r2!.step, compactionIds: [first!.record.id], originalIds: summarized },
      { number: 3, ref: FOREIGN_REF, find: null, part: 1, parts: null, tokens: r3!.view.tokens, callId: "r3", callMessageId: "a6", callStep: step("a6"), resultMessageId: r3!.view.id, resultStep: r3!.step, compactionIds: [], originalIds: [] },
    ]);
    // Each step is where the message is in the restored history; the results follow their calls.
    expect([r1!.step, r2!.step, r3!.step]).toEqual([step("a4") + 1, step("a5") + 1, step("a6") + 1]);
    // The recalled text came from the originals: the user's words are in the first part.
    expect(r1!.view.text).toContain("the launch code is 7431");
    // The second summary (which took in the first recall) is not what the recalls read.
    expect(second!.record.summaryId).toBe("a4");
  });

  it("the text summary has a line per recall", () => {
    const text = renderInspectionText(inspection);
    const [r1, r2, r3] = inspection.recalls!;
    expect(text.split("\n").filter((line) => line.startsWith("Recalls:") || line.startsWith("recall "))).toEqual([
      `Recalls: 3, ${(r1!.tokens + r2!.tokens + r3!.tokens).toLocaleString("en-US")} tokens returned`,
      `recall 1  ref ${ref}  part 1 of ${parts}  5 originals archived by #1  ${r1!.tokens} tokens returned`,
      `recall 2  ref ${ref}  part ${nextPart} of ${parts}  5 originals archived by #1  ${r2!.tokens} tokens returned`,
      `recall 3  ref ${FOREIGN_REF}  part 1  nothing archived under it  ${r3!.tokens} tokens returned`,
    ]);
  });

  it("the page marks each recall's result (linked to the compaction it read), links back from that compaction, and counts recalls in the header", () => {
    const html = renderInspectionHtml(inspection);
    const [first] = inspection.compactions;
    const articles = [...html.matchAll(/<article [^>]*data-recall="(\d)"[^>]*>.*?<span class="note recall-note">(.*?)<\/span>/gu)].map((match) => [match[0].includes(`id="recall-${match[1]}"`), match[1], match[2]]);
    // Each result once with its id (recall 1's result is also under the second compaction's originals: the first article is that one).
    expect(articles.filter(([withId]) => withId).map(([, number]) => number)).toEqual(["1", "2", "3"]);
    expect(new Set(articles.map(([, , note]) => note))).toEqual(
      new Set([
        `recall 1 of <code>${ref}</code>, part 1 of ${parts}: 5 originals archived by <a href="#compaction-1">#1</a> · ${inspection.recalls![0]!.tokens} tokens returned`,
        `recall 2 of <code>${ref}</code>, part ${nextPart} of ${parts}: 5 originals archived by <a href="#compaction-1">#1</a> · ${inspection.recalls![1]!.tokens} tokens returned`,
        `recall 3 of <code>${FOREIGN_REF}</code>: nothing archived under it · ${inspection.recalls![2]!.tokens} tokens returned`,
      ]),
    );
    expect(html).toContain(`data-recall-compaction-ids="${first!.record.id}"`);
    const entry = html.slice(html.indexOf('id="compaction-1"'), html.indexOf('id="compaction-2"'));
    expect(entry).toContain(`<p class="recalled-by" data-kind="recalled-by">Its archive was read back by <a href="#recall-1">recall 1</a>, <a href="#recall-2">recall 2</a>.</p>`);
    expect(html.slice(html.indexOf('id="compaction-2"'))).not.toContain('data-kind="recalled-by"');
    expect(html).toContain('<span class="figure" data-total="recalls">3</span>');
  });
});

describe("recalls on the page's chart", () => {
  it("marks each recall with a result at its result's step, linked to it, in step order, and says so under the heading", async () => {
    const inspection = await buildInspection((await summarizedThreadWithRecalls()).thread);
    const html = renderInspectionHtml(inspection);
    const chart = html.slice(html.indexOf('<section class="chart">'), html.indexOf("</section>", html.indexOf('<section class="chart">')));
    const marks = [...chart.matchAll(/<a href="#recall-(\d+)" class="chart-recall" data-chart="recall" data-recall="(\d+)" data-step="(\d+)"><title>([^<]*)<\/title><path d="M([\d.]+),/gu)].map((match) => ({
      href: Number(match[1]),
      number: Number(match[2]),
      step: Number(match[3]),
      title: match[4],
      x: Number(match[5]),
    }));
    const recalls = inspection.recalls!;
    expect(marks.map(({ href, number, step, title }) => ({ href, number, step, title }))).toEqual(
      recalls.map((recall) => ({ href: recall.number, number: recall.number, step: recall.resultStep, title: `recall ${recall.number} of ${recall.ref} at step ${recall.resultStep}: ${recall.tokens} tokens returned` })),
    );
    expect(marks.map(({ x }) => x)).toEqual([...marks.map(({ x }) => x)].sort((a, b) => a - b));
    expect(new Set(marks.map(({ x }) => x)).size).toBe(3);
    expect(chart).toContain("one of the agent's <strong>3 recalls</strong>");
    // Every mark's target is on the page.
    for (const { number } of marks) expect(html).toContain(`id="recall-${number}"`);
  }, 60_000);

  it("draws no recall mark, and no note, for a thread that never recalled", async () => {
    const { thread } = await summarizedThreadWithRecalls();
    const html = renderInspectionHtml({ ...(await buildInspection(thread)), recalls: [] });
    expect([html.includes('data-chart="recall"'), html.includes("agent's <strong>")]).toEqual([false, false]);
  }, 60_000);
});

describe("a recall of a hidden tool result", () => {
  it("resolves a call that names several references (`ref: a|b`) to the originals of all of them", async () => {
    const { thread, ref } = await hiddenThreadWithRecall("recalled-hidden-both", true);
    expect(ref).toBe(`${recallRef("t-c1")}|${recallRef("t-c2")}`);
    const inspection = await buildInspection(thread);
    const [r1] = inspection.recalls!;
    // t-c1 was hidden by the first compaction, t-c2 by the second.
    expect({ ref: r1!.ref, compactionIds: r1!.compactionIds, originalIds: r1!.originalIds }).toEqual({ ref, compactionIds: inspection.compactions.slice(0, 2).map((compaction) => compaction.record.id), originalIds: ["t-c1", "t-c2"] });
  });

  it("resolves the placeholder's reference to the one original the hiding archived, and shows the text it looked for", async () => {
    const { thread, ref } = await hiddenThreadWithRecall();
    const inspection = await buildInspection(thread);
    expect(ref).toBe(recallRef("t-c1"));
    const [r1] = inspection.recalls!;
    expect({ ref: r1!.ref, find: r1!.find, parts: r1!.parts, compactionIds: r1!.compactionIds, originalIds: r1!.originalIds }).toEqual({
      ref,
      find: HIDDEN_FIND,
      parts: 1,
      compactionIds: [inspection.compactions[0]!.record.id],
      originalIds: ["t-c1"],
    });
    expect(inspection.recalls).toHaveLength(1);
    expect(renderInspectionHtml(inspection)).toContain(`recall 1 of <code>${ref}</code> finding <code>${HIDDEN_FIND}</code>: 1 original archived by <a href="#compaction-1">#1</a>`);
    expect(renderInspectionText(inspection)).toContain(`recall 1  ref ${ref}  find ${JSON.stringify(HIDDEN_FIND)}  part 1  1 original archived by #1  ${r1!.tokens} tokens returned\n`);
  }, 60_000);
});

/**
 * Recall priced on a small hand-built history replayed through a scripted system that archives what
 * it hides: a miss whose source the archive holds costs one recall call of the lines the tool's
 * `find` returns for the missed word (even in a source longer than a part), a step's requests go out
 * as parallel calls, a miss no archive holds stays lost; the row with recall on adds the recall
 * calls, the tool's schema and the references to the cost.
 */
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { TraceSession } from "../../examples/traces.js";
import { DEFAULT_PRICES, costOf } from "../../bench/eval/metrics.js";
import {
  NO_RECALL,
  RECALL_CALL_TOKENS,
  RECALL_FRAME_TOKENS,
  RECALL_PAGE_TOKENS,
  RECALL_REF_TOKENS,
  RECALL_REFERENCE_TOKENS,
  RECALL_SCHEMA_TOKENS,
  RecallArchive,
  RecallLedger,
  recallCallsOf,
} from "../../bench/eval/recall.js";
import { replayTrace, totalsOf } from "../../bench/eval/replay.js";
import { findLines, findTerms } from "../../src/langgraph/recall-find.js";
import { partEnd, piecesOf, RECALL_PIECE_TOKENS } from "../../src/langgraph/recall-pages.js";
import { RECALL_ROOM_MARGIN, recallCap } from "../../src/langgraph/recall-room.js";
import { rereadCost } from "../../bench/eval/rereads.js";
import { recallRowOf, rowOf, withRecallRows } from "../../bench/eval/report-tables.js";
import { recallVerdict } from "../../bench/eval/report-recall.js";
import type { EvalSystem } from "../../bench/eval/systems.js";
import { createTokenCounter } from "../../src/index.js";
import { COMPACTION_METADATA_KEY } from "../../src/extend/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();

const task = user("u1", "Fix the DEBUG_MODE flag, then write to OWNER_ALICE");
const small = toolResult("t1", "c1", "DEBUG_MODE = True\nALLOWED_HOSTS = ['example']");
const large = toolResult("t2", "c2", `BIGWORD_TOKEN\n${"x ".repeat(3_000)}`);
/** A placeholder standing for `original`, marked as a compaction's. */
const hidden = (original: ToolMessage) =>
  new ToolMessage({ id: original.id!, content: "[tool result hidden]", tool_call_id: original.tool_call_id, name: "bash", response_metadata: { [COMPACTION_METADATA_KEY]: { kind: "hidden" } } });
const session: TraceSession = {
  source: "hand",
  id: "hand/recall",
  messages: [
    system("s", "You are a coding agent."),
    task,
    assistant("a1", "", [{ id: "c1", args: { command: "cat settings" } }]),
    small,
    assistant("a2", "", [{ id: "c2", args: { command: "cat big" } }]),
    large,
    // Step 2: t1 hidden (and archived); reuses ALLOWED_HOSTS, which only t1 had.
    assistant("a3", "", [{ id: "c3", args: { command: "grep ALLOWED_HOSTS" } }]),
    toolResult("t3", "c3", "done"),
    // Step 3: t2 hidden too (and archived); reuses BIGWORD_TOKEN, which only t2 had (over one part).
    assistant("a4", "", [{ id: "c4", args: { command: "grep BIGWORD_TOKEN" } }]),
    toolResult("t4", "c4", "done"),
    // Step 4: the task left out of the request, archived nowhere; reuses OWNER_ALICE, only the user's.
    assistant("a5", "", [{ id: "c5", args: { command: "mail OWNER_ALICE" } }]),
  ],
};

/** Hides t1 from step 2 on and t2 from step 3 on (archiving each), leaves the task out at step 4. */
function scripted(): EvalSystem {
  let step = 0;
  return {
    name: "scripted",
    async step(history: BaseMessage[]) {
      const at = step++;
      const input = history
        .filter((message) => !(at === 4 && message === task))
        .map((message) => (at >= 2 && message === small ? hidden(small) : at >= 3 && message === large ? hidden(large) : message));
      const archive = at === 2 ? { ids: ["t1"] } : at === 3 ? { ids: ["t2"] } : undefined;
      return { persisted: history, input, compacted: at === 2 || at === 3, originals: [], ...(archive ? { archive } : {}) };
    },
    drainSummaryCalls: () => [],
  };
}

async function replayed() {
  const inputs: (readonly BaseMessage[])[] = [];
  const replay = await replayTrace(session, scripted(), { window: 100_000, tokenCounter, onInput: (input) => inputs.push(input) });
  const inputTokens = await Promise.all(inputs.map(async (input) => (await tokenCounter.measure(input)).total));
  return { replay, inputTokens };
}

describe("recall in the replay", () => {
  it("charges a miss the archive holds as one recall call of the lines its find returns, even in a source over a part, and leaves a miss no archive holds lost", async () => {
    const { replay, inputTokens } = await replayed();
    const largeTokens = await tokenCounter.countMessage(large);
    expect(largeTokens).toBeGreaterThan(RECALL_PAGE_TOKENS);
    // What the tool returns for `find` of the missed word: the matching line under its header.
    const smallFound = findLines([small], findTerms("ALLOWED_HOSTS"));
    const largeFound = findLines([large], findTerms("BIGWORD_TOKEN"));
    expect([smallFound, largeFound]).toEqual(["[tool bash #c1]\nALLOWED_HOSTS = ['example']", "[tool bash #c2]\nBIGWORD_TOKEN"]);
    const smallTokens = await tokenCounter.countText(smallFound);
    const largeLineTokens = await tokenCounter.countText(largeFound);
    // The context of a recall: the step's input, the schema, and a reference per placeholder.
    const context2 = inputTokens[2]! + RECALL_SCHEMA_TOKENS + RECALL_REFERENCE_TOKENS;
    const context3 = inputTokens[3]! + RECALL_SCHEMA_TOKENS + 2 * RECALL_REFERENCE_TOKENS;
    const oneCall = (context: number, tokens: number) => ({
      ...NO_RECALL,
      recalls: 1,
      recallCalls: 1,
      returnedTokens: tokens + RECALL_FRAME_TOKENS,
      cachedTokens: context,
      uncachedTokens: RECALL_CALL_TOKENS + tokens + RECALL_FRAME_TOKENS,
      outputTokens: RECALL_CALL_TOKENS,
      peakCallTokens: context + RECALL_CALL_TOKENS + tokens + RECALL_FRAME_TOKENS,
      recalledWords: 1,
    });
    expect(replay.steps.map((step) => step.recall)).toEqual([NO_RECALL, NO_RECALL, oneCall(context2, smallTokens), oneCall(context3, largeLineTokens), { ...NO_RECALL, lostUserWords: 1 }]);
    // Without recall the same misses are two re-reads and the same lost word.
    expect(replay.steps.map((step) => [step.recovery.rereads, step.recovery.lostUserWords])).toEqual([[0, 0], [0, 0], [1, 0], [1, 0], [0, 1]]);
  });

  it("prices the row with recall on: schema and references in every call, the recall calls instead of the re-reads, only the unarchived loss left", async () => {
    const { replay, inputTokens } = await replayed();
    const base = rowOf("scripted", "ours", totalsOf(replay), DEFAULT_PRICES);
    const recall = recallRowOf(base, DEFAULT_PRICES);
    const calls = replay.steps.length;
    // Placeholders in the inputs: 1 at step 2, 2 at steps 3 and 4.
    const references = RECALL_REFERENCE_TOKENS * 5;
    expect(recall.system).toBe("scripted + recall");
    expect(recall.inputTokens).toBe(base.inputTokens + RECALL_SCHEMA_TOKENS * calls + references);
    const recallCalls = replay.steps.reduce((sum, step) => sum + step.recall.cachedTokens, 0);
    expect(recall.totals.rereadCachedTokens).toBe(recallCalls);
    expect([recall.totals.rereads, recall.totals.lostOwnWords, recall.totals.lostUserWords, recall.grounding]).toEqual([0, 0, 1, base.grounding]);
    // Every call but the first reads the system prompt from the cache, with the schema before it; a
    // reference is cached where the cached prefix covers it: t1's at step 3 only (step 4 leaves the
    // task out, which breaks its prefix after the system prompt).
    const cached = base.totals.cachedTokens + RECALL_SCHEMA_TOKENS * (calls - 1) + RECALL_REFERENCE_TOKENS;
    expect(recall.cost).toBeCloseTo(costOf({ input: recall.inputTokens, cached, output: base.outputTokens }, DEFAULT_PRICES), 9);
    const recallTokens = replay.steps.reduce(
      (sum, step) => ({ rereadCachedTokens: sum.rereadCachedTokens + step.recall.cachedTokens, rereadUncachedTokens: sum.rereadUncachedTokens + step.recall.uncachedTokens, rereadOutputTokens: sum.rereadOutputTokens + step.recall.outputTokens }),
      { rereadCachedTokens: 0, rereadUncachedTokens: 0, rereadOutputTokens: 0 },
    );
    expect(recall.costWithRereads - recall.cost).toBeCloseTo(rereadCost(recallTokens, DEFAULT_PRICES), 9);
    expect(inputTokens.length).toBe(calls);
  });

  it("prices the row with recall on from the replay of the system as it runs with recall, where there is one", async () => {
    const { replay } = await replayed();
    const base = rowOf("scripted", "ours", totalsOf(replay), DEFAULT_PRICES);
    const other = rowOf("other", "ours", totalsOf(replay), DEFAULT_PRICES);
    // The system with recall compacted otherwise: here, the same replay with its last step left out.
    const withRecall = totalsOf({ ...replay, steps: replay.steps.slice(0, -1) });
    const rows = withRecallRows([base, other], ["scripted", "other"], DEFAULT_PRICES, new Map([["scripted", withRecall]]));
    expect(rows.map((row) => row.system)).toEqual(["scripted", "scripted + recall", "other", "other + recall"]);
    expect(rows[1]).toEqual(recallRowOf(rowOf("scripted", "ours", withRecall, DEFAULT_PRICES), DEFAULT_PRICES));
    expect(rows[1]!.totals.modelCalls).toBe(replay.steps.length - 1);
    expect(rows[3]).toEqual(recallRowOf(other, DEFAULT_PRICES));
  });
});

describe("recallCallsOf", () => {
  const round = (pieces: number) => RECALL_CALL_TOKENS + pieces + RECALL_FRAME_TOKENS;
  /** A request read to its last piece. */
  const whole = (pieces: number[]) => ({ pieces, need: pieces.length });

  it("reads each request's pieces in parts of at most the page, one model call per round, each carrying the rounds before as cached input", () => {
    expect(recallCallsOf([whole([1_500, 400, 250])], 10_000, 100_000)).toEqual({
      calls: 2,
      returnedTokens: 2_150 + 2 * RECALL_FRAME_TOKENS,
      // Round 1: 1,500 + 400 (the 250 would pass 2,000); round 2: the 250.
      cachedTokens: 10_000 + (10_000 + round(1_900)),
      uncachedTokens: round(1_900) + round(250),
      outputTokens: 2 * RECALL_CALL_TOKENS,
      peakCallTokens: 10_000 + round(1_900) + round(250),
      callsOverWindow: 0,
      stalled: 0,
      read: [3],
    });
    // Parallel requests share a round.
    const parallel = recallCallsOf([whole([500]), whole([1_800, 500]), whole([700])], 10_000, 100_000);
    expect([parallel.calls, parallel.uncachedTokens, parallel.read]).toEqual([2, round(500) + round(1_800) + round(700) + round(500), [1, 2, 1]]);
    expect(recallCallsOf([], 10_000, 100_000).calls).toBe(0);
    // A call returns the whole part the tool gives, even past the piece the agent needs.
    const past = recallCallsOf([{ pieces: [300, 300, 300], need: 1 }], 10_000, 100_000);
    expect([past.calls, past.returnedTokens, past.read]).toEqual([1, 900 + RECALL_FRAME_TOKENS, [3]]);
  });

  it("bounds each round by the room the window leaves (less 5%), shared among its calls: no call over the window, what finds no room left unread", () => {
    const requests = [whole(Array.from({ length: 8 }, () => 200)), whole(Array.from({ length: 8 }, () => 200))];
    // Unbounded, both 1,600-token requests would come back in one round: 12,000 + 2 × 1,700 > 15,000.
    expect(12_000 + 2 * round(1_600)).toBeGreaterThan(15_000);
    const bounded = recallCallsOf(requests, 12_000, 15_000);
    // Round 1: room 14,250 - 12,100 = 2,150, 1,075 a call less the frame: 5 pieces each.
    expect(recallCap(15_000, 12_000 + 2 * RECALL_CALL_TOKENS, 2)).toBe(1_075 - RECALL_FRAME_TOKENS);
    expect(bounded.read).toEqual([5, 5]);
    expect([bounded.callsOverWindow, bounded.stalled]).toEqual([0, 2]);
    expect(bounded.peakCallTokens).toBeLessThanOrEqual(Math.floor(15_000 * (1 - RECALL_ROOM_MARGIN)));
    // With the room for them, the same requests are read whole, in one round.
    const roomy = recallCallsOf(requests, 8_000, 15_000);
    expect([roomy.calls, roomy.read, roomy.stalled, roomy.callsOverWindow]).toEqual([1, [8, 8], 0, 0]);
  });

  it("stops when a round would have no room for any part: the unfinished requests are stalled", () => {
    // Round 1: a cap of 15,200 - 15,150 - 50 = 0 tokens, under the 200-token piece: nothing is asked.
    expect(recallCallsOf([whole([200, 200])], 15_100, 16_000)).toMatchObject({ calls: 0, read: [0], stalled: 1, callsOverWindow: 0 });
    // Room for one piece: one call, then no room for the second.
    const one = recallCallsOf([whole([200, 200])], 14_800, 16_000);
    expect([recallCap(16_000, 14_850, 1), one.calls, one.read, one.stalled]).toEqual([300, 1, [1], 1]);
  });
});

describe("RecallArchive.referenceFor", () => {
  it("reaches an original by its own reference, else through the newest summary in the context, which stands for its span; nothing else", () => {
    const archive = new RecallArchive();
    archive.add({ ids: ["t0"] });
    archive.add({ ids: ["u1", "a1", "t1"], summary: { id: "a1", covers: ["u1", "a1", "t1"] } });
    expect([archive.referenceFor("t0", new Set(["s", "t0", "a1"])), archive.referenceFor("t1", new Set(["s", "a1"])), archive.referenceFor("u1", new Set(["s", "a1"]))]).toEqual([
      { ref: "t0", reads: ["t0"] },
      { ref: "a1", reads: ["u1", "a1", "t1"] },
      { ref: "a1", reads: ["u1", "a1", "t1"] },
    ]);
    // A later summary replaces the first: its originals come first in the span.
    archive.add({ ids: ["a2", "t2"], summary: { id: "a2", covers: ["a1", "a2", "t2"] } });
    expect([archive.referenceFor("t1", new Set(["s", "a2"])), archive.referenceFor("t2", new Set(["s", "a2"])), archive.referenceFor("t1", new Set(["s"])), archive.referenceFor("t9", new Set(["s", "t9"]))]).toEqual([
      { ref: "a2", reads: ["u1", "a1", "t1", "a2", "t2"] },
      { ref: "a2", reads: ["u1", "a1", "t1", "a2", "t2"] },
      undefined,
      undefined,
    ]);
  });
});

describe("recallVerdict", () => {
  const row = (system: string, kind: string, grounding: number, callsOverWindow: number, lost = 0) => ({
    system,
    kind,
    grounding,
    totals: { callsOverWindow, summaryCallsOverWindow: 0, lostOwnWords: lost, lostUserWords: 0, groundedWords: 90, reusedWords: 100, rereadWords: 4, recall: { recalls: 3, recallCalls: 4, recalledWords: 6 } },
  });
  const window = (costs: Record<string, number>, rows: ReturnType<typeof row>[]) => ({
    window: 32_000,
    rows,
    presetCosts: [{ prices: "reference", label: "reference", rows: rows.map((each) => ({ system: each.system, kind: each.kind, costWithRereads: costs[each.system]! })) }],
  });

  it("holds the cost to the cheapest LangChain row inside the window, and the grounding to that row's less 0.01", () => {
    const rows = [row("ours + recall", "ours", 0.93, 0), row("cheap but over", "peer", 0.99, 5), row("inside", "peer", 0.935, 0), row("dear inside", "peer", 0.99, 0)];
    const met = recallVerdict(window({ "ours + recall": 100, "cheap but over": 50, inside: 100, "dear inside": 200 }, rows), "ours + recall")!;
    expect([met.costs[0]!.reference, met.costs[0]!.met, met.met, met.recoveredGrounding]).toEqual(["inside", true, { lostWords: true, cost: true, window: true }, 1]);
    const dearer = recallVerdict(window({ "ours + recall": 101, "cheap but over": 50, inside: 100, "dear inside": 200 }, rows), "ours + recall")!;
    const lower = recallVerdict(window({ "ours + recall": 90, "cheap but over": 50, inside: 100, "dear inside": 200 }, [row("ours + recall", "ours", 0.92, 0, 2), ...rows.slice(1)]), "ours + recall")!;
    expect([dearer.met.cost, lower.met.cost, lower.met.lostWords]).toEqual([false, false, false]);
  });
});

describe("recallCallsOf, a find's first part", () => {
  it("ends a part that starts among a find's newest matches with them, where the tool ends it", () => {
    const first = recallCallsOf([{ pieces: [100, 100, 100], need: 1, firstPart: 2 }], 1_000, 100_000);
    expect([first.calls, first.returnedTokens, first.read]).toEqual([1, 200 + RECALL_FRAME_TOKENS, [2]]);
    // Past them, a part goes on as far as the room allows; without the bound, the first part holds all three pieces.
    const past = recallCallsOf([{ pieces: [100, 100, 100], need: 3, firstPart: 2 }], 1_000, 100_000);
    expect([past.calls, past.returnedTokens, past.read]).toEqual([2, 300 + 2 * RECALL_FRAME_TOKENS, [3]]);
    expect(recallCallsOf([{ pieces: [100, 100, 100], need: 1 }], 1_000, 100_000).read).toEqual([3]);
  });
});

describe("RecallLedger.charge", () => {
  const line = (word: string) => `${word} ${"y ".repeat(60)}`;
  // One hidden result whose find output is long: ALPHA_WORD on the first line, 120 lines of BETA_WORD, OMEGA_WORD on the last.
  const big = toolResult("t9", "c9", [line("ALPHA_WORD"), ...Array.from({ length: 120 }, () => line("BETA_WORD")), line("OMEGA_WORD")].join("\n"));
  const archive = new RecallArchive();
  archive.add({ ids: ["t9"] });
  const charge = async (words: string[], options: { ledger?: RecallLedger; contextTokens?: number; window?: number } = {}) => {
    const missing = new Map(words.map((word) => [word, { kind: "tool" as const, message: big }]));
    const step = { archive, input: [hidden(big)], contextTokens: options.contextTokens ?? 1_000, window: options.window ?? 100_000, messageOf: (id: string) => (id === "t9" ? big : undefined), countMessage: (m: BaseMessage) => tokenCounter.countMessage(m), tokenCounter };
    return (options.ledger ?? new RecallLedger()).charge({ grounding: { grounded: 0, reused: words.length }, missing }, step);
  };
  /** The tokens of the first `n` pieces the tool cuts a find of `words` into, and of its first part of at most 2,000 tokens. */
  const pieces = async (words: string) => piecesOf(findLines([big], findTerms(words)), RECALL_PIECE_TOKENS, tokenCounter);
  const read = async (words: string, n: number) => (await pieces(words)).slice(0, n).reduce((sum, piece) => sum + piece.tokens, 0);
  const firstPart = async (words: string) => read(words, partEnd(await pieces(words), 0, RECALL_PAGE_TOKENS));

  it("reads a find's parts up to the one where the last missed word first shows; a word that first shows far in gets a find of its own when that returns less", async () => {
    // ALPHA_WORD and the first BETA_WORD line are in the first part: one request, one call, that whole part.
    const first = await charge(["BETA_WORD", "ALPHA_WORD"]);
    expect([first.recalls, first.recallCalls, first.recalledWords, first.returnedTokens]).toEqual([1, 1, 2, (await firstPart("BETA_WORD|ALPHA_WORD")) + RECALL_FRAME_TOKENS]);
    // OMEGA_WORD first shows after the 120 BETA_WORD lines, past 2,000 tokens: a find of its own (header and line), in the same round as BETA_WORD's first part.
    expect(await read("BETA_WORD|OMEGA_WORD", 122)).toBeGreaterThan(RECALL_PAGE_TOKENS);
    const far = await charge(["BETA_WORD", "OMEGA_WORD"]);
    expect([far.recalls, far.recallCalls, far.recalledWords, far.returnedTokens]).toEqual([2, 1, 2, (await firstPart("BETA_WORD")) + (await read("OMEGA_WORD", 2)) + 2 * RECALL_FRAME_TOKENS]);
  });

  it("leaves a word the room has no part for missing at its step, and recalls it when it is missed again with room", async () => {
    const ledger = new RecallLedger();
    // 1,000 tokens of a 1,100-token window: less than the 5% margin is left.
    const full = await charge(["ALPHA_WORD"], { ledger, window: 1_100 });
    expect([full.recalls, full.recallCalls, full.recalledWords, full.unreadWords, full.stalledRecalls, full.callsOverWindow]).toEqual([1, 0, 0, 1, 1, 0]);
    const later = await charge(["ALPHA_WORD"], { ledger });
    expect([later.recallCalls, later.recalledWords, later.unreadWords]).toEqual([1, 1, 0]);
  });
});

describe("RecallLedger.charge, what the context holds after a recall", () => {
  const first = toolResult("t7", "c7", "GAMMA_WORD DELTA_WORD\nunrelated line");
  const second = toolResult("t8", "c8", "EPSILON_WORD here");
  const archive = new RecallArchive();
  archive.add({ ids: ["t7", "t8"] });
  const byId = new Map([["t7", first], ["t8", second]]);
  const sourceOf = new Map([["GAMMA_WORD", first], ["DELTA_WORD", first], ["EPSILON_WORD", second]]);
  const charge = (ledger: RecallLedger, words: string[]) => {
    const missing = new Map(words.map((word) => [word, { kind: "tool" as const, message: sourceOf.get(word)! }]));
    const step = { archive, input: [hidden(first), hidden(second)], contextTokens: 1_000, window: 100_000, messageOf: (id: string) => byId.get(id), positionOf: (id: string) => (id === "t7" ? 0 : 1), countMessage: (m: BaseMessage) => tokenCounter.countMessage(m), tokenCounter };
    return ledger.charge({ grounding: { grounded: 0, reused: words.length }, missing }, step);
  };

  it("does not charge again, before the next compaction, a word that a recall returned without being asked for it", async () => {
    const ledger = new RecallLedger();
    const asked = await charge(ledger, ["GAMMA_WORD"]);
    expect([asked.recalls, asked.recalledWords]).toEqual([1, 1]);
    // DELTA_WORD came back on GAMMA_WORD's line: it is in the context already.
    const next = await charge(ledger, ["DELTA_WORD"]);
    expect(next).toEqual({ ...NO_RECALL, recalledWords: 1 });
    // A compaction: the recalled text may be gone, so a miss is charged again.
    ledger.newEpoch();
    expect((await charge(ledger, ["DELTA_WORD"])).recalls).toBe(1);
  });

  it("asks for every reference of a step in one call (`ref: a|b`), its call and frame longer by the extra reference", async () => {
    const both = await charge(new RecallLedger(), ["GAMMA_WORD", "EPSILON_WORD"]);
    // The tool's find over both references' originals, newest first, read whole.
    const found = findLines([first, second], findTerms("GAMMA_WORD|EPSILON_WORD"));
    expect(found).toBe("[tool bash #c8]\nEPSILON_WORD here\n\n[tool bash #c7]\nGAMMA_WORD DELTA_WORD");
    const content = await read(found);
    const call = RECALL_CALL_TOKENS + RECALL_REF_TOKENS;
    const frame = RECALL_FRAME_TOKENS + RECALL_REF_TOKENS;
    expect(both).toEqual({
      ...NO_RECALL,
      recalls: 1,
      recallCalls: 1,
      recalledWords: 2,
      returnedTokens: content + frame,
      cachedTokens: 1_000,
      uncachedTokens: call + content + frame,
      outputTokens: call,
      peakCallTokens: 1_000 + call + content + frame,
    });
  });
});

/** The tokens of the pieces the tool cuts `text` into. */
async function read(text: string): Promise<number> {
  return (await piecesOf(text, RECALL_PIECE_TOKENS, tokenCounter)).reduce((sum, piece) => sum + piece.tokens, 0);
}

/**
 * Where the recall cost of a row goes (not a test, not part of `npm run eval`): replays the recorded
 * sessions through one system at one window, as run.ts does (the default and the frugal setting as
 * they run with the recall tool, `withRecall: true`), and splits the recovery of its `+ recall`
 * row into the recall calls' cached context, their calls, their returned parts, their output, the
 * re-reads that stay, and the schema and references every model call carries; then the recalls again
 * per kind of miss (tool result, the agent's own words, the user's), each kind charged alone; and the
 * row's cost without recall: the model calls' cached and uncached input (the uncached input of the
 * calls right after a compaction apart: the cache the compaction broke), their output, and the
 * summary calls.
 *
 *   tsx bench/eval/recall-breakdown.ts <window> [system=autoCompaction | autoCompaction options as JSON] [traces.jsonl]
 */
import { createTokenCounter } from "../../src/index.js";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import type { GroundingMisses } from "./grounding.js";
import { DEFAULT_PRICES } from "./metrics.js";
import { RecallLedger, RECALL_SCHEMA_TOKENS, type StepRecall } from "./recall.js";
import { replayTrace } from "./replay.js";
import { DeterministicSummaryModel } from "./summary-model.js";
import { ALL_SYSTEMS, RECALL_REPLAYS, ours } from "./systems.js";
import { EMPTY_TOTALS, addTotals, totalsOf } from "./replay.js";
import { recallRowOf, recoveredGrounding, rowOf } from "./report-tables.js";
import { autoCompaction, type AutoCompactionOptions } from "../../src/index.js";

const window = Number(process.argv[2] ?? 32_000);
const systemName = process.argv[3] ?? "autoCompaction";
const KINDS = ["tool", "own", "user"] as const;
type Kind = (typeof KINDS)[number];

const SUMMED = ["recalls", "recallCalls", "returnedTokens", "cachedTokens", "uncachedTokens", "outputTokens", "rereads", "rereadCachedTokens", "rereadUncachedTokens", "rereadOutputTokens", "recalledWords", "unreadWords", "lostOwnWords", "lostUserWords", "rereadWords"] as const;
type Sums = Record<(typeof SUMMED)[number], number>;
const empty = (): Sums => Object.fromEntries(SUMMED.map((key) => [key, 0])) as Sums;
const add = (into: Sums, step: StepRecall) => {
  for (const key of SUMMED) into[key] += step[key];
};

// Each ledger of the replay gets one shadow ledger per kind of miss, charged with that kind's misses alone.
const shadows = new WeakMap<RecallLedger, Record<Kind, RecallLedger>>();
const byKind: Record<Kind, Sums> = { tool: empty(), own: empty(), user: empty() };
const words: Record<Kind, number> = { tool: 0, own: 0, user: 0 };
const shadowOf = (ledger: RecallLedger) => {
  let shadow = shadows.get(ledger);
  if (shadow === undefined) shadows.set(ledger, (shadow = { tool: new RecallLedger(), own: new RecallLedger(), user: new RecallLedger() }));
  return shadow;
};
const newEpoch = RecallLedger.prototype.newEpoch;
const charge = RecallLedger.prototype.charge;
RecallLedger.prototype.newEpoch = function (this: RecallLedger) {
  newEpoch.call(this);
  for (const kind of KINDS) newEpoch.call(shadowOf(this)[kind]);
};
RecallLedger.prototype.charge = async function (this: RecallLedger, misses: GroundingMisses, step: Parameters<RecallLedger["charge"]>[1]) {
  for (const kind of KINDS) {
    const missing = new Map([...misses.missing].filter(([, source]) => source.kind === kind));
    words[kind] += missing.size;
    add(byKind[kind], await charge.call(shadowOf(this)[kind], { grounding: misses.grounding, missing }, step));
  }
  return charge.call(this, misses, step);
};

const tokenCounter = createTokenCounter();
const summaryModel = new DeterministicSummaryModel({ tokenCounter });
const spec = systemName.startsWith("{")
  ? ours("variant", ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, ...(JSON.parse(systemName) as AutoCompactionOptions) }))
  : (RECALL_REPLAYS.get(systemName) ?? ALL_SYSTEMS.find((system) => system.name === systemName));
if (!spec) throw new Error(`no system ${systemName}`);
const sessions = loadTraceSessions(process.argv[4] ?? defaultTracesPath());
const all = empty();
let modelCalls = 0;
let referenceTokens = 0;
let baseRereads = 0;
let baseRereadCost = 0;
let contextOfRecallSteps = 0;
let recallSteps = 0;
/** The model calls' input: cached (prefix), uncached at the calls right after a compaction, uncached at the others; the summary calls'. */
const base = { cached: 0, uncachedAfterCompaction: 0, uncachedOther: 0, compactions: 0, summaryInput: 0, summaryCached: 0, summaryOutput: 0 };
const p = DEFAULT_PRICES;
let totals = EMPTY_TOTALS;
for (const session of sessions) {
  const replay = await replayTrace(session, spec.create({ window, tokenCounter, summaryModel }), { window, tokenCounter });
  totals = addTotals(totals, totalsOf(replay));
  for (const step of replay.steps) {
    modelCalls++;
    const modelCached = step.cachedTokens - step.summaryCachedTokens;
    base.cached += modelCached;
    if (step.compacted) {
      base.compactions++;
      base.uncachedAfterCompaction += step.inputTokens - modelCached;
    } else base.uncachedOther += step.inputTokens - modelCached;
    base.summaryCached += step.summaryCachedTokens;
    for (const call of step.summaryCalls) {
      base.summaryInput += call.inputTokens;
      base.summaryOutput += call.outputTokens;
    }
    referenceTokens += 8 * step.referenced.all;
    add(all, step.recall);
    baseRereads += step.recovery.rereads;
    baseRereadCost += step.recovery.cachedTokens * p.cachedInput + step.recovery.uncachedTokens * p.cacheWrite + step.recovery.outputTokens * p.output;
    if (step.recall.recallCalls > 0) {
      recallSteps++;
      contextOfRecallSteps += step.inputTokens;
    }
  }
}
const M = (n: number) => `${(n / 1e6).toFixed(3)} M`;
const cost = (s: Sums) => ({
  cached: s.cachedTokens * p.cachedInput,
  calls: (s.uncachedTokens - s.returnedTokens) * p.cacheWrite,
  returned: s.returnedTokens * p.cacheWrite,
  output: s.outputTokens * p.output,
  rereads: s.rereadCachedTokens * p.cachedInput + s.rereadUncachedTokens * p.cacheWrite + s.rereadOutputTokens * p.output,
});
const show = (label: string, s: Sums) => {
  const c = cost(s);
  const total = c.cached + c.calls + c.returned + c.output + c.rereads;
  console.log(
    `${label}: ${s.recalls} recalls in ${s.recallCalls} calls, ${s.recalledWords} words recalled, ${s.unreadWords} unread; ` +
      `cached context ${M(c.cached)} (${M(s.cachedTokens)} tokens), calls ${M(c.calls)}, returned ${M(c.returned)} (${M(s.returnedTokens)} tokens), output ${M(c.output)}; ` +
      `re-reads left ${s.rereads} ${M(c.rereads)} (${s.rereadWords} words); lost own ${s.lostOwnWords} user ${s.lostUserWords}; total ${M(total)}`,
  );
};
console.log(`${systemName} at ${window}: ${sessions.length} sessions, ${modelCalls} model calls; base re-reads ${baseRereads} costing ${M(baseRereadCost)}`);
console.log(`schema ${M(modelCalls * RECALL_SCHEMA_TOKENS)} tokens, references ${M(referenceTokens)} tokens (before caching)`);
console.log(`steps with recall calls: ${recallSteps}, mean input ${Math.round(contextOfRecallSteps / Math.max(1, recallSteps))} tokens`);
show("all", all);
for (const kind of KINDS) show(`${kind} alone (${words[kind]} missing words)`, byKind[kind]);

const row = rowOf(systemName, "ours", totals, DEFAULT_PRICES);
const recallRow = recallRowOf(row, DEFAULT_PRICES);
const summaryCost = (base.summaryInput - base.summaryCached) * p.cacheWrite + base.summaryCached * p.cachedInput + base.summaryOutput * p.output;
console.log(
  `BASE model calls: cached input ${M(base.cached * p.cachedInput)} (${M(base.cached)} tokens), uncached input right after ${base.compactions} compactions ${M(base.uncachedAfterCompaction * p.cacheWrite)}, ` +
    `uncached input at the other calls ${M(base.uncachedOther * p.cacheWrite)}, output ${M(totals.agentOutputTokens * p.output)}; summary calls ${M(summaryCost)} (${totals.summaryCalls} calls, ${M(base.summaryInput)} tokens in); ` +
    `schema and references with recall ${M(recallRow.cost - row.cost)}`,
);
console.log(`ROW cost ${M(row.cost)}, with re-reads ${M(row.costWithRereads)}, grounding ${row.grounding.toFixed(3)}, lost own/user ${totals.lostOwnWords}/${totals.lostUserWords}, peak ${totals.peakInputTokens}, over ${totals.callsOverWindow}; + recall: ${M(recallRow.costWithRereads)} (cost ${M(recallRow.cost)}), after recovery ${recoveredGrounding(recallRow).toFixed(3)}, lost ${recallRow.totals.lostOwnWords}/${recallRow.totals.lostUserWords}, over ${recallRow.totals.callsOverWindow}, unread ${totals.recall.unreadWords}`);

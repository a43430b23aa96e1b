/**
 * The provider contract over generated histories in every shape real clients produce (see
 * support/wire/arbitraries.ts) and hostile ones (support/wire/hostile.ts), for every strategy and
 * policy the package exports, `invalidHistory: "repair"` included:
 * - an input `ChatOpenAI` / `ChatAnthropic` would send without rejection gives an output that
 *   provider accepts too (checked on what the real clients send, by the wire validator);
 * - a hostile input (a provider-shaped history with hostile edits) gives a typed `CompactionError`
 *   or an output every provider that accepted the unedited history accepts;
 * - the input is never changed; every throw is a `CompactionError`.
 *
 * LANGCHAIN_COMPACTION_PROPERTY_RUNS sets the number of histories per run (default 10 000, a fifth
 * of them hostile), shared by the strategies. FC_SEED replays a run (FC_SEED=random for a new one).
 * A failing test lists each distinct failure kind with its count and smallest example.
 */
import type { BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTokenCounter } from "../../src/index.js";
import { buildWireHistory, wireHistorySpec } from "../support/wire/arbitraries.js";
import { checkRun, type Outcome } from "../support/wire/check-run.js";
import { FailureLog, specText } from "../support/wire/failures.js";
import { buildHostileHistory, hostileSpec } from "../support/wire/hostile.js";
import { STRATEGY_CASES, type StrategyCase } from "../support/wire/strategies.js";

const TOTAL_RUNS = Number(process.env["LANGCHAIN_COMPACTION_PROPERTY_RUNS"] ?? 10_000);
const HOSTILE_SHARE = 0.2;
const seedSetting = process.env["FC_SEED"] ?? "20261124";
const seed = seedSetting === "random" ? Math.floor(Math.random() * 0x7fffffff) : Number(seedSetting);

const validRuns = Math.ceil((TOTAL_RUNS * (1 - HOSTILE_SHARE)) / STRATEGY_CASES.length);
const hostileRuns = Math.ceil((TOTAL_RUNS * HOSTILE_SHARE) / STRATEGY_CASES.length);

/** The approximate counter: the contract does not depend on the counter, and tokenizing 10 000 histories exactly is slow. */
const counter = createTokenCounter({ mode: "approximate" });

interface Tally {
  cases: number;
  outcomes: Map<Outcome, number>;
  /** Cases by the wires their output was checked on (the wires that accepted the input, or the history before hostile edits). */
  checked: Map<string, number>;
}

const tallies = new Map<string, Tally>();

function tally(name: string): Tally {
  let found = tallies.get(name);
  if (found === undefined) tallies.set(name, (found = { cases: 0, outcomes: new Map(), checked: new Map() }));
  return found;
}

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

async function runCases<S>(
  strategyCase: StrategyCase,
  kind: "valid" | "hostile",
  specs: fc.Arbitrary<S>,
  build: (spec: S) => { input: BaseMessage[]; base?: BaseMessage[] },
  runs: number,
  seedOffset: number,
): Promise<FailureLog> {
  const log = new FailureLog();
  const record = tally(`${strategyCase.name} ${kind}`);
  const samples = fc.sample(fc.tuple(specs, strategyCase.options), { seed: seed + seedOffset, numRuns: runs });
  for (const [caseNumber, [spec, options]] of samples.entries()) {
    const { input, base } = build(spec);
    const total = await counter.countMessages(input).catch(() => 1);
    let strategy;
    try {
      strategy = strategyCase.create(options, Math.max(1, total), counter);
    } catch (error) {
      log.add(`${strategyCase.name} | options rejected: ${String(error)}`, { input, options, spec: specText(spec), caseNumber });
      continue;
    }
    const report = await checkRun(strategyCase.name, { input, strategy, options, spec: specText(spec), caseNumber, ...(base === undefined ? {} : { base }) }, log);
    record.cases++;
    bump(record.outcomes, report.outcome);
    bump(record.checked, report.checked.length === 0 ? "neither" : report.checked.join("+"));
  }
  return log;
}

function expectNoFailure(log: FailureLog, what: string): void {
  const kinds = log.kinds();
  expect(kinds, `${what}: ${kinds.length} failure kinds (seed ${seed})\n${log.report()}`).toEqual([]);
}

// The LangChain AIMessage constructor warns about raw tool calls without parsed ones (hostile stale raw calls).
beforeAll(() => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterAll(() => {
  vi.restoreAllMocks();
  const lines = [...tallies.entries()].map(([name, { cases, outcomes, checked }]) => {
    const byOutcome = [...outcomes.entries()].map(([outcome, count]) => `${outcome} ${count}`).join(", ");
    const byWire = [...checked.entries()].map(([wire, count]) => `${wire} ${count}`).join(", ");
    return `  ${name}: ${cases} cases (${byOutcome}; output checked on: ${byWire})`;
  });
  const cases = [...tallies.values()].reduce((sum, { cases: count }) => sum + count, 0);
  console.log(`provider properties, seed ${seed}: ${cases} histories\n${lines.join("\n")}`);
});

describe.each(STRATEGY_CASES.map((strategyCase, position) => ({ strategyCase, position, name: strategyCase.name })))("$name", ({ strategyCase, position }) => {
  it(`keeps ${validRuns} provider-valid histories valid on the wire, never changes them, throws only typed errors`, async () => {
    const log = await runCases(strategyCase, "valid", wireHistorySpec, (spec) => ({ input: buildWireHistory(spec) }), validRuns, position);
    expectNoFailure(log, `${strategyCase.name} on provider-shaped histories`);
  });

  it(`on ${hostileRuns} hostile histories throws a typed error or returns a history the providers of the unedited history accept, never changing the input`, async () => {
    const log = await runCases(strategyCase, "hostile", hostileSpec, (spec) => ({ input: buildHostileHistory(spec), base: buildWireHistory(spec.history) }), hostileRuns, 1_000 + position);
    expectNoFailure(log, `${strategyCase.name} on hostile histories`);
  });
});

it(`runs at least ${TOTAL_RUNS} histories in all`, () => {
  const cases = [...tallies.values()].reduce((sum, { cases: count }) => sum + count, 0);
  expect(cases).toBeGreaterThanOrEqual(TOTAL_RUNS);
});

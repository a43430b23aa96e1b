/** Runs the frontier sweep (`npm run eval -- --frontier`): every setting of frontier.ts over every trace at every window. */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { performance } from "node:perf_hooks";
import type { TokenCounter } from "../../src/index.js";
import type { TraceSession } from "../../examples/traces.js";
import { frontierSettings, frontierWindow, type FrontierWindow } from "./frontier.js";
import { EMPTY_TOTALS, addTotals, replayTrace, totalsOf } from "./replay.js";
import { rowOf, type PriceSet } from "./report-tables.js";
import type { Prices } from "./metrics.js";
import type { WindowResult } from "./report.js";
import { RECOMMENDED_DEFAULT } from "./systems.js";

/** What the sweep ran and found. */
export interface FrontierResult {
  readonly windows: readonly FrontierWindow[];
  /** The sweep's settings per window. */
  readonly settings: number;
  readonly wallTimeMs: number;
}

/**
 * Replay every sweep setting over `sessions` at each window of `headline` (the main run's windows,
 * whose rows give no compaction, the LangChain rows and the default).
 */
export async function runFrontier(options: {
  sessions: readonly TraceSession[];
  headline: readonly WindowResult[];
  tokenCounter: TokenCounter;
  summaryModel: BaseChatModel;
  prices: Prices;
  priceSets: readonly PriceSet[];
  log: (line: string) => void;
}): Promise<FrontierResult> {
  const started = performance.now();
  const settings = frontierSettings();
  const windows: FrontierWindow[] = [];
  for (const { window, rows } of options.headline) {
    const windowStarted = performance.now();
    const sweep = [];
    for (const setting of settings) {
      let totals = EMPTY_TOTALS;
      for (const session of options.sessions) {
        const replay = await replayTrace(session, setting.spec.create({ window, tokenCounter: options.tokenCounter, summaryModel: options.summaryModel }), { window, tokenCounter: options.tokenCounter });
        totals = addTotals(totals, totalsOf(replay));
      }
      sweep.push({ setting, row: rowOf(setting.spec.name, setting.kind, totals, options.prices) });
    }
    windows.push(frontierWindow(window, sweep, rows, options.priceSets, RECOMMENDED_DEFAULT));
    options.log(`  frontier at ${window}: ${settings.length} settings in ${((performance.now() - windowStarted) / 1000).toFixed(1)} s`);
  }
  return { windows, settings: settings.length, wallTimeMs: performance.now() - started };
}

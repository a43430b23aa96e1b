/**
 * Offline demo: the rule-based strategies over real recorded agent sessions, with a before/after
 * table. No API key, no server.
 *
 *   npm run demo                       # the two bundled sessions
 *   npm run demo -- --traces <file>    # any JSONL in the same format
 */
import { relative } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import {
  createTokenCounter,
  hardTruncate,
  selectiveCompact,
  slidingWindow,
  toolResultHiding,
  validateToolPairing,
  type CompactionStrategy,
} from "../src/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "./traces.js";

const tracesFlag = process.argv.indexOf("--traces");
const tracesPath = tracesFlag >= 0 ? process.argv[tracesFlag + 1]! : BUNDLED_TRACES_PATH;
const tokenCounter = createTokenCounter({ model: "gpt-4o" });

function pad(value: string | number, width: number, right = false): string {
  const text = String(value);
  return right ? text.padStart(width) : text.padEnd(width);
}

async function strategiesFor(messages: BaseMessage[]): Promise<[string, CompactionStrategy][]> {
  const total = await tokenCounter.countMessages(messages);
  const half = Math.floor(total / 2);
  const quarter = Math.floor(total / 4);
  return [
    ["toolResultHiding (keep 5 groups)", toolResultHiding({ tokenCounter })],
    [`selectiveCompact (target ${half})`, selectiveCompact({ target: half, tokenCounter })],
    [`hardTruncate (max ${quarter}, keep 10)`, hardTruncate({ maxTokens: quarter, tokenCounter })],
    ["slidingWindow (keep 1 turn)", slidingWindow({ keepTurns: 1, tokenCounter })],
  ];
}

console.log(`langchain-compaction demo: real recorded sessions from ${relative(process.cwd(), tracesPath)}`);
console.log("(sources and licences: examples/fixtures/README.md; tokens counted exactly, o200k_base)\n");

for (const session of loadTraceSessions(tracesPath)) {
  console.log(`${session.id}  (${session.source})`);
  const header = `  ${pad("strategy", 38)} ${pad("status", 10)} ${pad("messages", 11, true)} ${pad("tokens", 15, true)} ${pad("saved", 6, true)} ${pad("replaced", 8, true)} ${pad("removed", 7, true)} ${pad("valid", 5, true)} ${pad("ms", 6, true)}`;
  console.log(header);
  console.log(`  ${"-".repeat(header.length - 2)}`);
  for (const [label, strategy] of await strategiesFor(session.messages)) {
    const started = performance.now();
    const result = await strategy.compact(session.messages);
    const elapsed = performance.now() - started;
    const saved = result.tokensBefore === 0 ? 0 : 1 - result.tokensAfter / result.tokensBefore;
    const valid = validateToolPairing(result.messages).length === 0 ? "yes" : "NO";
    console.log(
      `  ${pad(label, 38)} ${pad(result.status, 10)} ${pad(`${result.messagesBefore}→${result.messagesAfter}`, 11, true)} ${pad(
        `${result.tokensBefore}→${result.tokensAfter}`,
        15,
        true,
      )} ${pad(`${Math.round(saved * 100)}%`, 6, true)} ${pad(result.replaced.length, 8, true)} ${pad(result.removed.length, 7, true)} ${pad(valid, 5, true)} ${pad(elapsed.toFixed(1), 6, true)}`,
    );
  }
  console.log("");
}
console.log("Every output keeps each tool call with its result (valid = validateToolPairing found no problem).");
console.log("Originals of hidden and removed messages are in each result's `replaced` and `removed`, for archiving.");

/**
 * Targets 7-11: the hiding step (bench/hiding-step.ts), the full pass around the defaults
 * (bench/hiding-variants.ts) and what an agent pays per model call (bench/agent-step.ts).
 */
import type { AgentStepResult } from "./agent-step.js";
import type { HidingStepResult } from "./hiding-step.js";
import type { HidingVariantsResult } from "./hiding-variants.js";
import { formatMs, formatRatio } from "./measure.js";
import type { TargetVerdict } from "./targets.js";

const percent = (share: number) => `${share >= 0 ? "+" : ""}${(100 * share).toFixed(1)}%`;

export function evaluateStepTargets(hiding: HidingStepResult, variants: HidingVariantsResult, agent: AgentStepResult): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const defaults = hiding.rows.filter((row) => row.supersession);
  const worst = Math.max(...defaults.map((row) => row.timing.medianMs));
  const off = (history: string) => hiding.rows.find((row) => !row.supersession && row.history === history)!.timing.medianMs;
  verdicts.push(
    hiding.size === 8000
      ? {
          id: 7,
          description: `hiding step at 8000 messages over the trigger, toolResultHiding() (default options), exact counter, median over ${defaults[0]!.timing.runs} steps, repeated-command and new-command histories: < 0.3 ms`,
          verdict: worst < 0.3 ? "PASS" : "FAIL",
          value: worst,
          threshold: "< 0.3 ms",
          detail: defaults.map((row) => `${row.history} ${formatMs(row.timing.medianMs)} ms (supersession: false ${formatMs(off(row.history))} ms)`).join("; "),
        }
      : { id: 7, description: `hiding step at 8000 messages (measured at ${hiding.size} only)`, verdict: "SKIP", threshold: "< 0.3 ms", detail: "size not measured in this run (--quick)" },
  );
  const offPass = variants.variants.find((variant) => variant.label === "supersession: false")!.timing.medianMs;
  const receipts = variants.variants.find((variant) => variant.label === "receipts: true")!.timing.medianMs;
  const langchain = variants.langchainMs;
  const without = variants.interleavedDefaultMs;
  verdicts.push({
    id: 8,
    description: `full pass, ${variants.messages} messages, approximate counter, cold, receipts: true vs receipts: false (default supersession), measured in turn: <= 1.5x`,
    verdict: receipts / without <= 1.5 ? "PASS" : "FAIL",
    value: receipts / without,
    threshold: "<= 1.5x",
    detail:
      `receipts ${formatMs(receipts)} ms / without ${formatMs(without)} ms = ${formatRatio(receipts / without)}; supersession: false ${formatMs(offPass)} ms` +
      (langchain !== undefined ? `; ClearToolUsesEdit ${formatMs(langchain)} ms (${formatRatio(langchain / variants.defaultMs)} the default in scenario 1, ${formatRatio(langchain / offPass)} supersession: false)` : ""),
  });
  const none = agent.rows.find((row) => row.system === "no middleware")!;
  const quiet = agent.rows.filter((row) => row.system === "toolResultHiding, never fires" || row.system === "autoCompaction, under its trigger");
  const firing = agent.rows.find((row) => row.system === "toolResultHiding()")!;
  const rowDetail = (row: (typeof agent.rows)[number]) => `${row.system} ${formatMs(row.medianMs)} ms (${percent(row.overhead)}), CPU ${formatMs(row.cpuMedianMs)} ms (${percent(row.cpuOverhead)})`;
  const quietWorst = Math.max(...quiet.map((row) => row.cpuOverhead));
  verdicts.push({
    id: 9,
    description: `createAgent + MemorySaver, ${agent.size} messages, scripted model: a compaction middleware that does not fire adds <= 3% to the step without one (median process CPU time per model call, ${none.samplesMs.length} steps each, systems in turn)`,
    verdict: quietWorst <= 0.03 ? "PASS" : "FAIL",
    value: quietWorst,
    threshold: "<= +3%",
    detail: `no middleware ${formatMs(none.medianMs)} ms, CPU ${formatMs(none.cpuMedianMs)} ms; ${quiet.map(rowDetail).join("; ")}`,
  });
  verdicts.push({
    id: 10,
    description: `createAgent + MemorySaver, ${agent.size} messages: compactionMiddleware(toolResultHiding()) (default options, firings included) adds <= 10% (median process CPU time per model call)`,
    verdict: firing.cpuOverhead <= 0.1 ? "PASS" : "FAIL",
    value: firing.cpuOverhead,
    threshold: "<= +10%",
    detail: rowDetail(firing),
  });
  return verdicts;
}

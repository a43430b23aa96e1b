/**
 * The benchmark's targets and their verdicts (PASS, FAIL, or SKIP where `--quick` did not measure
 * the size). Target 6, the latency scenario's, comes from bench/latency.
 */
import { formatMs, formatRatio } from "./measure.js";
import type { PerStepResult } from "./per-step.js";
import type { CounterKind, Task } from "./settings.js";
import type { Comparison } from "./synthetic-pass.js";
import type { WarmStepResult } from "./warm-step.js";

export interface TargetVerdict {
  id: number;
  description: string;
  verdict: "PASS" | "FAIL" | "SKIP";
  /** The measured figure compared with the threshold. */
  value?: number;
  threshold: string;
  detail: string;
}

function find(comparisons: readonly Comparison[], counter: CounterKind, task: Task, messages: number): Comparison | undefined {
  return comparisons.find((c) => c.counter === counter && c.task === task && c.messages === messages);
}

/** Targets 1-5, from the full pass (1, 2, 4), the per-step scenario (3) and the warm step (5). */
export function evaluateTargets(comparisons: readonly Comparison[], step: PerStepResult, warm: WarmStepResult): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];

  const t1 = find(comparisons, "approximate", "hide", 4000);
  verdicts.push(
    t1?.ratio !== undefined
      ? {
          id: 1,
          description: "full pass, 4000 messages, approximate counter, default supersession (fresh counter per run: cold cache): ours >= 100x faster than ClearToolUsesEdit",
          verdict: t1.ratio >= 100 ? "PASS" : "FAIL",
          value: t1.ratio,
          threshold: ">= 100x",
          detail: `ClearToolUsesEdit ${formatMs(t1.langchain!.timing.medianMs)} ms [${t1.langchain!.timing.runs}] / ours ${formatMs(t1.ours.timing.medianMs)} ms [${t1.ours.timing.runs}] = ${formatRatio(t1.ratio)}`,
        }
      : skipped(1, "full pass, 4000 messages, approximate counter", ">= 100x"),
  );

  const t2 = find(comparisons, "exact", "hide", 400);
  verdicts.push(
    t2?.ratio !== undefined
      ? {
          id: 2,
          description:
            "full pass, 400 messages, exact o200k counter (ours: fresh counter + fresh messages per run: cold caches; LangChain: js-tiktoken per call, no cache): ours >= 50x faster than ClearToolUsesEdit",
          verdict: t2.ratio >= 50 ? "PASS" : "FAIL",
          value: t2.ratio,
          threshold: ">= 50x",
          detail: `ClearToolUsesEdit ${formatMs(t2.langchain!.timing.medianMs)} ms [${t2.langchain!.timing.runs} run(s)] / ours ${formatMs(t2.ours.timing.medianMs)} ms [${t2.ours.timing.runs}] = ${formatRatio(t2.ratio)}`,
        }
      : skipped(2, "full pass, 400 messages, exact counter", ">= 50x"),
  );

  verdicts.push(
    step.size === 8000
      ? {
          id: 3,
          description: `per-step cost in a running agent at 8000 messages (warm caches, +1 group per step, approximate counter), median over ${step.oursApproximate.runs} steps: ours < 1 ms`,
          verdict: step.oursApproximate.medianMs < 1 ? "PASS" : "FAIL",
          value: step.oursApproximate.medianMs,
          threshold: "< 1 ms",
          detail:
            `ours ${formatMs(step.oursApproximate.medianMs)} ms (max ${formatMs(step.oursApproximate.maxMs)}); ClearToolUsesEdit on its own cleared history ${formatMs(step.langchainApproximate.medianMs)} ms ` +
            `[${step.langchainApproximate.runs} steps] (${formatRatio(step.langchainApproximate.medianMs / step.oursApproximate.medianMs)}); ours with the exact counter ${formatMs(step.oursExact.medianMs)} ms`,
        }
      : skipped(3, `per-step cost at 8000 messages (measured at ${step.size} only)`, "< 1 ms"),
  );

  const perMessage = (c: Comparison | undefined) => (c ? (c.ours.timing.medianMs * 1000) / c.messages : undefined);
  const hideSmall = perMessage(find(comparisons, "approximate", "hide", 1000));
  const hideLarge = perMessage(find(comparisons, "approximate", "hide", 8000));
  const truncSmall = perMessage(find(comparisons, "approximate", "truncate", 1000));
  const truncLarge = perMessage(find(comparisons, "approximate", "truncate", 8000));
  if (hideSmall !== undefined && hideLarge !== undefined) {
    const growth = hideLarge / hideSmall;
    const truncGrowth = truncSmall !== undefined && truncLarge !== undefined ? truncLarge / truncSmall : undefined;
    // Flat within 2x: the per-message time at 8000 is between half and twice the time at 1000.
    const flat = (ratio: number) => ratio <= 2 && ratio >= 0.5;
    verdicts.push({
      id: 4,
      description: "ours, time per message flat within 2x from 1000 to 8000 messages (toolResultHiding, approximate, cold)",
      verdict: flat(growth) ? "PASS" : "FAIL",
      value: growth,
      threshold: "0.5x .. 2x",
      detail:
        `toolResultHiding ${hideSmall.toFixed(2)} µs/msg at 1000 -> ${hideLarge.toFixed(2)} µs/msg at 8000 (${growth.toFixed(2)}x)` +
        (truncGrowth !== undefined
          ? `; hardTruncate ${truncSmall!.toFixed(2)} -> ${truncLarge!.toFixed(2)} µs/msg (${truncGrowth.toFixed(2)}x, ${flat(truncGrowth) ? "within" : "NOT within"} 2x)`
          : ""),
    });
  } else verdicts.push(skipped(4, "per-message time flat from 1000 to 8000 messages", "0.5x .. 2x"));
  const warmAuto = warm.exact.autoCompaction;
  verdicts.push(
    warm.size === 8000
      ? {
          id: 5,
          description: `warm step at 8000 messages far below the trigger (no compaction needed), exact o200k counter, autoCompaction, median over ${warmAuto.runs} steps: < 0.5 ms`,
          verdict: warmAuto.medianMs < 0.5 ? "PASS" : "FAIL",
          value: warmAuto.medianMs,
          threshold: "< 0.5 ms",
          detail:
            `autoCompaction ${formatMs(warmAuto.medianMs)} ms (max ${formatMs(warmAuto.maxMs)}); toolResultHiding ${formatMs(warm.exact.toolResultHiding.medianMs)} ms; ` +
            `ClearToolUsesEdit per step ${formatMs(step.langchainApproximate.medianMs)} ms (${formatRatio(step.langchainApproximate.medianMs / warmAuto.medianMs)})`,
        }
      : skipped(5, `warm step at 8000 messages (measured at ${warm.size} only)`, "< 0.5 ms"),
  );
  return verdicts;
}

function skipped(id: number, description: string, threshold: string): TargetVerdict {
  return { id, description, verdict: "SKIP", threshold, detail: "size not measured in this run (--quick)" };
}

import type { BaseMessage } from "@langchain/core/messages";
import type { ChartPoint } from "./inspection.js";

/** What {@link modelCallFigures} reads off a thread: its model calls and the largest request among them. */
export interface ModelCallFigures {
  /** Model calls: the assistant messages of the restored history, each the answer to one call. */
  readonly modelCalls: number;
  /** Tokens sent in the largest of those calls (0 without any). */
  readonly peakContextTokens: number;
  /** The step of the assistant message that answered the largest call (the first, on a tie); null without calls. */
  readonly peakCallStep: number | null;
}

/**
 * The model calls of a thread and the peak context: the most tokens sent in one model call, and the
 * step of the answer to that call. A call's
 * request is the context just before its answer entered the history — the chart's point at the step
 * before, after any compaction that ran there (a compaction node or middleware runs right before the
 * model) — plus the reply priming the counter adds to a request (`priming`). With the same counter,
 * that is what an agent's model was sent, message by message: a system prompt kept outside the
 * messages (`createAgent`'s) and tool schemas are not in the thread and not counted. Linear.
 *
 * @param restored the thread's restored history (the chart's steps)
 * @param chart the context after each step, as {@link buildInspection} draws it
 * @param priming what the counter adds to a request beyond its messages (`countMessages([])`)
 * @internal
 */
export function modelCallFigures(restored: readonly BaseMessage[], chart: readonly ChartPoint[], priming: number): ModelCallFigures {
  let modelCalls = 0;
  let peakContextTokens = 0;
  let peakCallStep: number | null = null;
  restored.forEach((message, step) => {
    if (message.type !== "ai") return;
    modelCalls++;
    const before = chart[step - 1];
    const sent = (before ? (before.after ?? before.tokens) : 0) + priming;
    if (peakCallStep === null || sent > peakContextTokens) {
      peakContextTokens = sent;
      peakCallStep = step;
    }
  });
  return { modelCalls, peakContextTokens, peakCallStep };
}

// Scoring probes: reading the judge's reply, and averaging the results.
import { clip } from "./probe-text.js";
import { PROBE_DIMENSIONS, PROBE_KINDS, type ProbeDimension, type ProbeKind, type ProbeResult } from "./probe-types.js";

/** What {@link parseJudgeReply} makes of a judge's reply. */
export type JudgeVerdict = { scores: Record<ProbeDimension, number>; rationale: string } | { error: string };

/** A key without case, spaces, dashes or underscores: `Context Awareness` = `context_awareness`. */
const normalizeKey = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * Read the judge's scores: the JSON object in the reply (a code fence or text around it is ignored),
 * one number (or numeric string) per dimension, clamped to 0..5; key case and separators are
 * ignored, and scores nested under `scores` are accepted. Anything else is an `error` that says what
 * was wrong.
 *
 * @example
 * parseJudgeReply('```json\n{"accuracy": 7, ...}\n```'); // { scores: { accuracy: 5, ... }, rationale: "..." }
 * parseJudgeReply("I cannot grade this"); // { error: "no JSON object in the judge's reply: I cannot grade this" }
 */
export function parseJudgeReply(reply: string): JudgeVerdict {
  const excerpt = clip(reply, 200);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(reply);
  const body = fenced ? fenced[1]! : reply;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end < start) return { error: `no JSON object in the judge's reply: ${excerpt}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.slice(start, end + 1));
  } catch {
    // The parser's own message differs between Node versions; the excerpt shows what was wrong.
    return { error: `the judge's reply is not valid JSON: ${excerpt}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { error: `the judge's reply is not a JSON object: ${excerpt}` };
  const record = parsed as Record<string, unknown>;
  const nested = record["scores"];
  const source = typeof nested === "object" && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : record;
  const values = new Map(Object.entries(source).map(([key, value]) => [normalizeKey(key), value]));
  const scores = {} as Record<ProbeDimension, number>;
  for (const dimension of PROBE_DIMENSIONS) {
    const value = values.get(normalizeKey(dimension));
    const score = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
    if (!Number.isFinite(score)) return { error: `the judge's reply has no numeric score for ${dimension}: ${excerpt}` };
    scores[dimension] = Math.min(5, Math.max(0, score));
  }
  const rationale = record["rationale"] ?? record["reason"] ?? record["reasoning"];
  return { scores, rationale: typeof rationale === "string" ? rationale.trim() : "" };
}

/** Mean scores of some probe results. */
export interface ProbeAggregate {
  /** Results scored (unscored ones are left out of every mean). */
  count: number;
  /** Results whose judge reply could not be scored. */
  unscored: number;
  /** Per kind, the mean over its results of their mean score; `NaN` for a kind with no scored result. */
  byKind: Record<ProbeKind, number>;
  /** Per dimension, the mean over all scored results; `NaN` when none was scored. */
  byDimension: Record<ProbeDimension, number>;
  /** The mean of every score of every scored result; `NaN` when none was scored. */
  overall: number;
}

/**
 * Average probe results: per kind, per dimension and overall, over the scored results (sums divided
 * once, so the means are exact for scores given in halves).
 *
 * @example
 * aggregateProbeResults(results); // { count: 4, unscored: 0, byKind: { recall: 4.5, ... }, byDimension: { accuracy: 4, ... }, overall: 3.75 }
 */
export function aggregateProbeResults(results: readonly ProbeResult[]): ProbeAggregate {
  const kindSums = new Map<ProbeKind, { sum: number; count: number }>();
  const dimensionSums = new Map<ProbeDimension, number>();
  let count = 0;
  let unscored = 0;
  let total = 0;
  for (const result of results) {
    if (result.unscored !== undefined || PROBE_DIMENSIONS.some((dimension) => !Number.isFinite(result.scores[dimension]))) {
      unscored++;
      continue;
    }
    count++;
    let resultSum = 0;
    for (const dimension of PROBE_DIMENSIONS) {
      const score = result.scores[dimension];
      resultSum += score;
      dimensionSums.set(dimension, (dimensionSums.get(dimension) ?? 0) + score);
    }
    total += resultSum;
    const kind = kindSums.get(result.probe.kind) ?? { sum: 0, count: 0 };
    kindSums.set(result.probe.kind, { sum: kind.sum + resultSum, count: kind.count + 1 });
  }
  const byKind = {} as Record<ProbeKind, number>;
  for (const kind of PROBE_KINDS) {
    const sums = kindSums.get(kind);
    byKind[kind] = sums ? sums.sum / (sums.count * PROBE_DIMENSIONS.length) : Number.NaN;
  }
  const byDimension = {} as Record<ProbeDimension, number>;
  for (const dimension of PROBE_DIMENSIONS) byDimension[dimension] = count > 0 ? dimensionSums.get(dimension)! / count : Number.NaN;
  return { count, unscored, byKind, byDimension, overall: count > 0 ? total / (count * PROBE_DIMENSIONS.length) : Number.NaN };
}

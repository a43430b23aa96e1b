// What a probe is: its kinds, the judge's scoring dimensions, a probe and its judged result.

/** The four probe types, in the order {@link generateProbes} lists them. */
export const PROBE_KINDS = ["recall", "artifact", "continuation", "decision"] as const;
/** What a probe asks about: a fact, the files touched, the plan, or a decision and its reason. */
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** The six scoring dimensions, each scored 0 to 5 by the judge. */
export const PROBE_DIMENSIONS = [
  "accuracy",
  "context_awareness",
  "artifact_trail",
  "completeness",
  "continuity",
  "instruction_following",
] as const;
/** One of {@link PROBE_DIMENSIONS}. */
export type ProbeDimension = (typeof PROBE_DIMENSIONS)[number];

/** A question about the compacted-away part of a conversation, with the answer the originals give. */
export interface Probe {
  /** Stable: the same inputs give the same ids, e.g. `recall:request`, `decision:action@call_7`. */
  id: string;
  kind: ProbeKind;
  question: string;
  /** The reference answer, taken from the originals; the judge compares the model's answer with it. */
  expected: string;
}

/** A probe's answer and its judgement. */
export interface ProbeResult {
  probe: Probe;
  answer: string;
  /** 0 to 5 per dimension; `NaN` everywhere when the judge's reply could not be scored (see `unscored`). */
  scores: Record<ProbeDimension, number>;
  rationale: string;
  /**
   * Present when the judge's reply was not a JSON object with a number for every dimension: why,
   * with the start of the reply. Such a result carries `NaN` scores and is left out of
   * {@link aggregateProbeResults}' means (counted in its `unscored`).
   */
  unscored?: string;
}

/** Tag on every probe call, so traces and callbacks can tell evaluation calls from the agent's. */
export const PROBE_CALL_TAG = "compaction-eval";

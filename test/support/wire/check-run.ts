/**
 * One compaction checked against the provider contract: input valid on a provider's wire → output
 * valid on that wire (a hostile input: output valid on every wire the history was valid on before
 * the hostile edits, or a typed error); input never changed; any throw a `CompactionError`.
 * Findings go to a {@link FailureLog}, by kind.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError, checkHistory, type CompactionResult, type CompactionStrategy } from "../../../src/index.js";
import { isSameHistory, snapshotHistory } from "../invariants.js";
import { errorKind, type FailureLog } from "./failures.js";
import { PROVIDERS, providerProblems } from "./index.js";
import type { Provider, WireProblem } from "./problems.js";

/** What happened to one case, for the run's tally. */
export type Outcome = CompactionResult["status"] | "threw typed" | "threw untyped" | "validator error";

export interface CaseInput {
  readonly input: readonly BaseMessage[];
  readonly strategy: CompactionStrategy;
  readonly options: unknown;
  /** The generated spec, as `specText` prints it. */
  readonly spec: string;
  readonly caseNumber: number;
  /**
   * For a hostile input: the history before the hostile edits. The output must be valid on every
   * wire that history was valid on, whatever the edits did.
   */
  readonly base?: readonly BaseMessage[];
}

export interface CaseReport {
  readonly outcome: Outcome;
  /** Providers whose wire accepted the input. */
  readonly validFor: readonly Provider[];
  /** Providers whose wire the output was checked on. */
  readonly checked: readonly Provider[];
}

function unchanged(snapshot: ReturnType<typeof snapshotHistory>): boolean {
  return isSameHistory(snapshot.array, snapshot.elements) && JSON.stringify(snapshot.array.map((message) => message.toJSON())) === snapshot.serialized;
}

/**
 * The rules broken, one failure kind per provider and rule; for a hostile input, whether the input
 * already broke the rule (a problem let through) or the strategy introduced it.
 */
/**
 * Rules a strategy keeps as the input has them, by design: a conversation that opens with an
 * assistant message (OpenAI accepts it; strategies never create one, but do not invent a user
 * message either).
 */
const KEPT_AS_GIVEN: ReadonlySet<string> = new Set(["anthropic first-not-user"]);

function problemKinds(problems: readonly WireProblem[], inputRules: ReadonlySet<string> | undefined): Map<string, WireProblem[]> {
  const byKind = new Map<string, WireProblem[]>();
  for (const problem of problems) {
    const key = `${problem.provider} ${problem.rule}`;
    if (inputRules?.has(key) && KEPT_AS_GIVEN.has(key)) continue;
    const kind = inputRules === undefined ? key : `${key} (${inputRules.has(key) ? "already in the input" : "introduced"})`;
    byKind.set(kind, [...(byKind.get(kind) ?? []), problem]);
  }
  return byKind;
}

export async function checkRun(name: string, run: CaseInput, log: FailureLog): Promise<CaseReport> {
  const { input, strategy, options, spec, caseNumber, base } = run;
  const hostile = base !== undefined;
  const example = { input, options, spec, caseNumber };
  const label = `${name} | ${hostile ? "hostile input, " : ""}`;
  let validFor: Provider[];
  let inputRules: Set<string>;
  let checked: Provider[];
  try {
    const inputProblems = PROVIDERS.map((provider) => ({ provider, problems: providerProblems(provider, input) }));
    validFor = inputProblems.filter(({ problems }) => problems.length === 0).map(({ provider }) => provider);
    inputRules = new Set(inputProblems.flatMap(({ problems }) => problems.map((problem) => `${problem.provider} ${problem.rule}`)));
    checked = base === undefined ? validFor : PROVIDERS.filter((provider) => providerProblems(provider, base).length === 0);
  } catch (error) {
    log.add(`${label}validator error on the input: ${errorKind(error)}`, { ...example, error });
    return { outcome: "validator error", validFor: [], checked: [] };
  }
  const snapshot = snapshotHistory(input);
  let result: CompactionResult;
  try {
    result = await strategy.compact(input);
  } catch (error) {
    if (!unchanged(snapshot)) log.add(`${label}input mutated`, { ...example, error });
    if (CompactionError.isInstance(error)) return { outcome: "threw typed", validFor, checked };
    log.add(`${label}untyped error ${errorKind(error)}`, { ...example, error });
    return { outcome: "threw untyped", validFor, checked };
  }
  if (!unchanged(snapshot)) log.add(`${label}input mutated`, { ...example, output: result.messages });
  // A policy that never throws (autoCompaction) reports input it cannot take as a failed run with the
  // check's reason, the input unchanged: its form of a typed error.
  const unrepairable = checkHistory(input).find((problem) => problem.kind !== "lone-surrogate" && problem.kind !== "empty-content");
  if (result.status === "failed" && unrepairable !== undefined) {
    if (result.reason?.includes(unrepairable.message) !== true) log.add(`${label}failed without naming the input's problem`, { ...example, output: result.messages });
    return { outcome: "threw typed", validFor, checked };
  }
  try {
    const problems = checked.flatMap((provider) => providerProblems(provider, result.messages));
    for (const [kind, found] of problemKinds(problems, hostile ? inputRules : undefined)) {
      log.add(`${label}output ${kind}`, { ...example, output: result.messages, problems: found });
    }
  } catch (error) {
    log.add(`${label}validator error on the output: ${errorKind(error)}`, { ...example, output: result.messages, error });
    return { outcome: "validator error", validFor, checked };
  }
  return { outcome: result.status, validFor, checked };
}

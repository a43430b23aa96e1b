/**
 * One compaction checked against the provider contract: input valid on a provider's wire → output
 * valid on that wire (a hostile input: output valid on both, or a typed error); input never
 * changed; any throw a `CompactionError`. Findings go to a {@link FailureLog}, by kind.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError, type CompactionResult, type CompactionStrategy } from "../../../src/index.js";
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
  /** Hostile: the output must be valid on both wires whatever the input. */
  readonly hostile: boolean;
}

export interface CaseReport {
  readonly outcome: Outcome;
  /** Providers whose wire accepted the input. */
  readonly validFor: readonly Provider[];
}

function unchanged(snapshot: ReturnType<typeof snapshotHistory>): boolean {
  return isSameHistory(snapshot.array, snapshot.elements) && JSON.stringify(snapshot.array.map((message) => message.toJSON())) === snapshot.serialized;
}

/** The rules broken, one failure kind per provider and rule. */
function problemKinds(problems: readonly WireProblem[]): Map<string, WireProblem[]> {
  const byKind = new Map<string, WireProblem[]>();
  for (const problem of problems) {
    const kind = `${problem.provider} ${problem.rule}`;
    byKind.set(kind, [...(byKind.get(kind) ?? []), problem]);
  }
  return byKind;
}

export async function checkRun(name: string, run: CaseInput, log: FailureLog): Promise<CaseReport> {
  const { input, strategy, options, spec, caseNumber, hostile } = run;
  const example = { input, options, spec, caseNumber };
  let validFor: Provider[];
  try {
    validFor = PROVIDERS.filter((provider) => providerProblems(provider, input).length === 0);
  } catch (error) {
    log.add(`${name} | validator error on the input: ${errorKind(error)}`, { ...example, error });
    return { outcome: "validator error", validFor: [] };
  }
  const snapshot = snapshotHistory(input);
  let result: CompactionResult;
  try {
    result = await strategy.compact(input);
  } catch (error) {
    if (!unchanged(snapshot)) log.add(`${name} | input mutated`, { ...example, error });
    if (CompactionError.isInstance(error)) return { outcome: "threw typed", validFor };
    log.add(`${name} | untyped error ${errorKind(error)}`, { ...example, error });
    return { outcome: "threw untyped", validFor };
  }
  if (!unchanged(snapshot)) log.add(`${name} | input mutated`, { ...example, output: result.messages });
  const checked = hostile ? PROVIDERS : validFor;
  try {
    const problems = checked.flatMap((provider) => providerProblems(provider, result.messages));
    for (const [kind, found] of problemKinds(problems)) log.add(`${name} | ${hostile ? "hostile input, " : ""}output ${kind}`, { ...example, output: result.messages, problems: found });
  } catch (error) {
    log.add(`${name} | validator error on the output: ${errorKind(error)}`, { ...example, output: result.messages, error });
    return { outcome: "validator error", validFor };
  }
  return { outcome: result.status, validFor };
}

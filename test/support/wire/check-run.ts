/**
 * One compaction checked against the provider contract: input valid on a provider's wire → output
 * valid on that wire (a hostile input: output valid on every wire the history was valid on before
 * the hostile edits, or a typed error); input never changed; any throw a `CompactionError`.
 * Findings go to a {@link FailureLog}, by kind.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { CompactionError, type CompactionResult } from "../../../src/index.js";
import { type CompactionStrategy } from "../../../src/extend/index.js";
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
 * What a strategy keeps as the input has it, by design, and so is not held against it on a hostile
 * input: a conversation that opens with an assistant message (OpenAI accepts it; strategies never
 * create one, but do not invent a user message either), and the calls of a last assistant message,
 * which are pending (the tools have not run yet) and are left untouched.
 */
function keptAsGiven(problem: WireProblem, input: readonly BaseMessage[], output: readonly BaseMessage[]): boolean {
  if (problem.rule === "first-not-user") return opensWithAssistant(input);
  const last = output[output.length - 1];
  const pendingRules = ["unanswered-tool-use", "unanswered-tool-call", "duplicate-tool-use-id"];
  return pendingRules.includes(problem.rule) && problem.index === output.length - 1 && last !== undefined && AIMessage.isInstance(last);
}

function opensWithAssistant(messages: readonly BaseMessage[]): boolean {
  const first = messages.find((message) => message.type !== "system");
  return first !== undefined && AIMessage.isInstance(first);
}

function problemKinds(problems: readonly WireProblem[], inputRules: ReadonlySet<string> | undefined): Map<string, WireProblem[]> {
  const byKind = new Map<string, WireProblem[]>();
  for (const problem of problems) {
    const key = `${problem.provider} ${problem.rule}`;
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
  // A failed run changes nothing and says why: on a hostile input that is its typed error (a policy
  // that never throws, autoCompaction, reports input it cannot take this way).
  if (hostile && result.status === "failed") {
    if (!result.reason || !isSameHistory(result.messages, input)) log.add(`${label}failed without a reason or with a changed history`, { ...example, output: result.messages });
    return { outcome: "threw typed", validFor, checked };
  }
  try {
    const problems = checked
      .flatMap((provider) => providerProblems(provider, result.messages))
      .filter((problem) => !hostile || !keptAsGiven(problem, input, result.messages));
    for (const [kind, found] of problemKinds(problems, hostile ? inputRules : undefined)) {
      log.add(`${label}output ${kind}`, { ...example, output: result.messages, problems: found });
    }
  } catch (error) {
    log.add(`${label}validator error on the output: ${errorKind(error)}`, { ...example, output: result.messages, error });
    return { outcome: "validator error", validFor, checked };
  }
  return { outcome: result.status, validFor, checked };
}

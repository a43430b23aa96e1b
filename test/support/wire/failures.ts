/**
 * Collects property-suite failures by kind, keeping the smallest example of each, so a failing run
 * prints a compact list of distinct failure kinds with one minimal example each rather than the
 * first counterexample only.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { formatProblems, type WireProblem } from "./problems.js";

export interface FailureExample {
  readonly input: readonly BaseMessage[];
  readonly output?: readonly BaseMessage[];
  readonly options: unknown;
  readonly problems?: readonly WireProblem[];
  readonly error?: unknown;
  /** The generated spec, as {@link specText} prints it. */
  readonly spec: string;
  /** Position of the case in its test's sample: with the run's seed, replays it. */
  readonly caseNumber: number;
}

interface Kind {
  count: number;
  example: FailureExample;
}

const size = (example: FailureExample) => example.input.length * 1_000_000 + Math.min(999_999, example.spec.length);

function contentPreview(content: unknown): string {
  const text = typeof content === "string" ? content : JSON.stringify(content) ?? String(content);
  return JSON.stringify(text.length <= 50 ? text : `${[...text].slice(0, 40).join("")}...(${text.length})`);
}

/** One line per message: position, type, call ids or the answered id, a content preview. */
export function describeMessages(messages: readonly BaseMessage[]): string {
  return messages
    .map((message, position) => {
      const calls = (message as { tool_calls?: { id?: string }[] }).tool_calls ?? [];
      const callText = calls.length > 0 ? ` calls[${calls.map((call) => call.id ?? "?").join(",")}]` : "";
      const answered = (message as { tool_call_id?: string }).tool_call_id;
      const raw = (message.additional_kwargs as { tool_calls?: unknown[] } | undefined)?.tool_calls;
      const rawText = raw === undefined ? "" : ` raw_tool_calls(${raw.length})`;
      return `      ${position} ${message.getType()}${callText}${rawText}${answered === undefined ? "" : ` ->${answered}`} ${contentPreview(message.content)}`;
    })
    .join("\n");
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${(error.stack ?? "").split("\n").slice(1, 4).join("\n")}`;
  return String(error);
}

export class FailureLog {
  readonly #kinds = new Map<string, Kind>();

  add(kind: string, example: FailureExample): void {
    const known = this.#kinds.get(kind);
    if (known === undefined) this.#kinds.set(kind, { count: 1, example });
    else {
      known.count++;
      if (size(example) < size(known.example)) known.example = example;
    }
  }

  /** The failure kinds, sorted, each with its count. */
  kinds(): string[] {
    return [...this.#kinds.entries()].map(([kind, { count }]) => `${kind} (${count} cases)`).sort();
  }

  /** Every kind with its smallest example. */
  report(): string {
    return [...this.#kinds.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, { count, example }]) =>
        [
          `  [${kind}] ${count} cases; smallest example (case ${example.caseNumber}, ${example.input.length} messages):`,
          `    options: ${JSON.stringify(example.options)}`,
          `    input:\n${describeMessages(example.input)}`,
          ...(example.output ? [`    output:\n${describeMessages(example.output)}`] : []),
          ...(example.problems && example.problems.length > 0 ? [`    problems:\n${formatProblems(example.problems.slice(0, 6)).replace(/^/gm, "      ")}`] : []),
          ...(example.error === undefined ? [] : [`    error: ${errorText(example.error).replace(/\n/g, "\n      ")}`]),
          `    spec: ${example.spec}`,
        ].join("\n"),
      )
      .join("\n");
  }
}

/** A generated spec as JSON, long strings shortened to their head and length (the seed and case number replay it exactly). */
export function specText(spec: unknown): string {
  return JSON.stringify(spec, (_key, value: unknown) => (typeof value === "string" && value.length > 80 ? `${[...value].slice(0, 30).join("")}…(${value.length} chars)` : value));
}

/** A failure kind for a thrown error: its class and its message without numbers and quoted text, so one cause is one kind. */
export function errorKind(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
  return `${name}: ${message.replace(/"[^"]*"|`[^`]*`/g, "…").replace(/\d+/g, "N").slice(0, 100)}`;
}

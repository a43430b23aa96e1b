/**
 * What the wire validators report, and the checks both providers share.
 */
import { hasLoneSurrogate } from "../../../src/text/code-points.js";

export type Provider = "openai" | "anthropic";

/** One reason a provider would reject the request a real client builds from a history. */
export interface WireProblem {
  readonly provider: Provider;
  /**
   * Index of the LangChain message the problem is about, in the history given to the validator
   * (for a problem of Anthropic's hoisted `system` field: the system message's index). -1 when the
   * client's own conversion threw before any message could be named.
   */
  readonly index: number;
  /** Index of the message in the request's `messages` array; -1 for the hoisted `system` field or a conversion error. */
  readonly wireIndex: number;
  /** Stable name of the broken rule, e.g. `unanswered-tool-call`. */
  readonly rule: string;
  readonly detail: string;
}

/** A rule broken at a wire message, before the validator maps it back to a history index. */
export interface WireFinding {
  readonly wireIndex: number;
  readonly rule: string;
  readonly detail: string;
  /** The history index when the finding is about one source message of a merged wire message. */
  readonly index?: number;
}

/** A short, printable form of a value for a problem's detail. */
export function preview(value: unknown, max = 60): string {
  const quote = typeof value === "string";
  const text = quote ? value : (JSON.stringify(value) ?? String(value));
  const shown = text.length <= max ? text : text.slice(0, max);
  const suffix = text.length <= max ? "" : `...(${text.length} chars)`;
  return `${quote ? JSON.stringify(shown) : shown}${suffix}`;
}

/**
 * Every string in a JSON-like value (keys included) that holds a lone surrogate: JSON encoders
 * write it as an escape the provider's JSON parser rejects. Returns the paths, e.g. `content[0].text`.
 */
export function loneSurrogatePaths(value: unknown, path = ""): string[] {
  if (typeof value === "string") return hasLoneSurrogate(value) ? [path === "" ? "(string)" : path] : [];
  if (Array.isArray(value)) return value.flatMap((item, position) => loneSurrogatePaths(item, `${path}[${position}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => {
      const keyPath = path === "" ? key : `${path}.${key}`;
      return [...(hasLoneSurrogate(key) ? [`${keyPath} (key)`] : []), ...loneSurrogatePaths(item, keyPath)];
    });
  }
  return [];
}

/** One line per problem, for assertion messages. */
export function formatProblems(problems: readonly WireProblem[]): string {
  return problems.map((problem) => `${problem.provider} #${problem.index} (wire ${problem.wireIndex}) ${problem.rule}: ${problem.detail}`).join("\n");
}

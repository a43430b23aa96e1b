import type { ToolPairingProblem } from "./messages/tool-call-groups.js";

const ERROR_MARKER = Symbol.for("langchain-compaction.error");

/**
 * Base class of every error this package throws.
 *
 * Use the static `isInstance` checks rather than `instanceof`: they work across duplicate copies of
 * the package in one `node_modules` tree.
 */
export class CompactionError extends Error {
  /** @internal */
  readonly [ERROR_MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CompactionError";
  }

  static isInstance(error: unknown): error is CompactionError {
    return typeof error === "object" && error !== null && ERROR_MARKER in error;
  }
}

/**
 * An option given to a strategy or to `createTokenCounter` is invalid. Thrown at construction, never
 * during a run.
 */
export class InvalidOptionError extends CompactionError {
  /** Dotted path of the offending option, e.g. `rules.2.keepRecent`. */
  readonly option: string;
  /** The factory that rejected it, e.g. `toolResultHiding`. */
  readonly component: string;

  constructor(component: string, option: string, problem: string) {
    super(`${component}: invalid option \`${option}\`: ${problem}`);
    this.name = "InvalidOptionError";
    this.component = component;
    this.option = option;
  }

  static override isInstance(error: unknown): error is InvalidOptionError {
    return CompactionError.isInstance(error) && error.name === "InvalidOptionError";
  }
}

/**
 * The history handed to a strategy cannot be compacted as it is: it is not an array of messages, or
 * its tool calls and tool results do not pair up. `problems` lists each pairing problem with its
 * index; `repairToolPairing` (or the strategies' `invalidHistory: "repair"` option) fixes them.
 */
export class InvalidHistoryError extends CompactionError {
  readonly problems: readonly ToolPairingProblem[];

  constructor(message: string, problems: readonly ToolPairingProblem[] = []) {
    super(message);
    this.name = "InvalidHistoryError";
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is InvalidHistoryError {
    return CompactionError.isInstance(error) && error.name === "InvalidHistoryError";
  }
}

import type { CompactionRecord } from "./compaction-record.js";
import type { HistoryProblem } from "./messages/history-check.js";
import type { ToolPairingProblem } from "./messages/tool-call-groups.js";

/** One problem of a history: a tool-pairing problem, or a message no provider can take as it is. */
export type MessageProblem = ToolPairingProblem | HistoryProblem;

const ERROR_MARKER = Symbol.for("langchain-compaction.error");

/**
 * Base class of this package's own errors: bad options and histories it cannot take. Errors raised
 * elsewhere (a model's, a store's or a checkpointer's) reach you as they were thrown, and where a
 * drop-in repeats LangChain's behaviour it throws LangChain's error (a `"model"` token count on a
 * model that cannot count).
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
 * An option is invalid. Thrown when a strategy, policy, middleware, store or token counter is
 * created; during a run only for what a run alone shows: a `tokenCounter` function that returns no
 * count, the summarization middleware's options from `runtime.context`, or a `fraction` size whose
 * model window is unknown.
 *
 * The message reads `component: invalid option \`option\`: expected <expected>; got <got>`, then
 * ` (<reason>)` when there is one; the same parts are fields.
 */
export class InvalidOptionError extends CompactionError {
  /** Dotted path of the offending option, e.g. `rules.2.keepRecent`. */
  readonly option: string;
  /** The factory that rejected it, e.g. `toolResultHiding`. */
  readonly component: string;
  /**
   * What the option got, as the message shows it: a number as written, a string quoted and cut to
   * 40 characters, an array by its length, an object by its keys or class, a function as "a function".
   */
  readonly got: string;
  /** What the option takes, e.g. `a number <= 1`. */
  readonly expected: string;
  /** Why the value is refused, when `expected` alone does not say it; else `undefined`. */
  readonly reason: string | undefined;

  constructor(component: string, option: string, details: { readonly got: string; readonly expected: string; readonly reason?: string }) {
    super(`${component}: invalid option \`${option}\`: expected ${details.expected}; got ${details.got}${details.reason ? ` (${details.reason})` : ""}`);
    this.name = "InvalidOptionError";
    this.component = component;
    this.option = option;
    this.got = details.got;
    this.expected = details.expected;
    this.reason = details.reason;
  }

  static override isInstance(error: unknown): error is InvalidOptionError {
    return CompactionError.isInstance(error) && error.name === "InvalidOptionError";
  }
}

/**
 * The history handed to a strategy cannot be compacted as it is. `problems` lists each problem with
 * the index of its message:
 * - the input is not an array (no problems listed), or an element is not a LangChain message
 *   (`not-a-message`);
 * - a message's content is neither a string nor an array of content blocks (`invalid-content`);
 * - a `RemoveMessage` (an update for LangGraph's messages reducer, not a message) is in it
 *   (`remove-message`);
 * - a text holds a lone surrogate, half of a UTF-16 pair, which providers reject (`lone-surrogate`;
 *   the strategies' `invalidHistory: "repair"` replaces it with U+FFFD instead);
 * - a message has nothing to send: empty or blank content and no tool calls, or an assistant
 *   message's empty content array (`empty-content`; `invalidHistory: "repair"` gives it the text
 *   `(empty message)` instead);
 * - its tool calls and tool results do not pair up (the {@link ToolPairingProblem} kinds;
 *   `repairToolPairing`, or `invalidHistory: "repair"`, fixes them).
 */
export class InvalidHistoryError extends CompactionError {
  readonly problems: readonly MessageProblem[];

  constructor(message: string, problems: readonly MessageProblem[] = []) {
    super(message);
    this.name = "InvalidHistoryError";
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is InvalidHistoryError {
    return CompactionError.isInstance(error) && error.name === "InvalidHistoryError";
  }
}

/**
 * A compactor returned what cannot be written to a history: not a `CompactionResult`, messages that
 * are not LangChain messages (or content no provider takes, a `RemoveMessage`), or, with
 * `invalidHistory: "leave"`, tool calls and results that no longer pair up. Raised before anything is
 * written; the graph adapters handle it as any compactor failure (`onError`).
 */
export class CompactorOutputError extends CompactionError {
  /** The adapter that ran the compactor, e.g. `compactionMiddleware`. */
  readonly component: string;
  /** The compactor's name: its `strategyName`, else its `name`, else its class name. */
  readonly compactor: string;
  readonly problems: readonly MessageProblem[];

  constructor(component: string, compactor: string, problem: string, problems: readonly MessageProblem[] = []) {
    super(`${component}: compactor "${compactor}" ${problem}; nothing was written`);
    this.name = "CompactorOutputError";
    this.component = component;
    this.compactor = compactor;
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is CompactorOutputError {
    return CompactionError.isInstance(error) && error.name === "CompactorOutputError";
  }
}

/**
 * The provider rejected a model call as too long (LangChain's `ContextOverflowError`, the `cause`),
 * and `compactionMiddleware` could not recover: the compaction it then ran could not shrink the
 * history (`retried` false), or the one retry overflowed again (`retried` true). The step fails, so
 * nothing is written to the state; `record` is the `failed` log record that says why.
 */
export class CompactionOverflowError extends CompactionError {
  readonly record: CompactionRecord;
  readonly retried: boolean;

  constructor(message: string, options: { cause: unknown; record: CompactionRecord; retried: boolean }) {
    super(message, { cause: options.cause });
    this.name = "CompactionOverflowError";
    this.record = options.record;
    this.retried = options.retried;
  }

  static override isInstance(error: unknown): error is CompactionOverflowError {
    return CompactionError.isInstance(error) && error.name === "CompactionOverflowError";
  }
}

/**
 * A package this use needs is not installed: a summary model named by a string whose provider
 * package (or `langchain`) is missing, or an optional peer of an entry point. Thrown when the
 * strategy, policy or middleware is created; the message gives the `npm install` line.
 */
export class MissingPackageError extends CompactionError {
  /** The packages to install. */
  readonly packages: readonly string[];

  constructor(packages: readonly string[], message: string) {
    super(message);
    this.name = "MissingPackageError";
    this.packages = packages;
  }

  static override isInstance(error: unknown): error is MissingPackageError {
    return CompactionError.isInstance(error) && error.name === "MissingPackageError";
  }
}

import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { CompactorOutputError } from "../errors.js";
import { checkHistoryOnce, isRepairable } from "../messages/history-check.js";
import { COMPACTION_STATUSES, type CompactionResult } from "../types.js";
import { repairBeforeCompaction, type AdapterInvalidHistoryHandling } from "./invalid-history.js";

/** What {@link checkedOutput} needs to know of the run. @internal */
export interface OutputCheck {
  readonly component: string;
  readonly compactor: object;
  readonly invalidHistory: AdapterInvalidHistoryHandling | undefined;
  /** A last assistant message's calls may go without results (the node runs before the tools). */
  readonly keepPendingCalls: boolean;
  /** The leading message that stood for the request's overhead, taken out of the output. */
  readonly overhead?: BaseMessage | undefined;
}

/**
 * The name of a compactor, for errors: its `strategyName`, else its `name`, else its class name.
 * @internal
 */
export function compactorNameOf(compactor: object): string {
  const { strategyName, name } = compactor as { strategyName?: unknown; name?: unknown };
  if (typeof strategyName === "string" && strategyName !== "") return strategyName;
  if (typeof name === "string" && name !== "") return name;
  const className = (compactor as { constructor?: { name?: string } }).constructor?.name;
  return className && className !== "Object" ? className : "(unnamed compactor)";
}

/**
 * A compactor's result checked before anything is written, as the built-in strategies check their
 * own: it must be a `CompactionResult` whose `messages` are LangChain messages with content a
 * provider takes; a text with a lone surrogate or a message with nothing to send, and tool calls and
 * results that do not pair up, are repaired as the input is (`invalidHistory: "repair"`) or refused
 * (`"leave"`). The overhead message, when given, is taken out first. A no-op is returned as it is
 * (its messages are not written). Linear in the output.
 * @throws {CompactorOutputError} naming the compactor and the component.
 * @internal
 */
export function checkedOutput(check: OutputCheck, result: unknown): CompactionResult {
  const refuse = (problem: string, problems: ConstructorParameters<typeof CompactorOutputError>[3] = []) =>
    new CompactorOutputError(check.component, compactorNameOf(check.compactor), problem, problems);
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    throw refuse(`returned ${Array.isArray(result) ? "an array" : result === null ? "null" : typeof result}, not a CompactionResult ({ messages, status, ... })`);
  }
  const { status, messages } = result as Partial<CompactionResult>;
  if (!COMPACTION_STATUSES.includes(status as never)) {
    throw refuse(`returned an unknown status ${JSON.stringify(status) ?? "undefined"} (expected one of ${COMPACTION_STATUSES.join(", ")})`);
  }
  if (status === "noop") return result as CompactionResult;
  if (!Array.isArray(messages)) throw refuse(`returned \`messages\` that is not an array (got ${messages === null ? "null" : typeof messages})`);
  const stripped = withoutOverhead(result as CompactionResult, check.overhead);
  const problems = checkHistoryOnce(stripped.messages);
  const fatal = problems.find((problem) => !isRepairable(problem));
  if (fatal) {
    const kind = isBaseMessage(stripped.messages[fatal.index]) ? "a message a provider rejects" : "something that is not a LangChain message";
    throw refuse(`returned ${kind} at position ${fatal.index} (${fatal.message})`, problems);
  }
  const repair = repairBeforeCompaction(stripped.messages, "repair", { keepPendingCalls: check.keepPendingCalls });
  if (repair === undefined) return stripped;
  const first = repair.problems[0]?.message ?? "";
  if (check.invalidHistory === "leave") {
    throw refuse(`returned a history a provider rejects (${repair.problems.length} problem(s); first: ${first}) and invalidHistory is "leave"`, repair.problems);
  }
  const note = `output repaired: ${repair.problems.length} problem(s) (first: ${first})`;
  return {
    ...stripped,
    messages: [...repair.messages],
    messagesAfter: repair.messages.length,
    reason: stripped.reason === undefined ? note : `${stripped.reason}; ${note}`,
  };
}

/** The history with the overhead message first, for the compactor. @internal */
export function withOverhead(messages: readonly BaseMessage[], overhead: BaseMessage | undefined): readonly BaseMessage[] {
  return overhead === undefined ? messages : [overhead, ...messages];
}

/**
 * A result on a history that began with `overhead`, as a result on the history without it: the
 * overhead message left out of `messages`, `removed` and `replaced`, and indices shifted back.
 */
function withoutOverhead(result: CompactionResult, overhead: BaseMessage | undefined): CompactionResult {
  if (overhead === undefined) return result;
  const isOverhead = (message: BaseMessage | undefined) => message === overhead || (message !== undefined && isBaseMessage(message) && message.id === overhead.id);
  const messages = result.messages.filter((message) => !isOverhead(message));
  return {
    ...result,
    messages,
    messagesBefore: Math.max(0, result.messagesBefore - 1),
    messagesAfter: messages.length,
    removed: (result.removed ?? []).filter((entry) => !isOverhead(entry.message)).map((entry) => ({ ...entry, index: entry.index - 1 })),
    replaced: (result.replaced ?? []).filter((entry) => !isOverhead(entry.before)).map((entry) => ({ ...entry, index: entry.index - 1 })),
  };
}

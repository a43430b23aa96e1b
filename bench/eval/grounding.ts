/**
 * Reply grounding: of the words the agent's recorded reply reuses from what the conversation had
 * shown before it, the share that the model's input at that call still holds.
 *
 * Artifact retention asks whether file paths, identifiers and error lines survive; hidden results'
 * receipts and the summarizer's artifact index are built by the same extractor, so retention
 * rewards a design that renders that index. Grounding asks a different question of the recording
 * itself: the agent went on to write this reply (a command naming a function it read, an edit
 * quoting a line it was shown); was what it reused still in front of it? A word counts when the
 * reply has it and some earlier message of the recording had it: the system prompt, the user's, a
 * tool's, or the agent's own earlier replies (a word new in this reply is left out, and so is one
 * that only a summary or a placeholder put in the context); it is grounded when a message of the
 * model's input has it. Words are whole runs of ASCII letters, digits and underscores of at least
 * {@link GROUNDING_MIN_WORD} characters that do not start with a digit, case-sensitive, read from
 * each message's text (`messageText`: string content, text blocks, `tool_result` text) and its
 * `tool_calls`' names and argument values (not the argument names, which every call of a tool
 * repeats), each distinct word once per reply. The recorded traces hold string content only.
 *
 * No compaction grounds every reused word by construction. A lower figure means the agent's next
 * step used something its compacted context no longer had: it would have had to fetch it again or
 * do without. Lexical, so a summary that paraphrases scores lower than one that quotes.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { messageText } from "../../src/extend/index.js";

/** The shortest word grounding counts, in characters: shorter ones ("self", "file", "then") say little. */
export const GROUNDING_MIN_WORD = 5;

const WORD = new RegExp(`\\b[A-Za-z_][A-Za-z0-9_]{${GROUNDING_MIN_WORD - 1},}`, "g");

/** The distinct words of a text that grounding counts. */
export function groundingWords(text: string): Set<string> {
  return new Set(text.match(WORD) ?? []);
}

/** The leaf values of a tool call's arguments, as text. */
function argumentValues(value: unknown, into: string[]): string[] {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) argumentValues(item, into);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) argumentValues(item, into);
  return into;
}

/** The text grounding reads of a message: its content text, then each tool call's name and argument values. */
export function groundingTextOf(message: BaseMessage): string {
  const calls = (message as { tool_calls?: { name?: string; args?: unknown }[] }).tool_calls ?? [];
  return [messageText(message), ...calls.map((call) => [call.name ?? "", ...argumentValues(call.args, [])].join(" "))].join("\n");
}

/** Grounding of one reply: reused words (seen before it) and how many of them the input held. */
export interface Grounding {
  readonly grounded: number;
  readonly reused: number;
}

/**
 * Where a reused word the input lacks came from: the newest tool result of the recording that had
 * it (the agent can repeat that call), else the newest message that had it, by kind: `"own"`, one of
 * the agent's replies; `"user"`, a user or system message.
 */
export type WordSource = { readonly kind: "tool" | "own" | "user"; readonly message: BaseMessage };

/** A reply's grounding with the reused words the input lacks, each with its source. */
export interface GroundingMisses {
  readonly grounding: Grounding;
  readonly missing: ReadonlyMap<string, WordSource>;
}

/**
 * The words of each message object, shared by every tracker: the recording's messages are the same
 * objects for every system and window, so each is read once per run. A message's words depend on
 * its content and tool calls only, which no system changes in place (a compaction makes new messages).
 */
const WORDS = new WeakMap<BaseMessage, ReadonlySet<string>>();

/**
 * Grounding over a replay: the recording's messages are shown as the original stream reaches them,
 * and each message object's words are read once (a message kept from call to call is not read
 * again). It remembers, per word, the newest message that showed it and the newest tool result that
 * did, so a miss can be traced to its source.
 *
 * @example
 * const grounding = new GroundingTracker();
 * grounding.show(messagesBeforeTheCall);
 * grounding.measure(recordedReply, modelInput); // { grounded: 12, reused: 14 }
 * grounding.show([recordedReply]);
 */
export class GroundingTracker {
  /** Per word, the kind of the newest message that showed it. */
  readonly #newestKind = new Map<string, "tool" | "own" | "user">();
  /** Per word, the newest tool result that showed it. */
  readonly #newestTool = new Map<string, BaseMessage>();
  /** Per word, the newest message that showed it. */
  readonly #newestMessage = new Map<string, BaseMessage>();

  /** The words of a message ({@link groundingTextOf}), read once per message object. */
  wordsOf(message: BaseMessage): ReadonlySet<string> {
    let words = WORDS.get(message);
    if (words === undefined) WORDS.set(message, (words = groundingWords(groundingTextOf(message))));
    return words;
  }

  /** The original stream has shown these messages. */
  show(messages: readonly BaseMessage[]): void {
    for (const message of messages) {
      const kind = message.type === "tool" ? "tool" : message.type === "ai" ? "own" : "user";
      for (const word of this.wordsOf(message)) {
        this.#newestKind.set(word, kind);
        this.#newestMessage.set(word, message);
        if (kind === "tool") this.#newestTool.set(word, message);
      }
    }
  }

  /** How many of `reply`'s words the stream had shown, and how many of those `input` holds. */
  measure(reply: BaseMessage, input: readonly BaseMessage[]): Grounding {
    return this.misses(reply, input).grounding;
  }

  /** {@link measure}, with each reused word `input` lacks and its source ({@link WordSource}). */
  misses(reply: BaseMessage, input: readonly BaseMessage[]): GroundingMisses {
    const missing = new Set([...this.wordsOf(reply)].filter((word) => this.#newestKind.has(word)));
    const reused = missing.size;
    // One pass over the input, stopping once every reused word is found.
    for (const message of input) {
      if (missing.size === 0) break;
      const words = this.wordsOf(message);
      for (const word of missing) if (words.has(word)) missing.delete(word);
    }
    const sources = new Map<string, WordSource>();
    for (const word of missing) {
      const tool = this.#newestTool.get(word);
      sources.set(word, tool ? { kind: "tool", message: tool } : { kind: this.#newestKind.get(word) === "own" ? "own" : "user", message: this.#newestMessage.get(word)! });
    }
    return { grounding: { grounded: reused - missing.size, reused }, missing: sources };
  }
}

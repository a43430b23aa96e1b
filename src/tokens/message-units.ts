import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { jsonOf, walkContent, type ContentVisitor } from "./content-text.js";

/** Tokens the chat format adds around every message (OpenAI's documented count). */
export const TOKENS_PER_MESSAGE = 3;
/** Tokens for the role name of a message. */
export const TOKENS_PER_ROLE = 1;
/** Extra tokens when a message carries a `name`. */
export const TOKENS_PER_NAME = 1;
/** Tokens the format adds around each tool call (besides its name, arguments and id). */
export const TOKENS_PER_TOOL_CALL = 3;

/** One message's cost before its texts are priced: the texts' units and the fixed tokens. @internal */
export interface MessageTally {
  /** The sum of `units(text)` over every text the provider receives for the message. */
  readonly units: number;
  /** Format overhead, tool-call overheads and the fixed estimate of media parts. */
  readonly fixedTokens: number;
}

/**
 * Walk one message's texts (content, nested blocks included, name, tool-call names, arguments and
 * ids, tool-call id) and sum `units` over them; the structural tokens are added apart. The exact
 * counter prices a text in tokens, the approximate one in characters, the upper bound in UTF-8
 * bytes: the same texts in all three. @internal
 */
export function tallyMessage(message: BaseMessage, units: (text: string) => number, nonTextPartTokens: number): MessageTally {
  const calls = isAssistantMessage(message) && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  let restatedCallIds = NO_CALL_IDS;
  if (calls.length > 0) {
    const ids = new Set<string>();
    for (const call of calls) if (typeof call?.id === "string") ids.add(call.id);
    restatedCallIds = ids;
  }
  const tally = new Tally(units, nonTextPartTokens);
  walkContent(message.content, tally, restatedCallIds);
  if (typeof message.name === "string" && message.name !== "") {
    tally.text(message.name);
    tally.fixedTokens += TOKENS_PER_NAME;
  }
  for (const call of calls) {
    if (typeof call !== "object" || call === null) continue;
    tally.fixedTokens += TOKENS_PER_TOOL_CALL;
    tally.field(call.name);
    tally.text(jsonOf(call.args ?? {}) ?? "");
    tally.field(call.id);
  }
  if (isToolResultMessage(message)) tally.field(message.tool_call_id);
  return { units: tally.total, fixedTokens: tally.fixedTokens };
}

/** The call ids a message without tool calls restates: none. */
const NO_CALL_IDS: ReadonlySet<string> = new Set();

/** The running sums of {@link tallyMessage}, as the content walk's visitor (methods, not closures made per message). */
class Tally implements ContentVisitor {
  total = 0;
  fixedTokens = TOKENS_PER_MESSAGE + TOKENS_PER_ROLE;

  constructor(
    private readonly units: (text: string) => number,
    private readonly nonTextPartTokens: number,
  ) {}

  text(text: string): void {
    if (text !== "") this.total += this.units(text);
  }

  meta(text: string): void {
    this.text(text);
  }

  opaque(_type: string, text: string | undefined): void {
    if (text === undefined) this.fixedTokens += this.nonTextPartTokens;
    else this.text(text);
  }

  /** A string field's text; anything else adds nothing. */
  field(value: unknown): void {
    if (typeof value === "string") this.text(value);
  }
}

/**
 * The length of a text in UTF-8 bytes, as `TextEncoder` encodes it: a lone surrogate is 3 bytes
 * (U+FFFD), a surrogate pair 4.
 *
 * It bounds the text's tokens in `o200k_base` and `cl100k_base` from above: the tokenizer cuts the
 * text into pieces on code-point boundaries, encodes each piece to UTF-8 and splits its bytes into
 * tokens of one byte or more (byte-level BPE: every token stands for a non-empty byte sequence), so
 * a text never has more tokens than bytes. @internal
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let position = 0; position < text.length; position++) {
    const unit = text.charCodeAt(position);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && position + 1 < text.length) {
      const next = text.charCodeAt(position + 1);
      // A pair: 2 units, 4 bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        position++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

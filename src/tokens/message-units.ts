import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "../messages/message-types.js";
import { jsonOf, walkContent } from "./content-text.js";

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
  const restatedCallIds = new Set<string>();
  for (const call of calls) if (typeof call?.id === "string") restatedCallIds.add(call.id);
  let total = 0;
  let fixedTokens = TOKENS_PER_MESSAGE + TOKENS_PER_ROLE;
  const count = (text: string) => {
    if (text !== "") total += units(text);
  };
  walkContent(
    message.content,
    {
      text: count,
      meta: count,
      opaque: (_type, text) => {
        if (text === undefined) fixedTokens += nonTextPartTokens;
        else count(text);
      },
    },
    restatedCallIds,
  );
  if (typeof message.name === "string" && message.name !== "") {
    count(message.name);
    fixedTokens += TOKENS_PER_NAME;
  }
  const field = (value: unknown) => {
    if (typeof value === "string") count(value);
  };
  for (const call of calls) {
    if (typeof call !== "object" || call === null) continue;
    fixedTokens += TOKENS_PER_TOOL_CALL;
    field(call.name);
    count(jsonOf(call.args ?? {}) ?? "");
    field(call.id);
  }
  if (isToolResultMessage(message)) field(message.tool_call_id);
  return { units: total, fixedTokens };
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

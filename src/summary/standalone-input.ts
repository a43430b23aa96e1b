/**
 * What the standalone summary prompt holds of the part being replaced: the older messages left out
 * by `summaryInputTokens`, and the tool outputs cut to `toolOutputBudgetTokens`.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { extractArtifacts, type ArtifactIndex, type ArtifactIndexLimits } from "../messages/artifact-index.js";
import { renderArtifacts } from "../messages/artifact-render.js";
import { messageText } from "../messages/message-text.js";
import { isToolResultMessage } from "../messages/message-types.js";
import { carriesToolResults } from "../messages/tool-result-blocks.js";
import { headOf, sliceCodePoints, tailOf } from "../text/code-points.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { compactionMarkerOf } from "../types.js";
import type { LeftOutMessages } from "./format-history.js";

/** UTF-16 code units of a cut tool output kept from its start and from its end (fewer rather than half a character). */
const CUT_HEAD_CHARACTERS = 1200;
const CUT_TAIL_CHARACTERS = 600;

/**
 * The older messages beyond `summaryInputTokens` (newest sent first; earlier summaries always sent
 * and free), and the note that replaces them: a count and their artifact index. `undefined` when
 * every message is sent.
 * @internal
 */
export function leftOutMessages(
  messages: readonly BaseMessage[],
  perMessage: readonly number[],
  summaryInputTokens: number | undefined,
  artifactLimits: ArtifactIndexLimits,
): LeftOutMessages | undefined {
  if (summaryInputTokens === undefined) return undefined;
  let used = 0;
  let sentAny = false;
  let before = 0;
  for (let position = messages.length - 1; position >= 0; position--) {
    if (compactionMarkerOf(messages[position]!)?.summary) continue;
    const cost = perMessage[position]!;
    // The newest message is sent even when it alone is over the cap: a prompt needs something to summarize.
    if (sentAny && used + cost > summaryInputTokens) {
      before = position + 1;
      break;
    }
    used += cost;
    sentAny = true;
  }
  if (before === 0) return undefined;
  const omitted = messages.slice(0, before).filter((message) => !compactionMarkerOf(message)?.summary);
  return { before, note: leftOutNote(omitted.length, extractArtifacts(omitted, [], artifactLimits)) };
}

/**
 * Tool outputs from `from` on beyond the budget, newest kept whole first, cut to head and tail: the
 * cut texts by position.
 * @internal
 */
export async function cutToolOutputs(
  messages: readonly BaseMessage[],
  perMessage: readonly number[],
  from: number,
  budgetTokens: number,
  tokenCounter: TokenCounter,
): Promise<Map<number, string>> {
  const overrides = new Map<number, string>();
  let used = 0;
  for (let position = messages.length - 1; position >= from; position--) {
    const message = messages[position]!;
    // A tool output is a tool message or a user message carrying tool_result blocks.
    if (!isToolResultMessage(message) && !carriesToolResults(message)) continue;
    const cost = perMessage[position]!;
    if (used + cost <= budgetTokens) {
      used += cost;
      continue;
    }
    const text = messageText(message);
    if (text.length <= CUT_HEAD_CHARACTERS + CUT_TAIL_CHARACTERS) continue;
    const head = headOf(text, CUT_HEAD_CHARACTERS);
    const tail = tailOf(text, CUT_TAIL_CHARACTERS);
    const cutTokens = await tokenCounter.countText(sliceCodePoints(text, head.length, text.length - tail.length));
    overrides.set(position, `${head}\n[... ${cutTokens} tokens of this tool output cut before summarizing ...]\n${tail}`);
  }
  return overrides;
}

/** The line (and artifact index) that stands in a summary prompt for the older messages left out of it. */
function leftOutNote(count: number, artifacts: ArtifactIndex): string {
  const messages = count === 1 ? "1 earlier message" : `${count} earlier messages`;
  const index = renderArtifacts(artifacts);
  if (index === "") return `[${messages} left out of this prompt; they name no files, commands, identifiers or errors]`;
  return `[${messages} left out of this prompt; their files, commands, identifiers and errors are in this artifact index]\n${index}`;
}

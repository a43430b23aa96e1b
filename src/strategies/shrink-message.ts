import type { BaseMessage } from "@langchain/core/messages";
import { cloneMessage } from "../messages/clone-message.js";
import { editToolCalls } from "../messages/edit-tool-calls.js";
import { TOOL_CALL_BLOCK_TYPES, isAssistantMessage, isBlock, type Block } from "../messages/message-types.js";
import { headOf } from "../text/code-points.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { COMPACTION_METADATA_KEY, compactionMarkerOf, type CompactionMarker } from "../types.js";


/**
 * A text a cut may shorten: the string content, a text part, or the content of a `tool_result`
 * block (a string, or each text block of its array).
 */
interface TextSlot {
  readonly text: string;
  /** Tokens of `text`. */
  readonly tokens: number;
}

/** A content part as the shrink rebuilds it: kept as is, or rebuilt from the cut texts of its slots. */
type PartPlan =
  | { readonly kind: "keep"; readonly part: unknown }
  | { readonly kind: "string"; readonly slot: number }
  | { readonly kind: "text"; readonly part: Block; readonly slot: number }
  | { readonly kind: "tool_result"; readonly part: Block; readonly slots: readonly number[] | number };

interface ContentPlan {
  /** The content is a string (rebuilt as one). */
  readonly isString: boolean;
  readonly parts: readonly PartPlan[];
  readonly slots: readonly TextSlot[];
  /** Non-text parts the cut drops (images, documents...), tool_result inner ones included. */
  readonly dropped: number;
}

const isTextBlock = (part: unknown): part is Block & { text: string } => isBlock(part) && part["type"] === "text" && typeof part["text"] === "string";

/** The texts of `content` that a cut may shorten, and how the content is rebuilt around them. */
async function planContent(content: unknown, counter: TokenCounter): Promise<ContentPlan> {
  const texts: string[] = [];
  const slot = (text: string) => texts.push(text) - 1;
  const parts: PartPlan[] = [];
  let dropped = 0;
  if (typeof content === "string") parts.push({ kind: "string", slot: slot(content) });
  for (const part of Array.isArray(content) ? content : []) {
    if (typeof part === "string") parts.push({ kind: "string", slot: slot(part) });
    else if (isTextBlock(part)) parts.push({ kind: "text", part, slot: slot(part.text) });
    else if (isBlock(part) && TOOL_CALL_BLOCK_TYPES.has(String(part["type"]))) parts.push({ kind: "keep", part });
    else if (isBlock(part) && part["type"] === "tool_result") {
      // A tool_result answers the tool_use before it: it stays, only its text is cut.
      const inner = part["content"];
      if (typeof inner === "string") parts.push({ kind: "tool_result", part, slots: slot(inner) });
      else if (Array.isArray(inner)) {
        const slots = inner.filter(isTextBlock).map((block) => slot(block.text));
        dropped += inner.length - slots.length;
        parts.push({ kind: "tool_result", part, slots });
      } else parts.push({ kind: "keep", part });
    } else dropped += 1;
  }
  const slots = await Promise.all(texts.map(async (text) => ({ text, tokens: await counter.countText(text) })));
  return { isString: typeof content === "string", parts, slots, dropped };
}

/**
 * The largest cap such that cutting every size above it down to it removes at least `remove`
 * tokens: the longest texts are cut first, short ones are left whole.
 */
function capFor(sizes: readonly number[], remove: number): number {
  const sorted = [...sizes].sort((a, b) => b - a);
  let sum = 0;
  for (let count = 1; count <= sorted.length; count++) {
    sum += sorted[count - 1]!;
    const cap = (sum - remove) / count;
    if (cap >= (sorted[count] ?? 0)) return Math.max(0, Math.floor(cap));
  }
  return 0;
}

/** The content with each slot's text replaced by `texts[slot]` and the dropped parts left out. */
function rebuild(plan: ContentPlan, texts: readonly string[], droppedNote: string | undefined): unknown {
  if (plan.isString) return texts[0];
  const content: unknown[] = [];
  for (const part of plan.parts) {
    if (part.kind === "keep") content.push(part.part);
    else if (part.kind === "string") content.push(texts[part.slot]);
    else if (part.kind === "text") content.push({ ...part.part, text: texts[part.slot] });
    else if (typeof part.slots === "number") content.push({ ...part.part, content: texts[part.slots] });
    else {
      const blocks = part.slots.map((slot) => ({ type: "text", text: texts[slot] }));
      content.push({ ...part.part, content: blocks.length > 0 ? blocks : [{ type: "text", text: "[content removed to fit the context window]" }] });
    }
  }
  if (droppedNote !== undefined) content.push({ type: "text", text: droppedNote });
  return content;
}

/**
 * A smaller copy of `original` (which costs `before` tokens) that frees up to `excess` tokens:
 * tool-call arguments emptied first, then the longest texts cut (string content, text parts, the
 * content of `tool_result` blocks, which stay to answer their `tool_use`), each with a visible marker.
 * Other non-text parts are dropped and counted in a marker. Cuts land on code-point boundaries.
 * `undefined` when nothing can be freed.
 */
export async function shrinkMessage(
  original: BaseMessage,
  before: number,
  excess: number,
  strategy: string,
  counter: TokenCounter,
): Promise<{ message: BaseMessage; tokens: number } | undefined> {
  let base = original;
  let hiddenToolInputs: string[] | undefined;
  if (isAssistantMessage(original)) {
    const calls = original.tool_calls ?? [];
    const withArgs = new Set<number>();
    calls.forEach((call, position) => {
      if (call.id !== undefined && Object.keys(call.args ?? {}).length > 0) withArgs.add(position);
    });
    if (withArgs.size > 0) {
      base = editToolCalls(original, { clearArgsPositions: withArgs });
      hiddenToolInputs = [...withArgs].map((position) => calls[position]!.id!).sort();
    }
  }
  const marker: CompactionMarker = {
    // A summary stays a summary (with its artifact index) when its text is cut.
    ...compactionMarkerOf(original),
    strategy,
    truncated: true,
    originalTokens: before,
    ...(hiddenToolInputs ? { hiddenToolInputs } : {}),
  };
  const mark = (content: unknown) => cloneMessage(base, { content, response_metadata: { ...original.response_metadata, [COMPACTION_METADATA_KEY]: marker } });
  let after = mark(base.content);
  let afterTokens = await counter.countMessage(after);
  const remaining = excess - (before - afterTokens);
  if (remaining > 0) {
    const plan = await planContent(base.content, counter);
    const sizes = plan.slots.map(({ tokens }) => tokens);
    let remove = remaining + 24;
    for (let attempt = 0; attempt < 4; attempt++) {
      const cap = capFor(sizes, remove);
      const texts: string[] = [];
      let firstCut = true;
      for (const { text, tokens } of plan.slots) {
        if (tokens <= cap) {
          texts.push(text);
          continue;
        }
        const kept = headOf(text, (await counter.truncateText(text, cap)).length);
        const cutTokens = tokens - (await counter.countText(kept));
        const dropped = firstCut && plan.dropped > 0 ? `; ${plan.dropped} non-text part(s) removed` : "";
        firstCut = false;
        texts.push(`${kept}\n[... ${cutTokens} tokens cut to fit the context window${dropped} ...]`);
      }
      const droppedNote = firstCut && plan.dropped > 0 ? `[... ${plan.dropped} non-text part(s) removed to fit the context window ...]` : undefined;
      after = mark(rebuild(plan, texts, droppedNote));
      afterTokens = await counter.countMessage(after);
      const overshoot = afterTokens - (before - excess);
      if (overshoot <= 0 || cap === 0) break;
      remove += overshoot;
    }
  }
  return afterTokens < before ? { message: after, tokens: afterTokens } : undefined;
}

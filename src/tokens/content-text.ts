/**
 * What a message's content carries, block by block, for counting and for reading. Content comes in
 * many shapes: a string, LangChain's v0 blocks (`text`, `image_url`, data blocks with `source_type`),
 * v1 standard blocks (`reasoning`, `text-plain`, `file`, `tool_call`...), and provider blocks kept
 * as-is (Anthropic's `tool_result`, `document`, `search_result`, `thinking`...; OpenAI's `input_text`,
 * `function_call_output`...). {@link walkContent} visits every piece of text a provider receives,
 * nested blocks included, and never throws on odd content.
 */

/** What {@link walkContent} reports, in content order. */
export interface ContentVisitor {
  /**
   * Text a reader sees: text parts, and the text inside tool results, documents (text or content
   * source), search results and compaction blocks.
   */
  text(text: string): void;
  /**
   * Text the provider also receives but that is not the message's prose: tool-result and call ids,
   * document and search-result titles, sources and context, names and arguments of tool-call
   * blocks that `tool_calls` does not list.
   */
  meta(text: string): void;
  /**
   * A block read as a placeholder (`[type]`). `text` is what the provider receives for it (reasoning,
   * a refusal, redacted thinking's data, the JSON of a block of another kind); `undefined` for media
   * (image, audio, video, a PDF or a file by reference) and for a block with no JSON (a cycle),
   * whose cost is a fixed estimate. `reference`: for media and documents given by an http(s) URL, the
   * URL (never a `data:` URL or inline data).
   */
  opaque(type: string, text: string | undefined, reference?: string): void;
}

/** Block types that restate a tool call. Skipped when `tool_calls` lists their id, else counted. */
const CALL_TYPES = new Set([
  "tool_use",
  "tool_call",
  "function_call",
  "server_tool_use",
  "server_tool_call",
  "tool_call_chunk",
  "server_tool_call_chunk",
  "invalid_tool_call",
]);
/** Text blocks of LangChain, Anthropic (streamed) and OpenAI's Responses API. */
const TEXT_TYPES = new Set(["text", "text_delta", "input_text", "output_text"]);
/** Media with a fixed estimate (unless a data block holds plain text, `source_type: "text"`). */
const MEDIA_TYPES = new Set(["image_url", "image", "input_image", "file", "input_file", "audio", "input_audio", "video", "container_upload"]);
/** Nesting deeper than this is read as one opaque block, its JSON (content is data: it may be anything). */
export const MAX_CONTENT_DEPTH = 16;

/** JSON of a value; `undefined` for what has none (a cycle, a BigInt, a function). */
export function jsonOf(value: unknown): string | undefined {
  try {
    const json = JSON.stringify(value);
    return typeof json === "string" ? json : undefined;
  } catch {
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Visit every piece of `content`: a string, an array of parts (nested arrays too), or (odd, but
 * never a crash) a single block object. `null`, numbers and other non-block parts are skipped.
 * Blocks that restate a call `tool_calls` lists (by `id` or `call_id` in `restatedCallIds`) are
 * skipped: the call is counted once, from `tool_calls`. `input_json_delta` blocks are skipped too:
 * they are streamed pieces of a `tool_use` block's input, which Anthropic's converter drops.
 *
 * @example
 * walkContent([{ type: "tool_result", tool_use_id: "t1", content: "ok" }], visitor); // meta("t1"), text("ok")
 */
export function walkContent(content: unknown, visitor: ContentVisitor, restatedCallIds: ReadonlySet<string> = new Set()): void {
  walkPart(content, visitor, restatedCallIds, 0);
}

function walkPart(part: unknown, visitor: ContentVisitor, restated: ReadonlySet<string>, depth: number): void {
  if (typeof part === "string") {
    if (part !== "") visitor.text(part);
    return;
  }
  if (typeof part !== "object" || part === null) return;
  if (depth > MAX_CONTENT_DEPTH) {
    visitor.opaque("content", jsonOf(part));
    return;
  }
  if (Array.isArray(part)) {
    for (const item of part) walkPart(item, visitor, restated, depth + 1);
    return;
  }
  walkBlock(part as Record<string, unknown>, visitor, restated, depth);
}

function walkBlock(block: Record<string, unknown>, visitor: ContentVisitor, restated: ReadonlySet<string>, depth: number): void {
  const type = typeof block["type"] === "string" ? block["type"] : "";
  const nested = (value: unknown) => walkPart(value, visitor, restated, depth + 1);
  const meta = (...values: unknown[]) => {
    for (const value of values) {
      const text = stringOf(value);
      if (text !== undefined) visitor.meta(text);
    }
  };
  if (TEXT_TYPES.has(type) || type === "text-plain") {
    const text = stringOf(block["text"]);
    if (text !== undefined) visitor.text(text);
    else if (type === "text-plain" && block["data"] !== undefined) visitor.opaque(type, undefined);
    meta(block["title"], block["context"]);
    return;
  }
  if (MEDIA_TYPES.has(type)) {
    // A v0 data block may carry plain text (`source_type: "text"`); the rest is media.
    const text = block["source_type"] === "text" ? stringOf(block["text"]) : undefined;
    if (text !== undefined) visitor.text(text);
    else visitor.opaque(type, undefined, mediaReference(block));
    return;
  }
  if (CALL_TYPES.has(type)) {
    const id = stringOf(block["id"]) ?? stringOf(block["call_id"]);
    if (id !== undefined && restated.has(id)) return;
    const args = block["input"] ?? block["args"] ?? block["arguments"];
    meta(block["name"], typeof args === "string" ? args : jsonOf(args ?? {}), id);
    return;
  }
  switch (type) {
    case "input_json_delta":
      return;
    case "tool_result":
      meta(block["tool_use_id"]);
      nested(block["content"]);
      return;
    case "function_call_output":
      meta(block["call_id"]);
      nested(block["output"]);
      return;
    case "search_result":
      meta(block["title"], block["source"]);
      nested(block["content"]);
      return;
    case "compaction":
      nested(block["content"]);
      return;
    case "document":
      walkDocument(block, visitor, nested, meta);
      return;
    case "thinking":
    case "reasoning":
    case "refusal":
    case "redacted_thinking":
      visitor.opaque(type, reasoningText(block, type));
      return;
    default:
      visitor.opaque(type === "" ? "content" : type, jsonOf(block));
  }
}

/** Anthropic's document: text or content source (read), or a PDF, URL or file (a fixed estimate). */
function walkDocument(
  block: Record<string, unknown>,
  visitor: ContentVisitor,
  nested: (value: unknown) => void,
  meta: (...values: unknown[]) => void,
): void {
  meta(block["title"], block["context"]);
  const source = block["source"];
  const record = typeof source === "object" && source !== null ? (source as Record<string, unknown>) : {};
  if (record["type"] === "text" && typeof record["data"] === "string") nested(record["data"]);
  else if (record["type"] === "content") nested(record["content"]);
  else visitor.opaque("document", undefined, mediaReference(block));
}

/** An http(s) URL, else `undefined` (a `data:` URL is inline data, not a reference). */
function webUrl(value: unknown): string | undefined {
  return typeof value === "string" && /^https?:\/\//i.test(value) ? value : undefined;
}

/**
 * The URL a media or document block refers to, in the shapes LangChain and the providers use:
 * `image_url` (a string or `{ url }`), a v0 data block (`source_type: "url"`, `url`), a v1 block
 * (`url`), OpenAI's `input_image` (`image_url`) and `input_file` (`file_url`), Anthropic's
 * `source: { type: "url", url }`. Only http(s) URLs: inline data is never copied.
 */
function mediaReference(block: Record<string, unknown>): string | undefined {
  const imageUrl = block["image_url"];
  const source = block["source"];
  return (
    webUrl(imageUrl) ??
    webUrl(typeof imageUrl === "object" && imageUrl !== null ? (imageUrl as Record<string, unknown>)["url"] : undefined) ??
    webUrl(block["url"]) ??
    webUrl(block["file_url"]) ??
    webUrl(typeof source === "object" && source !== null ? (source as Record<string, unknown>)["url"] : undefined)
  );
}

/** What the provider receives of a reasoning-like block (OpenAI's reasoning carries a summary list). */
function reasoningText(block: Record<string, unknown>, type: string): string {
  const field = type === "redacted_thinking" ? "data" : type;
  const text = stringOf(block[field]);
  if (text !== undefined) return text;
  if (!Array.isArray(block["summary"])) return "";
  const pieces: string[] = [];
  for (const item of block["summary"] as unknown[]) {
    const piece = typeof item === "object" && item !== null ? stringOf((item as Record<string, unknown>)["text"]) : undefined;
    if (piece !== undefined) pieces.push(piece);
  }
  return pieces.join("\n");
}

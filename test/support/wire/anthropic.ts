/**
 * Anthropic Messages API rules, checked on what `ChatAnthropic` really sends: the history converted
 * by `_convertMessagesToAnthropicPayload` from `@langchain/anthropic`, not by any code of this package.
 *
 * Tool rules are checked message by message, the strict reading: every `tool_use` of an assistant
 * message is answered by a `tool_result` at the start of the very next message, a user message.
 * (The API also combines consecutive messages of one role into a turn, so two user messages in a
 * row are accepted; whether it does so before checking tool results is not documented, so the
 * validator does not rely on it.) `ChatAnthropic` itself only merges neighbouring messages made of
 * `tool_result` blocks, and sends a system message that is not leading in place (`role: "system"`).
 * The first message must be a user message: the API has required it; whether every model still
 * does is not documented, so it is checked.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertForAnthropic, type AnthropicPayload } from "./anthropic-converter.js";
import { anthropicSources, type AnthropicSources } from "./anthropic-sources.js";
import { loneSurrogatePaths, preview, type WireProblem } from "./problems.js";

export interface AnthropicCheckOptions {
  /**
   * Also report two request messages of the same role in a row (`consecutive-same-role`). The API
   * accepts them (it combines them), so this is off by default.
   */
  readonly strictAlternation?: boolean;
}

type Block = Record<string, unknown> & { type?: unknown };

interface Located {
  readonly block: Block;
  readonly wireIndex: number;
  readonly index: number;
}

/** One request message, its blocks located. */
interface WireMessage {
  readonly role: string;
  readonly blocks: readonly Located[];
}

/** Tool-use ids the API accepts. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const isText = (block: Block) => block.type === "text";
const isBlank = (text: unknown) => typeof text === "string" && text.trim() === "";

/** The blocks of a message; string content as one text block. */
function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.map((block) => (typeof block === "object" && block !== null ? (block as Block) : { type: undefined, value: block })) : [];
}

class Findings {
  readonly problems: WireProblem[] = [];
  add(index: number, wireIndex: number, rule: string, detail: string): void {
    this.problems.push({ provider: "anthropic", index, wireIndex, rule, detail });
  }
}

/** Empty and blank text, inside a message or inside a tool result's content. */
function textFindings(findings: Findings, blocks: readonly Located[], where: string): void {
  for (const { block, wireIndex, index } of blocks) {
    if (isText(block) && typeof block["text"] !== "string") findings.add(index, wireIndex, "malformed-content-block", `${where}: text block without a string text`);
    else if (isText(block) && block["text"] === "") findings.add(index, wireIndex, "empty-text-block", `${where}: text block with ""`);
  }
  const texts = blocks.filter(({ block }) => isText(block));
  if (texts.length > 0 && texts.length === blocks.length && texts.every(({ block }) => isBlank(block["text"])) && texts.some(({ block }) => block["text"] !== "")) {
    findings.add(texts[0]!.index, texts[0]!.wireIndex, "whitespace-only-text", `${where}: only white space, ${preview(texts.map(({ block }) => block["text"]).join(""))}`);
  }
}

function blockFindings(findings: Findings, role: string, located: readonly Located[]): void {
  for (const { block, wireIndex, index } of located) {
    if (block.type === "tool_use") {
      if (role !== "assistant") findings.add(index, wireIndex, "tool-use-outside-assistant", `tool_use in a ${role} message`);
      if (typeof block["id"] !== "string" || !TOOL_USE_ID.test(block["id"])) findings.add(index, wireIndex, "tool-use-id-pattern", `tool_use id ${preview(block["id"] ?? null)} does not match ${TOOL_USE_ID.source}`);
      if (typeof block["name"] !== "string" || block["name"] === "") findings.add(index, wireIndex, "malformed-tool-use", `tool_use name ${preview(block["name"] ?? null)}`);
      const input = block["input"];
      if (typeof input !== "object" || input === null || Array.isArray(input)) findings.add(index, wireIndex, "malformed-tool-use", `tool_use input ${preview(input ?? null)} is not an object`);
    }
    if (block.type === "tool_result") {
      if (role !== "user") findings.add(index, wireIndex, "tool-result-outside-user", `tool_result in a ${role} message`);
      const content = block["content"];
      if (Array.isArray(content)) textFindings(findings, blocksOf(content).map((inner) => ({ block: inner, wireIndex, index })), "tool_result content");
      const empty = content === undefined || content === "" || (Array.isArray(content) && content.length === 0);
      if (block["is_error"] === true && empty) findings.add(index, wireIndex, "empty-error-tool-result", "tool_result with is_error and no content");
    }
  }
}

function messageFindings(findings: Findings, payload: AnthropicPayload, sources: AnthropicSources): WireMessage[] {
  const wire: WireMessage[] = [];
  payload.messages.forEach((message, wireIndex) => {
    const blockSources = sources.blocks[wireIndex]!;
    const first = sources.messages[wireIndex]!;
    for (const path of loneSurrogatePaths(message)) findings.add(first, wireIndex, "lone-surrogate", `lone surrogate in ${path}`);
    if (!["user", "assistant", "system"].includes(message.role)) findings.add(first, wireIndex, "unknown-role", `role ${preview(message.role)}`);
    const located = blocksOf(message.content).map((block, position) => ({ block, wireIndex, index: blockSources[position] ?? first }));
    if (message.content === "" || (Array.isArray(message.content) && message.content.length === 0)) {
      findings.add(first, wireIndex, "empty-content", `${message.role} content ${preview(message.content)}`);
    } else if (typeof message.content !== "string" && !Array.isArray(message.content)) {
      findings.add(first, wireIndex, "malformed-content", `${message.role} content ${preview(message.content ?? null)}`);
    } else {
      textFindings(findings, located, `${message.role} message`);
    }
    blockFindings(findings, message.role, located);
    wire.push({ role: message.role, blocks: located });
  });
  return wire;
}

const idOf = (block: Block) => (typeof block["id"] === "string" ? block["id"] : typeof block["tool_use_id"] === "string" ? block["tool_use_id"] : String(block["id"] ?? block["tool_use_id"]));

/** Every tool_use answered at the start of the next message, a user message; every tool_result answering the message before it. */
function toolFindings(findings: Findings, wire: readonly WireMessage[]): void {
  const seen = new Set<string>();
  wire.forEach((message, position) => {
    const uses = message.role === "assistant" ? message.blocks.filter(({ block }) => block.type === "tool_use") : [];
    for (const use of uses) {
      if (seen.has(idOf(use.block))) findings.add(use.index, use.wireIndex, "duplicate-tool-use-id", `tool_use id ${preview(idOf(use.block))} already used earlier in the request`);
      seen.add(idOf(use.block));
    }
    const next = wire[position + 1];
    const leading = new Set<string>();
    for (const { block } of next?.role === "user" ? next.blocks : []) {
      if (block.type !== "tool_result") break;
      leading.add(idOf(block));
    }
    const later = new Set(next?.role === "user" ? next.blocks.filter(({ block }) => block.type === "tool_result").map(({ block }) => idOf(block)) : []);
    for (const use of uses) {
      const id = idOf(use.block);
      if (leading.has(id)) continue;
      if (later.has(id)) findings.add(use.index, use.wireIndex, "tool-result-not-first", `tool_result for ${preview(id)} comes after other content in the next message`);
      else findings.add(use.index, use.wireIndex, "unanswered-tool-use", `tool_use ${preview(id)} has no tool_result in the next message (${next === undefined ? "none" : `${next.role} message`})`);
    }
    if (message.role !== "user") return;
    const before = wire[position - 1];
    const asked = new Set(before?.role === "assistant" ? before.blocks.filter(({ block }) => block.type === "tool_use").map(({ block }) => idOf(block)) : []);
    const answered = new Set<string>();
    for (const { block, wireIndex, index } of message.blocks) {
      if (block.type !== "tool_result") continue;
      const id = idOf(block);
      if (answered.has(id)) findings.add(index, wireIndex, "duplicate-tool-result", `second tool_result for ${preview(id)} in one message`);
      else if (!asked.has(id)) findings.add(index, wireIndex, "orphan-tool-result", `tool_result for ${preview(id)}, which the message before did not use`);
      answered.add(id);
    }
  });
}

function systemFindings(findings: Findings, system: unknown, sources: readonly number[]): void {
  if (system === undefined) return;
  const first = sources[0] ?? -1;
  for (const path of loneSurrogatePaths(system)) {
    // A path into a list of blocks starts with the block's position: that block's message.
    const block = /^\[(\d+)\]/.exec(path);
    findings.add(block ? (sources[Number(block[1])] ?? first) : first, -1, "lone-surrogate", `lone surrogate in system${path === "(string)" ? "" : `.${path}`}`);
  }
  if (Array.isArray(system)) textFindings(findings, blocksOf(system).map((block, position) => ({ block, wireIndex: -1, index: sources[position] ?? first })), "system");
}

/**
 * Why Anthropic's Messages API would reject what `ChatAnthropic` sends for `messages`: at least one
 * message, the first a user message, no empty content, no empty text block, no content of only
 * white space, every `tool_use` answered by a `tool_result` at the start of the next message (a
 * user message), no `tool_result` the message before did not ask for, tool-use ids unique and of the accepted
 * characters, no lone surrogate in any string. A history the client cannot convert (it throws
 * before sending) is a `client-conversion-error`. Problems are ordered by wire position.
 */
export function anthropicWireProblems(messages: readonly BaseMessage[], options: AnthropicCheckOptions = {}): WireProblem[] {
  let payload: AnthropicPayload;
  try {
    payload = convertForAnthropic(messages);
  } catch (error) {
    return [{ provider: "anthropic", index: -1, wireIndex: -1, rule: "client-conversion-error", detail: error instanceof Error ? error.message : String(error) }];
  }
  const sources = anthropicSources(messages, payload);
  const findings = new Findings();
  systemFindings(findings, payload.system, sources.system);
  if (payload.messages.length === 0) findings.add(-1, -1, "no-messages", "the request has no messages (only system content, or nothing)");
  const wire = messageFindings(findings, payload, sources);
  if (wire.length > 0 && wire[0]!.role !== "user") findings.add(sources.messages[0]!, 0, "first-not-user", `the first message is ${wire[0]!.role}`);
  toolFindings(findings, wire);
  if (options.strictAlternation) {
    payload.messages.forEach((message, wireIndex) => {
      if (wireIndex > 0 && payload.messages[wireIndex - 1]!.role === message.role) {
        findings.add(sources.messages[wireIndex]!, wireIndex, "consecutive-same-role", `two ${message.role} messages in a row`);
      }
    });
  }
  return findings.problems.sort((a, b) => a.wireIndex - b.wireIndex);
}

// Reading a summary request back: the conversation a summary prompt (ours or LangChain's) or a
// shared-prefix request asks to summarize, as messages, and an earlier summary's artifact index.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { type ArtifactIndex } from "../../src/index.js";
import {
  COMPACTION_METADATA_KEY,
  EMPTY_ARTIFACT_INDEX,
  messageText,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  SUMMARY_MESSAGE_PREFIX,
} from "../../src/extend/index.js";

/** The prefix LangChain's summarization middleware gives its summaries (`DEFAULT_SUMMARY_PREFIX`). */
const LANGCHAIN_SUMMARY_PREFIX = "Here is a summary of the conversation to date:";
/** The prefix of our summary messages. */
const OUR_SUMMARY_PREFIX = SUMMARY_MESSAGE_PREFIX;

/**
 * The conversation inside a summary prompt: between the first `<history>`, `<conversation>` or
 * `<messages>` tag and its last closing tag (the templates put the instructions outside), or the
 * whole prompt when it has none.
 */
function historyRegion(prompt: string): string {
  for (const tag of ["history", "conversation", "messages"]) {
    const open = prompt.indexOf(`<${tag}>`);
    const close = prompt.lastIndexOf(`</${tag}>`);
    if (open >= 0 && close > open) return prompt.slice(open + tag.length + 2, close).replace(/^\s*Messages to summarize:\s*\n/, "");
  }
  return prompt;
}

/** A summary message as the no-model summarizer recognises it (it reads an earlier snapshot's sections). */
function summaryMessage(text: string): HumanMessage {
  return new HumanMessage({ content: text, response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: "eval", summary: true } } });
}

const OUR_HEADER = /^\[(user|assistant|system|earlier summary)\]$|^\[tool(?: ([^\]#]*))? #([^\]]+)\]$/;
const LANGCHAIN_HEADER = /^(Human|AI|System|Tool): /;
const OUR_CALL = /^-> ([^(\s]+)\((.*)\) #(\S+)$/;

interface Block {
  role: "user" | "assistant" | "system" | "tool" | "summary";
  lines: string[];
  toolName?: string;
  toolCallId?: string;
}

/** Our `formatHistory` text: `[role]` headers, `-> name(args) #id` calls, `[tool name #id]` results. */
function parseOurFormat(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  for (const line of lines) {
    const header = OUR_HEADER.exec(line);
    if (header) {
      if (header[1] !== undefined) blocks.push({ role: header[1] === "earlier summary" ? "summary" : (header[1] as Block["role"]), lines: [] });
      else blocks.push({ role: "tool", lines: [], ...(header[2] ? { toolName: header[2].trim() } : {}), toolCallId: header[3]! });
    } else blocks.at(-1)?.lines.push(line);
  }
  return blocks;
}

/** LangChain's `getBufferString` text: `Human: `, `AI: ` (tool calls as a JSON array at the end), `Tool: name, `. */
function parseLangChainFormat(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  for (const line of lines) {
    const header = LANGCHAIN_HEADER.exec(line);
    if (header) {
      const role = header[1] === "Human" ? "user" : header[1] === "AI" ? "assistant" : header[1] === "System" ? "system" : "tool";
      blocks.push({ role, lines: [line.slice(header[0].length)] });
    } else blocks.at(-1)?.lines.push(line);
  }
  return blocks;
}

/** The tool calls LangChain appends to an AI line as JSON, and the text before them. */
function splitLangChainCalls(text: string): { text: string; calls: { name: string; args: Record<string, unknown>; id: string }[] } {
  const lastLineStart = text.lastIndexOf("\n") + 1;
  for (let start = text.indexOf('[{"', lastLineStart); start >= 0; start = text.indexOf('[{"', start + 1)) {
    try {
      const parsed: unknown = JSON.parse(text.slice(start));
      if (Array.isArray(parsed) && parsed.every((call) => typeof call === "object" && call !== null && typeof (call as { name?: unknown }).name === "string")) {
        const calls = (parsed as { name: string; args?: Record<string, unknown>; id?: string }[]).map((call, index) => ({
          name: call.name,
          args: call.args ?? {},
          id: call.id ?? `call_${index}`,
        }));
        return { text: text.slice(0, start), calls };
      }
    } catch {
      // Not the JSON array: a bracket inside the text; try the next one.
    }
  }
  return { text, calls: [] };
}

/**
 * The messages of a summary prompt, rebuilt from its text (our format or LangChain's), so the
 * package's no-model summarizer can work on them. Earlier summaries come back as summary messages;
 * LangChain's tool results, which carry no call id, are matched to the calls before them in order.
 */
export function messagesOfPrompt(prompt: string): BaseMessage[] {
  const region = historyRegion(prompt);
  const lines = region.split("\n");
  const ours = lines.filter((line) => OUR_HEADER.test(line)).length;
  const theirs = lines.filter((line) => LANGCHAIN_HEADER.test(line)).length;
  const blocks = ours >= theirs ? parseOurFormat(lines) : parseLangChainFormat(lines);
  const messages: BaseMessage[] = [];
  // An earlier snapshot given to the prompt on its own (stateSnapshotSummary) comes first.
  const previous = /<previous_snapshot>\n?([\s\S]*?)<\/previous_snapshot>/.exec(prompt);
  if (previous?.[1]?.trim()) messages.push(summaryMessage(previous[1].trim()));
  const pending: string[] = [];
  let nextId = 0;
  for (const block of blocks) {
    const text = block.lines.join("\n").trim();
    if (block.role === "summary" || (block.role === "user" && (text.startsWith(LANGCHAIN_SUMMARY_PREFIX) || text.startsWith(OUR_SUMMARY_PREFIX)))) {
      messages.push(summaryMessage(text));
    } else if (block.role === "user") messages.push(new HumanMessage(text));
    else if (block.role === "system") messages.push(new SystemMessage(text));
    else if (block.role === "assistant") {
      if (ours >= theirs) {
        const body: string[] = [];
        const calls: { name: string; args: Record<string, unknown>; id: string }[] = [];
        for (const line of block.lines) {
          const call = OUR_CALL.exec(line);
          let args: Record<string, unknown> | undefined;
          if (call) {
            try {
              args = JSON.parse(call[2]!) as Record<string, unknown>;
            } catch {
              args = undefined;
            }
          }
          if (call && args !== undefined) calls.push({ name: call[1]!, args, id: call[3]! });
          else body.push(line);
        }
        messages.push(new AIMessage({ content: body.join("\n").trim(), tool_calls: calls.map((call) => ({ ...call, type: "tool_call" as const })) }));
      } else {
        const split = splitLangChainCalls(block.lines.join("\n"));
        const calls = split.calls.map((call) => ({ ...call, id: `${call.id}#${nextId++}` }));
        pending.push(...calls.map((call) => call.id));
        messages.push(new AIMessage({ content: split.text.trim(), tool_calls: calls.map((call) => ({ ...call, type: "tool_call" as const })) }));
      }
    } else {
      // A LangChain result reads "name, content" when the result has a name.
      let content = text;
      let name = block.toolName;
      if (ours < theirs) {
        const raw = block.lines.join("\n");
        const comma = /^([\w.-]+),(?: |$)/.exec(raw);
        if (comma) {
          name = comma[1];
          content = raw.slice(comma[0].length).trim();
        }
      }
      const toolCallId = block.toolCallId ?? pending.shift() ?? `unmatched#${nextId++}`;
      messages.push(new ToolMessage({ content, tool_call_id: toolCallId, ...(name ? { name } : {}) }));
    }
  }
  return messages;
}

/**
 * An artifact index read back from its rendering (`renderArtifacts`) in an earlier summary, so a
 * summary of a summary keeps the trail. Files, identifiers and error lines are recovered; counts of
 * tools and commands are not needed for that.
 */
export function parseRenderedArtifacts(text: string): ArtifactIndex {
  const filesCreated: string[] = [];
  const filesModified: string[] = [];
  const filesRead: string[] = [];
  const identifiers: string[] = [];
  const urls: string[] = [];
  const errors: string[] = [];
  for (const match of text.matchAll(/<artifact_index>\n([\s\S]*?)\n<\/artifact_index>/g)) {
    let inErrors = false;
    for (const line of match[1]!.split("\n")) {
      // A list cut to fit its summary message ends with a count of the rest ("… and 12 more files"): not an entry.
      const list = (label: string) => (line.startsWith(`${label}: `) ? line.slice(label.length + 2).split(", ").filter((entry) => entry !== "" && !/^… and \d+ more /.test(entry)) : undefined);
      if (/^errors seen(?: \(\d+ of \d+\))?:$/.test(line)) {
        inErrors = true;
        continue;
      }
      if (inErrors && line.startsWith("- ")) {
        errors.push(line.slice(2));
        continue;
      }
      inErrors = false;
      filesCreated.push(...(list("files created") ?? []));
      filesModified.push(...(list("files modified") ?? []));
      filesRead.push(...(list("files read") ?? []));
      identifiers.push(...(list("identifiers") ?? []));
      urls.push(...(list("urls") ?? []));
    }
  }
  return { ...EMPTY_ARTIFACT_INDEX, filesCreated, filesModified, filesRead, identifiers, urls, errors };
}

/** The shared-prefix instructions' text before `{kept}`: how a request's last message is recognised as one. */
const SHARED_PREFIX_OPENINGS = [SHARED_PREFIX_SUMMARY_INSTRUCTION, SHARED_PREFIX_SNAPSHOT_INSTRUCTION].map((template) => template.slice(0, template.indexOf("{kept}")));

/**
 * K of a shared-prefix instruction (the number of messages at the end of the request that stay
 * verbatim), or `undefined` when `text` is not one.
 */
export function sharedPrefixKept(text: string): number | undefined {
  const opening = SHARED_PREFIX_OPENINGS.find((candidate) => text.startsWith(candidate));
  if (opening === undefined) return undefined;
  const kept = /^\d+/.exec(text.slice(opening.length));
  return kept ? Number(kept[0]) : undefined;
}

/**
 * The messages a shared-prefix request (the history's messages, then one instruction) asks to
 * summarize: the non-system ones before the instruction but its last K (0 when the last message is
 * not a recognised instruction). Earlier summaries come back as summary messages, as in a prompt.
 */
export function messagesOfSharedPrefixRequest(request: readonly BaseMessage[]): BaseMessage[] {
  const kept = sharedPrefixKept(request.length > 0 ? messageText(request.at(-1)!) : "") ?? 0;
  const conversation = request.slice(0, -1).filter((message) => message.type !== "system");
  return conversation.slice(0, Math.max(0, conversation.length - kept)).map((message) => {
    if (message.type !== "human" || (message.response_metadata as Record<string, unknown>)[COMPACTION_METADATA_KEY] !== undefined) return message;
    const text = messageText(message);
    return text.startsWith(LANGCHAIN_SUMMARY_PREFIX) || text.startsWith(OUR_SUMMARY_PREFIX) ? summaryMessage(text) : message;
  });
}

/**
 * The summary model of the evaluation: one deterministic chat model that every system which
 * summarizes (ours and LangChain's summarization middleware) calls with its own prompt, so the
 * comparison does not depend on which system happened to use a better summarizer. With an API key,
 * a real model takes its place (see run.ts). Both are wrapped in {@link MeteredChatModel}, which
 * counts every summary call's tokens for the system that made it.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import {
  COMPACTION_METADATA_KEY,
  EMPTY_ARTIFACT_INDEX,
  extractArtifacts,
  messageText,
  noModelSnapshot,
  renderArtifacts,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  SUMMARY_MESSAGE_PREFIX,
  type ArtifactIndex,
  type TokenCounter,
} from "../../src/index.js";

/** The cap on a deterministic summary, in tokens: under the 1000-token summary cap of our strategies once they wrap it in tags. */
export const DETERMINISTIC_SUMMARY_MAX_TOKENS = 980;

/** The share of the cap the artifact index may take; the snapshot gets the rest. */
const INDEX_SHARE = 0.6;

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
      const list = (label: string) => (line.startsWith(`${label}: `) ? line.slice(label.length + 2).split(", ").filter(Boolean) : undefined);
      if (line === "errors seen:") {
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

/**
 * The deterministic summary of a summary prompt: the prompt's conversation rebuilt as messages
 * ({@link messagesOfPrompt}), then {@link deterministicSummaryOf} them.
 *
 * @example
 * const text = await deterministicSummary(prompt, createTokenCounter());
 */
export async function deterministicSummary(prompt: string, tokenCounter: TokenCounter, maxTokens = DETERMINISTIC_SUMMARY_MAX_TOKENS): Promise<string> {
  return deterministicSummaryOf(messagesOfPrompt(prompt), tokenCounter, maxTokens);
}

/**
 * The deterministic summary of messages: the package's no-model `<state_snapshot>` of them, and
 * their artifact index (earlier summaries' indexes merged) rendered after it. Capped at `maxTokens`:
 * the index keeps up to 60% of the cap, the snapshot is cut to the rest.
 */
export async function deterministicSummaryOf(messages: readonly BaseMessage[], tokenCounter: TokenCounter, maxTokens = DETERMINISTIC_SUMMARY_MAX_TOKENS): Promise<string> {
  const earlier = messages.filter((message) => (message.response_metadata as Record<string, unknown>)[COMPACTION_METADATA_KEY] !== undefined).map((message) => parseRenderedArtifacts(messageText(message)));
  const artifacts = extractArtifacts(messages, earlier);
  const snapshot = noModelSnapshot({ messages, artifacts }).replace("see <artifact_index> below", "see the index below");
  let index = renderArtifacts(artifacts);
  const indexBudget = Math.floor(maxTokens * INDEX_SHARE);
  if ((await tokenCounter.countText(index)) > indexBudget) index = `${await tokenCounter.truncateText(index, indexBudget)}\n</artifact_index>`;
  const indexTokens = index === "" ? 0 : (await tokenCounter.countText(index)) + 2;
  let text = snapshot;
  if ((await tokenCounter.countText(snapshot)) + indexTokens > maxTokens) text = await tokenCounter.truncateText(snapshot, Math.max(0, maxTokens - indexTokens));
  return index === "" ? text : `${text}\n\n${index}`;
}

/** Options of {@link DeterministicSummaryModel}. */
export interface DeterministicSummaryModelParams extends BaseChatModelParams {
  /** Counts and caps the summary. */
  tokenCounter: TokenCounter;
  /** @default DETERMINISTIC_SUMMARY_MAX_TOKENS */
  maxTokens?: number;
}

/**
 * A chat model that answers a summary prompt with {@link deterministicSummary} of the prompt's text:
 * offline, free and the same for every system. A shared-prefix request (more than one message, or a
 * last message that is a shared-prefix instruction) is answered from its messages directly
 * ({@link messagesOfSharedPrefixRequest}), with the same summary logic.
 *
 * @example
 * const model = new DeterministicSummaryModel({ tokenCounter: createTokenCounter() });
 * const answer = await model.invoke([new HumanMessage(prompt)]);
 */
export class DeterministicSummaryModel extends BaseChatModel {
  readonly tokenCounter: TokenCounter;
  readonly summaryMaxTokens: number;

  constructor(params: DeterministicSummaryModelParams) {
    super(params);
    this.tokenCounter = params.tokenCounter;
    this.summaryMaxTokens = params.maxTokens ?? DETERMINISTIC_SUMMARY_MAX_TOKENS;
  }

  _llmType(): string {
    return "deterministic-summary";
  }

  async _generate(messages: BaseMessage[], _options: this["ParsedCallOptions"], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const shared = messages.length > 1 || (messages.length === 1 && sharedPrefixKept(messageText(messages[0]!)) !== undefined);
    const text = shared
      ? await deterministicSummaryOf(messagesOfSharedPrefixRequest(messages), this.tokenCounter, this.summaryMaxTokens)
      : await deterministicSummary(messages.map(messageText).join("\n\n"), this.tokenCounter, this.summaryMaxTokens);
    return { generations: [{ message: new AIMessage(text), text }] };
  }
}

/** One summary call as metered. */
export interface SummaryCall {
  /** Tokens of the prompt as sent (every message, with the format overhead). */
  readonly inputTokens: number;
  /** Tokens of the answer's text. */
  readonly outputTokens: number;
  /** The prompt's messages, as sent: the replay compares them with the agent's previous call for the cached prefix. */
  readonly messages: readonly BaseMessage[];
  /** Tokens of each prompt message (`perMessage` of the counter's measurement). */
  readonly perMessage: readonly number[];
}

/** Options of {@link MeteredChatModel}. */
export interface MeteredChatModelParams extends BaseChatModelParams {
  /** The model that answers. */
  inner: BaseChatModel;
  /** Counts the prompt and the answer. */
  tokenCounter: TokenCounter;
}

/**
 * Wraps a chat model and records each call's tokens, counted with the evaluation's counter (the
 * same one that measures the agent's calls, whichever model answers). One per system, so each
 * system's summary calls are added to its own totals.
 *
 * @example
 * const model = new MeteredChatModel({ inner, tokenCounter });
 * await strategy.compact(history); // strategy built with model
 * const calls = model.drain();
 */
export class MeteredChatModel extends BaseChatModel {
  readonly inner: BaseChatModel;
  readonly tokenCounter: TokenCounter;
  #calls: SummaryCall[] = [];

  constructor(params: MeteredChatModelParams) {
    super(params);
    this.inner = params.inner;
    this.tokenCounter = params.tokenCounter;
  }

  _llmType(): string {
    return "metered";
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const answer = await this.inner.invoke(messages, { ...(options.signal ? { signal: options.signal } : {}) });
    const text = messageText(answer);
    const prompt = [...messages];
    const measurement = await this.tokenCounter.measure(prompt);
    this.#calls.push({ inputTokens: measurement.total, outputTokens: await this.tokenCounter.countText(text), messages: prompt, perMessage: measurement.perMessage });
    return { generations: [{ message: new AIMessage(text), text }] };
  }

  /** The calls recorded since the last drain, oldest first; clears them. */
  drain(): SummaryCall[] {
    const calls = this.#calls;
    this.#calls = [];
    return calls;
  }
}

/**
 * A scripted chat model for the example's server: offline, free, and able to serve any number of
 * runs. It answers from the newest message of the request alone (the part of a history compaction
 * never touches), so every run of every thread gets an answer, and the same request always gets
 * the same one:
 * - a user message: one `read_file` call per file path it names (`src/app.ts`), all at once;
 * - the tool results of those calls: a final answer naming the files;
 * - a user message that asks to recall a file: a `recall` call with the oldest `[recall <ref>]` note
 *   of the request (the summary of everything compacted so far: the one exception, it reads the
 *   request for the note);
 * - its result: the file's first line if the recalled text holds it, else the next part if there
 *   is one (`next: part 2`), else an answer saying the archive does not hold it (the file is the one
 *   the call's own text names: by then a compaction may have summarized the user's message);
 * - anything else: a final answer asking for files to read.
 *
 * `fakeModel()` from `@langchain/core/testing` replays a fixed queue and throws once it is empty, so
 * a server answering run after run needs a model like this one. Replace it with a real chat model
 * (`new ChatOpenAI({ model: "gpt-4o-mini" })`) in graph.ts to run the example against a provider.
 */
import { BaseChatModel, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/** The file paths a request names, in order, once each (`src/app.ts`, `docs/notes.md`). */
export function filePathsIn(text: string): string[] {
  return [...new Set(text.match(/[\w-]+(?:\/[\w.-]+)*\.[A-Za-z]+\b/gu) ?? [])];
}

/** A message's text (its string content, or the text parts of its content array). */
function textOf(message: BaseMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" && typeof part["text"] === "string" ? part["text"] : "")).join("");
}

/** The first line of the file at `path` (as graph.ts's `read_file` returns it). */
export const firstLineOf = (path: string) => `export const value_1 = computeValue("${path}", 1); // line 1`;

/** The oldest reference a `[recall <ref>]` note of `messages` names. */
function oldestRecallRef(messages: readonly BaseMessage[]): string | undefined {
  for (const message of messages) {
    const found = /\[recall ([^\]\s]+)\]/u.exec(textOf(message));
    if (found) return found[1];
  }
  return undefined;
}

/** A call of the `recall` tool; its text names the file it looks for (a later compaction may summarize the user's message away). */
function recallCall(id: string, callId: string, path: string, args: { ref: string; part?: number }, metadata: object): AIMessage {
  const content = `I'll recall ${path} from ${args.ref}${args.part ? `, part ${args.part}` : ""}.`;
  return new AIMessage({ id, content, tool_calls: [{ id: callId, name: "recall", args, type: "tool_call" as const }], ...metadata });
}

/** The answer to a `recall` result: the first line of the file its call looks for, from the recalled text, or the next part. */
function afterRecall(messages: readonly BaseMessage[], result: ToolMessage, metadata: object): AIMessage {
  const call = messages.find((message): message is AIMessage => message.type === "ai" && (message as AIMessage).tool_calls?.some((each) => each.id === result.tool_call_id) === true);
  const turn = (call?.id ?? "turn").replace(/-ai(?:-\d+)?$/u, "");
  const path = filePathsIn(call ? textOf(call) : "")[0] ?? "";
  const ref = call?.tool_calls?.find((each) => each.id === result.tool_call_id)?.args["ref"];
  const text = textOf(result);
  const line = firstLineOf(path);
  if (path !== "" && text.includes(line)) return new AIMessage({ id: `${turn}-answer`, content: `From the archive, ${path} starts with: ${line}`, ...metadata });
  const next = /next: part (\d+)/u.exec(text);
  if (next && typeof ref === "string") {
    const part = Number(next[1]);
    return recallCall(`${turn}-ai-${part}`, `${turn}-recall-${part}`, path, { ref, part }, metadata);
  }
  return new AIMessage({ id: `${turn}-answer`, content: `The archive does not hold ${path || "that file"}.`, ...metadata });
}

/** The model's answer to `messages`: what the newest message asks for (see the module's comment). */
export function scriptedReply(messages: readonly BaseMessage[]): AIMessage {
  const last = messages[messages.length - 1];
  const metadata = { response_metadata: { model_name: "scripted-model" } };
  if (last?.type === "human" && /\brecall\b/iu.test(textOf(last))) {
    const turn = last.id ?? "turn";
    const ref = oldestRecallRef(messages);
    if (ref === undefined) return new AIMessage({ id: `${turn}-answer`, content: "Nothing was compacted: there is nothing to recall.", ...metadata });
    return recallCall(`${turn}-ai`, `${turn}-recall-1`, filePathsIn(textOf(last))[0] ?? "", { ref }, metadata);
  }
  if (last?.type === "tool" && (last as ToolMessage).name === "recall") return afterRecall(messages, last as ToolMessage, metadata);
  if (last?.type === "human") {
    const turn = last.id ?? "turn";
    const paths = filePathsIn(textOf(last));
    if (paths.length === 0) return new AIMessage({ id: `${turn}-answer`, content: "Name a file and I will read it.", ...metadata });
    return new AIMessage({
      id: `${turn}-ai`,
      content: `I'll read ${paths.join(" and ")}.`,
      tool_calls: paths.map((path, index) => ({ id: `${turn}-call-${index + 1}`, name: "read_file", args: { path }, type: "tool_call" as const })),
      ...metadata,
    });
  }
  if (last?.type === "tool") {
    // The results of the newest call message: the tool messages at the end of the history.
    const read: string[] = [];
    for (let position = messages.length - 1; position >= 0 && messages[position]!.type === "tool"; position--) {
      const result = messages[position] as ToolMessage;
      read.unshift(String((result.artifact as { path?: unknown } | undefined)?.path ?? result.tool_call_id));
    }
    const turn = (last as ToolMessage).tool_call_id.replace(/-call-\d+$/u, "");
    return new AIMessage({ id: `${turn}-answer`, content: `${read.join(" and ")} each export value_1 to value_40.`, ...metadata });
  }
  return new AIMessage({ content: "Name a file and I will read it.", ...metadata });
}

/** {@link scriptedReply} as a LangChain chat model: `bindTools` is accepted (the script knows its one tool). */
export class ScriptedChatModel extends BaseChatModel {
  constructor() {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = scriptedReply(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  override bindTools(_tools: BindToolsInput[]): this {
    return this;
  }
}

/**
 * A scripted, offline coding agent for the LangGraph API server test: each user turn reads two
 * files (two tool calls, one at a time) and answers. Every message has a deterministic id, so the
 * test knows exactly which messages entered the thread. The model's next step depends only on the
 * newest message, which compaction never touches, so it replays identically with or without it.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** The file the `step`th call (`a` or `b`) of user turn `turn` reads. */
const fileOf = (turn: number, step: "a" | "b") => `src/module_${turn}_${step}.ts`;

/** The user message of turn `turn` (ids `h1`, `h2`...). */
export function userMessage(turn: number): HumanMessage {
  return new HumanMessage({ id: `h${turn}`, content: `Turn ${turn}: read ${fileOf(turn, "a")} and ${fileOf(turn, "b")}, then tell me what they export.` });
}

/** What the file holds: about 600 tokens of code. */
function fileContents(path: string): string {
  const lines: string[] = [];
  for (let line = 1; line <= 40; line++) lines.push(`export const value_${line} = computeValue("${path}", ${line}); // line ${line}`);
  return lines.join("\n");
}

function call(turn: number, step: "a" | "b"): AIMessage {
  return new AIMessage({
    id: `h${turn}-ai-${step}`,
    content: step === "a" ? `I'll start with ${fileOf(turn, "a")}.` : "",
    tool_calls: [{ id: `h${turn}-call-${step}`, name: "read_file", args: { path: fileOf(turn, step) }, type: "tool_call" }],
    additional_kwargs: { scripted: true },
    response_metadata: { model_name: "scripted-model", finish_reason: "tool_calls" },
    usage_metadata: { input_tokens: 100 * turn, output_tokens: 12, total_tokens: 100 * turn + 12 },
  });
}

/** The scripted model's answer to a history: the next call of the newest turn, or its final answer. */
export function modelReply(messages: readonly BaseMessage[]): AIMessage {
  const last = messages[messages.length - 1];
  if (!last) throw new Error("scripted model: empty history");
  if (last.type === "human") return call(Number(/^h(\d+)$/u.exec(last.id ?? "")?.[1]), "a");
  const match = /^h(\d+)-call-([ab])-result$/u.exec(last.id ?? "");
  if (!match) throw new Error(`scripted model: unexpected newest message ${last.id}`);
  const turn = Number(match[1]);
  if (match[2] === "a") return call(turn, "b");
  return new AIMessage({
    id: `h${turn}-ai-answer`,
    content: `${fileOf(turn, "a")} and ${fileOf(turn, "b")} each export value_1 to value_40.`,
    additional_kwargs: { scripted: true },
    response_metadata: { model_name: "scripted-model", finish_reason: "stop" },
  });
}

/** The tool node's results for the calls of the newest (assistant) message. */
export function toolResults(messages: readonly BaseMessage[]): ToolMessage[] {
  const last = messages[messages.length - 1];
  const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
  return calls.map(
    (toolCall) =>
      new ToolMessage({
        id: `${toolCall.id}-result`,
        tool_call_id: toolCall.id!,
        name: toolCall.name,
        content: fileContents(String(toolCall.args["path"])),
        artifact: { path: toolCall.args["path"] },
        status: "success",
      }),
  );
}

/** Every message turn `turn` adds to a thread: the user message, two calls with their results, the answer. */
export function turnMessages(turn: number): BaseMessage[] {
  const messages: BaseMessage[] = [userMessage(turn)];
  for (;;) {
    const reply = modelReply(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) return messages;
    messages.push(...toolResults(messages));
  }
}

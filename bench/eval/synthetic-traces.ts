/**
 * Writes synthetic sessions (bench/synthetic.ts: seeded, code-like tool results, sessions no
 * recording of the project holds) in the trace format `npm run eval -- --traces` reads, so the
 * evaluation can be run on sessions it was not tuned on:
 *
 *   tsx bench/eval/synthetic-traces.ts <out.jsonl> [sessions=8] [messages=240]
 *   npm run eval -- --traces <out.jsonl>
 *
 * Synthetic replies reuse a small vocabulary of file names, identifiers and functions, so grounding
 * misses are rarer than on the recorded sessions: a check, not a second benchmark.
 */
import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import { syntheticHistory } from "../synthetic.js";

const ROLES: Record<string, string> = { system: "system", human: "user", ai: "assistant", tool: "tool" };

/** One message in the trace format of examples/fixtures. */
function traceMessage(message: BaseMessage): Record<string, unknown> {
  const calls = (message as { tool_calls?: { id?: string; name: string; args: Record<string, unknown> }[] }).tool_calls ?? [];
  return {
    role: ROLES[message.type],
    content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args })) } : {}),
    ...(message.type === "tool" ? { tool_call_id: (message as { tool_call_id?: string }).tool_call_id, name: message.name } : {}),
  };
}

const [out, sessionsText = "8", messagesText = "240"] = process.argv.slice(2);
if (out === undefined) {
  console.error("usage: tsx bench/eval/synthetic-traces.ts <out.jsonl> [sessions=8] [messages=240]");
  process.exit(2);
}
const lines = Array.from({ length: Number(sessionsText) }, (_, index) => {
  const messages = syntheticHistory(Number(messagesText), 1_000 + index);
  // The last message is an assistant reply, so the replay ends on a model call.
  while (messages.length > 0 && messages[messages.length - 1]!.type !== "ai") messages.pop();
  return JSON.stringify({ source: "synthetic", id: `synthetic/seed-${1_000 + index}`, messages: messages.map(traceMessage) });
});
writeFileSync(out, `${lines.join("\n")}\n`);
console.log(`wrote ${lines.length} synthetic sessions to ${out}`);

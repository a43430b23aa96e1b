// The probes of each kind, from the archived originals and the history: what `generateProbes` takes from.
import { AIMessage, ToolMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import { compactionMarkerOf } from "../../src/index.js";
import { extractArtifacts, filesOf, messageText } from "../../src/extend/index.js";
import { LIMITS, callMessage, callText, clip, commandOf, describeCall, identifiersOf, isActionTool, onlyViewsFiles, outcomeLines, reasoningOf, renderFiles } from "./probe-text.js";
import type { Probe } from "./probe-types.js";

export interface CallSource {
  readonly call: ToolCall;
  readonly message: AIMessage;
  readonly description: string;
  /** 1 for the first call of the history with this description, 2 for the second... */
  readonly run: number;
}
export type CallLookup = ReadonlyMap<string, CallSource>;
export type SubjectOf = (callId: string | undefined) => string | undefined;

export function recallProbes(
  originals: readonly BaseMessage[],
  calls: CallLookup,
  subjectOf: SubjectOf,
  task: BaseMessage | undefined,
  isArchived: (message: BaseMessage) => boolean,
): Probe[] {
  const probes: Probe[] = [];
  if (task && isArchived(task) && messageText(task).trim() !== "") {
    probes.push({
      id: "recall:request",
      kind: "recall",
      question: "What was the user's original request? Restate it with its specifics (names, paths, values, constraints).",
      expected: clip(messageText(task), LIMITS.request),
    });
  }
  const outcomes: Probe[] = [];
  const results: Probe[] = [];
  for (const message of originals) {
    if (!ToolMessage.isInstance(message) || compactionMarkerOf(message)?.hidden) continue;
    const text = messageText(message);
    if (text.trim() === "") continue;
    const call = calls.get(message.tool_call_id)?.call;
    const subject = subjectOf(message.tool_call_id) ?? `the \`${message.name ?? "tool"}\` call ${message.tool_call_id}`;
    const command = call ? commandOf(call) : undefined;
    const lines = command !== undefined && onlyViewsFiles(command) ? [] : outcomeLines(message);
    if (lines.length > 0) {
      outcomes.push({
        id: `recall:outcome@${message.tool_call_id}`,
        kind: "recall",
        question: `What did ${subject} report? Quote the key lines (errors, test results).`,
        expected: lines.join("\n"),
      });
    } else if (call && identifiersOf(call) !== "") {
      results.push({
        id: `recall:result@${message.tool_call_id}`,
        kind: "recall",
        question: `What did ${subject} return? Give the concrete values.`,
        expected: clip(text, LIMITS.result),
      });
    }
  }
  for (let position = 0; position < Math.max(outcomes.length, results.length); position++) {
    if (position < outcomes.length) probes.push(outcomes[position]!);
    if (position < results.length) probes.push(results[position]!);
  }
  return probes;
}

export function artifactProbes(originals: readonly BaseMessage[], calls: CallLookup, isArchived: (message: BaseMessage) => boolean): Probe[] {
  // A tool result's files are named by its call: when only the result was archived (hidden), its
  // call still says what the exchange touched.
  const material: BaseMessage[] = [];
  for (const message of originals) {
    if (ToolMessage.isInstance(message)) {
      const source = calls.get(message.tool_call_id);
      if (source && !isArchived(source.message)) material.push(callMessage(source.call));
    }
    material.push(message);
  }
  const index = extractArtifacts(material);
  if (filesOf(index).length === 0) return [];
  const probes: Probe[] = [
    {
      id: "artifact:files",
      kind: "artifact",
      question: "Which files were created, modified or read earlier in this session? List every path and say whether it was created, modified or read.",
      expected: renderFiles(index, ["created", "modified", "read"]),
    },
  ];
  const changed = renderFiles(index, ["created", "modified"]);
  if (changed !== "" && index.filesRead.length > 0) {
    probes.push({ id: "artifact:changed", kind: "artifact", question: "Which files did you create or modify (not only read)?", expected: changed });
  }
  return probes;
}

export function continuationProbes(history: readonly BaseMessage[], task: BaseMessage | undefined): Probe[] {
  const recent: AIMessage[] = [];
  for (let position = history.length - 1; position >= 0 && recent.length < 2; position--) {
    const message = history[position]!;
    if (AIMessage.isInstance(message) && !compactionMarkerOf(message)?.summary) recent.unshift(message);
  }
  if (recent.length === 0) return [];
  const lines: string[] = [];
  if (task) lines.push(`Task: ${clip(messageText(task), LIMITS.task)}`);
  lines.push("Most recent steps:");
  for (const message of recent) {
    const reasoning = clip(reasoningOf(message), LIMITS.step);
    const actions = (message.tool_calls ?? []).map(callText);
    const parts = [reasoning, actions.length > 0 ? `ran: ${actions.join("; ")}` : ""].filter((part) => part !== "");
    lines.push(`- ${parts.length > 0 ? parts.join(" | ") : "(empty turn)"}`);
  }
  return [
    {
      id: "continuation:next",
      kind: "continuation",
      question: "What is the task, what were you doing most recently, and what should you do next?",
      expected: lines.join("\n"),
    },
  ];
}

export function decisionProbes(originals: readonly BaseMessage[], subjectOf: SubjectOf): Probe[] {
  /** Actions by question, newest first: several edits of one file make one probe, their steps in order. */
  const actions = new Map<string, { id: string; steps: string[] }>();
  const reasons: Probe[] = [];
  for (let position = originals.length - 1; position >= 0; position--) {
    const message = originals[position]!;
    if (!AIMessage.isInstance(message) || compactionMarkerOf(message)?.summary) continue;
    const toolCalls = message.tool_calls ?? [];
    if (toolCalls.length === 0) continue;
    const reasoning = reasoningOf(message);
    let acted = false;
    // Newest first within a message too, so the whole list runs newest to oldest.
    for (const call of [...toolCalls].reverse()) {
      const touched = extractArtifacts([callMessage(call)]);
      const changed = [...new Set([...touched.filesCreated, ...touched.filesModified])];
      let question: string | undefined;
      if (changed.length > 0) question = `What did you change in ${changed.join(", ")}, and why?`;
      else if (commandOf(call) === undefined && isActionTool(call.name)) {
        const identifiers = identifiersOf(call);
        question = `What did you do with the \`${call.name}\` tool${identifiers !== "" ? ` (${identifiers})` : ""}: with which arguments, and why?`;
      }
      if (question === undefined) continue;
      acted = true;
      const step = [reasoning, `Action: ${callText(call)}`].filter((part) => part !== "").join("\n");
      const group = actions.get(question);
      if (group) group.steps.unshift(step);
      else actions.set(question, { id: `decision:action@${call.id ?? message.id ?? position}`, steps: [step] });
    }
    if (!acted && reasoning !== "") {
      const first = toolCalls[0]!;
      reasons.push({
        id: `decision:reasoning@${first.id ?? message.id ?? position}`,
        kind: "decision",
        question: `Why did you decide to run ${subjectOf(first.id) ?? describeCall(first)}?`,
        expected: reasoning,
      });
    }
  }
  const actionProbes = [...actions].map(([question, group]): Probe => ({ id: group.id, kind: "decision", question, expected: group.steps.join("\n\n") }));
  return [...actionProbes, ...reasons];
}

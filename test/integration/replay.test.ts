/**
 * The replay harness the integration suites and the demo stand on: a recorded session split into
 * turns, the scripted model's replies and the recorded tools' results.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ReplayChatModel, ReplaySession, replayTools } from "../../examples/replay/index.js";
import type { TraceSession } from "../../examples/traces.js";

/** system, task, a tool call and its result, an answer; a second user turn ending on a tool result. */
function recordedSession(): TraceSession {
  return {
    source: "test",
    id: "s",
    messages: [
      new SystemMessage({ id: "s#0", content: "You are an agent." }),
      new HumanMessage({ id: "s#1", content: "List the files." }),
      new AIMessage({ id: "s#2", content: "", tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }] }),
      new ToolMessage({ id: "s#3", content: "a.txt", tool_call_id: "c1", name: "bash" }),
      new AIMessage({ id: "s#4", content: "There is a.txt." }),
      new HumanMessage({ id: "s#5", content: "Show it." }),
      new AIMessage({ id: "s#6", content: "", tool_calls: [{ id: "c2", name: "bash", args: { command: "cat a.txt" }, type: "tool_call" }] }),
      new ToolMessage({ id: "s#7", content: "hello", tool_call_id: "c2", name: "bash" }),
    ],
  };
}

const ids = (messages: readonly BaseMessage[]) => messages.map((message) => message.id);

describe("ReplaySession", () => {
  it("splits the recording into the inputs of each graph invocation", () => {
    expect(new ReplaySession(recordedSession()).turns.map(ids)).toEqual([["s#0", "s#1"], ["s#5"]]);
  });

  it("expects an empty end-of-turn reply where the recording stops after a tool result", () => {
    const replay = new ReplaySession(recordedSession());
    expect(ids(replay.expectedHistory)).toEqual(["s#0", "s#1", "s#2", "s#3", "s#4", "s#5", "s#6", "s#7", "s#7/end"]);
    expect(replay.modelCalls).toBe(4);
  });

  it("ends a turn whose last tool result is followed by the next user message", () => {
    const session = recordedSession();
    const messages = [...session.messages.slice(0, 4), ...session.messages.slice(5)];
    expect(ids(new ReplaySession({ ...session, messages }).expectedHistory)).toEqual(["s#0", "s#1", "s#2", "s#3", "s#3/end", "s#5", "s#6", "s#7", "s#7/end"]);
  });

  it("answers with the recorded message after the input's last message", () => {
    const replay = new ReplaySession(recordedSession());
    expect([replay.replyAfter(replay.recorded[1]), replay.replyAfter(replay.recorded[3]), replay.replyAfter(replay.recorded[7])].map((reply) => [reply.id, reply.content])).toEqual([
      ["s#2", ""],
      ["s#4", "There is a.txt."],
      ["s#7/end", ""],
    ]);
  });

  it("refuses a history that left the recording", () => {
    const replay = new ReplaySession(recordedSession());
    expect(() => replay.replyAfter(new HumanMessage({ id: "elsewhere", content: "?" }))).toThrow(
      "replay s: the model was called with a history ending in elsewhere, which the recording does not have",
    );
  });
});

describe("ReplayChatModel", () => {
  it("replies with a copy of the recorded message, tool calls and ids included", async () => {
    const replay = new ReplaySession(recordedSession());
    const reply = await new ReplayChatModel(replay).invoke(replay.recorded.slice(0, 2));
    expect(reply).not.toBe(replay.recorded[2]);
    expect([reply.id, reply.tool_calls]).toEqual(["s#2", [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }]]);
  });
});

describe("replayTools", () => {
  it("answers a recorded call id with the recorded result message", async () => {
    const [bash] = replayTools(new ReplaySession(recordedSession()));
    const result = (await bash!.invoke({ id: "c2", name: "bash", args: { command: "cat a.txt" }, type: "tool_call" })) as ToolMessage;
    expect([bash!.name, result.id, result.tool_call_id, result.content]).toEqual(["bash", "s#7", "c2", "hello"]);
  });

  it("answers calls the recording does not have with the tool's recorded results in turn", async () => {
    const [bash] = replayTools(new ReplaySession(recordedSession()));
    const results: ToolMessage[] = [];
    for (const id of ["live-1", "live-2", "live-3"]) results.push((await bash!.invoke({ id, name: "bash", args: { command: "pwd" }, type: "tool_call" })) as ToolMessage);
    expect(results.map((result) => [result.tool_call_id, result.content])).toEqual([
      ["live-1", "a.txt"],
      ["live-2", "hello"],
      ["live-3", "a.txt"],
    ]);
  });
});

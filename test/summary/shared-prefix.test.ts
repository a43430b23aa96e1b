/**
 * `summaryRequest: "shared-prefix"`: the summary call sends the history's own message objects (up
 * to a last message with pending calls) and one instruction, so its start is the agent's previous
 * request and a provider's prompt cache serves it; above the context window it falls back to the
 * standalone prompt; every failure still changes nothing.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  createTokenCounter,
  fullSummary,
  hidingThenSummary,
  stateSnapshotSummary,
  type SummaryChatModel,
} from "../../src/index.js";
import {
  DEFAULT_SUMMARY_PROMPT,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  SUMMARY_MESSAGE_PREFIX,
  fillPrompt,
  formatHistory,
} from "../../src/extend/index.js";
import { assistant, ids, sameObjects, system, toolResult, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

const counter = createTokenCounter({ mode: "approximate" });

/** `{kept}` filled by splitting, independently of the package's `fillTemplate`. */
const instruction = (template: string, kept: number) => template.split("{kept}").join(String(kept));

const OUTPUT = Array.from({ length: 60 }, (_, n) => `src/module-${n}.ts: ${n * 7} lines, exports parse${n}()`).join("\n");

/** Nine messages; keepRecent 2 cuts at u2 (index 7): K = 2. */
const history = (): BaseMessage[] => [
  system("s0", "You are a coding agent working in /repo."),
  user("u1", "List the modules, then fix the parser."),
  assistant("a1", "Listing.", [{ id: "c1", args: { command: "ls -l src" } }]),
  toolResult("t1", "c1", OUTPUT),
  assistant("a2", "Reading the parser.", [{ id: "c2", args: { command: "cat src/parse.ts" } }]),
  toolResult("t2", "c2", OUTPUT),
  assistant("a3", "The parser drops the last token."),
  user("u2", "Fix it and run the tests."),
  assistant("a4", "Fixing the loop bound in src/parse.ts now."),
];

/** A summary model that records each request's messages and answers from a script. */
function recordingModel(answer: (messages: BaseMessage[]) => Promise<string> | string = () => "<summary>\nThe parser drops its last token.\n</summary>") {
  const calls: BaseMessage[][] = [];
  const model: SummaryChatModel = {
    async invoke(messages) {
      calls.push(messages);
      return new AIMessage(await answer(messages));
    },
  };
  return { model, calls };
}

describe("shared-prefix summary requests", () => {
  it("fullSummary sends the history's own message objects, then one HumanMessage with the instruction and K", async () => {
    const { model, calls } = recordingModel();
    const input = history();
    const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix" }).compact(input);
    expect(calls).toHaveLength(1);
    const request = calls[0]!;
    expect(request).toHaveLength(10);
    expect(sameObjects(request.slice(0, 9), input)).toBe(true);
    expect(request[9]).toBeInstanceOf(HumanMessage);
    expect(request[9]!.content).toBe(instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 2));
    expect(result.status).toBe("summarized");
    expect(ids(result.messages)).toEqual(["s0", undefined, "u2", "a4"]);
    expect(String(result.messages[1]!.content).startsWith(`${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\nThe parser drops its last token.\n</summary>`)).toBe(true);
  });

  it("cuts no tool output and ignores summaryInputTokens: the request's tool messages are the history's", async () => {
    const { model, calls } = recordingModel();
    const input = history();
    await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix", toolOutputBudgetTokens: 0, summaryInputTokens: 1 }).compact(input);
    expect(sameObjects(calls[0]!.slice(0, 9), input)).toBe(true);
  });

  it("K counts the kept non-system messages: keepRecent 4 moves the cut back to a2, K = 5 (s1 aside)", async () => {
    const { model, calls } = recordingModel();
    const input = [...history().slice(0, 7), system("s1", "Mid-conversation note."), ...history().slice(7)];
    const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix", keepRecent: 4 }).compact(input);
    // The newest 4 non-system messages start at t2; the cut moves back to a2 to keep its result.
    expect(ids(result.messages)).toEqual(["s0", undefined, "a2", "t2", "a3", "s1", "u2", "a4"]);
    expect(calls[0]![10]!.content).toBe(instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 5));
  });

  it("stateSnapshotSummary sends the history's messages and its snapshot instruction, and reads the <state_snapshot>", async () => {
    const { model, calls } = recordingModel(() => "<state_snapshot>\n<overall_goal>Fix the parser.</overall_goal>\n</state_snapshot>");
    const input = history();
    const result = await stateSnapshotSummary({ model, tokenCounter: counter, contextWindow: 100_000, summaryRequest: "shared-prefix" }).compact(input, { force: true });
    // No user turn lies near the 30% mark: the cut is the group boundary before a2, which keeps 5 messages.
    expect(ids(result.messages)).toEqual(["s0", undefined, "a2", "t2", "a3", "u2", "a4"]);
    expect(sameObjects(calls[0]!.slice(0, 9), input)).toBe(true);
    expect(calls[0]!.slice(9).map((message) => [message.type, message.content])).toEqual([["human", instruction(SHARED_PREFIX_SNAPSHOT_INSTRUCTION, 5)]]);
    expect(String(result.messages[1]!.content).startsWith(`${SUMMARY_MESSAGE_PREFIX}\n\n<state_snapshot>\n<overall_goal>Fix the parser.</overall_goal>\n</state_snapshot>`)).toBe(true);
  });

  it("stateSnapshotSummary's verify pass stays a standalone prompt", async () => {
    const { model, calls } = recordingModel(() => "<state_snapshot>x</state_snapshot>");
    await stateSnapshotSummary({ model, tokenCounter: counter, contextWindow: 100_000, summaryRequest: "shared-prefix", verify: true }).compact(history(), { force: true });
    expect(calls.map((request) => request.length)).toEqual([10, 1]);
    expect(String(calls[1]![0]!.content).startsWith("You wrote the state snapshot below")).toBe(true);
  });

  it("stops before a last assistant message whose tool calls are pending: K counts the kept messages before it", async () => {
    const { model, calls } = recordingModel();
    const input = [...history().slice(0, 8), assistant("pending", "Running the tests.", [{ id: "p1", args: { command: "npm test" } }])];
    const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix" }).compact(input);
    expect(ids(result.messages)).toEqual(["s0", undefined, "u2", "pending"]);
    expect(calls[0]).toHaveLength(9);
    expect(sameObjects(calls[0]!.slice(0, 8), input.slice(0, 8))).toBe(true);
    expect(calls[0]![8]!.content).toBe(instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 1));
  });

  it("a policy's summary step takes the option: it sends the history as the hiding step left it", async () => {
    const { model, calls } = recordingModel();
    const input = history();
    const policy = hidingThenSummary({
      tokenCounter: counter,
      trigger: { tokens: 10 },
      target: { tokens: 20 },
      hiding: { keepRecentGroups: 1, clearAtLeast: 0 },
      summary: { model, summaryRequest: "shared-prefix" },
    });
    const result = await policy.compact(input);
    expect(result.status).toBe("summarized");
    // t1's result was hidden (a copy); every other message is the input's object, then the instruction.
    expect(calls[0]!.map((message, position) => message === input[position])).toEqual([true, true, true, false, true, true, true, true, true, false]);
    expect(calls[0]![9]!.content).toBe(instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 2));
  });

  it("rejects another value", () => {
    expect(() => fullSummary({ summaryRequest: "cached" as never })).toThrow(InvalidOptionError);
    expect(() => fullSummary({ summaryRequest: "cached" as never })).toThrow(/^fullSummary: invalid option `summaryRequest`: /);
  });
});

describe("fallback to the standalone prompt", () => {
  /** Tokens of the shared-prefix request for `history()` with keepRecent 2, as the strategy counts them. */
  const requestTokens = () => counter.countMessages([...history(), new HumanMessage(instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 2))]);
  const standalonePrompt = (input: readonly BaseMessage[]) => fillPrompt(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(input.slice(1, 7), { dropUnansweredCalls: true }) });

  it("sends the shared-prefix request when it and summaryMaxTokens fit the contextWindow exactly", async () => {
    const { model, calls } = recordingModel();
    const window = (await requestTokens()) + 1000;
    await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix", contextWindow: window }).compact(history());
    expect(calls[0]).toHaveLength(10);
  });

  it("sends the standalone prompt, the same as summaryRequest \"standalone\", one token above it", async () => {
    const { model, calls } = recordingModel();
    const window = (await requestTokens()) + 1000 - 1;
    const input = history();
    const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix", contextWindow: window }).compact(input);
    expect(result.status).toBe("summarized");
    expect(calls[0]!.map((message) => [message.type, message.content])).toEqual([["human", standalonePrompt(input)]]);
    const standalone = recordingModel();
    await fullSummary({ model: standalone.model, tokenCounter: counter }).compact(history());
    expect(standalone.calls[0]![0]!.content).toBe(calls[0]![0]!.content);
  });

  it("reads the window from the model's profile when contextWindow is not given", async () => {
    const { model, calls } = recordingModel();
    const profiled = Object.assign(model, { profile: { maxInputTokens: (await requestTokens()) + 999 } });
    await fullSummary({ model: profiled, tokenCounter: counter, summaryRequest: "shared-prefix" }).compact(history());
    expect(calls[0]).toHaveLength(1);
  });

  it("stateSnapshotSummary falls back to its standalone prompt too", async () => {
    const { model, calls } = recordingModel(() => "<state_snapshot>x</state_snapshot>");
    await stateSnapshotSummary({ model, tokenCounter: counter, contextWindow: 200, trigger: { tokens: 10 }, summaryRequest: "shared-prefix" }).compact(history());
    expect(calls[0]).toHaveLength(1);
    expect(String(calls[0]![0]!.content).startsWith("You are the component that compresses")).toBe(true);
  });
});

describe("a failed shared-prefix summary changes nothing", () => {
  const failures: [string, () => Promise<string> | string, string][] = [
    ["an error", () => Promise.reject(new Error("boom")), "the summary call failed: boom; the history is unchanged"],
    ["an empty answer", () => "", "the summary model returned an empty answer; the history is unchanged"],
    ["an empty summary block", () => "<summary></summary>", "the summary model returned an empty summary; the history is unchanged"],
  ];
  for (const [name, answer, reason] of failures) {
    it(`${name}: status failed, the input's objects, "${reason}"`, async () => {
      const { model } = recordingModel(answer);
      const input = history();
      const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix" }).compact(input);
      expect({ status: result.status, reason: result.reason, same: sameObjects(result.messages, input), removed: result.removed }).toEqual({ status: "failed", reason, same: true, removed: [] });
    });
  }

  it("an inflated summary: status failed, the input's objects", async () => {
    const { model } = recordingModel(() => `<summary>\n${"The agent listed every module and read each one. ".repeat(60)}\n</summary>`);
    const input = history().filter((message) => message.id !== "t1" && message.id !== "a1");
    const result = await fullSummary({ model, tokenCounter: counter, summaryRequest: "shared-prefix" }).compact(input);
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(/^inflated: the summarized history would have \d+ tokens, not fewer than the \d+ before; the history is unchanged$/);
    expect(sameObjects(result.messages, input)).toBe(true);
  });
});

describe("through the real ChatOpenAI: the summary request starts with the agent's request, byte for byte", () => {
  let server: OpenAIServer;
  beforeEach(async () => {
    server = await startOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const TOOL = {
    type: "function" as const,
    function: { name: "bash", description: "Run a shell command in /repo.", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
  };
  const SUMMARY = "<summary>\n1. Task Overview: fix the parser.\n</summary>";
  const chatModel = () => new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });
  const wire = (messages: readonly unknown[]) => messages.map((message) => JSON.stringify(message));

  it("tools bound: same model, same tools, the agent's messages, the new ones, then one user message; capped at summaryMaxTokens", async () => {
    const agent = chatModel().bindTools([TOOL]);
    const before = history().slice(0, 8);
    server.enqueue({ content: "Fixing the loop bound in src/parse.ts now." }, { content: SUMMARY });
    const answer = await agent.invoke(before);
    const input = [...before, answer, user("u3", "Thanks. Then update the changelog.")];
    const result = await fullSummary({ model: agent, tokenCounter: counter, summaryRequest: "shared-prefix", timeoutMs: 10_000 }).compact(input);
    expect(result.status).toBe("summarized");
    const [agentBody, summaryBody] = server.requests.map((request) => request.body!);
    expect(summaryBody!.model).toBe(agentBody!.model);
    expect(JSON.stringify(summaryBody!.tools)).toBe(JSON.stringify(agentBody!.tools));
    expect(agentBody!.tools).toHaveLength(1);
    expect([summaryBody!.max_tokens, agentBody!.max_tokens]).toEqual([1000, undefined]);
    expect(wire(summaryBody!.messages.slice(0, agentBody!.messages.length))).toEqual(wire(agentBody!.messages));
    expect(summaryBody!.messages.slice(agentBody!.messages.length)).toEqual([
      { role: "assistant", content: "Fixing the loop bound in src/parse.ts now." },
      { role: "user", content: "Thanks. Then update the changelog." },
      { role: "user", content: instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 2) },
    ]);
  });

  it("the agent's answer has pending tool calls: the summary request is the agent's request plus the instruction", async () => {
    const agent = chatModel().bindTools([TOOL]);
    const before = history().slice(0, 8);
    server.enqueue({ content: "", toolCalls: [{ id: "call_p1", name: "bash", args: { command: "npm test" } }] }, { content: SUMMARY });
    const pending = await agent.invoke(before);
    const result = await fullSummary({ model: agent, tokenCounter: counter, summaryRequest: "shared-prefix", timeoutMs: 10_000 }).compact([...before, pending]);
    expect(result.messages.at(-1)).toBe(pending);
    const [agentBody, summaryBody] = server.requests.map((request) => request.body!);
    expect(wire(summaryBody!.messages)).toEqual([...wire(agentBody!.messages), JSON.stringify({ role: "user", content: instruction(SHARED_PREFIX_SUMMARY_INSTRUCTION, 1) })]);
    expect(JSON.stringify(summaryBody!.tools)).toBe(JSON.stringify(agentBody!.tools));
  });

  it("an unbound model: same model name and messages; the summary call adds max_tokens", async () => {
    const agent = chatModel();
    const before = history().slice(0, 8);
    server.enqueue({ content: "Fixing the loop bound in src/parse.ts now." }, { content: SUMMARY });
    const answer = await agent.invoke(before);
    await fullSummary({ model: agent, tokenCounter: counter, summaryRequest: "shared-prefix", timeoutMs: 10_000 }).compact([...before, answer]);
    const [agentBody, summaryBody] = server.requests.map((request) => request.body!);
    expect([summaryBody!.model, summaryBody!.max_tokens, agentBody!.max_tokens]).toEqual(["gpt-4o-mini", 1000, undefined]);
    expect(wire(summaryBody!.messages.slice(0, agentBody!.messages.length))).toEqual(wire(agentBody!.messages));
    expect(summaryBody!.messages).toHaveLength(agentBody!.messages.length + 2);
  });

  it("a failed call (HTTP 500) changes nothing", async () => {
    const agent = chatModel().bindTools([TOOL]);
    server.enqueue({ status: 500, message: "The server had an error" });
    const input = history();
    const result = await fullSummary({ model: agent, tokenCounter: counter, summaryRequest: "shared-prefix", timeoutMs: 10_000 }).compact(input);
    expect({ status: result.status, reason: result.reason, same: sameObjects(result.messages, input) }).toEqual({
      status: "failed",
      reason: "the summary call failed: 500 The server had an error; the history is unchanged",
      same: true,
    });
  });
});

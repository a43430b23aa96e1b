/**
 * The LLM summary strategies and autoCompaction through the real `ChatOpenAI` client against the
 * scripted OpenAI-compatible server on 127.0.0.1: what the server receives (model, max_tokens,
 * prompt), what a success produces, and that every failure (HTTP 500, a reply slower than the
 * timeout, an empty answer, an inflated summary) leaves the history exactly as it was.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatOpenAI, type ChatOpenAIFields } from "@langchain/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  autoCompaction,
  fullSummary,
  hidingThenSummary,
  selectiveThenSummary,
  stateSnapshotSummary,
  type CompactionEvent,
  type CompactionResult,
  type StateSnapshotSummaryOptions,
} from "../../src/index.js";
import {
  DEFAULT_SUMMARY_PROMPT,
  NO_PREVIOUS_SNAPSHOT,
  PREVIOUS_SNAPSHOT_TEMPLATE,
  STATE_SNAPSHOT_PROMPT,
  SUMMARY_MESSAGE_PREFIX,
  VERIFY_SNAPSHOT_PROMPT,
} from "../../src/extend/index.js";
import { assistant, ids, system, toolResult, user } from "../support/builders.js";
import { startOpenAIServer, type OpenAIServer, type ScriptedResponse } from "../support/openai-server.js";

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

/** The real client, pointed at the local server; no retries, so one scripted reply answers one call. */
const chatModel = (fields: ChatOpenAIFields = {}) =>
  new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL }, ...fields });

/** Constructor fields for the `ChatOpenAI` a strategy builds from the model name `"gpt-4o-mini"`. */
const modelOptions = () => ({ apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } });

/** `{name}` placeholders filled by splitting, independently of the package's `fillTemplate`. */
const fill = (template: string, values: Record<string, string>) =>
  Object.entries(values).reduce((text, [name, value]) => text.split(`{${name}}`).join(value), template);

const LISTING = Array.from({ length: 12 }, (_, n) => `  src/module-${n}.ts | ${n * 7} lines`).join("\n");

/**
 * Eight messages, 347 tokens: the tail u2..a3 is about 21% of the conversation, so both the 30%
 * state snapshot and a keepRecent-2 full summary cut at u2 and replace u1..t2.
 */
const history = (): BaseMessage[] => [
  system("s0", "You are a coding agent working in the repository at /repo."),
  user("u1", "The test suite fails since yesterday. Find out why and fix it; do not change the public API."),
  assistant("a1", "Running the tests first.", [{ id: "c1", args: { command: "npm test" } }]),
  toolResult("t1", "c1", `FAIL test/add.test.ts\n  expected add(2, 3) to be 5, received -1\n${LISTING}`),
  assistant("a2", "add() subtracts; fixing the operator.", [{ id: "c2", args: { command: "sed -i 's/a - b/a + b/' src/add.ts" } }]),
  toolResult("t2", "c2", "(no output)"),
  user("u2", "Good. Now run the whole suite again and tell me the coverage of src/add.ts, and whether any other module has the same bug."),
  assistant(
    "a3",
    "I will run the suite with coverage next and then grep the other modules for subtractions that should be additions; the fix in src/add.ts changed one operator only.",
  ),
];

/** u1..t2 of `history()` as formatHistory writes them for the prompt. */
const FORMATTED_HISTORY = `[user]
The test suite fails since yesterday. Find out why and fix it; do not change the public API.

[assistant]
Running the tests first.
-> bash({"command":"npm test"}) #c1

[tool bash #c1]
FAIL test/add.test.ts
  expected add(2, 3) to be 5, received -1
${LISTING}

[assistant]
add() subtracts; fixing the operator.
-> bash({"command":"sed -i 's/a - b/a + b/' src/add.ts"}) #c2

[tool bash #c2]
(no output)`;

/** The artifact index of u1..t2, as the summary message carries it. */
const ARTIFACTS = {
  filesCreated: [],
  filesModified: ["src/add.ts"],
  filesRead: [],
  commands: ["npm test", "sed -i 's/a - b/a + b/' src/add.ts"],
  tools: { bash: 2 },
  identifiers: [],
  urls: [],
  errors: ["FAIL test/add.test.ts"],
};

const ARTIFACT_BLOCK = `<artifact_index>
files modified: src/add.ts
tools used: bash (2)
commands run:
- npm test
- sed -i 's/a - b/a + b/' src/add.ts
errors seen:
- FAIL test/add.test.ts
</artifact_index>`;

const SNAPSHOT = `<state_snapshot>
<overall_goal>Fix the failing add() test without changing the public API.</overall_goal>
<task_state>[DONE] operator fixed in src/add.ts [TODO] coverage run</task_state>
</state_snapshot>`;

const SUMMARY = `<summary>
1. Task Overview: fix the failing add() test, public API unchanged.
2. Current State: the operator in src/add.ts is fixed.
</summary>`;

/** An answer far longer than the 258 tokens it replaces, yet under the 1000-token cap. */
const INFLATED = (tag: string) => `<${tag}>\n${"The agent ran the tests and looked at every module in turn. ".repeat(40).trim()}\n</${tag}>`;

/** The summary message a strategy inserts for u1..t2. */
const summaryMessage = (strategy: string, text: string, artifactBlock = ARTIFACT_BLOCK, artifacts: object = ARTIFACTS, summarizedMessages = 5) =>
  new HumanMessage({
    content: `${SUMMARY_MESSAGE_PREFIX}\n\n${text}\n\n${artifactBlock}`,
    additional_kwargs: { lc_source: "summarization" },
    response_metadata: { compaction: { strategy, summary: true, artifacts, summarizedMessages, summaryModel: "gpt-4o-mini" } },
  });

/** The request bodies the server received. */
const bodies = () => server.requests.map((request) => request.body);

/** The one-message prompt of a received request. */
const promptOf = (position: number) => server.requests[position]?.body?.messages.map((message) => message.content);

/** A failure changed nothing: the same message objects in the same order, and the same token count. */
function unchanged(result: CompactionResult, input: readonly BaseMessage[]) {
  return {
    sameObjects: result.messages.length === input.length && result.messages.every((message, position) => message === input[position]),
    tokens: result.tokensAfter === result.tokensBefore,
    messagesAfter: result.messagesAfter,
    removed: result.removed,
    replaced: result.replaced,
  };
}

const UNCHANGED = (count: number) => ({ sameObjects: true, tokens: true, messagesAfter: count, removed: [], replaced: [] });

/**
 * Time a summary call may take in these tests: long enough for a cold first request on a busy
 * machine; only the time-out tests set a short one.
 */
const TIMEOUT_MS = 10_000;

/** The replies that make a summary call fail, with the reason each one gives. */
const failures: { name: string; reply: ScriptedResponse; reason: RegExp; timeoutMs?: number }[] = [
  { name: "an HTTP 500", reply: { status: 500, message: "The server had an error" }, reason: /^the summary call failed: 500 The server had an error; the history is unchanged$/ },
  {
    name: "a reply slower than the timeout",
    reply: { delayMs: 5_000, content: SNAPSHOT },
    reason: /^the summary call timed out after 200 ms; the history is unchanged$/,
    timeoutMs: 200,
  },
  { name: "an empty answer", reply: { content: "" }, reason: /^the summary model returned an empty answer; the history is unchanged$/ },
];

describe("stateSnapshotSummary through ChatOpenAI", () => {
  const snapshot = (options: StateSnapshotSummaryOptions = {}) =>
    stateSnapshotSummary({ model: "gpt-4o-mini", modelOptions: modelOptions(), contextWindow: 128_000, timeoutMs: TIMEOUT_MS, ...options });

  it("replaces the older part with [system, snapshot with the artifact index, ...preserved tail]", async () => {
    server.enqueue({ content: SNAPSHOT });
    const input = history();
    const result = await snapshot().compact(input, { force: true });
    expect({ status: result.status, messages: result.messages, removed: result.removed }).toEqual({
      status: "summarized",
      messages: [input[0], summaryMessage("stateSnapshotSummary", SNAPSHOT), input[6], input[7]],
      removed: [1, 2, 3, 4, 5].map((index) => ({ index, message: input[index] })),
    });
  });

  it("keeps the system message and the preserved tail as the input's objects", async () => {
    server.enqueue({ content: SNAPSHOT });
    const input = history();
    const { messages } = await snapshot().compact(input, { force: true });
    expect([messages[0] === input[0], messages[2] === input[6], messages[3] === input[7]]).toEqual([true, true, true]);
  });

  it("sends one request with the model name, max_tokens = summaryMaxTokens and the snapshot prompt holding the formatted history", async () => {
    server.enqueue({ content: SNAPSHOT });
    await snapshot().compact(history(), { force: true });
    expect(bodies()).toEqual([
      {
        model: "gpt-4o-mini",
        stream: false,
        max_tokens: 1000,
        messages: [{ role: "user", content: fill(STATE_SNAPSHOT_PROMPT, { previous_snapshot: NO_PREVIOUS_SNAPSHOT, history: FORMATTED_HISTORY }) }],
      },
    ]);
  });

  it("sends max_tokens = a custom summaryMaxTokens to the ChatOpenAI it builds from the name", async () => {
    server.enqueue({ content: SNAPSHOT });
    await snapshot({ summaryMaxTokens: 640 }).compact(history(), { force: true });
    expect(bodies().map((body) => body?.max_tokens)).toEqual([640]);
  });

  it("builds the ChatOpenAI of a model name from its own modelOptions, functions included (configuration.fetch)", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: SNAPSHOT });
    const fetchedBy: string[] = [];
    const recordingFetch = (name: string) => (input: string | URL | Request, init?: RequestInit) => {
      fetchedBy.push(name);
      return fetch(input, init);
    };
    const withFetch = (name: string) => ({ ...modelOptions(), configuration: { baseURL: server.baseURL, fetch: recordingFetch(name) } });
    await snapshot({ modelOptions: withFetch("first") }).compact(history(), { force: true });
    await snapshot({ modelOptions: withFetch("second") }).compact(history(), { force: true });
    expect(fetchedBy).toEqual(["first", "second"]);
  });

  it("sends two requests with verify: the snapshot, then the verification prompt; the corrected snapshot is kept", async () => {
    const corrected = SNAPSHOT.replace("[TODO] coverage run", "[TODO] coverage run of src/add.ts, grep the other modules");
    server.enqueue({ content: SNAPSHOT }, { content: `Here it is:\n${corrected}` });
    const input = history();
    const result = await snapshot({ verify: true }).compact(input, { force: true });
    expect({ prompts: [promptOf(0), promptOf(1)], summary: result.messages[1] }).toEqual({
      prompts: [
        [fill(STATE_SNAPSHOT_PROMPT, { previous_snapshot: NO_PREVIOUS_SNAPSHOT, history: FORMATTED_HISTORY })],
        [fill(VERIFY_SNAPSHOT_PROMPT, { snapshot: SNAPSHOT, history: FORMATTED_HISTORY })],
      ],
      summary: summaryMessage("stateSnapshotSummary", corrected),
    });
  });

  it("gives the previous snapshot to the second compaction and leaves it out of the formatted history", async () => {
    server.enqueue({ content: SNAPSHOT }, { content: SNAPSHOT.replace("Fix the failing", "Fixed the failing") });
    const strategy = snapshot();
    const first = await strategy.compact(history(), { force: true });
    const later = [
      ...first.messages,
      user("u3", "Also check src/sub.ts for the same bug."),
      assistant("a4", "Searching.", [{ id: "c3", args: { command: "grep -n 'a + b' src/sub.ts" } }]),
      toolResult("t3", "c3", `src/sub.ts:3: return a + b;\n${LISTING}`),
      user("u4", "Fix it the same way, then run the whole suite with coverage and report the numbers per module please."),
      assistant("a5", "Fixing src/sub.ts now, then I will run the suite with coverage and report the numbers for every module."),
    ];
    const second = await strategy.compact(later, { force: true });
    expect({ removed: ids(second.removed.map(({ message }) => message)), prompt: promptOf(1) }).toEqual({
      removed: [undefined, "u2", "a3", "u3", "a4", "t3"],
      prompt: [
        fill(STATE_SNAPSHOT_PROMPT, {
          previous_snapshot: fill(PREVIOUS_SNAPSHOT_TEMPLATE, { snapshot: SNAPSHOT }),
          history: `[user]
Good. Now run the whole suite again and tell me the coverage of src/add.ts, and whether any other module has the same bug.

[assistant]
I will run the suite with coverage next and then grep the other modules for subtractions that should be additions; the fix in src/add.ts changed one operator only.

[user]
Also check src/sub.ts for the same bug.

[assistant]
Searching.
-> bash({"command":"grep -n 'a + b' src/sub.ts"}) #c3

[tool bash #c3]
src/sub.ts:3: return a + b;
${LISTING}`,
        }),
      ],
    });
  });

  for (const { name, reply, reason, timeoutMs = TIMEOUT_MS } of failures) {
    it(`fails on ${name} and leaves the history identical`, async () => {
      server.enqueue(reply);
      const input = history();
      const result = await snapshot({ timeoutMs }).compact(input, { force: true });
      expect({ status: result.status, reason: result.reason, ...unchanged(result, input) }).toEqual({
        status: "failed",
        reason: expect.stringMatching(reason),
        ...UNCHANGED(8),
      });
    });
  }

  it("fails on an answer whose snapshot block is empty", async () => {
    server.enqueue({ content: "<state_snapshot>\n</state_snapshot>" });
    const input = history();
    const result = await snapshot().compact(input, { force: true });
    expect({ status: result.status, reason: result.reason, ...unchanged(result, input) }).toEqual({
      status: "failed",
      reason: "the summary model returned an empty state snapshot; the history is unchanged",
      ...UNCHANGED(8),
    });
  });

  it("fails on a snapshot longer than the history it replaces (inflated) and leaves the history identical", async () => {
    server.enqueue({ content: INFLATED("state_snapshot") });
    const input = history();
    const result = await snapshot().compact(input, { force: true });
    const match = /^inflated: the summarized history would have (\d+) tokens, not fewer than the (\d+) before; the history is unchanged$/.exec(result.reason ?? "");
    expect({
      status: result.status,
      inflated: match !== null && Number(match[1]) >= Number(match[2]) && Number(match[2]) === result.tokensBefore,
      ...unchanged(result, input),
    }).toEqual({ status: "failed", inflated: true, ...UNCHANGED(8) });
  });

  it("aborts the slow request at the timeout instead of leaving it running", async () => {
    server.enqueue({ delayMs: 5_000, content: SNAPSHOT });
    await snapshot({ timeoutMs: 200 }).compact(history(), { force: true });
    await server.idle();
    expect(server.requests.map((request) => request.outcome)).toEqual(["aborted"]);
  });

  it("passes `$&` in the history to the server verbatim", async () => {
    server.enqueue({ content: SNAPSHOT });
    const input = history();
    input[1] = user("u1", "Replace the price with $& and keep $1, $' and $` as they are.");
    await snapshot({ prompt: "History:\n{history}\nEarlier: {previous_snapshot}" }).compact(input, { force: true });
    expect(promptOf(0)).toEqual([
      `History:\n${FORMATTED_HISTORY.replace(
        "The test suite fails since yesterday. Find out why and fix it; do not change the public API.",
        () => "Replace the price with $& and keep $1, $' and $` as they are.",
      )}\nEarlier: ${NO_PREVIOUS_SNAPSHOT}`,
    ]);
  });

  it("keeps `$&` in the model's answer verbatim in the summary message", async () => {
    const answer = "<state_snapshot>\n<key_knowledge>the price placeholder is $& and $1 stays $1</key_knowledge>\n</state_snapshot>";
    server.enqueue({ content: answer });
    const input = history();
    const result = await snapshot().compact(input, { force: true });
    expect(result.messages).toEqual([input[0], summaryMessage("stateSnapshotSummary", answer), input[6], input[7]]);
  });

  it("passes `$&` of the previous snapshot to the second compaction's prompt verbatim", async () => {
    const answer = "<state_snapshot>\n<key_knowledge>the price placeholder is $& and $1 stays $1</key_knowledge>\n</state_snapshot>";
    server.enqueue({ content: answer }, { content: SNAPSHOT });
    const strategy = snapshot({ prompt: "Earlier: {previous_snapshot}\nHistory:\n{history}" });
    const first = await strategy.compact(history(), { force: true });
    const later = [
      ...first.messages,
      user("u3", "Also check src/sub.ts for the same bug, and every other module of src while you are at it."),
      assistant("a4", "src/sub.ts has the same bug; I will fix it and then look at the other modules of src one by one."),
    ];
    await strategy.compact(later, { force: true });
    expect(promptOf(1)?.[0]).toContain(`<previous_snapshot>\n${answer}\n</previous_snapshot>`);
  });

  it("reports one event for a successful run", async () => {
    server.enqueue({ content: SNAPSHOT });
    const events: CompactionEvent[] = [];
    const result = await snapshot({ onEvent: (event) => events.push(event) }).compact(history(), { force: true });
    expect(events).toEqual([
      {
        strategy: "stateSnapshotSummary",
        trigger: "forced",
        status: "summarized",
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensAfter,
        messagesBefore: 8,
        messagesAfter: 4,
        durationMs: expect.any(Number),
        summaryModel: "gpt-4o-mini",
        error: null,
        summaryError: null,
      },
    ]);
  });

  it("reports one event with the error for a failed run", async () => {
    server.enqueue({ status: 500, message: "The server had an error" });
    const events: CompactionEvent[] = [];
    const result = await snapshot({ onEvent: (event) => events.push(event) }).compact(history(), { force: true });
    expect(events).toEqual([
      {
        strategy: "stateSnapshotSummary",
        trigger: "forced",
        status: "failed",
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensBefore,
        messagesBefore: 8,
        messagesAfter: 8,
        durationMs: expect.any(Number),
        summaryModel: "gpt-4o-mini",
        error: "the summary call failed: 500 The server had an error; the history is unchanged",
        summaryError: "the summary call failed: 500 The server had an error",
      },
    ]);
  });
});

describe("fullSummary through ChatOpenAI", () => {
  const summary = (
    fields: ChatOpenAIFields = {},
    options: { summaryMaxTokens?: number; timeoutMs?: number; onEvent?: (event: CompactionEvent) => void; prompt?: string } = {},
  ) => fullSummary({ model: chatModel(fields), keepRecent: 2, timeoutMs: TIMEOUT_MS, ...options });

  it("replaces all but the newest two messages with [system, summary with the artifact index, ...tail]", async () => {
    server.enqueue({ content: SUMMARY });
    const input = history();
    const result = await summary().compact(input, { force: true });
    expect({ status: result.status, messages: result.messages, removed: result.removed }).toEqual({
      status: "summarized",
      messages: [input[0], summaryMessage("fullSummary", SUMMARY), input[6], input[7]],
      removed: [1, 2, 3, 4, 5].map((index) => ({ index, message: input[index] })),
    });
  });

  it("sends one request with max_tokens = summaryMaxTokens to a ChatOpenAI without a cap, and the summary prompt holding the formatted history", async () => {
    server.enqueue({ content: SUMMARY });
    await summary({}, { summaryMaxTokens: 300 }).compact(history(), { force: true });
    expect(bodies()).toEqual([
      { model: "gpt-4o-mini", stream: false, max_tokens: 300, messages: [{ role: "user", content: fill(DEFAULT_SUMMARY_PROMPT, { history: FORMATTED_HISTORY }) }] },
    ]);
  });

  it("keeps the cap of a ChatOpenAI already capped below summaryMaxTokens", async () => {
    server.enqueue({ content: SUMMARY });
    await summary({ maxTokens: 120 }, { summaryMaxTokens: 300 }).compact(history(), { force: true });
    expect(bodies().map((body) => body?.max_tokens)).toEqual([120]);
  });

  it("lowers the cap of a ChatOpenAI capped above summaryMaxTokens to summaryMaxTokens", async () => {
    server.enqueue({ content: SUMMARY });
    await summary({ maxTokens: 4_000 }, { summaryMaxTokens: 300 }).compact(history(), { force: true });
    expect(bodies().map((body) => body?.max_tokens)).toEqual([300]);
  });

  it("caps a ChatOpenAI built with maxCompletionTokens too (it takes precedence over maxTokens)", async () => {
    server.enqueue({ content: SUMMARY });
    await summary({ maxCompletionTokens: 5_000 }, { summaryMaxTokens: 300 }).compact(history(), { force: true });
    expect(bodies().map((body) => body?.max_tokens)).toEqual([300]);
  });

  it("wraps an answer without <summary> tags in them", async () => {
    server.enqueue({ content: "The operator in src/add.ts is fixed; coverage is next." });
    const input = history();
    const result = await summary().compact(input, { force: true });
    expect(result.messages[1]).toEqual(summaryMessage("fullSummary", "<summary>\nThe operator in src/add.ts is fixed; coverage is next.\n</summary>"));
  });

  it("carries the earlier summary, whole and marked, in the second compaction's history text", async () => {
    server.enqueue({ content: SUMMARY }, { content: SUMMARY.replace("is fixed", "and src/sub.ts are fixed") });
    const strategy = summary();
    const first = await strategy.compact(history(), { force: true });
    const later = [...first.messages, user("u3", "Also check src/sub.ts."), assistant("a4", "src/sub.ts has the same bug; fixing it too.")];
    await strategy.compact(later, { force: true });
    expect(promptOf(1)).toEqual([
      fill(DEFAULT_SUMMARY_PROMPT, {
        history: `[earlier summary]
${SUMMARY_MESSAGE_PREFIX}

${SUMMARY}

${ARTIFACT_BLOCK}

[user]
Good. Now run the whole suite again and tell me the coverage of src/add.ts, and whether any other module has the same bug.

[assistant]
I will run the suite with coverage next and then grep the other modules for subtractions that should be additions; the fix in src/add.ts changed one operator only.`,
      }),
    ]);
  });

  for (const { name, reply, reason, timeoutMs = TIMEOUT_MS } of failures) {
    it(`fails on ${name} and leaves the history identical`, async () => {
      server.enqueue(reply);
      const input = history();
      const result = await summary({}, { timeoutMs }).compact(input, { force: true });
      expect({ status: result.status, reason: result.reason, ...unchanged(result, input) }).toEqual({
        status: "failed",
        reason: expect.stringMatching(reason),
        ...UNCHANGED(8),
      });
    });
  }

  it("fails on a summary longer than the history it replaces (inflated) and leaves the history identical", async () => {
    server.enqueue({ content: INFLATED("summary") });
    const input = history();
    const result = await summary().compact(input, { force: true });
    const match = /^inflated: the summarized history would have (\d+) tokens, not fewer than the (\d+) before; the history is unchanged$/.exec(result.reason ?? "");
    expect({
      status: result.status,
      inflated: match !== null && Number(match[1]) >= Number(match[2]) && Number(match[2]) === result.tokensBefore,
      ...unchanged(result, input),
    }).toEqual({ status: "failed", inflated: true, ...UNCHANGED(8) });
  });

  it("passes `$&` in the history to the server verbatim", async () => {
    server.enqueue({ content: SUMMARY });
    const input = history();
    input[1] = user("u1", "Replace the price with $& and keep $1, $' and $` as they are.");
    await summary({}, { prompt: "Summarize:\n{history}" }).compact(input, { force: true });
    expect(promptOf(0)).toEqual([
      `Summarize:\n${FORMATTED_HISTORY.replace(
        "The test suite fails since yesterday. Find out why and fix it; do not change the public API.",
        () => "Replace the price with $& and keep $1, $' and $` as they are.",
      )}`,
    ]);
  });

  it("keeps `$&` in the model's answer verbatim in the summary message", async () => {
    const answer = "<summary>\nThe price placeholder is $& and $1 stays $1.\n</summary>";
    server.enqueue({ content: answer });
    const input = history();
    const result = await summary().compact(input, { force: true });
    expect(result.messages).toEqual([input[0], summaryMessage("fullSummary", answer), input[6], input[7]]);
  });

  it("reports one event for a timed-out run, with the timeout as the error", async () => {
    server.enqueue({ delayMs: 5_000, content: SUMMARY });
    const events: CompactionEvent[] = [];
    const result = await summary({}, { timeoutMs: 200, onEvent: (event) => events.push(event) }).compact(history(), { force: true });
    expect(events).toEqual([
      {
        strategy: "fullSummary",
        trigger: "forced",
        status: "failed",
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensBefore,
        messagesBefore: 8,
        messagesAfter: 8,
        durationMs: expect.any(Number),
        summaryModel: "gpt-4o-mini",
        error: "the summary call timed out after 200 ms; the history is unchanged",
        summaryError: "the summary call timed out after 200 ms",
      },
    ]);
  });
});

describe("autoCompaction through ChatOpenAI", () => {
  /** A 400-token window: the 347-token history is over the 0.8 threshold (320), under the hard limit (400). */
  const auto = (options: { hardLimit?: number; timeoutMs?: number; onEvent?: (event: CompactionEvent) => void; prepare?: boolean } = {}) =>
    autoCompaction({ summaryModel: chatModel(), contextWindow: 400, threshold: 0.8, target: 0.8, keepRecent: 2, summaryMaxTokens: 200, timeoutMs: TIMEOUT_MS, hiding: false, ...options });

  it("summarizes once the threshold is reached: [system, summary, ...tail]", async () => {
    server.enqueue({ content: SUMMARY });
    const input = history();
    const result = await auto().compact(input);
    expect({ status: result.status, trigger: result.trigger, messages: result.messages }).toEqual({
      status: "summarized",
      trigger: `${result.tokensBefore} tokens >= 320 tokens (0.8 of a 400-token window)`,
      messages: [input[0], summaryMessage("fullSummary", SUMMARY), input[6], input[7]],
    });
  });

  it("sends one request with max_tokens = summaryMaxTokens and the summary prompt", async () => {
    server.enqueue({ content: SUMMARY });
    await auto().compact(history());
    expect(bodies()).toEqual([
      { model: "gpt-4o-mini", stream: false, max_tokens: 200, messages: [{ role: "user", content: fill(DEFAULT_SUMMARY_PROMPT, { history: FORMATTED_HISTORY }) }] },
    ]);
  });

  for (const { name, reply, reason, timeoutMs = TIMEOUT_MS } of failures) {
    it(`fails on ${name} under the hard limit and leaves the history identical`, async () => {
      server.enqueue(reply);
      const input = history();
      const result = await auto({ timeoutMs }).compact(input);
      // The policy's reason drops the summary's own "the history is unchanged": what it did follows.
      const summaryReason = reason.source.slice(1, -1).replace("; the history is unchanged", "");
      expect({ status: result.status, reason: result.reason, ...unchanged(result, input) }).toEqual({
        status: "failed",
        reason: expect.stringMatching(new RegExp(`^summary failed: ${summaryReason}; under the hard limit 400, nothing else done$`)),
        ...UNCHANGED(8),
      });
    });
  }

  it("truncates to the hard limit when the summary fails over it", async () => {
    server.enqueue({ status: 500, message: "The server had an error" });
    const input = history();
    const result = await auto({ hardLimit: 200 }).compact(input);
    expect({ status: result.status, reason: result.reason, ids: ids(result.messages) }).toEqual({
      status: "truncated",
      reason: "summary failed: the summary call failed: 500 The server had an error; truncated to the hard limit 200",
      ids: ["s0", "u2", "a3"],
    });
  });

  it("reports one event per run with the summary model and the error", async () => {
    server.enqueue({ content: SUMMARY }, { status: 500, message: "The server had an error" });
    const events: CompactionEvent[] = [];
    // Summaries at the firing: prepared ahead, the second firing in the same conversation would go on while one is written.
    const strategy = auto({ onEvent: (event) => events.push(event), prepare: false });
    const succeeded = await strategy.compact(history());
    const failed = await strategy.compact(history());
    const trigger = (tokens: number) => `${tokens} tokens >= 320 tokens (0.8 of a 400-token window)`;
    expect(events).toEqual([
      {
        strategy: "autoCompaction",
        trigger: trigger(succeeded.tokensBefore),
        status: "summarized",
        tokensBefore: succeeded.tokensBefore,
        tokensAfter: succeeded.tokensAfter,
        messagesBefore: 8,
        messagesAfter: 4,
        durationMs: expect.any(Number),
        summaryModel: "gpt-4o-mini",
        error: null,
        summaryError: null,
      },
      {
        strategy: "autoCompaction",
        trigger: trigger(failed.tokensBefore),
        status: "failed",
        tokensBefore: failed.tokensBefore,
        tokensAfter: failed.tokensBefore,
        messagesBefore: 8,
        messagesAfter: 8,
        durationMs: expect.any(Number),
        summaryModel: "gpt-4o-mini",
        error: "summary failed: the summary call failed: 500 The server had an error; under the hard limit 400, nothing else done",
        summaryError: "the summary call failed: 500 The server had an error",
      },
    ]);
  });
});

describe("the summary policies through ChatOpenAI", () => {
  it("hidingThenSummary summarizes with a model named in its summary options", async () => {
    server.enqueue({ content: SUMMARY });
    const input = history();
    const policy = hidingThenSummary({
      trigger: { tokens: 300 },
      target: { tokens: 100 },
      hiding: { keepRecentGroups: 0, receipts: false },
      summary: { model: "gpt-4o-mini", modelOptions: modelOptions(), keepRecent: 2 },
    });
    const result = await policy.compact(input);
    expect({ status: result.status, ids: ids(result.messages), maxTokens: bodies().map((body) => body?.max_tokens) }).toEqual({
      status: "summarized",
      ids: ["s0", undefined, "u2", "a3"],
      maxTokens: [1000],
    });
  });

  it("selectiveThenSummary leaves the history identical when the rules do nothing and the summary call fails", async () => {
    server.enqueue({ status: 500, message: "The server had an error" });
    const input = history();
    const policy = selectiveThenSummary({
      trigger: { tokens: 300 },
      target: { tokens: 10 },
      rules: [],
      summary: { model: chatModel(), keepRecent: 2, timeoutMs: TIMEOUT_MS },
    });
    const result = await policy.compact(input);
    expect({ status: result.status, ...unchanged(result, input) }).toEqual({ status: "failed", ...UNCHANGED(8) });
  });
});

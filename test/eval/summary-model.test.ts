import { HumanMessage, SystemMessage, getBufferString } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  DETERMINISTIC_SUMMARY_MAX_TOKENS,
  DeterministicSummaryModel,
  MeteredChatModel,
  deterministicSummary,
  deterministicSummaryOf,
  messagesOfPrompt,
  messagesOfSharedPrefixRequest,
  parseRenderedArtifacts,
  sharedPrefixKept,
} from "../../bench/eval/summary-model.js";
import { createTokenCounter, fullSummary } from "../../src/index.js";
import {
  extractArtifacts,
  formatHistory,
  messageText,
  renderArtifacts,
  DEFAULT_SUMMARY_PROMPT,
  SHARED_PREFIX_SNAPSHOT_INSTRUCTION,
  SHARED_PREFIX_SUMMARY_INSTRUCTION,
  SUMMARY_MESSAGE_PREFIX,
} from "../../src/extend/index.js";
import { fillTemplate } from "../../src/summary/format-history.js";
import { assistant, system, toolResult, user } from "../support/builders.js";

const tokenCounter = createTokenCounter();

const conversation = [
  system("s", "You are a coding agent."),
  user("u", "Fix the crash in src/app.py"),
  assistant("a1", "Let me run it.", [{ id: "c1", args: { command: "python src/app.py" } }]),
  toolResult("t1", "c1", "Traceback (most recent call last):\nValueError: bad input"),
  assistant("a2", "", [{ id: "c2", args: { command: "sed -i 's/x/y/' src/app.py" } }]),
  toolResult("t2", "c2", ""),
];

/** What matters of a rebuilt message: role, text, calls (name and arguments), result's call id. */
const shapeOf = (messages: ReturnType<typeof messagesOfPrompt>) =>
  messages.map((message) => ({
    type: message.type,
    text: messageText(message),
    calls: ((message as { tool_calls?: { name: string; args: unknown }[] }).tool_calls ?? []).map(({ name, args }) => ({ name, args })),
    callIds: ((message as { tool_calls?: { id?: string }[] }).tool_calls ?? []).map(({ id }) => id),
    answers: (message as { tool_call_id?: string }).tool_call_id,
  }));

describe("messagesOfPrompt", () => {
  it("rebuilds the conversation of our summary prompt", () => {
    const prompt = fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(conversation.slice(1)) });
    expect(shapeOf(messagesOfPrompt(prompt))).toEqual([
      { type: "human", text: "Fix the crash in src/app.py", calls: [], callIds: [], answers: undefined },
      { type: "ai", text: "Let me run it.", calls: [{ name: "bash", args: { command: "python src/app.py" } }], callIds: ["c1"], answers: undefined },
      { type: "tool", text: "Traceback (most recent call last):\nValueError: bad input", calls: [], callIds: [], answers: "c1" },
      { type: "ai", text: "", calls: [{ name: "bash", args: { command: "sed -i 's/x/y/' src/app.py" } }], callIds: ["c2"], answers: undefined },
      { type: "tool", text: "", calls: [], callIds: [], answers: "c2" },
    ]);
  });

  it("rebuilds LangChain's getBufferString text, matching results to calls in order", () => {
    const prompt = `<messages>\nMessages to summarize:\n${getBufferString(conversation)}\n</messages>`;
    expect(shapeOf(messagesOfPrompt(prompt))).toEqual([
      { type: "system", text: "You are a coding agent.", calls: [], callIds: [], answers: undefined },
      { type: "human", text: "Fix the crash in src/app.py", calls: [], callIds: [], answers: undefined },
      { type: "ai", text: "Let me run it.", calls: [{ name: "bash", args: { command: "python src/app.py" } }], callIds: ["c1#0"], answers: undefined },
      { type: "tool", text: "Traceback (most recent call last):\nValueError: bad input", calls: [], callIds: [], answers: "c1#0" },
      { type: "ai", text: "", calls: [{ name: "bash", args: { command: "sed -i 's/x/y/' src/app.py" } }], callIds: ["c2#1"], answers: undefined },
      { type: "tool", text: "", calls: [], callIds: [], answers: "c2#1" },
    ]);
  });
});

describe("parseRenderedArtifacts", () => {
  it("reads back the files, identifiers and errors of a rendered index", () => {
    const index = extractArtifacts([...conversation, assistant("a3", "", [{ id: "c3", name: "get_user", args: { user_id: "mia_li_3668" } }]), toolResult("t3", "c3", "{}", "get_user")]);
    const parsed = parseRenderedArtifacts(`summary text\n\n${renderArtifacts(index)}`);
    expect([parsed.filesCreated, parsed.filesModified, parsed.filesRead, parsed.identifiers, parsed.errors]).toEqual([
      index.filesCreated,
      index.filesModified,
      index.filesRead,
      index.identifiers,
      index.errors,
    ]);
  });

  it("reads only the entries of a cut index, not its counts of the rest", () => {
    // As renderArtifacts cuts an index to fit (its format: test/summary/artifact-index.test.ts).
    const rendered = "<artifact_index>\nfiles read: b.py, c.py, … and 1 more files\nerrors seen (2 of 3):\n- E2 second\n- E3 third\n</artifact_index>";
    const parsed = parseRenderedArtifacts(rendered);
    expect([parsed.filesRead, parsed.errors]).toEqual([["b.py", "c.py"], ["E2 second", "E3 third"]]);
  });
});

describe("DeterministicSummaryModel", () => {
  const prompt = fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(conversation.slice(1)) });

  it("answers the same prompt with the same summary, from any instance", async () => {
    const first = await new DeterministicSummaryModel({ tokenCounter }).invoke([new HumanMessage(prompt)]);
    const second = await new DeterministicSummaryModel({ tokenCounter: createTokenCounter() }).invoke([new HumanMessage(prompt)]);
    expect(messageText(second)).toBe(messageText(first));
  });

  it("keeps the request, the files and the error lines of the prompt", async () => {
    const text = messageText(await new DeterministicSummaryModel({ tokenCounter }).invoke([new HumanMessage(prompt)]));
    expect(["Fix the crash in src/app.py", "src/app.py (modified)", "ValueError: bad input"].filter((part) => !text.includes(part))).toEqual([]);
  });

  it("caps the summary of a long conversation", async () => {
    const long = Array.from({ length: 400 }, (_, n) => [
      assistant(`a${n}`, `step ${n}: ${"reasoning ".repeat(40)}`, [{ id: `c${n}`, args: { command: `python tools/script_${n}.py` } }]),
      toolResult(`t${n}`, `c${n}`, `RuntimeError: failure number ${n} in tools/script_${n}.py`),
    ]).flat();
    const text = await deterministicSummary(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory([user("u", "go"), ...long]) }), tokenCounter);
    expect(await tokenCounter.countText(text)).toBeLessThanOrEqual(DETERMINISTIC_SUMMARY_MAX_TOKENS);
  });
});

describe("DeterministicSummaryModel on a shared-prefix request", () => {
  const LISTING = Array.from({ length: 80 }, (_, n) => `src/module_${n}.py: ${n * 3} lines`).join("\n");
  const history = () => [
    system("s", "You are a coding agent."),
    user("u", "Fix the crash in src/app.py"),
    assistant("a1", "Let me look around.", [{ id: "c1", args: { command: "ls -l src" } }]),
    toolResult("t1", "c1", LISTING),
    assistant("a2", "Running it.", [{ id: "c2", args: { command: "python src/app.py" } }]),
    toolResult("t2", "c2", "Traceback (most recent call last):\nValueError: bad input"),
    user("u2", "Now add a test for it."),
    assistant("a3", "Adding tests/test_app.py."),
  ];

  it("reads K from either instruction, and nothing from other text", () => {
    const fill = (template: string, kept: number) => template.split("{kept}").join(String(kept));
    expect([fill(SHARED_PREFIX_SUMMARY_INSTRUCTION, 3), fill(SHARED_PREFIX_SNAPSHOT_INSTRUCTION, 0), "[user]\nhello", DEFAULT_SUMMARY_PROMPT].map(sharedPrefixKept)).toEqual([3, 0, undefined, undefined]);
  });

  it("summarizes the non-system messages before the instruction but its last K; an earlier summary without its marker is recognised by its prefix", () => {
    const earlier = new HumanMessage(`${SUMMARY_MESSAGE_PREFIX}\n\nThe user asked for a CLI.`);
    const input = [history()[0]!, earlier, ...history().slice(1)];
    const rebuilt = messagesOfSharedPrefixRequest([...input, new HumanMessage(SHARED_PREFIX_SUMMARY_INSTRUCTION.split("{kept}").join("2"))]);
    expect(rebuilt.slice(1)).toEqual(input.slice(2, 7));
    expect(rebuilt.slice(1).every((message, position) => message === input[position + 2])).toBe(true);
    expect([rebuilt[0]!.type, messageText(rebuilt[0]!), (rebuilt[0]!.response_metadata as Record<string, { summary?: boolean }>)["compaction"]?.summary]).toEqual([
      "human",
      messageText(earlier),
      true,
    ]);
  });

  it("answers fullSummary's shared-prefix request with the summary it writes for the standalone prompt of the same part", async () => {
    const input = history();
    const model = new DeterministicSummaryModel({ tokenCounter });
    const shared = await fullSummary({ model, tokenCounter, summaryRequest: "shared-prefix" }).compact(input);
    const standalone = await fullSummary({ model, tokenCounter }).compact(input);
    expect([shared.status, standalone.status]).toEqual(["summarized", "summarized"]);
    expect(shared.messages[1]!.content).toBe(standalone.messages[1]!.content);
    const expected = await deterministicSummaryOf(input.slice(1, 6), tokenCounter);
    // The answer has no <summary> tags: fullSummary takes it whole and wraps it.
    expect(String(shared.messages[1]!.content).startsWith(`${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\n${expected.trim()}\n</summary>\n\n`)).toBe(true);
  });
});

describe("MeteredChatModel", () => {
  it("records each call's prompt messages, their tokens and the answer's tokens with the evaluation's counter", async () => {
    const inner = new DeterministicSummaryModel({ tokenCounter });
    const metered = new MeteredChatModel({ inner, tokenCounter });
    const prompt = [new SystemMessage("summarize"), new HumanMessage("[user]\nhello")];
    const answer = await metered.invoke(prompt);
    const measured = await tokenCounter.measure(prompt);
    const calls = metered.drain();
    expect(calls.map((call) => ({ ...call, messages: call.messages.map((message) => [message.type, messageText(message)]) }))).toEqual([
      {
        inputTokens: measured.total,
        outputTokens: await tokenCounter.countText(messageText(answer)),
        messages: [
          ["system", "summarize"],
          ["human", "[user]\nhello"],
        ],
        perMessage: measured.perMessage,
      },
    ]);
  });

  it("forgets the calls it has handed out", async () => {
    const metered = new MeteredChatModel({ inner: new DeterministicSummaryModel({ tokenCounter }), tokenCounter });
    await metered.invoke([new HumanMessage("[user]\nhello")]);
    metered.drain();
    expect(metered.drain()).toEqual([]);
  });
});

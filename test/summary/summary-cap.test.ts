/**
 * `summaryMaxTokens` caps the whole summary message, artifact index included, wherever a summary
 * message is made: a session that read 6,000 files once made an index of tens of thousands of tokens
 * that filled most of the window.
 */
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  CompactingChatMessageHistory,
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  fullSummary,
  stateSnapshotSummary,
  type CompactionResult,
  type TokenCounter,
} from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { DEFAULT_AUTO_SUMMARY_MAX_TOKENS } from "../../src/policies/auto-compaction-options.js";
import { LangChainSummary } from "../../src/middleware/langchain-summary.js";
import { assistant, sameObjects, toolResult, user } from "../support/builders.js";

const FILES = 6000;
const path = (n: number) => `src/module_${n}/component_${n}.ts`;

/** A user request, then one `read_file` step per file, each file read once. */
function fileReads(count = FILES): BaseMessage[] {
  const messages: BaseMessage[] = [user("u0", "Audit every module of the repository")];
  for (let n = 0; n < count; n++) {
    messages.push(assistant(`a${n}`, "", [{ id: `c${n}`, name: "read_file", args: { path: path(n) } }]));
    messages.push(toolResult(`t${n}`, `c${n}`, `export const value${n} = ${n};`, "read_file"));
  }
  return messages;
}

const counter = createTokenCounter();
const history = fileReads();
const summaryOf = (messages: readonly BaseMessage[]) => messages.find((message) => compactionMarkerOf(message)?.summary)!;
/** A model's summary of about 2,400 tokens: over the cap on its own. */
const longAnswer = (tag: string) => new AIMessage(`<${tag}>\n${Array.from({ length: 300 }, (_, n) => `- finding ${n}: module ${n} is fine`).join("\n")}\n</${tag}>`);

/** How many files the messages a summary replaced read: one per `read_file` step, two messages a step after the user's. */
function summarizedFiles(summary: BaseMessage): number {
  return (compactionMarkerOf(summary)!.summarizedMessages! - 1) / 2;
}

/**
 * The summary message of `result` is within `cap` and its index names the newest file and counts the
 * rest; `whole`: the index (100 files) fits beside the summary's text, else it is cut.
 */
async function expectCapped(result: CompactionResult, cap: number, whole: boolean, tokenCounter: TokenCounter = counter): Promise<string> {
  expect(result.status, result.reason).toBe("summarized");
  const summary = summaryOf(result.messages);
  expect(await tokenCounter.countMessage(summary)).toBeLessThanOrEqual(cap);
  const text = messageText(summary);
  const start = text.lastIndexOf("\n\n<artifact_index>\n");
  const [before, index] = [text.slice(0, start), text.slice(start)];
  const shown = /^files read: (.*)$/m.exec(index)![1]!.split(", ");
  const rest = Number(/… and (\d+) more files$/.exec(shown.pop()!)![1]);
  // The marker's index keeps 100 files read and counts the others it left out; every file read is
  // listed, named by the summary before the index, or counted in the rest.
  const artifacts = compactionMarkerOf(summary)!.artifacts!;
  const filesRead = artifacts.filesRead;
  expect(filesRead.length).toBe(100);
  expect(filesRead.length + artifacts.filesLeftOut!.read!).toBe(summarizedFiles(summary));
  if (whole) {
    // The kept index fits whole beside the text: all of it, and the count of what it left out.
    expect(shown).toEqual(filesRead);
    expect(rest).toBe(artifacts.filesLeftOut!.read!);
  } else {
    // Cut to fit, it leaves out what the text names.
    const namedBefore = filesRead.filter((file) => before.includes(`"${file}"`) || before.includes(`${file}\n`) || before.includes(`${file} `));
    expect(shown.filter((file) => namedBefore.includes(file))).toEqual([]);
    expect(shown.length + namedBefore.length + rest).toBe(filesRead.length + artifacts.filesLeftOut!.read!);
  }
  // The newest file is in the message.
  expect(text).toContain(filesRead.at(-1)!);
  return text;
}

describe("summaryMaxTokens caps the whole summary message on a 6,000-file history", () => {
  it.each([16_000, 32_000, 64_000, 128_000, 200_000])("autoCompaction at a %i-token window: the summary within its 2000 tokens, the rest of the window free", async (window) => {
    const result = await autoCompaction({ contextWindow: window, tokenCounter: counter }).compact(history);
    expect(DEFAULT_AUTO_SUMMARY_MAX_TOKENS).toBe(2000);
    await expectCapped(result, DEFAULT_AUTO_SUMMARY_MAX_TOKENS, true);
    expect(result.tokensAfter).toBeLessThanOrEqual(window / 4);
  });

  it("stateSnapshotSummary without a model, at another cap", async () => {
    const result = await stateSnapshotSummary({ contextWindow: 128_000, tokenCounter: counter, summaryMaxTokens: 2000 }).compact(history, { force: true });
    const text = await expectCapped(result, 2000, true);
    expect(text).toContain("</state_snapshot>");
  });

  it("stateSnapshotSummary with a model whose snapshot is over the cap: the snapshot is cut, the index keeps its share", async () => {
    const model = fakeModel().respond(longAnswer("state_snapshot"));
    const result = await stateSnapshotSummary({ model, contextWindow: 128_000, tokenCounter: counter }).compact(history, { force: true });
    const text = await expectCapped(result, 1000, false);
    expect(text).toContain("\n[summary cut at 1000 tokens]\n\n<artifact_index>\n");
    expect(await counter.countText(text.slice(text.lastIndexOf("\n\n<artifact_index>\n")))).toBeGreaterThanOrEqual(200);
  });

  it("fullSummary with a model", async () => {
    const model = fakeModel().respond(longAnswer("summary"));
    await expectCapped(await fullSummary({ model, keepRecent: 2, tokenCounter: counter }).compact(history), 1000, false);
  });

  it("summarizationMiddleware's summary (LangChain's prefix and format)", async () => {
    const model = fakeModel().respond(new AIMessage("A summary as LangChain writes it. ".repeat(200)));
    const strategy = new LangChainSummary({ model, keep: { messages: 2 }, summaryPrefix: "Here is a summary of the conversation to date:", tokenCounter: counter });
    const text = await expectCapped(await strategy.compact(history), 1000, false);
    expect(text.startsWith("Here is a summary of the conversation to date:\n\nA summary as LangChain writes it.")).toBe(true);
  });

  it("a summary prepared ahead by autoCompaction", async () => {
    const model = fakeModel().respond(longAnswer("summary"));
    const early = history.slice(0, 2 * 4000 + 1);
    const earlyTokens = (await counter.measure(early)).total;
    // The preparation starts at 0.7 of the trigger; the firing comes with the rest of the files.
    const policy = autoCompaction({ contextWindow: 1_000_000, trigger: { tokens: Math.ceil(earlyTokens / 0.8) }, hiding: false, tokenCounter: counter, summaryModel: model, prepare: { at: 0.7 } });
    const started = await policy.compact(early);
    expect(started.reason).toContain("is being prepared");
    await policy.settled();
    await expectCapped(await policy.compact(history), DEFAULT_AUTO_SUMMARY_MAX_TOKENS, false);
  });

  it("CompactingChatMessageHistory (LCEL) with autoCompaction", async () => {
    const chatHistory = new CompactingChatMessageHistory({ history: new InMemoryChatMessageHistory(), compactor: autoCompaction({ contextWindow: 32_000, tokenCounter: counter }) });
    await chatHistory.addMessages(history);
    const view = await chatHistory.getMessages();
    const summary = summaryOf(view);
    expect(await counter.countMessage(summary)).toBeLessThanOrEqual(DEFAULT_AUTO_SUMMARY_MAX_TOKENS);
    expect(await counter.countMessages(view)).toBeLessThanOrEqual(8000);
  });

  it("fails and changes nothing when the prefix alone leaves no room, and says why", async () => {
    const result = await fullSummary({ model: fakeModel().respond(longAnswer("summary")), summaryPrefix: "Earlier: ".repeat(60), summaryMaxTokens: 100, tokenCounter: counter }).compact(history);
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("the summary prefix and the artifact index leave no room for the summary within summaryMaxTokens (100); the history is unchanged");
    expect(sameObjects(result.messages, history)).toBe(true);
  });
});

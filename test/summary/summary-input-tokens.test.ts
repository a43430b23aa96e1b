import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  autoCompaction,
  compactionMarkerOf,
  createTokenCounter,
  fullSummary,
  hidingThenSummary,
  stateSnapshotSummary,
  type AutoCompactionOptions,
} from "../../src/index.js";
import {
  DEFAULT_SUMMARY_PROMPT,
  PREVIOUS_SNAPSHOT_TEMPLATE,
  STATE_SNAPSHOT_PROMPT,
  SUMMARY_MESSAGE_PREFIX,
  extractArtifacts,
  formatHistory,
  renderArtifacts,
} from "../../src/extend/index.js";
import { DEFAULT_AUTO_SUMMARY_INPUT_TOKENS } from "../../src/policies/auto-compaction-options.js";
import { fillTemplate } from "../../src/summary/format-history.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";

const counter = createTokenCounter({ mode: "approximate" });
const summaryAnswer = () => new AIMessage("<summary>the task so far</summary>");

/** One agent step that reads a file, names an issue and reports a compiler error. */
const edit = (n: number): BaseMessage[] => [
  assistant(`a${n}`, `Checking file ${n}.`, [{ id: `c${n}`, args: { command: `cat src/file${n}.ts`, issue_id: `ISS-${n}` } }]),
  toolResult(`t${n}`, `c${n}`, `src/file${n}.ts:${n}: error: argument ${n} mismatch`),
];
/** [system, request, 5 steps, a second request, an answer]: fullSummary (keepRecent 2) replaces u1..t5. */
const history = (): BaseMessage[] => [system("s"), user("u1", "Fix the type errors"), ...[1, 2, 3, 4, 5].flatMap(edit), user("u2", "Also the README"), assistant("a6", "On it.")];
const promptOf = (model: ReturnType<typeof fakeModel>, call = 0) => String(model.calls[call]!.messages[0]!.content);
/** The sum of the token counter's per-message counts, as the budget counts them. */
const costOf = async (messages: readonly BaseMessage[]) => {
  let total = 0;
  for (const message of messages) total += await counter.countMessage(message);
  return total;
};
/** The ids of messages a4, t4, a5, t5: the newest 4 of the summarized part. */
const newestFour = (input: readonly BaseMessage[]) => input.slice(8, 12);

/** The history section of the prompt when u1..t3 (7 messages) are left out and a4..t5 are sent. */
const LEFT_OUT_HISTORY = `[7 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]
<artifact_index>
files read: src/file1.ts, src/file2.ts, src/file3.ts
tools used: bash (3)
identifiers: ISS-1, ISS-2, ISS-3
commands run:
- cat src/file1.ts
- cat src/file2.ts
- cat src/file3.ts
errors seen:
- src/file1.ts:1: error: argument 1 mismatch
- src/file2.ts:2: error: argument 2 mismatch
- src/file3.ts:3: error: argument 3 mismatch
</artifact_index>

[assistant]
Checking file 4.
-> bash({"command":"cat src/file4.ts","issue_id":"ISS-4"}) #c4

[tool bash #c4]
src/file4.ts:4: error: argument 4 mismatch

[assistant]
Checking file 5.
-> bash({"command":"cat src/file5.ts","issue_id":"ISS-5"}) #c5

[tool bash #c5]
src/file5.ts:5: error: argument 5 mismatch`;

describe("summaryInputTokens", () => {
  it("sends the same prompt as without it when the whole part fits the budget exactly", async () => {
    const input = history();
    const unlimited = fakeModel().respond(summaryAnswer());
    const capped = fakeModel().respond(summaryAnswer());
    await fullSummary({ model: unlimited, tokenCounter: counter }).compact(input);
    await fullSummary({ model: capped, tokenCounter: counter, summaryInputTokens: await costOf(input.slice(1, 12)) }).compact(input);
    expect(promptOf(capped)).toBe(promptOf(unlimited));
    expect(promptOf(capped)).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(input.slice(1, 12)) }));
  });

  it("sends the newest messages whole and one line with the artifact index for the older ones", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer());
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: await costOf(newestFour(input)) }).compact(input);
    expect(promptOf(model)).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: LEFT_OUT_HISTORY }));
  });

  it("leaves out the message that would go one token over the budget", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer());
    // t3 would fit with one more token; it is left out with the rest.
    const budget = (await costOf(input.slice(7, 12))) - 1;
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: budget }).compact(input);
    expect(promptOf(model)).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: LEFT_OUT_HISTORY }));
  });

  it("still indexes every replaced message in the summary message", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer());
    const result = await fullSummary({ model, tokenCounter: counter, summaryInputTokens: await costOf(newestFour(input)) }).compact(input);
    const artifacts = extractArtifacts(input.slice(1, 12));
    expect(artifacts.filesRead).toEqual(["src/file1.ts", "src/file2.ts", "src/file3.ts", "src/file4.ts", "src/file5.ts"]);
    expect(result.messages[1]!.content).toBe(`${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\nthe task so far\n</summary>\n\n${renderArtifacts(artifacts)}`);
    expect(compactionMarkerOf(result.messages[1]!)).toEqual({ strategy: "fullSummary", summary: true, artifacts, summarizedMessages: 11, summaryModel: "FakeBuiltModel" });
  });

  it("sends the newest message even when it alone is over the budget", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer());
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: 1 }).compact(input);
    const leftOut = extractArtifacts(input.slice(1, 11));
    expect(promptOf(model)).toBe(
      fillTemplate(DEFAULT_SUMMARY_PROMPT, {
        history: `[10 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]\n${renderArtifacts(leftOut)}\n\n[tool bash #c5]\nsrc/file5.ts:5: error: argument 5 mismatch`,
      }),
    );
  });

  it("says so when the left-out messages name no artifacts", async () => {
    const input = [system("s"), user("u1", "hello"), assistant("a1", "Hi."), user("u2", "Plan the work"), assistant("a2", "Plan: one, two."), user("u3", "Go"), assistant("a3", "Going.")];
    const model = fakeModel().respond(summaryAnswer());
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: await costOf(input.slice(3, 5)) }).compact(input);
    expect(promptOf(model)).toBe(
      fillTemplate(DEFAULT_SUMMARY_PROMPT, {
        history: "[2 earlier messages left out of this prompt; they name no files, commands, identifiers or errors]\n\n[user]\nPlan the work\n\n[assistant]\nPlan: one, two.",
      }),
    );
  });

  it("always sends an earlier summary whole, outside the budget", async () => {
    const earlier = new HumanMessage({
      id: "sum",
      content: `${SUMMARY_MESSAGE_PREFIX}\n\n<summary>\n${"earlier work on the parser ".repeat(50).trim()}\n</summary>`,
      response_metadata: { compaction: { strategy: "fullSummary", summary: true } },
    });
    const input = [system("s"), earlier, ...[1, 2, 3, 4, 5].flatMap(edit), user("u2", "Also the README"), assistant("a6", "On it.")];
    expect(await counter.countMessage(earlier)).toBeGreaterThan(await costOf(newestFour(input)));
    const model = fakeModel().respond(summaryAnswer());
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: await costOf(newestFour(input)) }).compact(input);
    const leftOut = extractArtifacts(input.slice(2, 8));
    expect(promptOf(model)).toBe(
      fillTemplate(DEFAULT_SUMMARY_PROMPT, {
        history: [
          `[earlier summary]\n${String(earlier.content)}`,
          `[6 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]\n${renderArtifacts(leftOut)}`,
          formatHistory(newestFour(input)),
        ].join("\n\n"),
      }),
    );
  });

  it("gives stateSnapshotSummary the earlier snapshot whole and the left-out line in the history", async () => {
    const earlier = new HumanMessage({
      id: "snap",
      content: `${SUMMARY_MESSAGE_PREFIX}\n\n<state_snapshot>\n<overall_goal>Fix the type errors</overall_goal>\n</state_snapshot>`,
      response_metadata: { compaction: { strategy: "stateSnapshotSummary", summary: true } },
    });
    const input = [system("s"), earlier, ...[1, 2, 3, 4, 5].flatMap(edit), user("u2", "Also the README"), assistant("a6", "On it.")];
    const model = fakeModel().respond(new AIMessage("<state_snapshot>new</state_snapshot>"));
    // preserveFraction 0.1 keeps u2 and a6; the snapshot replaces snap..t5.
    const strategy = stateSnapshotSummary({ model, contextWindow: 100_000, preserveFraction: 0.1, tokenCounter: counter, summaryInputTokens: await costOf(newestFour(input)) });
    const result = await strategy.compact(input, { force: true });
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(promptOf(model)).toBe(
      fillTemplate(STATE_SNAPSHOT_PROMPT, {
        previous_snapshot: fillTemplate(PREVIOUS_SNAPSHOT_TEMPLATE, { snapshot: "<state_snapshot>\n<overall_goal>Fix the type errors</overall_goal>\n</state_snapshot>" }),
        history: `[6 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]\n${renderArtifacts(extractArtifacts(input.slice(2, 8)))}\n\n${formatHistory(newestFour(input))}`,
      }),
    );
  });

  it("still cuts the tool outputs it sends to toolOutputBudgetTokens", async () => {
    const big = (n: number) => `HEAD${n} ${"y".repeat(4000)} TAIL${n}`;
    const step = (n: number) => [assistant(`a${n}`, `step ${n}`, [{ id: `c${n}` }]), toolResult(`t${n}`, `c${n}`, big(n))];
    const input = [system("s"), user("u1", "go"), ...[1, 2, 3, 4].flatMap(step), user("u2", "next"), assistant("a5", "ok")];
    const model = fakeModel().respond(summaryAnswer());
    const perResult = await counter.countMessage(input[9]!);
    // Steps 3 and 4 are sent; only t4's output fits the tool-output budget, so t3's is cut.
    await fullSummary({ model, tokenCounter: counter, summaryInputTokens: await costOf(input.slice(6, 10)), toolOutputBudgetTokens: perResult }).compact(input);
    const prompt = promptOf(model);
    expect(prompt).toContain(`[5 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]\n<artifact_index>\ntools used: bash (2)\n</artifact_index>\n\n[assistant]\nstep 3\n-> bash({}) #c3\n\n[tool bash #c3]\nHEAD3 y`);
    expect(prompt).toMatch(/\[tool bash #c3\]\nHEAD3 y{1194}\n\[\.\.\. \d+ tokens of this tool output cut before summarizing \.\.\.\]\ny{594} TAIL3\n\n\[assistant\]\nstep 4/);
    expect(prompt).toContain(`[tool bash #c4]\n${big(4)}\n</conversation>`);
  });

  it("does not change the no-model summarizer", async () => {
    const input = history();
    const unlimited = await fullSummary({ tokenCounter: counter }).compact(input);
    const capped = await fullSummary({ tokenCounter: counter, summaryInputTokens: 1 }).compact(input);
    expect(capped.messages[1]!.content).toBe(unlimited.messages[1]!.content);
  });

  it("is an option of autoCompaction, read from a provider at every run", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer()).respond(summaryAnswer());
    const settings: AutoCompactionOptions = { tokenCounter: counter, contextWindow: 10_000, keepRecent: 2, summaryModel: model, summaryMaxTokens: 1000 };
    const policy = autoCompaction(() => settings);
    expect((await policy.compact(input, { force: true })).status).toBe("summarized");
    settings.summaryInputTokens = await costOf(newestFour(input));
    expect((await policy.compact(input, { force: true })).status).toBe("summarized");
    expect(promptOf(model, 0)).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(input.slice(1, 12)) }));
    expect(promptOf(model, 1)).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: LEFT_OUT_HISTORY }));
  });

  describe("autoCompaction's default", () => {
    /** A request and 30 steps of about 600 tokens each: the summarized part is about 18 000 tokens. */
    const long = (): BaseMessage[] => [
      system("s"),
      user("u1", "Fix the type errors"),
      ...Array.from({ length: 30 }, (_, n) => [
        assistant(`a${n}`, `Step ${n}.`, [{ id: `c${n}`, args: { command: `cat src/file${n}.ts` } }]),
        toolResult(`t${n}`, `c${n}`, `line ${n}\n`.repeat(300)),
      ]).flat(),
    ];
    const run = async (options: Partial<AutoCompactionOptions>) => {
      const model = fakeModel().respond(summaryAnswer());
      const policy = autoCompaction({ tokenCounter: counter, contextWindow: 40_000, keepRecent: 2, summaryModel: model, hiding: false, ...options });
      expect((await policy.compact(long(), { force: true })).status).toBe("summarized");
      return promptOf(model);
    };

    it("sends the newest 4000 tokens of the part it summarizes whole, and the rest as one line and its artifact index", async () => {
      expect(DEFAULT_AUTO_SUMMARY_INPUT_TOKENS).toBe(4000);
      const input = long();
      // The part is input[1..59] (keepRecent 2); newest first, whole while the running total fits 4000.
      let first = 60;
      for (let used = 0; first > 1 && used + (await costOf([input[first - 1]!])) <= 4000; first--) used += await costOf([input[first - 1]!]);
      expect(first).toBe(48); // 12 messages (6 steps of about 650 tokens) are sent, 47 left out
      const leftOut = input.slice(1, first);
      const sent = input.slice(first, 60);
      const note = `[${leftOut.length} earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index]`;
      expect(await run({})).toBe(
        fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: `${note}\n${renderArtifacts(extractArtifacts(leftOut))}\n\n${formatHistory(sent)}` }),
      );
    });

    it("sends the whole part with summaryInputTokens: Infinity", async () => {
      expect(await run({ summaryInputTokens: Infinity })).toBe(fillTemplate(DEFAULT_SUMMARY_PROMPT, { history: formatHistory(long().slice(1, 60)) }));
    });
  });

  it("is passed on by a policy's summary options", async () => {
    const input = history();
    const model = fakeModel().respond(summaryAnswer());
    const policy = hidingThenSummary({ tokenCounter: counter, trigger: { messages: 5 }, target: { messages: 4 }, summary: { model, summaryInputTokens: await costOf(newestFour(input)) } });
    expect((await policy.compact(input)).status).toBe("summarized");
    expect(promptOf(model)).toMatch(/^[\s\S]*<conversation>\n\[7 earlier messages left out of this prompt; their files, commands, identifiers and errors are in this artifact index\]\n<artifact_index>\n/);
  });

  describe.each([0, -1, 1.5])("rejects summaryInputTokens %s", (value) => {
    const expectInvalid = async (build: () => unknown) => {
      const error = await caught(build);
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect((error as InvalidOptionError).option).toBe("summaryInputTokens");
    };
    it("in fullSummary", () => expectInvalid(() => fullSummary({ summaryInputTokens: value })));
    it("in stateSnapshotSummary", () => expectInvalid(() => stateSnapshotSummary({ contextWindow: 1000, summaryInputTokens: value })));
    it("in autoCompaction", () => expectInvalid(() => autoCompaction({ contextWindow: 1000, summaryInputTokens: value })));
    it("in a policy's summary options", () => expectInvalid(() => hidingThenSummary({ contextWindow: 1000, summary: { summaryInputTokens: value } })));
  });
});

describe("formatHistory leftOut", () => {
  it("writes the note where the first left-out message was and keeps earlier summaries", () => {
    const summary = new HumanMessage({ id: "sum", content: "old summary", response_metadata: { compaction: { strategy: "x", summary: true } } });
    const text = formatHistory([user("u1", "one"), summary, user("u2", "two"), user("u3", "three")], { leftOut: { before: 3, note: "[2 left out]" } });
    expect(text).toBe("[2 left out]\n\n[earlier summary]\nold summary\n\n[user]\nthree");
  });
});

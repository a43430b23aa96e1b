/**
 * Every strategy and policy `src/index.ts` exports, with random options relative to each history's
 * size (plain data, so a counterexample prints), for the wire property suite. Summary strategies
 * run with a fake model (several kinds of answers, failures included) or with no model.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import {
  autoCompaction,
  fullSummary,
  hardTruncate,
  hidingThenSummary,
  selectiveCompact,
  selectiveThenSummary,
  slidingWindow,
  stateSnapshotSummary,
  toolResultHiding,
  type TokenCounter,
} from "../../../src/index.js";
import { type CompactionStrategy } from "../../../src/extend/index.js";
import { EVERY_RUN } from "../hiding.js";

/** What the fake summary model answers. `none`: no model (the deterministic no-model summarizer). */
export type ModelKind = "none" | "plain" | "long" | "echo" | "empty" | "error";

/**
 * A chat model stand-in: enough of `BaseChatModel` for the summary call (`invoke`), answering by kind.
 * `echo` repeats the head of the prompt (cut on a code-point boundary), so the history's text flows
 * into the summary; `long` answers far beyond any summary cap, in astral characters.
 */
export class FakeSummaryModel {
  readonly model = "fake-summary";
  constructor(readonly kind: Exclude<ModelKind, "none">) {}

  async invoke(messages: readonly BaseMessage[]): Promise<AIMessage> {
    const prompt = String(messages[0]?.content ?? "");
    switch (this.kind) {
      case "plain":
        return new AIMessage("<summary>\n1. Task Overview: the user's task 😀\n2. Current State: in progress\n</summary>\n<state_snapshot>goal: finish 𝒜</state_snapshot>");
      case "long":
        return new AIMessage(`<summary>${"😀𝒜 ".repeat(3_000)}</summary>`);
      case "echo":
        return new AIMessage(`<summary>${[...prompt].slice(-1_500).join("")}</summary>`);
      case "empty":
        return new AIMessage("");
      case "error":
        throw new Error("the fake model is down");
    }
  }
}

const modelKind = fc.constantFrom<ModelKind>("none", "plain", "long", "echo", "empty", "error");
const permille = fc.integer({ min: 0, max: 1_000 });
const invalidHistory = fc.constantFrom<"throw" | "repair">("throw", "repair");
const summaryMaxTokens = fc.integer({ min: 8, max: 400 });

/** `low + (high - low) * permille / 1000`, rounded. */
const between = (low: number, high: number, share: number) => Math.round(low + ((high - low) * share) / 1_000);

export type StrategyOptionsSpec = Readonly<Record<string, number | boolean | string>>;

export interface StrategyCase {
  readonly name: string;
  readonly options: fc.Arbitrary<StrategyOptionsSpec>;
  /** The strategy for one history of `total` tokens (by `counter`). */
  readonly create: (spec: StrategyOptionsSpec, total: number, counter: TokenCounter) => CompactionStrategy;
}

const model = (kind: unknown) => (kind === "none" ? {} : { model: new FakeSummaryModel(kind as Exclude<ModelKind, "none">) as never });
const n = (value: unknown) => Number(value);
const mode = (spec: StrategyOptionsSpec) => ({ invalidHistory: spec["invalidHistory"] as "throw" | "repair" });

export const STRATEGY_CASES: readonly StrategyCase[] = [
  {
    name: "toolResultHiding",
    options: fc.record({ keepRecentGroups: fc.integer({ min: 0, max: 4 }), hideToolInputs: fc.boolean(), invalidHistory }),
    create: (spec, _total, tokenCounter) =>
      toolResultHiding({ ...EVERY_RUN, tokenCounter, ...mode(spec), keepRecentGroups: n(spec["keepRecentGroups"]), hideToolInputs: spec["hideToolInputs"] === true }),
  },
  {
    name: "selectiveCompact",
    options: fc.record({ target: permille, invalidHistory }),
    create: (spec, total, tokenCounter) => selectiveCompact({ tokenCounter, ...mode(spec), target: Math.max(1, between(1, total, n(spec["target"]))) }),
  },
  {
    name: "stateSnapshotSummary",
    options: fc.record({ window: permille, preserve: fc.integer({ min: 100, max: 900 }), summaryMaxTokens, model: modelKind, invalidHistory }),
    create: (spec, total, tokenCounter) =>
      stateSnapshotSummary({
        tokenCounter,
        ...mode(spec),
        ...model(spec["model"]),
        contextWindow: Math.max(1, between(Math.floor(total / 2), total * 3, n(spec["window"]))),
        preserveFraction: n(spec["preserve"]) / 1_000,
        summaryMaxTokens: n(spec["summaryMaxTokens"]),
      }),
  },
  {
    name: "fullSummary",
    options: fc.record({ keepRecent: fc.integer({ min: 0, max: 6 }), target: fc.integer({ min: -1, max: 1_000 }), summaryMaxTokens, model: modelKind, invalidHistory }),
    create: (spec, total, tokenCounter) =>
      fullSummary({
        tokenCounter,
        ...mode(spec),
        ...model(spec["model"]),
        keepRecent: n(spec["keepRecent"]),
        summaryMaxTokens: n(spec["summaryMaxTokens"]),
        ...(n(spec["target"]) < 0 ? {} : { targetTokens: Math.max(1, between(1, total, n(spec["target"]))) }),
      }),
  },
  {
    name: "hardTruncate",
    options: fc.record({ maxTokens: permille, keepRecent: fc.integer({ min: 1, max: 12 }), invalidHistory }),
    create: (spec, total, tokenCounter) =>
      hardTruncate({ tokenCounter, ...mode(spec), maxTokens: Math.max(1, between(1, total, n(spec["maxTokens"]))), keepRecent: n(spec["keepRecent"]) }),
  },
  {
    name: "slidingWindow",
    options: fc.record({ keepTurns: fc.integer({ min: 1, max: 4 }), invalidHistory }),
    create: (spec, _total, tokenCounter) => slidingWindow({ tokenCounter, ...mode(spec), keepTurns: n(spec["keepTurns"]) }),
  },
  {
    name: "hidingThenSummary",
    options: fc.record({ trigger: permille, keepRecentGroups: fc.integer({ min: 0, max: 4 }), keepRecent: fc.integer({ min: 0, max: 6 }), summaryMaxTokens, model: modelKind, invalidHistory }),
    create: (spec, total, tokenCounter) =>
      hidingThenSummary({
        tokenCounter,
        ...mode(spec),
        trigger: { tokens: Math.max(2, between(2, total, n(spec["trigger"]))) },
        hiding: { keepRecentGroups: n(spec["keepRecentGroups"]) },
        summary: { ...model(spec["model"]), keepRecent: n(spec["keepRecent"]), summaryMaxTokens: n(spec["summaryMaxTokens"]) },
      }),
  },
  {
    name: "selectiveThenSummary",
    options: fc.record({ trigger: permille, keepRecent: fc.integer({ min: 0, max: 6 }), summaryMaxTokens, model: modelKind, invalidHistory }),
    create: (spec, total, tokenCounter) =>
      selectiveThenSummary({
        tokenCounter,
        ...mode(spec),
        // A trigger of 1 token makes a default target of 0 tokens, which the inner selectiveCompact rejects.
        trigger: { tokens: Math.max(2, between(2, total, n(spec["trigger"]))) },
        summary: { ...model(spec["model"]), keepRecent: n(spec["keepRecent"]), summaryMaxTokens: n(spec["summaryMaxTokens"]) },
      }),
  },
  {
    name: "autoCompaction",
    options: fc.record({ window: permille, threshold: fc.integer({ min: 200, max: 1_000 }), keepRecent: fc.integer({ min: 1, max: 12 }), summaryMaxTokens, model: modelKind }),
    create: (spec, total, tokenCounter) =>
      autoCompaction({
        tokenCounter,
        contextWindow: Math.max(1, between(Math.floor(total / 2), total * 3, n(spec["window"]))),
        threshold: n(spec["threshold"]) / 1_000,
        keepRecent: n(spec["keepRecent"]),
        summaryMaxTokens: n(spec["summaryMaxTokens"]),
        ...(spec["model"] === "none" ? {} : { summaryModel: new FakeSummaryModel(spec["model"] as Exclude<ModelKind, "none">) as never }),
      }),
  },
];

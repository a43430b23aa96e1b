// Every public factory's option error: the component and option, what it got and what it takes, in
// full. What it got is shown short and safely (see describeValue below).
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import {
  CompactingChatMessageHistory,
  anthropicCacheAnchors,
  assistantTextTrimming,
  autoCompaction,
  compactingNode,
  createCompactionNode,
  createTokenCounter,
  deleteThreadArchive,
  fullSummary,
  hardTruncate,
  hidingThenSummary,
  judgeCompactionCost,
  priceRatesOf,
  redactArchived,
  restoreHistory,
  restoreThreadHistory,
  sdkStore,
  selectiveCompact,
  selectiveThenSummary,
  slidingWindow,
  stateSnapshotSummary,
  tokenCounterFromFunction,
  InvalidOptionError,
  toolResultHiding,
  withCompaction,
} from "../../src/index.js";
import { loadThreadFromJson, loadThreadFromLangGraph, loadThreadFromPostgres, buildInspection } from "../../src/inspector/index.js";
import {
  ClearToolUsesEdit,
  anthropicCacheAnchorsMiddleware,
  autoCompactionMiddleware,
  compactionMiddleware,
  contextEditingMiddleware,
  summarizationMiddleware,
} from "../../src/middleware/index.js";
import { describeValue } from "../../src/option-errors.js";
import { SqliteBlobSaver, SqliteStore } from "../../src/store/index.js";
import { caught } from "../support/errors.js";

const figures = { tokensBefore: 1_000, tokensAfter: 500, keptPrefixTokens: 0, freshTokens: 0, growthPerStep: 10, nextTriggerTokens: 900 };
/** A chat model as the summary options take it (never called: every case fails at creation). */
const model = { invoke: async () => ({ content: "" }) } as never;
const db = () => SqliteSaver.fromConnString(":memory:").db;

describe("an option error names the component and option, what it got and what it takes", () => {
  it.each([
    ["autoCompaction threshold", () => autoCompaction({ contextWindow: 8000, threshold: 2 }), "autoCompaction: invalid option `threshold`: expected a number <= 1; got 2"],
    ["autoCompaction messages trigger", () => autoCompaction({ contextWindow: 1000, keepRecent: 10, trigger: { messages: 12 } }), "autoCompaction: invalid option `trigger`: expected a messages trigger over keepRecent + 2 (12); got { messages: 12 } (a summary leaves that many messages, so 12 would fire at every call)"],
    ["autoCompaction window", () => autoCompaction({}), "autoCompaction: invalid option `contextWindow`: expected a number of tokens, as the threshold is a fraction of the context window; got undefined (no model tells the window: pass contextWindow, or a model whose profile states maxInputTokens or whose name LangChain's getModelContextSize knows)"],
    ["autoCompaction hiding", () => autoCompaction({ contextWindow: 1000, hiding: { keepRecentGroups: -1 } }), "autoCompaction: invalid option `hiding.keepRecentGroups`: expected a number > 0; got -1"],
    ["toolResultHiding both keeps", () => toolResultHiding({ keepRecentGroups: 2, keepRecentResults: 3 }), "toolResultHiding: invalid option `keepRecentResults`: expected no value when keepRecentGroups is given; got 3 (give keepRecentGroups or keepRecentResults, not both)"],
    ["toolResultHiding alias", () => toolResultHiding({ clearAtLeast: 1, minTokensSaved: 1 }), "toolResultHiding: invalid option `minTokensSaved`: expected no value when clearAtLeast is given; got 1 (it is a deprecated name of clearAtLeast: give only clearAtLeast)"],
    ["toolResultHiding fraction", () => toolResultHiding({ trigger: { fraction: 0.5 } }), "toolResultHiding: invalid option `contextWindow`: expected a number of tokens, as the trigger or keepRecentResults is a fraction of the context window; got undefined (no model tells the window: pass contextWindow, or a model whose profile states maxInputTokens or whose name LangChain's getModelContextSize knows)"],
    ["assistantTextTrimming", () => assistantTextTrimming({ maxChars: "long" } as never), "assistantTextTrimming: invalid option `maxChars`: expected one of the options tokenCounter, invalidHistory, onEvent, logger, warnings, keepRecentGroups, keepChars; got an unknown option"],
    ["selectiveCompact truncate", () => selectiveCompact({ target: 10, rules: [{ kind: "tool", action: "truncate", priority: 1 }] } as never), "selectiveCompact: invalid option `rules.0.keepRecent`: expected a number of messages to keep, which a truncate rule needs; got undefined"],
    ["selectiveCompact system", () => selectiveCompact({ target: 10, rules: [{ kind: "system", action: "drop", priority: 1 }] }), "selectiveCompact: invalid option `rules.0.action`: expected \"none\" for `system` messages; got the string \"drop\" (`system` messages are never compacted)"],
    ["hardTruncate", () => hardTruncate({ maxTokens: -1 }), "hardTruncate: invalid option `maxTokens`: expected a number > 0; got -1"],
    ["slidingWindow", () => slidingWindow({ keepTurns: "3" } as never), "slidingWindow: invalid option `keepTurns`: expected a number; got the string \"3\""],
    ["fullSummary model", () => fullSummary({ model: 5 as never }), "fullSummary: invalid option `model`: expected a string or a chat model; got 5"],
    ["fullSummary keep", () => fullSummary({ model, keep: { messages: 2 }, keepRecent: 2 }), "fullSummary: invalid option `keep`: expected no keep when keepRecent is given; got { messages: 2 } (give keep or keepRecent, not both)"],
    ["fullSummary prompt", () => fullSummary({ model, prompt: "Summarize the conversation." }), "fullSummary: invalid option `prompt`: expected a prompt with a {history} or {messages} placeholder; got the string \"Summarize the conversation.\" (without one the summary model would never see the conversation)"],
    ["fullSummary trim", () => fullSummary({ model, summaryInputTokens: 10, trimTokensToSummarize: 10 }), "fullSummary: invalid option `trimTokensToSummarize`: expected no value when summaryInputTokens is given; got 10 (it is another name for summaryInputTokens: give one of them)"],
    ["stateSnapshotSummary", () => stateSnapshotSummary({ model, trigger: "12000" as never }), "stateSnapshotSummary: invalid option `trigger`: expected a size such as { tokens: 12000 }, { messages: 40 } or { fraction: 0.8 }, or a list of sizes; got the string \"12000\""],
    ["hidingThenSummary", () => hidingThenSummary({ summary: { model }, trigger: { fraction: 0.5 } } as never), "hidingThenSummary: invalid option `contextWindow`: expected a number of tokens, as the trigger or target is a fraction of the context window; got undefined (no model tells the window: pass contextWindow, or a model whose profile states maxInputTokens or whose name LangChain's getModelContextSize knows)"],
    ["selectiveThenSummary", () => selectiveThenSummary({ trigger: { messages: 50 } }), "selectiveThenSummary: invalid option `target`: expected { tokens } or { fraction } when the trigger counts only messages; got undefined (the selective rules stop at a token count)"],
    ["createTokenCounter", () => createTokenCounter({ modle: "gpt-4o" } as never), "createTokenCounter: invalid option `modle`: expected one of the options model, encoding, mode, calibrate, nonTextPartTokens; got an unknown option (did you mean model?)"],
    ["tokenCounterFromFunction", () => tokenCounterFromFunction(() => Number.NaN).measure([new HumanMessage("hi")]), "tokenCounterFromFunction: invalid option `tokenCounter`: expected a function that returns a finite number of at least 0; got a function that returned NaN"],
    ["priceRatesOf", () => priceRatesOf("openai-gpt-9" as never), "priceRatesOf: invalid option `prices`: expected one of the price presets openai-gpt-5, openai-gpt-4.1, anthropic-claude, google-gemini-2.5; got the string \"openai-gpt-9\""],
    ["judgeCompactionCost", () => judgeCompactionCost(figures, { prices: "openai-gpt-5", horizonSteps: 0 }), "judgeCompactionCost: invalid option `horizonSteps`: expected a number > 0; got 0"],
    ["anthropicCacheAnchors", () => anthropicCacheAnchors([], { ttl: "2h" } as never), "anthropicCacheAnchors: invalid option `ttl`: expected one of \"5m\", \"1h\"; got the string \"2h\""],
    ["compactionMiddleware", () => compactionMiddleware({} as never), "compactionMiddleware: invalid option `compactor`: expected a strategy (an object with a compact() method); got an empty object"],
    ["autoCompactionMiddleware", () => autoCompactionMiddleware({ contextWindow: 8000, threshold: 1.5 }), "autoCompaction: invalid option `threshold`: expected a number <= 1; got 1.5"],
    ["summarizationMiddleware", () => summarizationMiddleware({ model, keep: { messages: 2, tokens: 3 } as never }), "summarizationMiddleware: invalid option `keep`: expected a size with exactly one of fraction, tokens or messages; got { messages: 2, tokens: 3 }"],
    ["contextEditingMiddleware", () => contextEditingMiddleware({ edits: 5 } as never), "contextEditingMiddleware: invalid option `edits`: expected an array; got 5"],
    ["ClearToolUsesEdit", () => new ClearToolUsesEdit({ keep: { messages: 1, tokens: 2 } as never }), "ClearToolUsesEdit: invalid option `keep`: expected a size with exactly one of fraction, tokens or messages; got { messages: 1, tokens: 2 }"],
    ["anthropicCacheAnchorsMiddleware", () => anthropicCacheAnchorsMiddleware({ maxAnchor: 2 } as never), "anthropicCacheAnchorsMiddleware: invalid option `maxAnchor`: expected one of the options automaticCaching, ttl, name; got an unknown option"],
    ["createCompactionNode", () => createCompactionNode(5 as never), "createCompactionNode: invalid option `compactor`: expected a strategy (an object with a compact() method); got 5"],
    ["compactingNode", () => compactingNode("node" as never, toolResultHiding()), "compactingNode: invalid option `node`: expected a node function; got the string \"node\""],
    ["withCompaction", () => withCompaction(null as never, toolResultHiding()), "withCompaction: invalid option `runnable`: expected a runnable, a function or a map of runnables; got null"],
    ["CompactingChatMessageHistory", () => new CompactingChatMessageHistory({ history: {} } as never), "CompactingChatMessageHistory: invalid option `history`: expected a chat message history (getMessages, addMessages, clear); got an empty object"],
    ["restoreThreadHistory", () => restoreThreadHistory({} as never, "t"), "restoreThreadHistory: invalid option `client`: expected a @langchain/langgraph-sdk Client (threads.getState and store); got an empty object"],
    ["deleteThreadArchive threadId", () => deleteThreadArchive(new InMemoryStore(), ""), "deleteThreadArchive: invalid option `threadId`: expected a non-empty string; got the string \"\""],
    ["deleteThreadArchive pageSize", () => deleteThreadArchive(new InMemoryStore(), "t", { pageSize: 0 }), "deleteThreadArchive: invalid option `pageSize`: expected a positive integer; got 0"],
    ["redactArchived", () => redactArchived(new InMemoryStore(), "t", ["m1", ""]), "redactArchived: invalid option `messageIds`: expected an array of non-empty message ids; got an array of 2 items (item 1 is the string \"\")"],
    ["sdkStore", () => sdkStore({ url: "http://127.0.0.1:2024" } as never), "sdkStore: invalid option `client`: expected a @langchain/langgraph-sdk Client or its client.store; got { url: \"http://127.0.0.1:2024\" }"],
    ["restoreHistory", () => restoreHistory({ messages: [] }, { store: 5 as never, threadId: "t" }), "restoreHistory: invalid option `store`: expected a LangGraph BaseStore, or a @langchain/langgraph-sdk Client or its client.store; got 5"],
    ["SqliteStore", () => new SqliteStore(db(), { table: "x; DROP TABLE y" }), "SqliteStore: invalid option `table`: expected an SQL identifier: letters, digits and underscores, not starting with a digit; got the string \"x; DROP TABLE y\""],
    ["SqliteBlobSaver", () => new SqliteBlobSaver(db(), undefined, { inlineBytes: -1 }), "SqliteBlobSaver: invalid option `inlineBytes`: expected a number >= 0; got -1"],
    ["loadThreadFromPostgres", () => loadThreadFromPostgres("mysql://admin:hunter2@db.example/app", "t"), "loadThreadFromPostgres: invalid option `connectionString`: expected a postgres:// or postgresql:// URL, or a socket path; got a string that is not one (not shown: it may hold a password)"],
    ["loadThreadFromLangGraph", () => loadThreadFromLangGraph("localhost:2024", "t"), "loadThreadFromLangGraph: invalid option `server`: expected an http:// or https:// URL, or a @langchain/langgraph-sdk Client; got the string \"localhost:2024\""],
    ["loadThreadFromJson", () => loadThreadFromJson("/nonexistent/thread.json"), "loadThreadFromJson: invalid option `path`: expected the path of a thread export (JSON); got the string \"/nonexistent/thread.json\" (no such file)"],
    ["buildInspection", () => buildInspection({} as never, { windw: 5 } as never), "buildInspection: invalid option `windw`: expected one of the options tokenCounter, now, contextWindow, triggerTokens; got an unknown option"],
  ])("%s", async (_name, create, message) => {
    const error = await caught(create);
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(message);
    // The fields say the same as the message.
    const { component, option, expected, got, reason } = error as InvalidOptionError;
    expect(`${component}: invalid option \`${option}\`: expected ${expected}; got ${got}${reason === undefined ? "" : ` (${reason})`}`).toBe(message);
  });
});

describe("what an option got is shown short and safely", () => {
  it.each([
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["a number", -0.5, "-0.5"],
    ["minus zero", -0, "0"],
    ["NaN", Number.NaN, "NaN"],
    ["a bigint", 12n, "12n"],
    ["a boolean", false, "false"],
    ["a symbol", Symbol("secret"), "a symbol"],
    ["a short string", "gpt-4o", 'the string "gpt-4o"'],
    ["a string with quotes and a newline", 'say "hi"\n', 'the string "say \\"hi\\"\\n"'],
    ["a long string, cut to 40 characters", "x".repeat(10_000), `the string "${"x".repeat(37)}..."`],
    ["a string cut where a surrogate pair would split", `${"a".repeat(36)}😀tail${"b".repeat(10)}`, `the string "${"a".repeat(36)}..."`],
    ["an empty array", [], "an empty array"],
    ["an array of one", [1], "an array of 1 item"],
    ["a huge array", Array.from({ length: 1_000_000 }, (_, index) => index), "an array of 1000000 items"],
    ["an empty object", {}, "an empty object"],
    ["a small object of plain values", { tokens: -5, name: "x" }, '{ tokens: -5, name: "x" }'],
    ["a key that is not an identifier", { "a-b": 1 }, '{ "a-b": 1 }'],
    ["an object with a nested value", { keep: { messages: 2 } }, "an object with key keep"],
    ["an object with many keys", Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`k${index}`, index])), "an object with keys k0, k1, k2, k3, k4, ... (500 keys)"],
    ["a class instance", new InMemoryStore(), "an InMemoryStore"],
    ["a Map", new Map([[1, 2]]), "a Map"],
    ["an object without a prototype", Object.assign(Object.create(null) as object, { a: 1 }), "{ a: 1 }"],
  ])("%s", (_name, value, shown) => {
    expect(describeValue(value)).toBe(shown);
  });

  it("never prints a function's body", () => {
    const shown = describeValue(function withSecret() {
      return "sk-live-0123456789";
    });
    expect(shown).toBe("a function");
  });

  it("shows a circular object by its keys", () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular["self"] = circular;
    expect(describeValue(circular)).toBe("an object with keys name, self");
    // And an option error for it stays short.
    const error = new InvalidOptionError("x", "y", { got: describeValue(circular), expected: "z" });
    expect(error.message).toBe("x: invalid option `y`: expected z; got an object with keys name, self");
  });

  it("survives objects whose getters and proxies throw", () => {
    const getter = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("read");
      },
    });
    const proxy = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap");
        },
      },
    );
    expect([describeValue(getter), describeValue(proxy)]).toEqual(["a value that cannot be read", "a value that cannot be read"]);
  });

  it("an option error for a huge value carries its short form, not the value", async () => {
    const huge = { messages: "m".repeat(1_000_000) };
    const error = await caught(() => toolResultHiding({ trigger: huge as never }));
    expect((error as Error).message).toBe(
      "toolResultHiding: invalid option `trigger`: expected a size such as { tokens: 12000 }, { messages: 40 } or { fraction: 0.8 }, or a list of sizes; " +
        `got { messages: "${"m".repeat(37)}..." }`,
    );
  });

  it("does not show a connection string, which may hold a password", async () => {
    const error = await caught(() => loadThreadFromPostgres("mysql://admin:hunter2@db.example/app", "t"));
    expect((error as Error).message).not.toContain("hunter2");
  });
});

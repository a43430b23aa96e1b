/**
 * The summary options LangChain users bring, in the core API and in summarizationMiddleware:
 * `{messages}` prompts, summaryPrefix, trimTokensToSummarize, keep shapes, function token counters,
 * provider-prefixed model names (initChatModel), runtime.context overrides, the agent model's window.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { countTokensApproximately, createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { InvalidOptionError, fullSummary, stateSnapshotSummary, tokenCounterFromFunction } from "../../src/index.js";
import { summarizationMiddleware } from "../../src/middleware/index.js";
import { resolveSummaryModel } from "../../src/summary/summary-model.js";
import { assistant, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { startOpenAIServer, type OpenAIServer } from "../support/openai-server.js";

/** A summary model that records what it is sent and answers `answer`. */
function recorder(answer = "S") {
  const calls: unknown[] = [];
  return { calls, model: { invoke: async (input: unknown) => (calls.push(input), new AIMessage(answer)) } };
}
const history = (n: number, size = 40) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`u${i}`, `question ${i} ${"q".repeat(size)}`) : assistant(`a${i}`, `answer ${i} ${"a".repeat(size)}`)));
const words = (messages: BaseMessage[]) => messages.reduce((sum, message) => sum + String(message.content).split(" ").length, 0);

describe("summary prompts: {messages} and {history}", () => {
  it("rejects a prompt with neither placeholder (fullSummary, stateSnapshotSummary)", () => {
    for (const make of [() => fullSummary({ prompt: "Summarize the conversation." }), () => stateSnapshotSummary({ prompt: "Snapshot it.", contextWindow: 1000 })]) {
      const error = (() => {
        try {
          make();
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(
        /^(fullSummary|stateSnapshotSummary): invalid option `prompt`: expected a prompt with a \{history\} or \{messages\} placeholder; got the string "[^"]*" \(without one the summary model would never see the conversation\)$/,
      );
    }
  });

  it("fills {messages} with the conversation, fenced inside its <messages> block", async () => {
    const { calls, model } = recorder("<summary>done</summary>");
    const strategy = fullSummary({ model, keepRecent: 1, prompt: "Summarize:\n<messages>\nMessages:\n{messages}\n</messages>" });
    const result = await strategy.compact([user("u1", "read </messages> now " + "x".repeat(400)), assistant("a1", "ok"), user("u2", "next")]);
    expect(result.status).toBe("summarized");
    const prompt = (calls[0] as BaseMessage[])[0]!.content;
    expect(prompt).toBe(`Summarize:\n<messages>\nMessages:\n[user]\nread &lt;/messages> now ${"x".repeat(400)}\n\n[assistant]\nok\n</messages>`);
  });

  it("fills {messages} in a state snapshot prompt", async () => {
    const { calls, model } = recorder("<state_snapshot>s</state_snapshot>");
    await stateSnapshotSummary({ model, contextWindow: 100, trigger: { messages: 2 }, prompt: "{previous_snapshot}\n<messages>{messages}</messages>" }).compact(history(6, 200));
    expect(String((calls[0] as BaseMessage[])[0]!.content)).toContain("<messages>[user]\nquestion 0 ");
  });
});

describe("summaryPrefix and trimTokensToSummarize", () => {
  it("starts the summary message with summaryPrefix and marks it as LangChain does", async () => {
    const { model } = recorder("<summary>done</summary>");
    const result = await fullSummary({ model, keepRecent: 2, summaryPrefix: "Summary so far:" }).compact(history(6, 200));
    expect(String(result.messages[0]!.content).startsWith("Summary so far:\n\n<summary>\ndone\n</summary>")).toBe(true);
    expect(result.messages[0]!.additional_kwargs).toEqual({ lc_source: "summarization" });
  });

  it("trimTokensToSummarize is summaryInputTokens: the newest messages within it are sent", async () => {
    const run = async (options: object) => {
      const { calls, model } = recorder("<summary>done</summary>");
      await fullSummary({ model, keepRecent: 1, ...options }).compact(history(6, 200));
      return (calls[0] as BaseMessage[])[0]!.content;
    };
    expect(await run({ trimTokensToSummarize: 60 })).toBe(await run({ summaryInputTokens: 60 }));
    expect(await run({ trimTokensToSummarize: 60 })).not.toContain("question 0");
    expect(() => fullSummary({ summaryInputTokens: 10, trimTokensToSummarize: 10 })).toThrow(
      "fullSummary: invalid option `trimTokensToSummarize`: expected no value when summaryInputTokens is given; got 10 (it is another name for summaryInputTokens: give one of them)",
    );
  });
});

describe("keep shapes (fullSummary)", () => {
  const kept = async (keep: object, extra: object = {}) => {
    const { model } = recorder("<summary>x</summary>");
    const input = history(8, 200);
    const result = await fullSummary({ model, keep, ...extra } as never).compact(input);
    return result.messages.slice(1).map((message) => message.id);
  };
  it("{ messages: n } keeps the newest n; { messages: 0 } keeps none", async () => {
    expect(await kept({ messages: 3 })).toEqual(["a5", "u6", "a7"]);
    expect(await kept({ messages: 0 })).toEqual([]);
  });
  it("{ tokens } keeps the newest messages within the tokens, { fraction } within that share of the window", async () => {
    const counter = tokenCounterFromFunction(countTokensApproximately);
    // Each message is 53 approximate tokens: 110 tokens keep two.
    expect(await kept({ tokens: 110 }, { tokenCounter: counter })).toEqual(["u6", "a7"]);
    expect(await kept({ fraction: 0.11 }, { tokenCounter: counter, contextWindow: 1000 })).toEqual(["u6", "a7"]);
    // Less than the newest message: it stays anyway.
    expect(await kept({ tokens: 1 }, { tokenCounter: counter })).toEqual(["a7"]);
  });
  it("does nothing when the conversation is within the tokens to keep, and rejects keep with keepRecent", async () => {
    const { model } = recorder();
    const result = await fullSummary({ model, keep: { tokens: 100_000 } }).compact(history(8));
    expect([result.status, result.reason]).toEqual(["noop", "the conversation is within the 100000 tokens to keep"]);
    expect(() => fullSummary({ keep: { messages: 2 }, keepRecent: 2 })).toThrow(
      "fullSummary: invalid option `keep`: expected no keep when keepRecent is given; got { messages: 2 } (give keep or keepRecent, not both)",
    );
  });
});

describe("a function as tokenCounter", () => {
  it("counts the trigger with the function: the whole history once, each message for the cut", async () => {
    const counter = vi.fn(words);
    const { model } = recorder("<summary>x</summary>");
    const input = history(6, 20);
    const under = await fullSummary({ model, trigger: { tokens: 19 }, tokenCounter: counter }).compact(input);
    expect([under.status, under.tokensBefore]).toEqual(["noop", 18]);
    expect(counter).toHaveBeenCalledWith(input);
    // At 18 it fires.
    const reached = await fullSummary({ model, trigger: { tokens: 18 }, tokenCounter: counter }).compact(input);
    expect([reached.status, reached.trigger]).toEqual(["summarized", "18 tokens >= 18 tokens"]);
    const counterObject = tokenCounterFromFunction(words);
    expect(await counterObject.measure(input)).toEqual({ perMessage: [3, 3, 3, 3, 3, 3], estimated: 18, calibrationAnchors: [], calibrationOffset: 0, total: 18 });
    expect(await counterObject.truncateText("one two three four", 2)).toBe("one two");
  });
  it("rejects a function that returns no count", async () => {
    const error = await caught(() => fullSummary({ tokenCounter: () => Number.NaN, trigger: { tokens: 5 } }).compact(history(4)));
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("tokenCounterFromFunction: invalid option `tokenCounter`: expected a function that returns a finite number of at least 0; got a function that returned NaN");
  });
});

describe("model names through initChatModel", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await startOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('"openai:gpt-4o-mini" goes through initChatModel and calls the server with the bare name and the cap', async () => {
    server.enqueue({ content: "<summary>wire</summary>" });
    const strategy = fullSummary({ model: "openai:gpt-4o-mini", modelOptions: { apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } }, keepRecent: 1 });
    const result = await strategy.compact(history(4, 200));
    expect(result.status).toBe("summarized");
    const body = server.requests.at(-1)!.body!;
    expect([body.model, body.max_tokens ?? body.max_completion_tokens]).toEqual(["gpt-4o-mini", 1000]);
  });

  it('"anthropic:claude-sonnet-4-5" and a bare "claude-..." name build ChatAnthropic; other bare names ChatOpenAI', async () => {
    const anthropic = (await resolveSummaryModel("anthropic:claude-sonnet-4-5", 500, { apiKey: "test" })) as unknown as { _getModelInstance(): Promise<object> };
    expect((await anthropic._getModelInstance()).constructor.name).toBe("ChatAnthropic");
    const bare = (await resolveSummaryModel("claude-3-5-haiku-latest", 500, { apiKey: "test" })) as unknown as { _getModelInstance(): Promise<object> };
    expect((await bare._getModelInstance()).constructor.name).toBe("ChatAnthropic");
    expect((await resolveSummaryModel("my-local-model", 500, { apiKey: "test" })).constructor.name).toBe("ChatOpenAI");
  });

  it("summarizationMiddleware with a provider-prefixed summary model, through a real agent", async () => {
    server.enqueue({ content: "wire summary" }, { content: "agent answer" });
    const { ChatOpenAI } = await import("@langchain/openai");
    const agent = createAgent({
      model: new ChatOpenAI({ model: "gpt-4o", apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } }),
      middleware: [
        summarizationMiddleware({
          model: "openai:gpt-4o-mini",
          modelOptions: { apiKey: "test", maxRetries: 0, configuration: { baseURL: server.baseURL } },
          trigger: { messages: 5 },
          keep: { messages: 2 },
        }),
      ],
    });
    const before = server.requests.length;
    const result = await agent.invoke({ messages: history(5, 200) });
    const [summaryCall, agentCall] = server.requests.slice(before).map((request) => request.body!);
    expect(summaryCall!.model).toBe("gpt-4o-mini");
    expect(String(summaryCall!.messages[0]!.content)).toContain("Messages to summarize:\nHuman: question 0 ");
    expect(agentCall!.messages.map((message) => message.content)).toEqual([
      "Here is a summary of the conversation to date:\n\nwire summary",
      result.messages[1]!.content,
      result.messages[2]!.content,
    ]);
  });
});

describe("summarizationMiddleware: runtime.context and the agent model's window", () => {
  it("takes trigger, keep, summaryPrefix and summaryPrompt from runtime.context for that run", async () => {
    const { calls, model } = recorder("run summary");
    const agent = createAgent({ model: fakeModel().respond(new AIMessage("done")), middleware: [summarizationMiddleware({ model, trigger: { tokens: 1_000_000 } })] });
    const result = await agent.invoke(
      { messages: history(5, 200) },
      { context: { trigger: { messages: 5 }, keep: { messages: 1 }, summaryPrefix: "Run prefix:", summaryPrompt: "Only this: {messages}" } },
    );
    expect(String(calls[0]).startsWith("Only this: Human: question 0")).toBe(true);
    expect(result.messages.map((message: BaseMessage) => message.content)).toEqual(["Run prefix:\n\nrun summary", history(5, 200)[4]!.content, "done"]);
    // Without the context, the configured trigger holds: nothing is summarized.
    const plain = await createAgent({ model: fakeModel().respond(new AIMessage("done")), middleware: [summarizationMiddleware({ model, trigger: { tokens: 1_000_000 } })] }).invoke({
      messages: history(5, 200),
    });
    expect(plain.messages).toHaveLength(6);
  });

  it("rejects a runtime.context prompt without {messages}", async () => {
    const agent = createAgent({ model: fakeModel().respond(new AIMessage("done")), middleware: [summarizationMiddleware({ model: recorder().model, trigger: { messages: 2 } })] });
    const error = await caught(() => agent.invoke({ messages: history(3) }, { context: { summaryPrompt: "no placeholder" } }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain("summarizationMiddleware (runtime.context): invalid option `summaryPrompt`");
  });

  it("reads a fraction's window from the agent model's profile when the summary model has none", async () => {
    const { calls, model } = recorder("S");
    const agentModel = fakeModel().respond(new AIMessage("first")).respond(new AIMessage("second"));
    Object.defineProperty(agentModel, "profile", { value: { maxInputTokens: 1000 } });
    const middleware = summarizationMiddleware({ model, trigger: { fraction: 0.2 }, keep: { messages: 2 } });
    const agent = createAgent({ model: agentModel, middleware: [middleware] });
    // 5 messages of about 53 tokens: over 200 (0.2 of 1000). The first call learns the window and
    // summarizes that call's request; the state is compacted at the next call.
    const first = await agent.invoke({ messages: history(5, 200) });
    expect(calls).toHaveLength(1);
    expect((agentModel.calls[0]!.messages as BaseMessage[]).map((message) => message.content)).toEqual([
      "Here is a summary of the conversation to date:\n\nS",
      history(5, 200)[3]!.content,
      history(5, 200)[4]!.content,
    ]);
    expect(first.messages).toHaveLength(6);
    const second = await agent.invoke({ messages: [...first.messages, new HumanMessage("again")] });
    expect(second.messages.map((message: BaseMessage) => message.content)).toEqual(["Here is a summary of the conversation to date:\n\nS", "first", "again", "second"]);
  });
});

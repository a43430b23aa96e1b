/**
 * LangChain.js's own summarizationMiddleware suite (libs/langchain/src/agents/middleware/tests/
 * summarization.test.ts), ported to this package's drop-in: the same options, run through a real
 * `createAgent` from "langchain". Where the upstream assertion is loose (`<=`, `> 0`), the exact
 * outcome is asserted. Deliberate differences are marked "Difference:" and listed in
 * docs/migration/summarization.md.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createAgent } from "langchain";
import { describe, expect, it, vi } from "vitest";
import { InvalidOptionError, compactionMarkerOf } from "../../src/index.js";
import { summarizationMiddleware } from "../../src/middleware/index.js";
import { caught } from "../support/errors.js";

const RICH_SUMMARY =
  "Previous conversation covered: project architecture discussion, challenges with scalability, and recommendations for improvement. Key decisions: use microservices, implement caching, optimize database queries.";

/** Upstream's mock summarization model: a plain object whose invoke gets the prompt string. */
function createMockSummarizationModel() {
  const invoke = vi.fn(async (prompt: string, _config?: unknown) =>
    prompt.includes("Context Extraction Assistant") ? { content: RICH_SUMMARY } : { content: "Summary of previous conversation." },
  );
  return { invoke, getName: () => "mock-summarizer", _modelType: "mock", lc_runnable: true } as {
    invoke: typeof invoke;
    getName: () => string;
    profile?: { maxInputTokens?: number };
    model?: string;
  };
}

const FIRST_ANSWER = "I understand your project. Let me analyze the architecture.";
/** Upstream's main model: answers with its first scripted message (no tools are bound, so the agent stops there). */
const createMockMainModel = () => fakeModel().respond(new AIMessage(FIRST_ANSWER));
const invokeHook = (middleware: ReturnType<typeof summarizationMiddleware>, messages: BaseMessage[], runtime: object) =>
  (middleware.beforeModel as unknown as (state: object, runtime: object) => Promise<unknown>)({ messages }, runtime);
const contents = (messages: readonly BaseMessage[]) => messages.map((message) => message.content);
const PREFIX = "Here is a summary of the conversation to date:";
const summaryOf = (text: string) => `${PREFIX}\n\n${text}`;

const longConversation = () => [
  new HumanMessage(`I'm working on a complex software project. ${"x".repeat(200)}`),
  new AIMessage(`I understand your project. Let me help. ${"x".repeat(200)}`),
  new HumanMessage(`Here are more details about the architecture. ${"x".repeat(200)}`),
  new AIMessage(`That's interesting. Tell me more. ${"x".repeat(200)}`),
  new HumanMessage(`More information here. ${"x".repeat(200)}`),
  new AIMessage(`Got it. ${"x".repeat(200)}`),
  new HumanMessage("What do you recommend?"),
];
const sixPlusFinal = () => [
  new HumanMessage(`Message 1: ${"x".repeat(200)}`),
  new AIMessage(`Response 1: ${"x".repeat(200)}`),
  new HumanMessage(`Message 2: ${"x".repeat(200)}`),
  new AIMessage(`Response 2: ${"x".repeat(200)}`),
  new HumanMessage(`Message 3: ${"x".repeat(200)}`),
  new AIMessage(`Response 3: ${"x".repeat(200)}`),
  new HumanMessage("Final question"),
];

describe("summarizationMiddleware (LangChain's suite, ported)", () => {
  it("should tag the summarization model invocation with lc_source metadata", async () => {
    const summarizationModel = createMockSummarizationModel();
    const middleware = summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } });
    await invokeHook(middleware, longConversation(), { context: {} });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(summarizationModel.invoke.mock.calls[0]![1]).toMatchObject({ metadata: { lc_source: "summarization" } });
  });

  it("should merge lc_source metadata with parent runnable config from runtime", async () => {
    const summarizationModel = createMockSummarizationModel();
    const middleware = summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } });
    await invokeHook(middleware, longConversation(), { context: {}, metadata: { test_parent: "metadata" }, tags: ["test_parent_tag"] });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    const config = summarizationModel.invoke.mock.calls[0]![1] as { metadata: object; tags: string[] };
    expect(config).toMatchObject({ metadata: { test_parent: "metadata", lc_source: "summarization" } });
    expect(config.tags).toContain("test_parent_tag");
  });

  it("should trigger summarization when token count exceeds threshold", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } })] });
    const input = longConversation();
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(result.messages[0]).toBeInstanceOf(HumanMessage);
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    // Ours too: the package's marker, with the 5 messages it replaced.
    expect(compactionMarkerOf(result.messages[0]!)).toMatchObject({ summary: true, summarizedMessages: 5, summaryModel: "mock-summarizer" });
    expect(contents(result.messages.slice(1))).toEqual([input[5]!.content, input[6]!.content, FIRST_ANSWER]);
  });

  it("should trigger summarization when token count exceeds threshold (deprecated syntax)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, maxTokensBeforeSummary: 50, messagesToKeep: 2 })],
    });
    const input = longConversation();
    const result = await agent.invoke({ messages: input });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      "maxTokensBeforeSummary is deprecated. Use `trigger: { tokens: value }` instead.",
      "messagesToKeep is deprecated. Use `keep: { messages: value }` instead.",
    ]);
    warn.mockRestore();
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(contents(result.messages.slice(1))).toEqual([input[5]!.content, input[6]!.content, FIRST_ANSWER]);
  });

  it("should not trigger summarization when below token threshold", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 5000 }, keep: { messages: 10 } })] });
    const result = await agent.invoke({ messages: [new HumanMessage("Hello"), new AIMessage("Hi there!"), new HumanMessage("How are you?")] });
    expect(summarizationModel.invoke).not.toHaveBeenCalled();
    expect(contents(result.messages)).toEqual(["Hello", "Hi there!", "How are you?", FIRST_ANSWER]);
  });

  it("should trigger summarization with multiple trigger conditions (OR logic)", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: [{ messages: 3 }, { tokens: 3000, messages: 6 }], keep: { messages: 2 } })],
    });
    const input = [new HumanMessage("Message 1"), new AIMessage("Response 1"), new HumanMessage("Message 2"), new AIMessage("Response 2"), new HumanMessage("Message 3")];
    const result = await agent.invoke({ messages: input });
    // The first condition fired (OR logic) and the summary was asked for.
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    // Difference: the 60-token summary of three 3-token messages would grow the history, so the
    // history is left as it was and the log says why; LangChain replaces it with the summary anyway.
    expect(contents(result.messages)).toEqual([...contents(input), FIRST_ANSWER]);
    expect(result.compactionLog.map((record) => [record.status, record.reason?.split(":")[0]])).toEqual([["failed", "inflated"]]);
    // With a summary that does shrink it, the same trigger summarizes as LangChain does.
    const shortSummary = { invoke: vi.fn(async () => ({ content: "Greetings." })) };
    const second = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: shortSummary as never, trigger: [{ messages: 3 }, { tokens: 3000, messages: 6 }], keep: { messages: 2 } })],
    });
    const longer = [new HumanMessage(`Message 1 ${"x".repeat(100)}`), ...input.slice(1)];
    const summarized = await second.invoke({ messages: longer });
    expect(summarized.messages[0]!.content).toBe(summaryOf("Greetings."));
    expect(summarized.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(contents(summarized.messages.slice(1))).toEqual(["Response 2", "Message 3", FIRST_ANSWER]);
  });

  it("should preserve AI/Tool message pairs together", async () => {
    const summarizationModel = createMockSummarizationModel();
    const toolCallMessage = new AIMessage({ content: "Let me check the weather.", tool_calls: [{ id: "call_123", name: "get_weather", args: { location: "Paris" } }] });
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("Based on the weather, I recommend taking an umbrella.")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, maxTokensBeforeSummary: 400, messagesToKeep: 4 })],
    });
    vi.spyOn(console, "warn").mockImplementationOnce(() => {}).mockImplementationOnce(() => {});
    const input = [
      new HumanMessage(`Old conversation part 1. ${"x".repeat(100)}`),
      new AIMessage(`Old response 1. ${"x".repeat(100)}`),
      new HumanMessage(`Old conversation part 2. ${"x".repeat(100)}`),
      new AIMessage(`Old response 2. ${"x".repeat(100)}`),
      toolCallMessage,
      new ToolMessage({ content: "Weather in Paris: Rainy, 15°C", tool_call_id: "call_123" }),
      new HumanMessage("Thanks for checking the weather!"),
    ];
    const result = await agent.invoke({ messages: input });
    // About 190 tokens: under the 400 of the trigger, so nothing is summarized and the pair stays.
    expect(summarizationModel.invoke).not.toHaveBeenCalled();
    expect(contents(result.messages)).toEqual([...contents(input), "Based on the weather, I recommend taking an umbrella."]);
  });

  it("should handle token-based keep configuration", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("Response")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { tokens: 50 } })],
    });
    const input = [1, 2, 3].flatMap((n) => [new HumanMessage(`Message ${n}: ${"x".repeat(100)}`), new AIMessage(`Response ${n}: ${"x".repeat(100)}`)]);
    const result = await agent.invoke({ messages: [...input, new HumanMessage("Final question")] });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(result.messages.slice(1).map((message) => [message.type, message.content])).toEqual([
      ["ai", input[5]!.content],
      ["human", "Final question"],
      ["ai", "Response"],
    ]);
  });

  it("should handle fraction-based trigger and keep with model profile", async () => {
    const summarizationModel = createMockSummarizationModel();
    summarizationModel.profile = { maxInputTokens: 8192 };
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("Response")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { fraction: 0.1 }, keep: { fraction: 0.05 } })],
    });
    const input = Array.from({ length: 10 }, (_, i) => [new HumanMessage(`Message ${i}: ${"x".repeat(200)}`), new AIMessage(`Response ${i}: ${"x".repeat(200)}`)]).flat();
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(result.messages[0]).toBeInstanceOf(HumanMessage);
    // 409 tokens kept (5% of 8192): the newest 7 messages of about 55 tokens each.
    expect(contents(result.messages.slice(1))).toEqual([...contents(input.slice(-7)), "Response"]);
  });

  it("should handle fraction-based trigger and keep without model profile", async () => {
    const summarizationModel = createMockSummarizationModel();
    // LangChain's table answers 4097 for this name, as LangChain's middleware reads it.
    summarizationModel.model = "claude-sonnet-4-20250514";
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { fraction: 0.5 }, keep: { fraction: 0.05 } })],
    });
    const input = Array.from({ length: 100 }, (_, i) => [new HumanMessage(`Message ${i}: ${"x".repeat(200)}`), new AIMessage(`Response ${i}: ${"x".repeat(200)}`)]).flat();
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(result.messages.length).toBe(5);
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(contents(result.messages.slice(1))).toEqual([input[197]!.content, input[198]!.content, input[199]!.content, FIRST_ANSWER]);
  });

  it("should throw error when fraction-based config used without model profile", async () => {
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: createMockSummarizationModel() as never, trigger: { fraction: 0.5 }, keep: { messages: 10 } })],
    });
    const error = await caught(() => agent.invoke({ messages: [new HumanMessage("Test message")] }));
    // createAgent wraps what a wrapModelCall hook throws in its MiddlewareError, the cause kept.
    expect((error as Error).cause).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain("Model profile information is required");
  });

  it("should handle trimTokensToSummarize parameter", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 3 }, trimTokensToSummarize: 100 })],
    });
    const input = sixPlusFinal();
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    const summaryPrompt = summarizationModel.invoke.mock.calls[0]![0];
    expect(summaryPrompt).toContain("Messages to summarize:");
    expect(summaryPrompt).not.toContain("Human: Message 1: xxxxxxxxxxxxxxx");
    expect(summaryPrompt).toContain("AI: Response 2: xxxxxxxxxxxxxxx");
    expect(summaryPrompt).not.toContain("Human: Message 3: xxxxxxxxxxxxxxx");
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(contents(result.messages.slice(1))).toEqual([input[4]!.content, input[5]!.content, "Final question", FIRST_ANSWER]);
  });

  it("should handle trimTokensToSummarize set to undefined (no trimming)", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } })] });
    const input = sixPlusFinal();
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    const summaryPrompt = summarizationModel.invoke.mock.calls[0]![0];
    expect(summaryPrompt).toContain("Messages to summarize:");
    expect(summaryPrompt).toContain("Human: Message 1: xxxxxxxxxxxxxxx");
    expect(summaryPrompt).toContain("AI: Response 2: xxxxxxxxxxxxxxx");
    expect(summaryPrompt).toContain("Human: Message 3: xxxxxxxxxxxxxxx");
    expect(summaryPrompt).not.toContain("AI: Response 3: xxxxxxxxxxxxxxx");
    expect(result.messages.length).toBe(4);
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(contents(result.messages.slice(1))).toEqual([input[5]!.content, "Final question", FIRST_ANSWER]);
  });

  it("should use custom token counter when provided", async () => {
    const summarizationModel = createMockSummarizationModel();
    const customTokenCounter = vi.fn((messages: BaseMessage[]) => {
      let wordCount = 0;
      for (const message of messages) if (typeof message.content === "string") wordCount += message.content.split(" ").length;
      return wordCount;
    });
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 }, tokenCounter: customTokenCounter })],
    });
    const input = [
      new HumanMessage(
        "This is a long message with many words that should trigger the summarization because it has more than fifty words in total when combined with other messages in the conversation history and this sentence adds even more words to ensure we exceed the threshold.",
      ),
      new AIMessage("This is another long response with many words to add to the total count and make sure we definitely exceed the threshold for summarization to occur and this adds even more words."),
      new HumanMessage("Another message with some words."),
      new AIMessage("Another response with some words."),
      new HumanMessage("Short question?"),
    ];
    const result = await agent.invoke({ messages: input });
    // The whole history was counted with it (the trigger), as well as each message.
    expect(customTokenCounter).toHaveBeenCalledWith(input);
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(contents(result.messages)).toEqual([summaryOf(RICH_SUMMARY), "Another response with some words.", "Short question?", FIRST_ANSWER]);
  });

  it("should handle empty conversation gracefully", async () => {
    vi.spyOn(console, "warn").mockImplementationOnce(() => {}).mockImplementationOnce(() => {});
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, maxTokensBeforeSummary: 100, messagesToKeep: 5 })] });
    const result = await agent.invoke({ messages: [] });
    expect(contents(result.messages)).toEqual([FIRST_ANSWER]);
    expect(summarizationModel.invoke).not.toHaveBeenCalled();
  });

  it("should validate context size schema correctly", () => {
    const model = createMockSummarizationModel() as never;
    expect(() => summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 10 } })).not.toThrow();
    expect(() => summarizationMiddleware({ model, trigger: { fraction: 0.8 }, keep: { tokens: 5000 } })).not.toThrow();
    expect(() => summarizationMiddleware({ model, trigger: { fraction: 1.5 }, keep: { messages: 10 } })).toThrow(InvalidOptionError);
    expect(() => summarizationMiddleware({ model, trigger: { tokens: -100 }, keep: { messages: 10 } })).toThrow(InvalidOptionError);
    expect(() => summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 0 } })).not.toThrow();
    expect(() => summarizationMiddleware({ model, trigger: { tokens: 1000 }, keep: { messages: 10, tokens: 5000 } as never })).toThrow(InvalidOptionError);
  });

  it("should handle trigger set to undefined (disabled)", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, keep: { messages: 10 } })] });
    const input = [new HumanMessage(`Message 1: ${"x".repeat(500)}`), new AIMessage(`Response 1: ${"x".repeat(500)}`), new HumanMessage(`Message 2: ${"x".repeat(500)}`)];
    const result = await agent.invoke({ messages: input });
    expect(summarizationModel.invoke).not.toHaveBeenCalled();
    expect(contents(result.messages)).toEqual([...contents(input), FIRST_ANSWER]);
  });

  it("should not start preserved messages with AI message containing tool calls", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 100 }, keep: { messages: 4 } })] });
    const input = [
      new HumanMessage(`First message with some content to take up tokens. ${"x".repeat(400)}`),
      new AIMessage(`First response. ${"x".repeat(400)}`),
      new HumanMessage(`Second message with more content to build up tokens. ${"x".repeat(400)}`),
      new AIMessage(`Second response. ${"x".repeat(400)}`),
      new HumanMessage(`Third message with even more content. ${"x".repeat(400)}`),
      new AIMessage(`Third response. ${"x".repeat(400)}`),
      new HumanMessage("Let me search for information."),
      new AIMessage({ content: "I'll search for that.", tool_calls: [{ id: "call_1", name: "search", args: { query: "test" } }] }),
      new ToolMessage({ content: "Search results", tool_call_id: "call_1" }),
      new HumanMessage("What did you find?"),
    ];
    const result = await agent.invoke({ messages: input });
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
    expect(contents(result.messages.slice(1))).toEqual([...contents(input.slice(6)), FIRST_ANSWER]);
  });

  it("should use default summaryPrefix when not provided", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } })] });
    const result = await agent.invoke({ messages: sixPlusFinal().slice(2) });
    expect(result.messages[0]!.content).toBe(`Here is a summary of the conversation to date:\n\n${RICH_SUMMARY}`);
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
  });

  it("should use custom summaryPrefix when provided", async () => {
    const summarizationModel = createMockSummarizationModel();
    const customPrefix = "Custom summary prefix for testing:";
    const agent = createAgent({
      model: createMockMainModel(),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 }, summaryPrefix: customPrefix })],
    });
    const result = await agent.invoke({ messages: sixPlusFinal().slice(2) });
    expect(result.messages[0]!.content).toBe(`${customPrefix}\n\n${RICH_SUMMARY}`);
    expect(result.messages[0]!.additional_kwargs).toStrictEqual({ lc_source: "summarization" });
  });

  describe("internal call suppression", () => {
    const SUMMARY = "INTERNAL_SUMMARY_OUTPUT";
    const MAIN = "Main model answer.";
    const inputMessages = () => sixPlusFinal().slice(2);
    const buildAgent = (summarizer: object) =>
      createAgent({ model: fakeModel().respond(new AIMessage(MAIN)), middleware: [summarizationMiddleware({ model: summarizer as never, trigger: { tokens: 50 }, keep: { messages: 2 } })] });

    it('omits the summarization call from stream({ streamMode: "messages" })', async () => {
      const texts: string[] = [];
      for await (const [chunk] of await buildAgent(fakeModel().respond(new AIMessage(SUMMARY))).stream({ messages: inputMessages() }, { streamMode: "messages" })) {
        texts.push(String((chunk as BaseMessage).content));
      }
      expect(texts).toEqual([MAIN]);
    });

    it('omits a streaming summarization call from stream({ streamMode: "messages" })', async () => {
      const texts: string[] = [];
      for await (const [chunk] of await buildAgent(new FakeListChatModel({ responses: [SUMMARY] })).stream({ messages: inputMessages() }, { streamMode: "messages" })) {
        texts.push(String((chunk as BaseMessage).content));
      }
      expect(texts).toEqual([MAIN]);
    });

    it("still surfaces the summarization call on streamEvents v2", async () => {
      const sources: (string | null)[] = [];
      for await (const event of buildAgent(fakeModel().respond(new AIMessage(SUMMARY))).streamEvents({ messages: inputMessages() }, { version: "v2" })) {
        if (event.event !== "on_chat_model_end") continue;
        if ((event.data?.output as BaseMessage | undefined)?.content === SUMMARY) sources.push((event.metadata?.lc_source as string | undefined) ?? null);
      }
      expect(sources).toEqual(["summarization"]);
    });
  });

  it("should move cutoff backward to preserve AI/Tool pairs when cutoff lands on ToolMessage", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("Final response")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 100 }, keep: { tokens: 150 } })],
    });
    const input = [
      new HumanMessage("x".repeat(300)),
      new AIMessage({ content: "y".repeat(200), tool_calls: [{ id: "call_preserve", name: "test_tool", args: { test: true } }] }),
      new ToolMessage({ content: "z".repeat(50), tool_call_id: "call_preserve", name: "test_tool" }),
      new HumanMessage("a".repeat(180)),
      new HumanMessage("b".repeat(160)),
    ];
    const result = await agent.invoke({ messages: input });
    expect(result.messages[0]!.content).toBe(summaryOf(RICH_SUMMARY));
    expect(contents(result.messages.slice(1))).toEqual([...contents(input.slice(1)), "Final response"]);
  });

  it("should handle orphan ToolMessage by advancing forward", async () => {
    // Difference: the orphan result (no call answers to it) is dropped before the summary, as a
    // provider would reject it; LangChain keeps it and moves its cut past it.
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("Final response")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 2 } })],
    });
    const input = [
      new HumanMessage("x".repeat(200)),
      new AIMessage("No tool calls here"),
      new ToolMessage({ content: "Orphan result", tool_call_id: "orphan_call", name: "orphan_tool" }),
      new HumanMessage("y".repeat(200)),
      new HumanMessage("Final question"),
    ];
    const result = await agent.invoke({ messages: input });
    // Difference, too: the 70-token summary of the 55 tokens before the kept part would grow the
    // history, so only the repair is written (and logged, with what it dropped).
    expect(contents(result.messages)).toEqual(["x".repeat(200), "No tool calls here", "y".repeat(200), "Final question", "Final response"]);
    expect(
      result.compactionLog.map((record) => [record.status, record.repair?.problems.map(({ kind }) => kind)]),
    ).toEqual([["repaired", ["orphan-result"]]]);
  });

  it("should preserve many parallel tool calls together with AIMessage", async () => {
    const summarizationModel = createMockSummarizationModel();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage("All files read and summarized")),
      middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 100 }, keep: { messages: 5 } })],
    });
    const toolCalls = Array.from({ length: 10 }, (_, i) => ({ id: `call_${i}`, name: "read_file", args: { file: `file${i}.txt` } }));
    const input = [
      new HumanMessage("x".repeat(500)),
      new AIMessage({ content: "I'll read all 10 files", tool_calls: toolCalls }),
      ...toolCalls.map((call) => new ToolMessage({ content: `Contents of ${call.args.file}`, tool_call_id: call.id, name: call.name })),
      new HumanMessage("Now summarize them"),
    ];
    const result = await agent.invoke({ messages: input });
    // The cut lands among the results and moves back to the call: only the first message is summarized.
    expect(contents(result.messages)).toEqual([summaryOf(RICH_SUMMARY), ...contents(input.slice(1)), "All files read and summarized"]);
  });

  it("should use getBufferString format to avoid token inflation from message metadata", async () => {
    let capturedPrompt = "";
    const summarizationModel = {
      invoke: vi.fn(async (prompt: string) => {
        capturedPrompt = prompt;
        return { content: "Summary of the conversation." };
      }),
      getName: () => "mock-summarizer",
      profile: {},
    };
    const agent = createAgent({ model: createMockMainModel(), middleware: [summarizationMiddleware({ model: summarizationModel as never, trigger: { tokens: 50 }, keep: { messages: 1 } })] });
    await agent.invoke({
      messages: [
        new HumanMessage("What is the weather in NYC?"),
        new AIMessage({ content: "Let me check the weather for you.", tool_calls: [{ name: "get_weather", args: { city: "NYC" }, id: "call_123" }] }),
        new ToolMessage({ content: "72F and sunny", tool_call_id: "call_123", name: "get_weather" }),
        new AIMessage({ content: `It is 72F and sunny in NYC! ${"x".repeat(200)}` }),
        new HumanMessage("Thanks!"),
      ],
    });
    expect(summarizationModel.invoke).toHaveBeenCalledTimes(1);
    expect(capturedPrompt).toContain("Human: What is the weather in NYC?");
    expect(capturedPrompt).toContain('AI: Let me check the weather for you.[{"name":"get_weather","args":{"city":"NYC"},"id":"call_123"');
    expect(capturedPrompt).toContain("Tool: get_weather, 72F and sunny");
    expect(capturedPrompt).not.toContain('"type": "human"');
    expect(capturedPrompt).not.toContain('"additional_kwargs"');
    expect(capturedPrompt).not.toContain('"response_metadata"');
  });
});

/**
 * LangChain.js's own test suite for `contextEditingMiddleware` / `ClearToolUsesEdit`
 * (libs/langchain/src/agents/middleware/tests/contextEditing.test.ts), case by case, run through a
 * real `createAgent` with this package's drop-in imported in their place. Where LangChain's case
 * asserts loosely (at least / at most), the exact outcome is asserted here.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, type ContextEdit, type TokenCounter } from "langchain";
import { describe, expect, it } from "vitest";
import { ClearToolUsesEdit, contextEditingMiddleware } from "../../src/middleware/index.js";

type Metadata = { context_editing?: { cleared?: boolean; strategy?: string; cleared_tool_inputs?: string[] } };
const editing = (message: BaseMessage) => (message.response_metadata as Metadata | undefined)?.context_editing;
const cleared = (messages: readonly BaseMessage[]) => messages.filter(ToolMessage.isInstance).filter((message) => editing(message)?.cleared);
const uncleared = (messages: readonly BaseMessage[]) => messages.filter(ToolMessage.isInstance).filter((message) => !editing(message)?.cleared);

/** LangChain's fixture: two searches with 1000-character results, then a third question. */
function toolCallConversation(): BaseMessage[] {
  return [
    new HumanMessage("Search for 'React'"),
    new AIMessage({ content: "I'll search for that.", tool_calls: [{ id: "call_1", name: "search", args: { query: "React" } }] }),
    new ToolMessage({ content: "x".repeat(1000), tool_call_id: "call_1" }),
    new AIMessage("Found React information."),
    new HumanMessage("Now search for 'TypeScript'"),
    new AIMessage({ content: "I'll search for TypeScript.", tool_calls: [{ id: "call_2", name: "search", args: { query: "TypeScript" } }] }),
    new ToolMessage({ content: "y".repeat(1000), tool_call_id: "call_2" }),
    new AIMessage("Found TypeScript information."),
    new HumanMessage("Search for 'JavaScript'"),
  ];
}

/** Runs an agent with the middleware on `messages`; returns the final state's messages and what the model got. */
async function run(middleware: ReturnType<typeof contextEditingMiddleware>, messages: BaseMessage[]) {
  const model = fakeModel().respond(new AIMessage("Response"));
  const agent = createAgent({ model, middleware: [middleware] });
  const result = await agent.invoke({ messages });
  return { messages: result.messages as BaseMessage[], sent: model.calls[0]!.messages as BaseMessage[] };
}

describe("LangChain's contextEditingMiddleware suite, on langchain-compaction/middleware", () => {
  describe("default behavior", () => {
    it("does not clear anything below the default threshold (100 000 tokens)", async () => {
      const { messages } = await run(contextEditingMiddleware(), [
        new HumanMessage("Hello"),
        new AIMessage({ content: "Let me search.", tool_calls: [{ id: "call_1", name: "search", args: { query: "test" } }] }),
        new ToolMessage({ content: "Results", tool_call_id: "call_1" }),
        new AIMessage("Done."),
        new HumanMessage("Thanks"),
      ]);
      expect(cleared(messages)).toEqual([]);
      expect(messages.map((message) => message.content)).toEqual(["Hello", "Let me search.", "Results", "Done.", "Thanks", "Response"]);
    });

    it("clears tool results once the trigger is exceeded", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 100 }, keep: { messages: 1 } })] }), toolCallConversation());
      const clearedResults = cleared(messages);
      expect(clearedResults.map((message) => [message.tool_call_id, message.content])).toEqual([["call_1", "[cleared]"]]);
      expect(editing(clearedResults[0]!)).toEqual({ cleared: true, strategy: "clear_tool_uses" });
    });
  });

  describe("custom ClearToolUsesEdit configuration", () => {
    it("respects a custom trigger threshold (keep 0 clears every result)", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 0 } })] }), toolCallConversation());
      expect(messages.length).toBe(10);
      expect(cleared(messages).map((message) => message.tool_call_id)).toEqual(["call_1", "call_2"]);
    });

    it("keeps the specified number of most recent tool results", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 1 } })] }), toolCallConversation());
      expect(uncleared(messages).map((message) => [message.tool_call_id, message.content])).toEqual([["call_2", "y".repeat(1000)]]);
    });

    it("never clears excluded tools", async () => {
      const { messages } = await run(
        contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 2 }, excludeTools: ["important_search"] })] }),
        [
          new HumanMessage("Search"),
          new AIMessage({ content: "Searching...", tool_calls: [{ id: "call_1", name: "important_search", args: { query: "test" } }] }),
          new ToolMessage({ content: "x".repeat(1000), tool_call_id: "call_1", name: "important_search" }),
          new AIMessage("Found it."),
          new HumanMessage("Search again"),
          new AIMessage({ content: "Searching...", tool_calls: [{ id: "call_2", name: "regular_search", args: { query: "test" } }] }),
          new ToolMessage({ content: "y".repeat(1000), tool_call_id: "call_2", name: "regular_search" }),
          new AIMessage("Done."),
          new HumanMessage("One more"),
        ],
      );
      const excluded = messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === "call_1")!;
      expect(editing(excluded)).toBeUndefined();
      expect(excluded.content).toBe("x".repeat(1000));
    });

    it("clears tool inputs when clearToolInputs is true", async () => {
      const { messages } = await run(
        contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 1 }, clearToolInputs: true })] }),
        toolCallConversation(),
      );
      const [clearedResult] = cleared(messages);
      expect(clearedResult!.tool_call_id).toBe("call_1");
      const call = messages.find((message) => AIMessage.isInstance(message) && message.tool_calls?.some((each) => each.id === "call_1")) as AIMessage;
      expect(call.tool_calls![0]!.args).toEqual({});
      expect(editing(call)?.cleared_tool_inputs).toEqual(["call_1"]);
      const other = messages.find((message) => AIMessage.isInstance(message) && message.tool_calls?.some((each) => each.id === "call_2")) as AIMessage;
      expect(other.tool_calls![0]!.args).toEqual({ query: "TypeScript" });
    });

    it("uses a custom placeholder", async () => {
      const { messages } = await run(
        contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 1 }, placeholder: "[REDACTED]" })] }),
        toolCallConversation(),
      );
      expect(cleared(messages).map((message) => message.content)).toEqual(["[REDACTED]"]);
    });
  });

  describe("deprecated properties", () => {
    it("supports triggerTokens", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ triggerTokens: 100, keep: { messages: 1 } })] }), toolCallConversation());
      expect(messages.length).toBe(10);
      expect(cleared(messages).map((message) => message.tool_call_id)).toEqual(["call_1"]);
    });

    it("supports keepMessages", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 100 }, keepMessages: 1 })] }), toolCallConversation());
      expect(messages.length).toBe(10);
      expect(uncleared(messages).map((message) => message.tool_call_id)).toEqual(["call_2"]);
    });

    it("supports clearAtLeast: short of it, kept results are cleared too", async () => {
      const conversation: BaseMessage[] = [
        new HumanMessage("Search for 'React'"),
        new AIMessage({ content: "I'll search for that.", tool_calls: [{ id: "call_1", name: "search", args: { query: "React" } }] }),
        new ToolMessage({ content: "x".repeat(500), tool_call_id: "call_1" }),
        new AIMessage("Found React information."),
        new HumanMessage("Now search for 'TypeScript'"),
        new AIMessage({ content: "I'll search for TypeScript.", tool_calls: [{ id: "call_2", name: "search", args: { query: "TypeScript" } }] }),
        new ToolMessage({ content: "y".repeat(500), tool_call_id: "call_2" }),
        new AIMessage("Found TypeScript information."),
        new HumanMessage("Search for 'JavaScript'"),
        new AIMessage({ content: "I'll search for JavaScript.", tool_calls: [{ id: "call_3", name: "search", args: { query: "JavaScript" } }] }),
        new ToolMessage({ content: "z".repeat(500), tool_call_id: "call_3" }),
        new AIMessage("Found JavaScript information."),
        new HumanMessage("One more search"),
      ];
      const { messages } = await run(
        contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearAtLeast: 800 })] }),
        conversation,
      );
      // Each result frees about 125 - 3 tokens: the three together stay under 800, so all go.
      expect(cleared(messages).map((message) => message.tool_call_id)).toEqual(["call_1", "call_2", "call_3"]);
      expect(uncleared(messages)).toEqual([]);
    });
  });

  describe("custom editing strategies", () => {
    it("runs a custom ContextEdit, and its edit reaches the state", async () => {
      let called = false;
      class RemoveHumanMessages implements ContextEdit {
        async apply(params: { messages: BaseMessage[]; countTokens: TokenCounter }): Promise<void> {
          called = true;
          if ((await params.countTokens(params.messages)) <= 100) return;
          const humans = params.messages.flatMap((message, position) => (HumanMessage.isInstance(message) ? [position] : []));
          for (const position of humans.slice(0, -1).reverse()) params.messages.splice(position, 1);
        }
      }
      const { messages, sent } = await run(contextEditingMiddleware({ edits: [new RemoveHumanMessages()] }), toolCallConversation());
      expect(called).toBe(true);
      expect(messages.filter(HumanMessage.isInstance).map((message) => message.content)).toEqual(["Search for 'JavaScript'"]);
      expect(sent.filter(HumanMessage.isInstance).map((message) => message.content)).toEqual(["Search for 'JavaScript'"]);
    });

    it("chains several edits in order", async () => {
      const calls: string[] = [];
      const edit = (label: string): ContextEdit => ({ apply: () => void calls.push(label) });
      await run(contextEditingMiddleware({ edits: [edit("first"), edit("second")] }), [new HumanMessage("Hello"), new AIMessage("Hi there!")]);
      expect(calls).toEqual(["first", "second"]);
    });
  });

  describe("token counting methods", () => {
    it("counts approximately by default, without the model's help", async () => {
      const { messages } = await run(contextEditingMiddleware({ tokenCountMethod: "approx" }), [new HumanMessage("Test message"), new AIMessage("Response")]);
      expect(messages.map((message) => message.content)).toEqual(["Test message", "Response", "Response"]);
    });

    it("handles messages with empty content", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 0 } })] }), [
        new HumanMessage(""),
        new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "tool", args: {} }] }),
        new ToolMessage({ content: "", tool_call_id: "call_1" }),
      ]);
      expect(cleared(messages)).toEqual([]);
      // Deliberate difference: a message with nothing to send is repaired (providers reject it).
      expect(messages.map((message) => message.content)).toEqual(["(empty message)", "", "", "Response"]);
    });
  });

  describe("edge cases", () => {
    it("does not clear an already cleared message again", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 2 } })] }), [
        new HumanMessage("Test"),
        new AIMessage({ content: "Testing", tool_calls: [{ id: "call_1", name: "test", args: {} }] }),
        new ToolMessage({ content: "[cleared]", tool_call_id: "call_1", response_metadata: { context_editing: { cleared: true, strategy: "clear_tool_uses" } } }),
        new AIMessage("Done"),
        new HumanMessage("More"),
      ]);
      const result = messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === "call_1")!;
      expect(result.content).toBe("[cleared]");
      expect(result.response_metadata).toEqual({ context_editing: { cleared: true, strategy: "clear_tool_uses" } });
    });

    it("drops a tool message with no corresponding AI message", async () => {
      const { messages } = await run(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 50 }, keep: { messages: 0 } })] }), [
        new HumanMessage("Test"),
        new ToolMessage({ content: "Result", tool_call_id: "orphan_call" }),
        new AIMessage("Done"),
      ]);
      expect(messages.map((message) => [message.type, message.content])).toEqual([
        ["human", "Test"],
        ["ai", "Done"],
        ["ai", "Response"],
      ]);
      expect(cleared(messages)).toEqual([]);
    });
  });
});

import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { BaseTracer, type Run } from "@langchain/core/tracers/base";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import {
  InvalidHistoryError,
  InvalidOptionError,
  createTokenCounter,
  slidingWindow,
  withCompaction,
  type CompactionContext,
  type CompactionResult,
  type Compactor,
} from "../../src/index.js";
import { assistant, ids, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";

const counter = createTokenCounter({ mode: "approximate" });
const window = () => slidingWindow({ keepTurns: 1, tokenCounter: counter });
const history = () => [user("u1"), assistant("a1", "answer 1"), user("u2"), assistant("a2", "answer 2"), user("u3")];

/** A runnable that records what it received and returns a fixed reply. */
function capturing() {
  const received: unknown[] = [];
  const runnable = RunnableLambda.from(async (input: unknown) => {
    received.push(input);
    return "reply";
  });
  return { runnable, received };
}

describe("withCompaction", () => {
  it("hands a model the compacted messages of a BaseMessage[] input", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    await withCompaction(model, window()).invoke(history());
    expect(model.calls.map((call) => ids(call.messages))).toEqual([["u3"]]);
  });

  it("compacts the messages under the default key and passes the other keys through", async () => {
    const { runnable, received } = capturing();
    await withCompaction(runnable, window()).invoke({ messages: history(), topic: "ports" });
    expect(received.map((input) => ({ ...(input as object), messages: ids((input as { messages: BaseMessage[] }).messages) }))).toEqual([
      { messages: ["u3"], topic: "ports" },
    ]);
  });

  it("never mutates the caller's input object or its messages", async () => {
    const messages = history();
    const snapshot = snapshotHistory(messages);
    const input = { messages, topic: "ports" };
    await withCompaction(capturing().runnable, window()).invoke(input);
    expectHistoryUnchanged(snapshot);
    expect(input).toEqual({ messages: snapshot.elements, topic: "ports" });
  });

  it("compacts under messagesKey in front of a prompt template", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const prompt = ChatPromptTemplate.fromMessages([["system", "Be brief."], new MessagesPlaceholder("history"), ["human", "{question}"]]);
    await withCompaction(prompt.pipe(model), window(), { messagesKey: "history" }).invoke({ history: history(), question: "q4" });
    expect(model.calls.map((call) => call.messages.map((message) => [message.type, message.text]))).toEqual([
      [
        ["system", "Be brief."],
        ["human", "user u3"],
        ["human", "q4"],
      ],
    ]);
  });

  it("streams the wrapped runnable's output", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "streamed" }));
    const chunks: string[] = [];
    for await (const chunk of await withCompaction(model, window()).stream(history())) chunks.push(chunk.text);
    expect([chunks.join(""), model.calls.map((call) => ids(call.messages))]).toEqual(["streamed", [["u3"]]]);
  });

  it("compacts each input of a batch on its own", async () => {
    const { runnable, received } = capturing();
    await withCompaction(runnable, window()).batch([history(), [user("v1"), assistant("b1"), user("v2")]]);
    expect(received.map((input) => ids(input as BaseMessage[])).sort()).toEqual([["u3"], ["v2"]]);
  });

  it("calls onCompaction with each result that changed something", async () => {
    const seen: [string, string[]][] = [];
    const chain = withCompaction(capturing().runnable, window(), {
      onCompaction: (result) => void seen.push([result.status, result.removed.map(({ message }) => message.id!)]),
    });
    await chain.invoke(history());
    expect(seen).toEqual([["truncated", ["u1", "a1", "u2", "a2"]]]);
  });

  it("does not call onCompaction on a no-op", async () => {
    const seen: CompactionResult[] = [];
    await withCompaction(capturing().runnable, window(), { onCompaction: (result) => void seen.push(result) }).invoke([user("u1")]);
    expect(seen).toEqual([]);
  });

  it("passes the messages on unchanged when the compaction fails, and reports it", async () => {
    const statuses: string[] = [];
    const failing: Compactor = {
      compact: async (messages) => ({
        messages: [...messages],
        status: "failed",
        strategy: "summary",
        tokensBefore: 1,
        tokensAfter: 1,
        messagesBefore: messages.length,
        messagesAfter: messages.length,
        removed: [],
        replaced: [],
        reason: "summary model unavailable",
      }),
    };
    const { runnable, received } = capturing();
    await withCompaction(runnable, failing, { onCompaction: (result) => void statuses.push(result.status) }).invoke(history());
    expect([statuses, received.map((input) => ids(input as BaseMessage[]))]).toEqual([["failed"], [["u1", "a1", "u2", "a2", "u3"]]]);
  });

  it("passes the run's abort signal to the compactor", async () => {
    const contexts: CompactionContext[] = [];
    const controller = new AbortController();
    const compactor: Compactor = { compact: async (messages, context) => (contexts.push(context ?? {}), window().compact(messages, context)) };
    await withCompaction(capturing().runnable, compactor).invoke(history(), { signal: controller.signal });
    expect(contexts.map((context) => context.signal?.aborted)).toEqual([false]);
  });

  it("nests the compactor's own runs (a summary call) under the compactMessages run", async () => {
    const runs = new Map<string, { name: string; parent: string | undefined }>();
    class RunRecorder extends BaseTracer {
      name = "run-recorder";
      // Handlers run in the background by default; the assertions need every run recorded.
      override awaitHandlers = true;
      protected async persistRun(): Promise<void> {}
      override onChainStart(run: Run) {
        runs.set(run.id, { name: run.name, parent: run.parent_run_id });
      }
    }
    const summaryCall = RunnableLambda.from(async (messages: BaseMessage[]) => messages).withConfig({ runName: "summaryCall" });
    const compactor: Compactor = {
      compact: async (messages, context) => {
        await summaryCall.invoke([...messages], context?.config);
        return window().compact(messages, context);
      },
    };
    await withCompaction(capturing().runnable, compactor).invoke(history(), { callbacks: [new RunRecorder()] });
    const chainOf = (name: string) => {
      const path: (string | undefined)[] = [];
      let entry = [...runs.values()].find((run) => run.name === name);
      while (entry) {
        path.push(entry.name);
        entry = entry.parent ? runs.get(entry.parent) : undefined;
      }
      return path;
    };
    expect(chainOf("summaryCall")).toEqual(["summaryCall", "compactMessages", "withCompaction"]);
  });

  it("rejects an object input without messages under the key with InvalidHistoryError", async () => {
    const error = await caught(() => withCompaction(capturing().runnable, window(), { messagesKey: "history" }).invoke({ messages: history() }));
    expect([InvalidHistoryError.isInstance(error), (error as Error).message]).toEqual([
      true,
      "withCompaction: the input has no array of messages under `history` (found undefined)",
    ]);
  });

  it("rejects a string input with InvalidHistoryError", async () => {
    const error = await caught(() => withCompaction(capturing().runnable, window()).invoke("hello" as never));
    expect([InvalidHistoryError.isInstance(error), (error as Error).message]).toEqual([
      true,
      "withCompaction: expected an array of messages or an object with one under `messages`, got string",
    ]);
  });

  it("rejects an array holding something other than messages with the strategy's InvalidHistoryError", async () => {
    const error = await caught(() => withCompaction(capturing().runnable, window()).invoke([user("u1"), "hi" as unknown as BaseMessage]));
    expect(InvalidHistoryError.isInstance(error)).toBe(true);
  });

  it.each([
    ["runnable", () => withCompaction(undefined as never, window())],
    ["compactor", () => withCompaction(capturing().runnable, {} as never)],
    ["messagesKey", () => withCompaction(capturing().runnable, window(), { messagesKey: "" })],
    ["onCompaction", () => withCompaction(capturing().runnable, window(), { onCompaction: "log" as never })],
    ["surprise", () => withCompaction(capturing().runnable, window(), { surprise: 1 } as never)],
  ])("names the invalid option `%s`", async (option, build) => {
    const error = await caught(build);
    expect([InvalidOptionError.isInstance(error), (error as InvalidOptionError).component, (error as InvalidOptionError).option]).toEqual([
      true,
      "withCompaction",
      option,
    ]);
  });
});

/**
 * A LangChain `createAgent` agent with compaction middleware: before every model call the older
 * tool results are hidden, the change is checkpointed, every compaction is logged in the agent's
 * state, and the originals are archived in the agent's store so the full history can be restored.
 *
 *   npx tsx examples/create-agent.ts        # offline: a scripted model (fakeModel)
 *   OPENAI_API_KEY=… npx tsx examples/create-agent.ts   # ChatOpenAI (OPENAI_MODEL, default gpt-4o-mini)
 */
import { pathToFileURL } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import { compactionMarkerOf, restoreHistory, toolResultHiding, type CompactionRecord } from "../src/index.js";
import { compactionMiddleware } from "../src/middleware/index.js";

const TOPICS = ["billing", "refunds", "shipping", "returns"];

/** A documentation search whose pages are long: exactly what crowds a context window. */
const searchDocs = tool(async ({ topic }: { topic: string }) => `# ${topic}\n` + `Policy details about ${topic}. `.repeat(80), {
  name: "search_docs",
  description: "Search the help center for one topic.",
  schema: z.object({ topic: z.string() }),
});

/** Offline: a model that looks up each topic in turn, then answers. */
function scriptedModel(): BaseChatModel {
  const model = fakeModel();
  TOPICS.forEach((topic, position) =>
    model.respond(
      new AIMessage({ id: `ai-${position + 1}`, content: "", tool_calls: [{ id: `call-${position + 1}`, name: "search_docs", args: { topic }, type: "tool_call" }] }),
    ),
  );
  return model.respond(new AIMessage({ id: "ai-answer", content: "Here is a summary of the four policies." }));
}

async function openAIModel(): Promise<BaseChatModel> {
  const { ChatOpenAI } = await import("@langchain/openai");
  return new ChatOpenAI({ model: process.env["OPENAI_MODEL"] ?? "gpt-4o-mini", temperature: 0 });
}

/** What a run did, for the caller (and the test that runs this example). */
export interface CreateAgentExampleSummary {
  /** Messages in the checkpointed state at the end. */
  readonly messages: number;
  /** Of those, tool results whose content is hidden. */
  readonly hiddenResults: number;
  /** The compaction log of the thread. */
  readonly log: readonly CompactionRecord[];
  /** The history restoreHistory gives back (every message, nothing hidden). */
  readonly restored: readonly BaseMessage[];
}

/**
 * Run the agent on one question and report. Offline unless `useOpenAI` (default: OPENAI_API_KEY is set).
 *
 * @example
 * const { hiddenResults, log } = await main({ useOpenAI: false });
 */
export async function main(options: { useOpenAI?: boolean; print?: (line: string) => void } = {}): Promise<CreateAgentExampleSummary> {
  const print = options.print ?? console.log;
  const model = (options.useOpenAI ?? Boolean(process.env["OPENAI_API_KEY"])) ? await openAIModel() : scriptedModel();
  const store = new InMemoryStore();
  const agent = createAgent({
    model,
    tools: [searchDocs],
    systemPrompt: "Answer from the help center. Search each topic the user names, one search per topic.",
    // Once the history reaches 1,000 tokens, hide every tool result but the two newest, in one batch
    // (between firings the history is left as it is, so a provider's prompt cache holds).
    middleware: [compactionMiddleware(toolResultHiding({ keepRecentGroups: 2, trigger: { tokens: 1_000 }, clearAtLeast: 0 }))],
    checkpointer: new MemorySaver(),
    store,
  });
  const config = { configurable: { thread_id: "support-1" } };
  await agent.invoke({ messages: [new HumanMessage({ id: "question", content: `Summarize our policies on ${TOPICS.join(", ")}.` })] }, config);

  const { values } = await agent.graph.getState(config);
  const messages = values.messages as BaseMessage[];
  const log = values.compactionLog as CompactionRecord[];
  const restored = await restoreHistory(values, { store, threadId: "support-1" });
  const hiddenResults = messages.filter((message) => compactionMarkerOf(message)?.hidden).length;
  for (const record of log) {
    print(`compaction ${record.status}: ${record.strategy} hid ${record.replacedIds.length} result(s), ${record.tokensBefore} -> ${record.tokensAfter} tokens`);
  }
  print(`state: ${messages.length} messages, ${hiddenResults} tool result(s) hidden; restored history: ${restored.length} messages, none hidden`);
  return { messages: messages.length, hiddenResults, log, restored };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

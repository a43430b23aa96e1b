/**
 * An LCEL chat chain with `RunnableWithMessageHistory` whose history is a
 * `CompactingChatMessageHistory`: the model sees a compacted view (a sliding window of the newest
 * two turns here), while the wrapped history keeps every message and every compaction is recorded.
 *
 *   npx tsx examples/lcel-chat-history.ts    # offline, with a scripted model
 *   OPENAI_API_KEY=... npx tsx examples/lcel-chat-history.ts    # with ChatOpenAI (OPENAI_MODEL, default gpt-4o-mini)
 */
import { pathToFileURL } from "node:url";
import { InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { fakeModel } from "@langchain/core/testing";
import { CompactingChatMessageHistory, slidingWindow } from "../src/index.js";

export const QUESTIONS = [
  "My name is Ada. Which port does the staging API listen on?",
  "And the production API?",
  "Which of the two uses TLS?",
  "Remind me of the staging port.",
];

/** A model that needs no key: each reply says how many messages it was given and echoes the question. */
export function scriptedModel(turns = QUESTIONS.length): BaseChatModel {
  const model = fakeModel();
  for (let turn = 1; turn <= turns; turn++) {
    model.respond((messages: BaseMessage[]) => new AIMessage({ id: `reply-${turn}`, content: `(scripted) ${messages.length} messages in view; you asked: ${messages.at(-1)?.text}` }));
  }
  return model;
}

/** ChatOpenAI when OPENAI_API_KEY is set, else the scripted model. */
export async function chooseModel(): Promise<BaseChatModel> {
  if (!process.env["OPENAI_API_KEY"]) return scriptedModel();
  const { ChatOpenAI } = await import("@langchain/openai");
  return new ChatOpenAI({ model: process.env["OPENAI_MODEL"] ?? "gpt-4o-mini" });
}

/** Run the four questions through the chain and print what the model saw and what was kept. */
export async function runLcelChatHistoryExample(model: BaseChatModel): Promise<void> {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a concise operations assistant."],
    new MessagesPlaceholder("history"),
    ["human", "{question}"],
  ]);

  // One history per session, kept across calls: the view lives in it (or in a persistent
  // `viewHistory`), so each read compacts only what was added since the last one.
  const sessions = new Map<string, CompactingChatMessageHistory>();
  let nextId = 0;
  const historyFor = (sessionId: string) => {
    let history = sessions.get(sessionId);
    if (!history) {
      history = new CompactingChatMessageHistory({
        history: new InMemoryChatMessageHistory(),
        compactor: slidingWindow({ keepTurns: 2 }),
        // Deterministic ids and clock so the printout is stable; the defaults are randomUUID and Date.
        createId: () => `${sessionId}-${++nextId}`,
        now: () => new Date("2025-01-01T00:00:00Z"),
      });
      sessions.set(sessionId, history);
    }
    return history;
  };

  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(model),
    getMessageHistory: historyFor,
    inputMessagesKey: "question",
    historyMessagesKey: "history",
  });

  for (const [turn, question] of QUESTIONS.entries()) {
    const reply = await chain.invoke({ question }, { configurable: { sessionId: "ada" } });
    console.log(`turn ${turn + 1}: ${reply.text}`);
  }

  const history = historyFor("ada");
  console.log(`kept: ${(await history.getAllMessages()).length} messages; view: ${(await history.getMessages()).length} messages`);
  for (const record of history.compactions) {
    console.log(`compaction ${record.id}: ${record.strategy} ${record.status}, ${record.messagesBefore} -> ${record.messagesAfter} messages, removed ${record.removedIds.join(", ")}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runLcelChatHistoryExample(await chooseModel());
}

/**
 * Threads written by 0.1.0 (test/fixtures/v0.1.0, see make-fixture.ts there): a SQLite checkpoint
 * file with one thread archiving in the `compactionArchive` channel and one archiving in a store.
 * Today's code restores each exactly as 0.1.0 did, then finishes the session on it (compacting
 * again, with today's archive layout) and restores the whole session; through SqliteSaver, and
 * through SqliteBlobSaver, which reads the values 0.1.0 wrote inline and writes its own as blobs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { mapChatMessagesToStoredMessages, type StoredMessage } from "@langchain/core/messages";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { createTokenCounter, restoreHistory } from "../../src/index.js";
import { exportThread, loadThreadFromSqlite } from "../../src/inspector/index.js";
import { SqliteBlobSaver } from "../../src/store/index.js";
import { buildReactAgent, exampleCompaction } from "../../examples/react-agent.js";
import { ReplayChatModel, ReplaySession, replayTools } from "../../examples/replay/index.js";
import { BUNDLED_TRACES_PATH, loadTraceSessions } from "../../examples/traces.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "v0.1.0");
const SESSION_ID = "tau-bench-airline/task2-trial1";
const WINDOW = 3_000;
const readJson = (name: string): unknown => JSON.parse(readFileSync(join(fixtures, name), "utf8"));
const restoredAtWrite = readJson("restored.json") as Record<"channel" | "store", { nextTurn: number; history: StoredMessage[] }>;
const expected = readJson("expected.json") as StoredMessage[];

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-v010-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A copy of the fixture's SQLite file (tests write to it) and a store holding the fixture's store rows. */
async function openFixture(name: string, Saver: typeof SqliteSaver | typeof SqliteBlobSaver): Promise<{ checkpointer: SqliteSaver; store: BaseStore }> {
  const path = join(directory, `${name}.sqlite`);
  writeFileSync(path, gunzipSync(readFileSync(join(fixtures, "threads.sqlite.gz"))));
  const store = new InMemoryStore();
  for (const { namespace, key, value } of readJson("store.json") as { namespace: string[]; key: string; value: Record<string, unknown> }[]) {
    await store.put(namespace, key, value, false);
  }
  return { checkpointer: Saver.fromConnString(path), store };
}

describe.each([
  ["channel", SqliteSaver],
  ["store", SqliteSaver],
  ["channel", SqliteBlobSaver],
  ["store", SqliteBlobSaver],
] as const)("a 0.1.0 thread archiving in the %s, read by %o", (thread, Saver) => {
  const session = loadTraceSessions(BUNDLED_TRACES_PATH).find((each) => each.id === SESSION_ID)!;
  const replay = new ReplaySession(session);
  const config = { configurable: { thread_id: thread }, recursionLimit: 1_000 };

  async function agentOn(name: string) {
    const { checkpointer, store } = await openFixture(`${Saver.name}-${name}`, Saver);
    const agent = buildReactAgent({
      model: new ReplayChatModel(replay),
      tools: replayTools(replay),
      compaction: exampleCompaction(WINDOW, { tokenCounter: createTokenCounter({ model: "gpt-4o" }) }),
      checkpointer,
      ...(thread === "store" ? { store } : {}),
      interruptBefore: ["tools"],
    });
    return { agent, checkpointer, store };
  }

  it("restores exactly the history 0.1.0 restored", async () => {
    const { agent, checkpointer, store } = await agentOn(`${thread}-restore`);
    const { values } = await agent.getState(config);
    const history = await restoreHistory(values, { store, threadId: thread });
    expect(mapChatMessagesToStoredMessages(history)).toEqual(restoredAtWrite[thread].history);
    expect(history).toHaveLength(25);
    checkpointer.db.close();
  });

  it("is read by the inspector's loadThreadFromSqlite as through the saver", async () => {
    const { checkpointer, store } = await agentOn(`${thread}-inspect`);
    const fromSaver = await exportThread(checkpointer, thread, thread === "store" ? { store } : {});
    expect(fromSaver.archives).toHaveLength(6);
    const fromFile = await loadThreadFromSqlite(join(directory, `${Saver.name}-${thread}-inspect.sqlite`), thread);
    // The file has no store: the store thread's archives are in the fixture's store.json only.
    expect(fromFile).toEqual(thread === "store" ? { ...fromSaver, archives: [] } : fromSaver);
    checkpointer.db.close();
  });

  it("finishes the session with today's code and restores all of it", async () => {
    const { agent, checkpointer, store } = await agentOn(`${thread}-finish`);
    // The replayed model answers whatever follows the last message: it picks up where 0.1.0 stopped.
    let nextTurn = restoredAtWrite[thread].nextTurn;
    for (;;) {
      const pending = (await agent.getState(config)).next.length > 0;
      if (!pending && nextTurn >= replay.turns.length) break;
      await agent.invoke(pending ? null : { messages: replay.turns[nextTurn++]! }, config);
    }
    const { values } = await agent.getState(config);
    const history = await restoreHistory(values, { store, threadId: thread });
    expect(mapChatMessagesToStoredMessages(history)).toEqual(expected);
    checkpointer.db.close();
  });
});

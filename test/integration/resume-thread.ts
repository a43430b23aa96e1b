/**
 * The "after a restart" half of the SQLite restart test, run as a separate Node process:
 *
 *   node --import tsx test/integration/resume-thread.ts <sqlite file> <thread id> <session id> <next turn>
 *
 * Opens the SQLite file afresh, reads the thread's checkpointed state, finishes the session on it
 * and prints one JSON object (what it found, what the model received, what it restored) on stdout.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { restoreHistory } from "../../src/index.js";
import { ReplayWorker, describeMessage, loadReplay } from "./replay-driver.js";

const [path, threadId, sessionId, nextTurn] = process.argv.slice(2);
if (!path || !threadId || !sessionId || nextTurn === undefined) {
  throw new Error("usage: resume-thread.ts <sqlite file> <thread id> <session id> <next turn>");
}
const checkpointer = SqliteSaver.fromConnString(path);
const worker = new ReplayWorker(loadReplay(sessionId), { checkpointer });
const resumed = await worker.state(threadId);
await worker.run(threadId, Number(nextTurn));
const final = await worker.state(threadId);
checkpointer.db.close();
process.stdout.write(
  JSON.stringify({
    pid: process.pid,
    resumed: {
      messageIds: resumed.messages.map((message) => message.id),
      log: resumed.compactionLog,
      archiveIds: resumed.compactionArchive.map((archive) => archive.compactionId),
    },
    requests: worker.requests,
    records: worker.records,
    final: { messageIds: final.messages.map((message) => message.id), log: final.compactionLog },
    restored: (await restoreHistory(final)).map(describeMessage),
  }),
);

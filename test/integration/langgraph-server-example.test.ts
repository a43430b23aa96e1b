/**
 * examples/langgraph-server as a user runs it: its langgraph.json served by the real JS dev server
 * (`langgraphjs dev`, offline, on 127.0.0.1), its client streaming runs through
 * `@langchain/langgraph-sdk` and restoring the thread's history, and `langchain-compaction inspect
 * --langgraph-url` reading the thread back from the running server.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recallMessage, runClient, userMessage, type ClientReport } from "../../examples/langgraph-server/client.js";
import { fileContents } from "../../examples/langgraph-server/graph.js";
import { ScriptedChatModel, firstLineOf, scriptedReply } from "../../examples/langgraph-server/scripted-model.js";
import { InvalidOptionError, type CompactionRecord } from "../../src/index.js";
import { buildInspection, loadThreadFromLangGraph, renderInspectionText, type Inspection, type ThreadExport } from "../../src/inspector/index.js";
import { caught } from "../support/errors.js";
import { graphsOf, startDevServer, type DevServer } from "./langgraph-api/dev-server.js";

const PROJECT = resolve(import.meta.dirname, "../..");
const CONFIG = join(PROJECT, "examples/langgraph-server/langgraph.json");
const TSX = pathToFileURL(join(PROJECT, "node_modules/tsx/dist/loader.mjs")).href;
const START_TIMEOUT = 120_000;
const TURNS = 6;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a TypeScript file of the project in its own Node process; never rejects. */
function runTs(file: string, args: readonly string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, ["--import", TSX, join(PROJECT, file), ...args], { cwd: PROJECT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A message as it would be stored: its type and every field. */
const stored = (message: BaseMessage) => JSON.parse(JSON.stringify(message.toDict()));
/** The ids of every message turn `turn` adds: the user's, the calls, their two results, the answer. */
const turnIds = (turn: number) => [`user-${turn}`, `user-${turn}-ai`, `user-${turn}-call-1-result`, `user-${turn}-call-2-result`, `user-${turn}-answer`];
const summaryOf = (log: readonly CompactionRecord[]) => log.map((record) => `${record.status}/${record.archive}`);
/** The recall turn after the reading turns: the user's message, the recall call, its result (the tool node names it), the answer. */
const RECALL_TURN = TURNS + 1;
const recallTurnIds = (resultId: string) => [`user-${RECALL_TURN}`, `user-${RECALL_TURN}-ai`, resultId, `user-${RECALL_TURN}-answer`];
/** Messages of the thread: five per reading turn, four for the recall turn. */
const MESSAGES = TURNS * 5 + 4;

describe("the example's scripted model", () => {
  it("answers a user message with one read_file call per file it names, and their results with an answer, run after run", async () => {
    const model = new ScriptedChatModel().bindTools([]);
    const user = new HumanMessage({ id: "u1", content: "read src/a.ts and docs/b.md please" });
    // The same request twice, then the next step: a queue-based fake would have run dry.
    const first = await model.invoke([user]);
    const again = await model.invoke([user]);
    expect(stored(again)).toEqual(stored(first));
    expect(first.tool_calls).toEqual([
      { id: "u1-call-1", name: "read_file", args: { path: "src/a.ts" }, type: "tool_call" },
      { id: "u1-call-2", name: "read_file", args: { path: "docs/b.md" }, type: "tool_call" },
    ]);
    const results = first.tool_calls!.map((call) => new ToolMessage({ id: `${call.id}-result`, tool_call_id: call.id!, content: fileContents(String(call.args["path"])), artifact: { path: call.args["path"] } }));
    const answer = await model.invoke([user, first, ...results]);
    expect({ id: answer.id, content: answer.content, calls: answer.tool_calls }).toEqual({ id: "u1-answer", content: "src/a.ts and docs/b.md each export value_1 to value_40.", calls: [] });
  });

  it("answers a request whose newest message names no file, or is its own answer, without a tool call", () => {
    expect(scriptedReply([new HumanMessage({ id: "u2", content: "hello" })]).content).toBe("Name a file and I will read it.");
    expect(scriptedReply([new AIMessage("done")]).tool_calls).toEqual([]);
  });
});

describe("examples/langgraph-server served by langgraphjs dev, driven by its client through @langchain/langgraph-sdk", () => {
  let server: DevServer;
  let report: ClientReport;
  const printed: string[] = [];

  beforeAll(async () => {
    server = await startDevServer(await graphsOf(CONFIG));
    console.info(`langgraph dev answered after ${server.startupMs} ms`);
    report = await runClient({ apiUrl: server.url, turns: TURNS, print: (line) => printed.push(line) });
  }, START_TIMEOUT);
  afterAll(async () => {
    await server?.stop();
  });

  /** The id the tool node gave the recall's result. */
  const recallResultId = () => report.sent.find((message) => ToolMessage.isInstance(message) && message.name === "recall")!.id!;

  it("streams every message of every run; message chunks come from the model and tool nodes only, none from the compaction", () => {
    expect(recallResultId()).toMatch(new RegExp(`-tool-user-${RECALL_TURN}-recall-1$`, "u"));
    expect(report.sent.map((message) => message.id)).toEqual([...Array.from({ length: TURNS }, (_, turn) => turnIds(turn + 1)).flat(), ...recallTurnIds(recallResultId())]);
    expect(report.streamedTokenNodes).toEqual(["model", "tools"]);
  });

  it("compacts in the server: hides older tool results, then summarizes (summaries of summaries), every archive in the server's store", () => {
    const log = report.state.compactionLog ?? [];
    expect(summaryOf(log)).toEqual(["compacted/store", "summarized/store", "summarized/store", "summarized/store", "summarized/store", "summarized/store"]);
    expect(report.state.compactionArchive ?? []).toEqual([]);
    expect(report.state.messages.map((message) => (message as { id?: string }).id)).toEqual([log.at(-1)!.summaryId, ...recallTurnIds(recallResultId()).slice(1)]);
  });

  it("recall: the agent reads a file of the first turn, summarized long ago, back from the server's store, and the client reads the same through the SDK", () => {
    const path = "src/module_1_a.ts";
    expect(recallMessage(RECALL_TURN).content).toContain(path);
    // The summary at the top of the context named the reference the agent passed.
    const call = report.sent.find((message) => message.id === `user-${RECALL_TURN}-ai`) as AIMessage;
    expect(call.tool_calls!.map((each) => [each.name, each.args])).toEqual([["recall", { ref: report.recalled!.ref }]]);
    const { inServer, throughSdk } = report.recalled!;
    // The exact original tool result, fenced, in the first part.
    expect(inServer.startsWith(`<recalled ref="${report.recalled!.ref}"`)).toBe(true);
    expect(inServer).toContain(`[tool read_file #user-1-call-1]\n${fileContents(path).split("\n").slice(0, 3).join("\n")}`);
    expect(report.sent.at(-1)!.content).toBe(`From the archive, ${path} starts with: ${firstLineOf(path)}`);
    expect(throughSdk).toBe(inServer);
    expect(printed.at(-2)).toBe(`recall through the SDK: the same text the agent got for ${report.recalled!.ref}`);
  });

  it("restoreThreadHistory gives back every message that entered the thread, field for field, and the client says so", () => {
    expect(report.complete).toBe(true);
    expect(report.history.map(stored)).toEqual(report.sent.map(stored));
    expect(printed.slice(-4)).toEqual([
      `state: 4 messages in context, 6 compactions (compacted, summarized, summarized, summarized, summarized, summarized)`,
      `restoreThreadHistory: ${MESSAGES} messages, the ${MESSAGES} that entered the thread, in order`,
      `recall through the SDK: the same text the agent got for ${report.recalled!.ref}`,
      `inspect it: npm run inspect -- --langgraph-url ${server.url} --thread ${report.threadId}`,
    ]);
  });

  it("runs as a user runs it (npx tsx examples/langgraph-server/client.ts --url <server> --turns 2), on a new thread of the same server", async () => {
    const run = await runTs("examples/langgraph-server/client.ts", ["--url", server.url, "--turns", "2"]);
    const lines = run.stdout.trimEnd().split("\n");
    expect({ code: run.code, stderr: run.stderr, first: lines[1], restored: lines.at(-3), recalled: lines.at(-2)?.replace(/ for \d+$/u, "") }).toEqual({
      code: 0,
      stderr: "",
      first: `> ${userMessage(1).content}`,
      restored: "restoreThreadHistory: 14 messages, the 14 that entered the thread, in order",
      recalled: "recall through the SDK: the same text the agent got",
    });
  });

  describe("the inspector reading the thread from the server", () => {
    let thread: ThreadExport;
    let inspection: Inspection;

    beforeAll(async () => {
      thread = await loadThreadFromLangGraph(server.url, report.threadId);
      inspection = await buildInspection(thread);
    }, START_TIMEOUT);

    it("loadThreadFromLangGraph(url, threadId): the state's messages and log, and every archive from the server's store", () => {
      expect(thread.messages.map((message) => message.data.id)).toEqual(report.state.messages.map((message) => (message as { id?: string }).id));
      expect(thread.compactionLog).toEqual(report.state.compactionLog);
      expect(thread.archives.map((archive) => archive.compactionId)).toEqual(report.state.compactionLog!.map((record) => record.id));
    });

    it("its inspection holds the thread's whole history, without warnings, and shows the agent's recall", () => {
      expect(inspection.warnings).toEqual([]);
      expect(inspection.totals.originalMessages).toBe(MESSAGES);
      const [recall] = inspection.recalls!;
      expect(inspection.recalls).toHaveLength(1);
      expect({ ref: recall!.ref, callId: recall!.callId, resultMessageId: recall!.resultMessageId, resultStep: recall!.resultStep }).toEqual({
        ref: report.recalled!.ref,
        callId: `user-${RECALL_TURN}-recall-1`,
        resultMessageId: recallResultId(),
        resultStep: MESSAGES - 2,
      });
      // It read the summaries' archives: every original of the first turns, the first file's result among them.
      expect(recall!.originalIds.slice(0, 3)).toEqual(turnIds(1).slice(0, 3));
      expect(recall!.compactionIds).toEqual(inspection.compactions.slice(0, recall!.compactionIds.length).map((view) => view.record.id));
      expect(inspection.compactions.map((view) => view.record.status)).toEqual(report.state.compactionLog!.map((record) => record.status));
    });

    it("takes an SDK Client as well as a URL", async () => {
      const fromClient = await loadThreadFromLangGraph(new Client({ apiUrl: server.url }), report.threadId);
      expect(fromClient).toEqual(thread);
    });

    it("inspect --langgraph-url <url> --thread <id> --format text prints the summary", async () => {
      const run = await runTs("src/cli.ts", ["inspect", "--langgraph-url", server.url, "--thread", report.threadId, "--format", "text"]);
      expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ code: 0, stderr: "", stdout: renderInspectionText(inspection) });
    });

    it("inspect --langgraph-url writes the HTML page and says what it holds", async () => {
      const directory = mkdtempSync(join(tmpdir(), "inspect-langgraph-"));
      try {
        const out = join(directory, "thread.html");
        const run = await runTs("src/cli.ts", ["inspect", "--langgraph-url", server.url, "--thread", report.threadId, "--out", out]);
        expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ code: 0, stderr: "", stdout: `wrote ${out}: ${MESSAGES} messages, 6 compactions, 0 warnings\n` });
        expect(readFileSync(out, "utf8")).toContain(`<code data-thread-id>${report.threadId}</code>`);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it("a thread the server does not have: exit code 1, and the message lists the threads it has", async () => {
      const missing = "00000000-0000-4000-8000-000000000000";
      const run = await runTs("src/cli.ts", ["inspect", "--langgraph-url", server.url, "--thread", missing]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^langchain-compaction: --thread: expected the id of a thread on ${server.url}; got the string "${missing}" \\(no such thread; its threads: .*"${report.threadId}"`, "u"));
    });

    it("a thread id the server cannot take (not a UUID): the same error", async () => {
      const error = await caught(() => loadThreadFromLangGraph(server.url, "no-such-thread"));
      expect(InvalidOptionError.isInstance(error) && error.option).toBe("threadId");
      expect((error as Error).message).toMatch(/^loadThreadFromLangGraph: invalid option `threadId`: expected the id of a thread on http:\/\/127\.0\.0\.1:\d+; got the string "no-such-thread" \(no such thread; its threads: "/u);
    });

    it("a server that is not running: an InvalidOptionError saying the connection was refused", async () => {
      const error = await caught(() => loadThreadFromLangGraph("http://127.0.0.1:9", report.threadId));
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe('loadThreadFromLangGraph: invalid option `server`: expected a LangGraph server that can be reached; got the string "http://127.0.0.1:9" (cannot reach it: fetch failed; is the server running?)');
    });

    it("a URL that is not http(s): an InvalidOptionError naming it", async () => {
      const error = await caught(() => loadThreadFromLangGraph("localhost:2024", report.threadId));
      expect((error as Error).message).toBe('loadThreadFromLangGraph: invalid option `server`: expected an http:// or https:// URL, or a @langchain/langgraph-sdk Client; got the string "localhost:2024"');
    });
  });
});

/**
 * The `langchain-compaction inspect` command, run as a separate Node process (`node --import tsx
 * src/cli.ts`) against a SQLite file a real graph wrote while replaying a recorded session.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { exampleCompaction, sqliteCheckpointer } from "../../examples/react-agent.js";
import { buildInspection, loadThreadFromSqlite, renderInspectionHtml, type Inspection, type ThreadExport } from "../../src/inspector/index.js";
import { describeValue } from "../../src/option-errors.js";
import { AIRLINE_SESSION_ID, loadReplay, md5Of, replayThread, sqliteJournalMode } from "./support/recorded-thread.js";

const PROJECT = resolve(import.meta.dirname, "../..");
const CLI = join(PROJECT, "src", "cli.ts");
// By URL, so the command also runs from another working directory.
const TSX = pathToFileURL(join(PROJECT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const THREAD_ID = "cli-thread";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a program; never rejects (the exit code is part of what is tested). */
function run(file: string, args: readonly string[], cwd = PROJECT, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const COMMAND = [process.execPath, "--import", TSX, CLI] as const;

/** Run the command. */
function cli(args: readonly string[], cwd = PROJECT, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return run(COMMAND[0], [...COMMAND.slice(1), ...args], cwd, env);
}

/** Run the command through bash, as `<command> <args> <shellTail>`: the command's exit code, stdout and stderr as bash leaves them. */
function cliInShell(args: readonly string[], shellHead: string, shellTail: string): Promise<Run> {
  const quoted = [...COMMAND, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");
  return run("bash", ["-c", `${shellHead} ${quoted} ${shellTail}`]);
}

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-cli-"));
const database = join(directory, "checkpoints.sqlite");
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let thread: ThreadExport;
let inspection: Inspection;

beforeAll(async () => {
  const checkpointer = sqliteCheckpointer(database);
  await replayThread({ replay: loadReplay(AIRLINE_SESSION_ID), threadId: THREAD_ID, checkpointer, compaction: exampleCompaction(2_500) });
  checkpointer.db.close();
  thread = await loadThreadFromSqlite(database, THREAD_ID);
  inspection = await buildInspection(thread);
}, 120_000);

/** The page without the one line that holds the time it was generated. */
const withoutGenerationTime = (html: string) => html.replace(/ · generated [^<]*<\/p>/, "</p>");

const statusesOf = (exported: ThreadExport) => [...new Set(exported.compactionLog.map((record) => record.status))].sort();

// Each test spawns its own process; they share nothing but the read-only database, so they run together.
describe.concurrent("langchain-compaction inspect", () => {
  it("writes the HTML report of a SQLite thread to --out and says so", async () => {
    const out = join(directory, "report.html");
    const run = await cli(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--out", out]);
    const expected = renderInspectionHtml(inspection);
    expect({ ...run, page: withoutGenerationTime(readFileSync(out, "utf8")) }).toEqual({
      code: 0,
      stdout: `wrote ${out}: ${inspection.totals.originalMessages} messages, ${inspection.totals.compactions} compactions, 0 warnings\n`,
      stderr: "",
      page: withoutGenerationTime(expected),
    });
  });

  it("--window and --trigger: the page's chart draws them, as buildInspection given them does", async () => {
    const out = join(directory, "limits.html");
    const run = await cli(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--window", "2_500", "--trigger", "2000", "--out", out]);
    const page = readFileSync(out, "utf8");
    const expected = renderInspectionHtml(await buildInspection(thread, { contextWindow: 2_500, triggerTokens: 2_000 }));
    expect({ code: run.code, lines: [...page.matchAll(/data-chart-line="(\w+)" data-tokens="(\d+)"/g)].map((match) => [match[1], match[2]]), page: withoutGenerationTime(page) }).toEqual({
      code: 0,
      lines: [
        ["window", "2500"],
        ["trigger", "2000"],
      ],
      page: withoutGenerationTime(expected),
    });
  });

  it("without --out: writes <thread>.html in a new temporary directory, prints its path, and leaves the working directory alone", async () => {
    const cwd = mkdtempSync(join(directory, "cwd-"));
    const temporary = mkdtempSync(join(directory, "tmp-"));
    // Twice: each run gets a directory of its own, so the second does not overwrite the first.
    const runs = [];
    for (let time = 0; time < 2; time++) runs.push(await cli(["inspect", "--sqlite", database, "--thread", THREAD_ID], cwd, { ...process.env, TMPDIR: temporary }));
    const written = runs.map((each) => /^wrote (.*): /.exec(each.stdout)?.[1] ?? "");
    // tsx, which runs the command from source here, keeps a cache of its own in the temporary directory.
    const reports = () => readdirSync(temporary).filter((name) => name.startsWith("langchain-compaction-report-"));
    const directories = reports().sort();
    expect({
      codes: runs.map((each) => each.code),
      stdout: runs.map((each) => each.stdout),
      written: [...written].sort(),
      pages: written.map((path) => readFileSync(path, "utf8").slice(0, 15)),
      cwd: readdirSync(cwd),
    }).toEqual({
      codes: [0, 0],
      stdout: written.map((path) => `wrote ${path}: ${inspection.totals.originalMessages} messages, ${inspection.totals.compactions} compactions, 0 warnings\n`),
      written: directories.map((name) => join(temporary, name, `${THREAD_ID}.html`)),
      pages: ["<!DOCTYPE html>", "<!DOCTYPE html>"],
      cwd: [],
    });
    expect(directories.map((name) => name.replace(/[A-Za-z0-9]{6}$/, "XXXXXX"))).toEqual(["langchain-compaction-report-XXXXXX", "langchain-compaction-report-XXXXXX"]);
    expect(readdirSync(temporary).filter((name) => !name.startsWith("tsx-")).length).toBe(2);
  });

  it("without --out, a thread id with path separators becomes one file name", async () => {
    const temporary = mkdtempSync(join(directory, "tmp-"));
    const file = join(directory, "slashed.json");
    writeFileSync(file, JSON.stringify({ ...thread, threadId: "../agents/run 1" }));
    const run = await cli(["inspect", "--json", file], PROJECT, { ...process.env, TMPDIR: temporary });
    const [report] = readdirSync(temporary).filter((name) => name.startsWith("langchain-compaction-report-"));
    expect({ code: run.code, files: readdirSync(join(temporary, report!)) }).toEqual({ code: 0, files: ["__agents_run_1.html"] });
  });

  it("--format text prints the totals, one line per compaction and no warnings", async () => {
    const run = await cli(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--format", "text"]);
    const { totals } = inspection;
    const number = (value: number | null) => (value === null ? "?" : value.toLocaleString("en-US"));
    // A summary's line shows its first line with words in it: here the user's request, not the preamble.
    const summaryOf = (text: string | null) => (text === null ? "" : "  | Hi, I'm having a bit of a situation with my flights and need to downgrade them …");
    expect({ code: run.code, stderr: run.stderr, statuses: statusesOf(thread), lines: run.stdout.split("\n") }).toEqual({
      code: 0,
      stderr: "",
      // The thread is worth inspecting: it was summarized, then truncated.
      statuses: ["summarized", "truncated"],
      lines: [
        `Thread ${THREAD_ID}`,
        `History: ${totals.originalMessages} messages stored, ${number(totals.originalTokens)} tokens; context now: ${totals.contextMessages} messages, ${number(totals.contextTokens)} tokens`,
        `Model calls: ${number(totals.modelCalls)}; peak context: ${number(totals.peakContextTokens)} tokens sent in one model call`,
        `Compactions: ${totals.compactions} (0 failed), ${totals.summaries} summaries, 0 hidden tool results, ${totals.archivedMessages} messages archived, ` +
          `${number(totals.tokensSaved)} tokens saved in ${totals.compactionMs.toFixed(1)} ms`,
        ...thread.compactionLog.map(
          (record, position) =>
            `#${position + 1}  ${record.at}  ${record.strategy}  ${record.status}  tokens ${number(record.tokensBefore)} → ${number(record.tokensAfter)}  ` +
            `messages ${record.messagesBefore} → ${record.messagesAfter}${summaryOf(inspection.compactions[position]!.summary)}`,
        ),
        "",
      ],
    });
  });

  it("--format json --out writes the thread's export, which --json inspects later", async () => {
    const file = join(directory, "thread.json");
    const [exported, fromDatabase] = await Promise.all([
      cli(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--format", "json", "--out", file]),
      cli(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--format", "text"]),
    ]);
    const fromFile = await cli(["inspect", "--json", file, "--format", "text"]);
    expect({ exported, thread: JSON.parse(readFileSync(file, "utf8")), text: fromFile.stdout }).toEqual({
      exported: { code: 0, stdout: "", stderr: "" },
      thread,
      text: fromDatabase.stdout,
    });
  });

  it("--help prints the usage", async () => {
    const run = await cli(["inspect", "--help"]);
    expect({ code: run.code, first: run.stdout.split("\n")[0] }).toEqual({ code: 0, first: "Usage: langchain-compaction inspect <source> [options]" });
  });

  it.each([
    [[], "missing subcommand (the only one is `inspect`)"],
    [["export"], "unknown subcommand `export` (the only one is `inspect`)"],
    [["inspect"], "give a source: --sqlite <file>, --postgres <url>, --langgraph-url <url> or --json <file>"],
    [["inspect", "--sqlite", "x.db"], "--sqlite needs --thread <id>"],
    [["inspect", "--sqlite", "x.db", "--json", "x.json", "--thread", "t"], "give one source, not --sqlite and --json"],
    [["inspect", "--json", "x.json", "--thread", "t"], "--thread goes with --sqlite, --postgres or --langgraph-url; a JSON export holds one thread"],
    [["inspect", "--langgraph-url", "http://localhost:2024"], "--langgraph-url needs --thread <id>"],
    [["inspect", "--langgraph-url", "http://localhost:2024", "--json", "x.json"], "give one source, not --langgraph-url and --json"],
    [["inspect", "--json", "x.json", "--format", "pdf"], "--format must be html, text or json, not `pdf`"],
    [["inspect", "--json", "x.json", "--colour"], "unknown option --colour"],
    [["inspect", "--json"], "Option '--json <value>' argument missing"],
    [["inspect", "extra", "--json", "x.json"], "unexpected argument `extra`"],
    [["inspect", "--sqlite", "a.db", "--sqlite", "b.db", "--thread", "t"], "--sqlite given more than once"],
    [["inspect", "--json", "x.json", "--out", "a.html", "--out", "b.html"], "--out given more than once"],
    [["inspect", "--json", "x.json", "--window", "0"], "--window must be a positive whole number of tokens, not `0`"],
    [["inspect", "--json", "x.json", "--trigger", "6.5k"], "--trigger must be a positive whole number of tokens, not `6.5k`"],
  ])("bad arguments %j: exit code 2 and one line saying what is wrong", async (args, problem) => {
    expect(await cli(args)).toEqual({ code: 2, stdout: "", stderr: `langchain-compaction: ${problem} (see langchain-compaction inspect --help)\n` });
  });

  it("a thread the file does not have: exit code 1 and the message listing the threads it has, no stack trace", async () => {
    expect(await cli(["inspect", "--sqlite", database, "--thread", "nobody", "--format", "text"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `langchain-compaction: --thread: expected the id of a thread in ${database}; got the string "nobody" (no checkpoint for it; its threads: "${THREAD_ID}")\n`,
    });
  });

  it("a missing --sqlite file: exit code 1, the message naming it, and no file created", async () => {
    const missing = join(directory, "missing.sqlite");
    expect({ ...(await cli(["inspect", "--sqlite", missing, "--thread", THREAD_ID, "--format", "text"])), created: existsSync(missing) }).toEqual({
      code: 1,
      stdout: "",
      stderr: `langchain-compaction: --sqlite: expected the path of a SQLite checkpoint file; got ${describeValue(missing)} (no such file)\n`,
      created: false,
    });
  });

  it("leaves the SQLite file it reads as it was, byte for byte (a rollback-journal file stays one)", async () => {
    const own = mkdtempSync(join(directory, "source-"));
    const copy = join(own, "rollback.sqlite");
    copyFileSync(database, copy);
    const handle = SqliteSaver.fromConnString(copy).db;
    handle.pragma("journal_mode = DELETE");
    handle.close();
    const md5 = md5Of(copy);
    const result = await cli(["inspect", "--sqlite", copy, "--thread", THREAD_ID, "--out", join(directory, "from-copy.html")]);
    expect({ code: result.code, stderr: result.stderr, md5: md5Of(copy), journal: sqliteJournalMode(copy), files: readdirSync(own) }).toEqual({
      code: 0,
      stderr: "",
      md5,
      journal: "rollback",
      files: ["rollback.sqlite"],
    });
  });

  it("a write that fails halfway (a file size limit) leaves the previous --out file as it was, and no temporary file", async () => {
    const own = mkdtempSync(join(directory, "out-"));
    const out = join(own, "report.html");
    writeFileSync(out, "the previous report");
    // 128 KiB: above what the loader caches, below the report.
    const limitKiB = 128;
    expect(renderInspectionHtml(inspection).length).toBeGreaterThan(limitKiB * 1024);
    const result = await cliInShell(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--out", out], `ulimit -f ${limitKiB} && exec`, "");
    expect({ ...result, out: readFileSync(out, "utf8"), files: readdirSync(own) }).toEqual({
      code: 1,
      stdout: "",
      stderr: `langchain-compaction: cannot write ${out}: EFBIG: file too large, write\n`,
      out: "the previous report",
      files: ["report.html"],
    });
  });

  it("--format json into a reader that stops early (| head -c 100): exit code 0, nothing on stderr", async () => {
    // The export is far larger than a pipe holds, so the command is still writing when head exits.
    const result = await cliInShell(["inspect", "--sqlite", database, "--thread", THREAD_ID, "--format", "json"], "", '| head -c 100; exit "${PIPESTATUS[0]}"');
    expect(result).toEqual({ code: 0, stdout: `${JSON.stringify(thread, null, 2)}\n`.slice(0, 100), stderr: "" });
  });

  it("a file that is not a thread export: exit code 1 and the message", async () => {
    const file = join(directory, "package.json");
    writeFileSync(file, JSON.stringify({ name: "x" }));
    expect(await cli(["inspect", "--json", file])).toEqual({
      code: 1,
      stdout: "",
      stderr: `langchain-compaction: loadThreadFromJson: ${file}: not a thread export: "format" is missing, expected "langchain-compaction/thread@1"\n`,
    });
  });
});

#!/usr/bin/env node
// The `langchain-compaction` command. One subcommand, `inspect`: read a thread from a SQLite or
// PostgreSQL checkpointer, a running LangGraph server or a JSON export, and write the inspector's HTML page, a text summary or the
// thread's JSON export. Exit codes: 0 done, 1 failed (the message says why), 2 bad arguments.
import { mkdtemp, rename, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { InvalidOptionError } from "./errors.js";
import type { ThreadExport } from "./inspector/inspection.js";

const COMMAND = "langchain-compaction";
const FORMATS = ["html", "text", "json"] as const;
type Format = (typeof FORMATS)[number];
const SOURCES = ["sqlite", "postgres", "langgraph-url", "json"] as const;
type SourceKind = (typeof SOURCES)[number];

const USAGE = `Usage: ${COMMAND} inspect <source> [options]

Inspect the compactions of one agent thread.

Sources (exactly one):
  --sqlite <file> --thread <id>       a SQLite checkpoint file written by SqliteSaver
  --postgres <url> --thread <id>      a PostgreSQL database written by PostgresSaver (and PostgresStore)
      [--schema <name>]               the schema of its tables (default: public)
  --langgraph-url <url> --thread <id> a LangGraph API server (langgraphjs dev, LangGraph Platform),
                                      read through @langchain/langgraph-sdk
  --json <file>                       a thread exported with --format json

Options:
  --format html|text|json   html: one self-contained page (default); text: a summary for the terminal;
                            json: the thread's export, to inspect later with --json
  --out <file>              where to write (default: html goes to a new temporary directory, whose
                            path is printed; text and json go to stdout)
  --title <text>            the HTML page's title
  --window <tokens>         the model's context window, drawn as a line on the chart (the log does not record it)
  --trigger <tokens>        the size at which the thread's compaction starts, drawn as a line on the chart
  -h, --help                show this help

Examples:
  ${COMMAND} inspect --sqlite checkpoints.db --thread t1 --out report.html
  ${COMMAND} inspect --postgres postgresql://localhost/app --thread t1 --format json --out t1.json
  ${COMMAND} inspect --langgraph-url http://localhost:2024 --thread <thread id>
  ${COMMAND} inspect --json t1.json --format text
`;

/** Bad arguments: exit code 2 and one line. */
class UsageError extends Error {}

interface InspectCommand {
  readonly source: { kind: SourceKind; location: string };
  readonly threadId: string | undefined;
  readonly schema: string | undefined;
  readonly format: Format;
  readonly out: string | undefined;
  readonly title: string | undefined;
  /** `--window` and `--trigger`, for the chart. */
  readonly limits: { contextWindow?: number; triggerTokens?: number };
}

/** parseArgs' messages are long and end in advice about `--`; the first sentence is the problem. */
function usageProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${/'([^']+)'/.exec(message)?.[1] ?? message}`;
  return message.split(/\.\s/)[0]!.replace(/\.$/, "");
}

/** The command line after the command's name, or null for `--help`. */
function parseCommand(args: readonly string[]): InspectCommand | null {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        sqlite: { type: "string" },
        postgres: { type: "string" },
        json: { type: "string" },
        "langgraph-url": { type: "string" },
        thread: { type: "string" },
        schema: { type: "string" },
        format: { type: "string" },
        out: { type: "string" },
        title: { type: "string" },
        window: { type: "string" },
        trigger: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(usageProblem(error));
  }
  const { values, positionals, tokens } = parsed;
  if (values.help) return null;
  // parseArgs keeps the last of a repeated option: `--sqlite a --sqlite b` would silently read b.
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} given more than once`);
    seen.add(token.name);
  }
  const [subcommand, ...extra] = positionals;
  if (subcommand === undefined) throw new UsageError("missing subcommand (the only one is `inspect`)");
  if (subcommand !== "inspect") throw new UsageError(`unknown subcommand \`${subcommand}\` (the only one is \`inspect\`)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument \`${extra[0]}\``);
  const sources = SOURCES.filter((kind) => values[kind] !== undefined);
  if (sources.length === 0) throw new UsageError("give a source: --sqlite <file>, --postgres <url>, --langgraph-url <url> or --json <file>");
  if (sources.length > 1) throw new UsageError(`give one source, not ${sources.map((kind) => `--${kind}`).join(" and ")}`);
  const kind = sources[0]!;
  const location = values[kind]!;
  if (location === "") throw new UsageError(`--${kind} needs a value`);
  if (kind === "json" && values.thread !== undefined) throw new UsageError("--thread goes with --sqlite, --postgres or --langgraph-url; a JSON export holds one thread");
  if (kind !== "json" && (values.thread === undefined || values.thread === "")) throw new UsageError(`--${kind} needs --thread <id>`);
  if (kind !== "postgres" && values.schema !== undefined) throw new UsageError("--schema goes with --postgres");
  const format = values.format ?? "html";
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be html, text or json, not \`${format}\``);
  if (values.out === "") throw new UsageError("--out needs a file name");
  const tokenCount = (flag: "window" | "trigger"): number | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const value = Number(text.replace(/_/g, ""));
    if (text.trim() === "" || !Number.isInteger(value) || value <= 0) throw new UsageError(`--${flag} must be a positive whole number of tokens, not \`${text}\``);
    return value;
  };
  const contextWindow = tokenCount("window");
  const triggerTokens = tokenCount("trigger");
  return {
    source: { kind, location },
    threadId: values.thread,
    schema: values.schema,
    format: format as Format,
    out: values.out,
    title: values.title,
    limits: { ...(contextWindow === undefined ? {} : { contextWindow }), ...(triggerTokens === undefined ? {} : { triggerTokens }) },
  };
}

/** The inspector, loaded once the arguments are known to be good: `--help` and usage errors answer at once. */
const inspector = () => import("./inspector/index.js");

async function loadThread(command: InspectCommand): Promise<ThreadExport> {
  const { loadThreadFromJson, loadThreadFromLangGraph, loadThreadFromPostgres, loadThreadFromSqlite } = await inspector();
  const { kind, location } = command.source;
  if (kind === "json") return loadThreadFromJson(location);
  if (kind === "sqlite") return loadThreadFromSqlite(location, command.threadId!);
  if (kind === "langgraph-url") return loadThreadFromLangGraph(location, command.threadId!);
  return loadThreadFromPostgres(location, command.threadId!, command.schema === undefined ? {} : { schema: command.schema });
}

async function inspect(command: InspectCommand): Promise<void> {
  const thread = await loadThread(command);
  const { buildInspection, renderInspectionHtml, renderInspectionText } = await inspector();
  if (command.format === "json") return output(command.out, `${JSON.stringify(thread, null, 2)}\n`);
  const inspection = await buildInspection(thread, command.limits);
  if (command.format === "text") return output(command.out, renderInspectionText(inspection));
  const out = command.out ?? (await temporaryReport(thread.threadId));
  await replaceFile(out, renderInspectionHtml(inspection, command.title === undefined ? {} : { title: command.title }));
  const { totals } = inspection;
  await writeStdout(`wrote ${out}: ${totals.originalMessages} messages, ${totals.compactions} compactions, ${inspection.warnings.length} warnings\n`);
}

/**
 * Where an HTML report goes without `--out`: `<thread>.html` in a new directory under the system's
 * temporary directory (never the working tree, which may be a repository). A new directory, not a
 * fixed name, so two runs never overwrite each other and no other user can have put a file there.
 */
async function temporaryReport(threadId: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "langchain-compaction-report-"));
  // The thread id as a file name: path separators and anything unusual become "_".
  const name = threadId.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_").slice(0, 100) || "thread";
  return join(directory, `${name}.html`);
}

async function output(path: string | undefined, text: string): Promise<void> {
  if (path === undefined) await writeStdout(text);
  else await replaceFile(path, text);
}

/**
 * Write `path` whole or not at all: into a temporary file beside it, then renamed over it (a rename
 * within a directory is atomic), so a failed write (a full disk, a size limit) leaves the previous
 * report as it was and no half-written one.
 */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    // Node's write errors name neither the file nor, for a rename, which of the two failed.
    throw new Error(`cannot write ${path}: ${describe(error)}`, { cause: error });
  }
}

/** The reader of standard output went away (`... | head`): not a failure, there is just no one to tell. */
class StdoutClosed extends Error {}

/** Write to standard output and wait until it is written, so a closed pipe is seen here and not as an unhandled error. */
function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => {
      if (!error) resolve();
      else reject(codeOf(error) === "EPIPE" ? new StdoutClosed() : error);
    });
  });
}

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** The command-line flag of each option the thread loaders name in their errors. */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = { threadId: "--thread", schema: "--schema", connectionString: "--postgres", server: "--langgraph-url", url: "--langgraph-url" };

/**
 * An error as the command line says it: a loader's option error names the flag the user typed
 * (`--thread`), not the function's option (`threadId`).
 */
function describeForCommandLine(error: unknown, command: InspectCommand | null): string {
  if (InvalidOptionError.isInstance(error)) {
    const flag = error.option === "path" && command ? `--${command.source.kind}` : FLAG_OF_OPTION[error.option];
    const prefix = `${error.component}: invalid option \`${error.option}\`: `;
    if (flag !== undefined && error.message.startsWith(prefix)) return `${flag}: ${error.message.slice(prefix.length)}`;
  }
  return describe(error);
}

/** An error's message, also for errors without one (a refused connection is an AggregateError with none). */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(describe))].join("; ");
  if (error instanceof Error) return error.message || String((error as { code?: unknown }).code ?? error.name);
  return String(error);
}

/** Run the command; resolves to its exit code. */
async function main(args: readonly string[]): Promise<number> {
  let command;
  try {
    command = parseCommand(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${COMMAND}: ${error.message} (see ${COMMAND} inspect --help)\n`);
    return 2;
  }
  try {
    if (command === null) await writeStdout(USAGE);
    else await inspect(command);
    return 0;
  } catch (error) {
    if (error instanceof StdoutClosed) return 0;
    process.stderr.write(`${COMMAND}: ${describeForCommandLine(error, command)}\n`);
    // A stack only on request: the failures people meet (a missing file, a refused connection) are not bugs.
    if (process.env["LANGCHAIN_COMPACTION_DEBUG"] && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

// A write to a closed pipe also emits 'error' on the stream; without a listener that would crash
// with a stack trace. The write's own callback (writeStdout) reports it.
process.stdout.on("error", (error) => {
  if (codeOf(error) !== "EPIPE") throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${COMMAND}: ${describe(error)}\n`);
    process.exitCode = 1;
  },
);

/**
 * Runs the real LangGraph JS dev server (`langgraphjs dev` from `@langchain/langgraph-cli`) on a
 * free port of 127.0.0.1, offline: analytics off, no browser, no reload, no tracing. The project is
 * a temporary directory (the server writes `.gitignore` and `.langgraph_api/` there) holding
 * `langgraph.json` and a `node_modules` link to this repository's, so the graph files (here, under
 * test/) and the server load one copy of `@langchain/langgraph`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = join(REPO, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs");
const OUTPUT_KEPT = 20_000;

/** A running dev server. */
export interface DevServer {
  readonly url: string;
  /** Milliseconds from spawning the CLI to the first successful `GET /ok`. */
  readonly startupMs: number;
  /** The server's output so far (its tail), for failure messages. */
  output(): string;
  /** Kills the CLI and the server it spawned (their process group), then removes the project directory. */
  stop(): Promise<void>;
}

/**
 * The graphs of a project's `langgraph.json`, each `"<path>:<export>"` with its path made absolute
 * (relative to the file), for {@link startDevServer}: the project is served as its file describes it.
 */
export async function graphsOf(configPath: string): Promise<Record<string, string>> {
  const config = JSON.parse(await readFile(configPath, "utf8")) as { graphs: Record<string, string> };
  return Object.fromEntries(Object.entries(config.graphs).map(([id, spec]) => [id, resolve(dirname(configPath), spec)]));
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/**
 * Start the dev server on `graphs` (`{ id: "<absolute path>:<export>" }`) and wait until it
 * answers, at most `timeoutMs`.
 * @throws when the server exits or does not answer in time (with its output).
 */
export async function startDevServer(graphs: Record<string, string>, timeoutMs = 60_000): Promise<DevServer> {
  const project = await mkdtemp(join(tmpdir(), "langgraph-api-test-"));
  await writeFile(join(project, "langgraph.json"), JSON.stringify({ node_version: "20", graphs, env: {} }));
  await symlink(join(REPO, "node_modules"), join(project, "node_modules"), "dir");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--config", join(project, "langgraph.json")],
    {
      cwd: project,
      // Its own process group, so stop() reaches the server process the CLI spawns.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LANGGRAPH_CLI_NO_ANALYTICS: "1", BROWSER: "none", LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false" },
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  const groupGone = async (withinMs: number) => {
    for (const deadline = Date.now() + withinMs; groupAlive() && Date.now() < deadline; ) await new Promise((done) => setTimeout(done, 100));
    return !groupAlive();
  };
  const stop = async () => {
    if (child.pid !== undefined && groupAlive()) {
      process.kill(-child.pid, "SIGTERM");
      if (!(await groupGone(5_000))) {
        process.kill(-child.pid, "SIGKILL");
        await groupGone(2_000);
      }
    }
    await rm(project, { recursive: true, force: true });
  };
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the dev server exited (${child.exitCode ?? child.signalCode}):\n${output}`);
      if (Date.now() - started > timeoutMs) throw new Error(`the dev server did not answer within ${timeoutMs} ms:\n${output}`);
      const ok = await fetch(`${url}/ok`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((done) => setTimeout(done, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, startupMs: Date.now() - started, output: () => output, stop };
}

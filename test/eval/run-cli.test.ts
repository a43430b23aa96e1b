/**
 * Usage errors of `npm run eval` (bench/eval/run.ts), run as a separate Node process: a mistake in
 * the command line is reported with the usage and exit code 2, before any trace is replayed.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH } from "../../examples/traces.js";

const PROJECT = resolve(import.meta.dirname, "../..");
const RUN = join(PROJECT, "bench", "eval", "run.ts");
const TSX = pathToFileURL(join(PROJECT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const out = mkdtempSync(join(tmpdir(), "langchain-compaction-eval-cli-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Run the evaluation on the bundled sessions at one window (short, should a check let it through); never rejects. */
function evalCli(args: readonly string[], directory = out): Promise<{ code: number; firstLine: string; wrote: boolean }> {
  const { OPENAI_API_KEY: _key, ...env } = process.env;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", TSX, RUN, "--traces", BUNDLED_TRACES_PATH, "--window", "64000", "--out", directory, "--quiet", ...args],
      { cwd: PROJECT, env, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        done({ code, firstLine: stderr.split("\n")[0]!, wrote: existsSync(join(directory, "EVAL.md")) });
      },
    );
  });
}

describe("npm run eval usage errors", () => {
  it("--chart-trace that matches no selected session: exit 2, nothing written", async () => {
    expect(await evalCli(["--chart-trace", "no-such-session"])).toEqual({
      code: 2,
      firstLine: "--chart-trace no-such-session: no session of the selected traces matches",
      wrote: false,
    });
  });

  it("--probe-compactions that is not a non-negative integer: exit 2", async () => {
    const runs = await Promise.all(["1.5", "-1", "x"].map((value) => evalCli([`--probe-compactions=${value}`])));
    expect(runs).toEqual(
      ["1.5", "-1", "x"].map((value) => ({ code: 2, firstLine: `--probe-compactions must be a non-negative integer, got "${value}"`, wrote: false })),
    );
  });

  it("--probe-compactions all is accepted (the default); offline the report says the probes were skipped and why", async () => {
    // Its own directory: the usage-error tests assert that nothing was written to theirs. --system and a
    // toolResultHiding --variant keep it short: no compaction and the LangChain rows always run.
    const directory = join(out, "accepted");
    const run = await evalCli(
      ["--probe-compactions", "all", "--trace", "tau-bench-airline/task2-trial1", "--system", "autoCompaction", "--variant", '{"system":"toolResultHiding","keepRecentGroups":2}'],
      directory,
    );
    const report = readFileSync(join(directory, "EVAL.md"), "utf8");
    const headline = report.slice(report.indexOf("## Window 64,000 tokens"), report.indexOf("Cost under each price set"));
    expect({
      ...run,
      probes: report.split("\n").find((line) => line.startsWith("probes:")),
      rows: headline.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| system") && !line.startsWith("| :")).map((line) => line.split(" | ")[0]),
      chart: report.includes("![cost vs retention at 64,000 tokens](eval-cost-retention-64000.svg)") && existsSync(join(directory, "eval-cost-retention-64000.svg")),
    }).toEqual({
      code: 0,
      firstLine: "",
      wrote: true,
      probes: "probes: skipped (no judge model: set OPENAI_API_KEY (and EVAL_JUDGE_MODEL) to run probes)",
      rows: ["| no compaction", "| ClearToolUsesEdit (view)", "| ClearToolUsesEdit (createAgent)", "| summarizationMiddleware", "| **autoCompaction**", "| **autoCompaction + recall**", '| **toolResultHiding {"keepRecentGroups":2}**'],
      chart: true,
    });
  });

  it("--frontier adds the sweep: its chart per window, its section in EVAL.md, its points in eval-results.json", async () => {
    const directory = join(out, "frontier");
    const run = await evalCli(["--frontier", "--trace", "tau-bench-airline/task2-trial1", "--system", "autoCompaction"], directory);
    const report = readFileSync(join(directory, "EVAL.md"), "utf8");
    const results = JSON.parse(readFileSync(join(directory, "eval-results.json"), "utf8")) as {
      frontierRun: { settings: number };
      frontier: { window: number; chart: string }[];
      frontierPoints: { window: number; system: string; costWithRereads: Record<string, number> }[];
      windows: { rows: { system: string; costWithRereads: number }[] }[];
    };
    const defaultPoint = results.frontierPoints.find((point) => point.system === "autoCompaction")!;
    expect({
      code: run.code,
      chart: existsSync(join(directory, "eval-frontier-64000.svg")),
      section: report.includes("## Frontier: cost with re-reads against reply grounding") && report.includes("![frontier at 64,000 tokens](eval-frontier-64000.svg)"),
      frontier: results.frontier.map(({ window, chart }) => [window, chart]),
      points: results.frontierPoints.length,
      // The default's point is its headline row, cost with re-reads per price set.
      defaultCost: defaultPoint.costWithRereads["reference"],
    }).toEqual({
      code: 0,
      chart: true,
      section: true,
      frontier: [[64_000, "eval-frontier-64000.svg"]],
      // The sweep's settings, the default, and the default with recall on.
      points: results.frontierRun.settings + 2,
      defaultCost: results.windows[0]!.rows.find((row) => row.system === "autoCompaction")!.costWithRereads,
    });
  });

  it("--system that matches no system: exit 2, nothing written", async () => {
    const run = await evalCli(["--system", "no-such-system"]);
    expect({ code: run.code, firstLine: run.firstLine.slice(0, run.firstLine.indexOf(" (")), wrote: run.wrote }).toEqual({
      code: 2,
      firstLine: "--system no-such-system: no system matches",
      wrote: false,
    });
  });
});

describe("where npm run eval writes", () => {
  it("without --out: to a new temporary folder it prints, never into bench/", async () => {
    const committed = ["EVAL.md", "eval-results.json", "eval-chart.svg", "eval-cost-retention-64000.svg"].map((file) => join(PROJECT, "bench", file));
    const before = committed.map((path) => readFileSync(path, "utf8"));
    // os.tmpdir() reads TMPDIR: the new folder lands in this test's own directory.
    const temporary = join(out, "tmp");
    mkdirSync(temporary, { recursive: true });
    const { OPENAI_API_KEY: _key, ...env } = process.env;
    const stderr = await new Promise<string>((done) => {
      execFile(
        process.execPath,
        ["--import", TSX, RUN, "--traces", BUNDLED_TRACES_PATH, "--window", "64000", "--trace", "tau-bench-airline/task2-trial1", "--system", "autoCompaction", "--quiet"],
        { cwd: PROJECT, env: { ...env, TMPDIR: temporary }, maxBuffer: 64 * 1024 * 1024 },
        (_error, _stdout, text) => done(text),
      );
    });
    const folder = /^wrote .* to (\S+) \(a new folder;/mu.exec(stderr)?.[1];
    // tsx keeps its cache in TMPDIR too.
    const made = readdirSync(temporary).filter((name) => !name.startsWith("tsx-")).map((name) => join(temporary, name));
    expect({ folder, made, report: folder !== undefined && existsSync(join(folder, "EVAL.md")), results: folder !== undefined && existsSync(join(folder, "eval-results.json")) }).toEqual({
      folder: made[0],
      made: [expect.stringMatching(/langchain-compaction-eval-/u)],
      report: true,
      results: true,
    });
    expect(committed.map((path) => readFileSync(path, "utf8"))).toEqual(before);
  });
});

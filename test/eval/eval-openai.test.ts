/**
 * `npm run eval` with `OPENAI_API_KEY` set: the real `ChatOpenAI` writes every system's summaries,
 * answers the probes and judges them, here against the scripted OpenAI-compatible server on
 * 127.0.0.1 (test/support/openai-server.ts). The evaluation runs as a separate Node process, as a
 * user runs it; the server answers by what each request is (a probe's answer, a judge's grade, or a
 * summary).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH } from "../../examples/traces.js";
import { startOpenAIServer, type OpenAIServer, type ReceivedRequest } from "../support/openai-server.js";

const PROJECT = resolve(import.meta.dirname, "../..");
const RUN = join(PROJECT, "bench", "eval", "run.ts");
const TSX = pathToFileURL(join(PROJECT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const SESSION = "tau-bench-airline/task2-trial1";
/** Small enough that the airline session (a long system prompt, 62 messages) is compacted. */
const WINDOW = 6000;

/** The judge's grade for every probe: the report's means must come out as exactly these. */
const GRADE = { accuracy: 4, context_awareness: 3, artifact_trail: 5, completeness: 2, continuity: 4, instruction_following: 5, rationale: "scripted" };

const lastText = (request: ReceivedRequest) => String(request.body?.messages.at(-1)?.content ?? "");
const kindOf = (request: ReceivedRequest) => {
  const text = lastText(request);
  if (text.startsWith("You grade an AI agent's answer")) return "judge";
  if (text.startsWith("This is an evaluation question about the conversation above")) return "answer";
  return "summary";
};

let server: OpenAIServer;
let out: string;
let run: { code: number; stderr: string };
let report: string;

beforeAll(async () => {
  server = await startOpenAIServer({
    fallback: (request) => {
      const kind = kindOf(request);
      if (kind === "judge") return { content: JSON.stringify(GRADE) };
      if (kind === "answer") return { content: "I do not know." };
      return { content: "<summary>The user wants to change their flights; the agent looked up the reservation.</summary>" };
    },
  });
  out = mkdtempSync(join(tmpdir(), "langchain-compaction-eval-openai-"));
  const env = {
    ...process.env,
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: server.baseURL,
    EVAL_ANSWER_MODEL: "answer-model",
    EVAL_JUDGE_MODEL: "judge-model",
  };
  const args = ["--import", TSX, RUN, "--traces", BUNDLED_TRACES_PATH, "--trace", SESSION, "--window", String(WINDOW), "--summary-model", "summary-model"];
  run = await new Promise((done) => {
    execFile(process.execPath, [...args, "--out", out, "--quiet", "--probe-compactions", "1"], { cwd: PROJECT, env, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) =>
      done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stderr }),
    );
  });
  report = readFileSync(join(out, "EVAL.md"), "utf8");
}, 180_000);

afterAll(async () => {
  await server.close();
  rmSync(out, { recursive: true, force: true });
});

describe("npm run eval with OPENAI_API_KEY (ChatOpenAI against a local OpenAI-compatible server)", () => {
  it("runs, and says which models wrote the summaries and judged the probes", () => {
    const lines = report.split("\n");
    expect({ code: run.code, stderr: run.stderr, summarizer: lines.find((line) => line.startsWith("- summarizer:")), judge: lines.find((line) => line.startsWith("Judge:")) }).toEqual({
      code: 0,
      stderr: "",
      summarizer: "- summarizer: ChatOpenAI summary-model (OPENAI_API_KEY set), for every summarizing system",
      judge: "Judge: answers answer-model, judge judge-model. Scores 0-5, mean over the probes asked after the first compaction of each system on each trace.",
    });
  });

  it("sends every summary to the summary model, every probe answer to the answer model and every grade to the judge model", () => {
    const models = new Map<string, Set<string>>();
    for (const request of server.requests) {
      const kind = kindOf(request);
      models.set(kind, (models.get(kind) ?? new Set()).add(request.body?.model ?? "?"));
    }
    expect(Object.fromEntries([...models].map(([kind, names]) => [kind, [...names]]))).toEqual({
      summary: ["summary-model"],
      answer: ["answer-model"],
      judge: ["judge-model"],
    });
  });

  it("asks one judge call per probe answer, and reports the judge's grades as the means", () => {
    const answers = server.requests.filter((request) => kindOf(request) === "answer").length;
    const judged = server.requests.filter((request) => kindOf(request) === "judge").length;
    const section = report.slice(report.indexOf("## Probes\n"), report.indexOf("## Input tokens per step"));
    const rows = section.split("\n").filter((line) => line.startsWith(`| ${WINDOW.toLocaleString("en-US")} |`));
    // overall = mean of the six scores (4 + 3 + 5 + 2 + 4 + 5) / 6 = 3.83; every kind scores it too.
    const probed = rows.map((line) => line.split("|").map((cell) => cell.trim()).filter((cell) => cell !== ""));
    expect({ judgedEveryAnswer: judged === answers, overall: [...new Set(probed.map((cells) => cells[5]))], probes: probed.reduce((sum, cells) => sum + Number(cells[2]), 0) }).toEqual({
      judgedEveryAnswer: true,
      overall: ["3.83"],
      probes: answers,
    });
  });
});
